#include "kernels/loops.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define GT_STREAM_STORES 1
#endif

namespace gradtrack::kernels {

namespace {

std::atomic<int64_t> g_stream_bytes{kStreamBytes};

// Sets p.stream once the plan is built: the output's runs are dense and the
// operands span at least stream_store_bytes(). A plan without inputs never
// streams (any_zero reads its output slot).
void choose_streaming(const Tensor& out, std::initializer_list<Operand> ins, LoopPlan& p) {
  p.out_item = static_cast<int64_t>(itemsize(out.dtype()));
  if (ins.size() == 0 || p.shape.empty() || p.strides[0].back() != p.out_item) return;
  int64_t bytes = p.numel * p.out_item;
  const void* seen[kMaxOperands] = {out.raw()};
  int nseen = 1;
  for (const Operand& op : ins) {
    // A tensor read twice (x * x), or an in-place op's output, counts once.
    if (!op.tensor || std::find(seen, seen + nseen, op.tensor->raw()) != seen + nseen) continue;
    seen[nseen++] = op.tensor->raw();
    bytes += op.tensor->numel() * static_cast<int64_t>(itemsize(op.tensor->dtype()));
  }
  p.stream = bytes >= g_stream_bytes.load(std::memory_order_relaxed);
}

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
  if (dense_plan(out, ins, p)) {
    choose_streaming(out, ins, p);
    return p;
  }
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
  choose_streaming(out, ins, p);
  return p;
}

int64_t stream_store_bytes() { return g_stream_bytes.load(std::memory_order_relaxed); }

void set_stream_store_bytes(int64_t bytes) {
  g_stream_bytes.store(bytes, std::memory_order_relaxed);
}

namespace {

#ifdef GT_STREAM_STORES
// bytes (a multiple of the store's width) to a dst aligned to it. 32-byte
// stores where the CPU has AVX: half the instructions of SSE2's per line.
__attribute__((target("avx"))) void stream_body_avx(char* dst, const char* src, int64_t bytes) {
  for (int64_t i = 0; i < bytes; i += 32)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
}
void stream_body_sse2(char* dst, const char* src, int64_t bytes) {
  for (int64_t i = 0; i < bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
}
#endif

}  // namespace

void stream_copy(char* dst, const char* src, int64_t bytes) {
#ifdef GT_STREAM_STORES
  // Plain stores up to the store width's boundary of dst and for the tail.
  static const bool avx = __builtin_cpu_supports("avx");
  const int64_t width = avx ? 32 : 16;
  const int64_t head = std::min<int64_t>(
      bytes, static_cast<int64_t>((width - (reinterpret_cast<uintptr_t>(dst) & (width - 1))) &
                                  (width - 1)));
  const int64_t body = (bytes - head) / width * width;
  std::memcpy(dst, src, static_cast<size_t>(head));
  (avx ? stream_body_avx : stream_body_sse2)(dst + head, src + head, body);
  std::memcpy(dst + head + body, src + head + body, static_cast<size_t>(bytes - head - body));
#else
  std::memcpy(dst, src, static_cast<size_t>(bytes));
#endif
}

void stream_fence() {
#ifdef GT_STREAM_STORES
  _mm_sfence();
#endif
}

}  // namespace gradtrack::kernels
