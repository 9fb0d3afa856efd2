#include "kernels/loops.h"

#include <algorithm>

namespace gradtrack::kernels {

namespace {

// The common case: every tensor operand dense with the output's element
// count (scalars are fine): one flat run, no per-dim bookkeeping.
bool dense_plan(const Tensor& out, std::initializer_list<Operand> ins, LoopPlan& p) {
  if (!out.is_contiguous()) return false;
  const int64_t n = out.numel();
  for (const Operand& op : ins) {
    if (op.tensor && (!op.tensor->is_contiguous() || op.tensor->numel() != n)) return false;
  }
  p.nops = static_cast<int>(ins.size()) + 1;
  p.numel = n;
  p.shape.resize(1, n);
  p.base[0] = out.raw();
  p.strides[0].resize(1, static_cast<int64_t>(itemsize(out.dtype())));
  int k = 1;
  for (const Operand& op : ins) {
    if (op.tensor) {
      p.base[k] = op.tensor->raw();
      p.strides[k].resize(1, n == 1 ? 0 : static_cast<int64_t>(itemsize(op.tensor->dtype())));
    } else {
      p.base[k] = static_cast<char*>(const_cast<void*>(op.scalar));
      p.strides[k].resize(1, 0);
    }
    ++k;
  }
  if (n == 1) p.strides[0][0] = 0;
  return true;
}

}  // namespace

LoopPlan make_plan(const Tensor& out, std::initializer_list<Operand> ins) {
  LoopPlan p;
  if (dense_plan(out, ins, p)) return p;
  p.nops = static_cast<int>(ins.size()) + 1;
  const int64_t nd = out.dim();
  // Byte strides of every operand over the output's dims (0 where broadcast).
  SmallVector<int64_t, 6> st[kMaxOperands];
  auto fill = [&](int k, const Tensor& t) {
    int64_t item = static_cast<int64_t>(itemsize(t.dtype()));
    st[k].resize(nd, 0);
    int64_t lead = nd - t.dim();
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (t.sizes()[d] != 1) st[k][lead + d] = t.strides()[d] * item;
    }
    p.base[k] = t.raw();
  };
  fill(0, out);
  int k = 1;
  for (const Operand& op : ins) {
    if (op.tensor != nullptr) {
      fill(k, *op.tensor);
    } else {
      st[k].resize(nd, 0);
      p.base[k] = static_cast<char*>(const_cast<void*>(op.scalar));
    }
    ++k;
  }
  p.numel = out.numel();

  // Visit dims in the output's memory order (largest stride outermost), so a
  // transposed tensor is walked as it lies in memory; ties go to the inputs.
  SmallVector<int64_t, 6> perm(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) perm[d] = d;
  auto outer_first = [&](int64_t a, int64_t b) {
    for (int k = 0; k < p.nops; ++k) {
      int64_t x = st[k][a] < 0 ? -st[k][a] : st[k][a], y = st[k][b] < 0 ? -st[k][b] : st[k][b];
      if (x != y && x != 0 && y != 0) return x > y;
    }
    return a < b;
  };
  std::stable_sort(perm.begin(), perm.end(), outer_first);

  // Drop size-1 dims, then merge a dim into its inner neighbour when every
  // operand steps through both as one run.
  DimVector shape;
  SmallVector<int64_t, 6> cs[kMaxOperands];
  for (int64_t d : perm) {
    int64_t sz = out.sizes()[d];
    if (sz == 1) continue;
    if (!shape.empty()) {
      bool merge = true;
      for (int j = 0; j < p.nops && merge; ++j) merge = cs[j].back() == st[j][d] * sz;
      if (merge) {
        shape.back() *= sz;
        for (int j = 0; j < p.nops; ++j) cs[j].back() = st[j][d];
        continue;
      }
    }
    shape.push_back(sz);
    for (int j = 0; j < p.nops; ++j) cs[j].push_back(st[j][d]);
  }
  p.shape = std::move(shape);
  for (int j = 0; j < p.nops; ++j) p.strides[j] = std::move(cs[j]);
  return p;
}

}  // namespace gradtrack::kernels
