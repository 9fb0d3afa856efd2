// The decompositions of torch.linalg: svd (gesdd), qr (geqrf, orgqr) and eigh
// (syevd), run per matrix of the batch (kernels/lapack.h), recording torch's
// nodes (LinalgSvdBackward0, LinalgQrBackward0, LinalgEighBackward0) and giving
// every output its forward-mode tangent (autograd/formulas/linalg_decompose.h).
// Argument checks and LinAlgError are the Python face's (_ops/linalg_decompose.py).
#include <algorithm>
#include <utility>
#include <vector>

#include "autograd/formulas/linalg_decompose.h"
#include "autograd/variable.h"
#include "kernels/householder_blocks.h"
#include "kernels/lapack.h"
#include "ops/common.h"
#include "ops/linalg_batch.h"

namespace gradtrack::ops {

using namespace linalg_batch;  // NOLINT: the batch helpers

namespace {

/// Whether the op must compute the factors its formulas read even when not asked.
bool differentiated(const Tensor& a) {
  return autograd::should_record({&a}) || autograd::forward_ad::any_tangent({&a});
}

void set_tangents(std::initializer_list<std::pair<const Tensor*, Tensor>> pairs) {
  for (const auto& [out, tangent] : pairs) autograd::forward_ad::set_tangent(*out, tangent);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices,
                                                      bool compute_uv) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch);
  // The factors torch's node needs are computed when A is differentiated (svdvals too).
  const bool vectors = compute_uv || differentiated(a);
  const bool full = full_matrices && compute_uv;
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  Tensor u = empty(vectors ? with_matrix(batch, m, ucols) : DimVector{0}, a.dtype());
  Tensor vh = empty(vectors ? with_matrix(batch, vrows, n) : DimVector{0}, a.dtype());
  Tensor s = empty(with_vector(batch, k), a.dtype());
  Tensor info = zeros(batch, ScalarType::Int32);
  {
    autograd::AutoGradMode off(false);
    Tensor work = work_copy(a);
    on_float_type(a.dtype(), [&](auto zero) {
      using T = decltype(zero);
      for (int64_t b = 0; b < count; ++b) {
        // NOTE [Row-major matrices in LAPACK]: the buffer is A^T column-major, whose
        // SVD V S U^T hands over Vh as its U and U as its V^T, both row-major as they are.
        T* pu = vectors ? u.data<T>() + b * m * ucols : nullptr;
        T* pv = vectors ? vh.data<T>() + b * vrows * n : nullptr;
        info.data<int32_t>()[b] = kernels::svd(work.data<T>() + b * m * n, int(n), int(m),
                                               s.data<T>() + b * k, pv, pu, full, vectors);
        if (k == 0 && full) {  // no singular vectors: the identities torch gives
          for (int64_t i = 0; i < m * m; ++i) pu[i] = i % (m + 1) == 0 ? T(1) : T(0);
          for (int64_t i = 0; i < n * n; ++i) pv[i] = i % (n + 1) == 0 ? T(1) : T(0);
        }
      }
    });
  }
  if (vectors) u = column_major(u), vh = column_major(vh);  // NOTE [Column-major results]
  if (autograd::forward_ad::any_tangent({&a})) {
    autograd::forward_ad::NoPropagation off;
    // full_matrices: the extra singular vectors get zero tangents, as torch's.
    const Tensor uk = full ? narrow(u, -1, 0, k) : u, vk = full ? narrow(vh, -2, 0, k) : vh;
    auto [du, ds, dvh] =
        autograd::formulas::linalg_svd_tangents(autograd::forward_ad::tangent(a), uk, s, vk);
    if (full && m > k) du = cat({du, zeros(with_matrix(batch, m, m - k), a.dtype())}, -1);
    if (full && n > k) dvh = cat({dvh, zeros(with_matrix(batch, n - k, n), a.dtype())}, -2);
    set_tangents({{&s, ds}});
    if (compute_uv) set_tangents({{&u, du}, {&vh, dvh}});
  }
  if (autograd::should_record({&a})) {
    auto node = autograd::new_node(OpKind::LinalgSvd, {&a});
    node->attrs.set<autograd::LinalgAttrs>().full_matrices = full;
    // U and Vh are the node's outputs even when not returned (svdvals), as torch's.
    autograd::finish_node_saving_outputs(node, {&a}, {&u, &s, &vh});
  }
  if (!compute_uv) return {empty({0}, a.dtype()), s, empty({0}, a.dtype()), info};
  return {u, s, vh, info};
}

std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, int mode) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch);
  const bool with_q = mode != 2;
  const int64_t qcols = mode == 1 ? m : k, rrows = mode == 1 ? m : k;
  Tensor q = empty(with_q ? with_matrix(batch, m, qcols) : DimVector{0}, a.dtype());
  Tensor r = zeros(with_matrix(batch, rrows, n), a.dtype());
  {
    autograd::AutoGradMode off(false);
    const Tensor rows = contiguous(a);
    // NOTE [Blocked Householder QR over two threads]
    const bool blocks = kernels::qr_blocks_pay(m, n, k);
    on_float_type(a.dtype(), [&](auto zero) {
      using T = decltype(zero);
      std::vector<T> buf(size_t(m * std::max(n, qcols))), tau(size_t(std::max<int64_t>(k, 1)));
      std::vector<T> qbuf(blocks && with_q ? size_t(m * qcols) : 0);
      for (int64_t b = 0; b < count; ++b) {
        transpose_tiles(rows.data<T>() + b * m * n, m, n, buf.data());  // column-major
        if (blocks) {
          kernels::qr_factor_blocks(buf.data(), int(m), int(n), tau.data());
        } else {
          kernels::qr_factor(buf.data(), int(m), int(n), tau.data());
        }
        T* pr = r.data<T>() + b * rrows * n;
        rows_from_columns(buf.data(), m, std::min(rrows, k), n, pr, n, [](int64_t i) { return i; });
        if (!with_q) continue;
        T* qcol = buf.data();
        if (blocks) {
          kernels::qr_q_blocks(buf.data(), int(m), int(qcols), int(k), tau.data(), qbuf.data());
          qcol = qbuf.data();
        } else {
          kernels::qr_q(buf.data(), int(m), int(qcols), int(k), tau.data());
        }
        T* pq = q.data<T>() + b * m * qcols;
        rows_from_columns(qcol, m, m, qcols, pq, qcols, [](int64_t) { return int64_t(0); });
      }
    });
  }
  r = column_major(r);  // NOTE [Column-major results]
  if (with_q) q = column_major(q);
  if (autograd::forward_ad::any_tangent({&a})) {
    if (!with_q) {
      throw Error(
          "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
          "use linalg.qr(A, mode='reduced') if you are going to differentiate through "
          "linalg.qr.");
    }
    if (mode == 1 && m > n) {
      throw Error(
          "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    }
    autograd::forward_ad::NoPropagation off;
    auto [dq, dr] = autograd::formulas::linalg_qr_tangents(autograd::forward_ad::tangent(a), q, r);
    set_tangents({{&q, dq}, {&r, dr}});
  }
  if (autograd::should_record({&a})) {
    auto node = autograd::new_node(OpKind::LinalgQr, {&a});
    node->attrs.set<autograd::LinalgAttrs>().mode = mode;
    autograd::finish_node_saving_outputs(node, {&a}, {&q, &r});
  }
  return {q, r};
}

std::tuple<Tensor, Tensor, Tensor> linalg_eigh(const Tensor& a, bool upper, bool compute_v) {
  const int64_t n = a.size(-1);
  const DimVector batch = batch_of(a.sizes());
  const int64_t count = count_of(batch);
  const bool vectors = compute_v || differentiated(a);
  Tensor l = empty(with_vector(batch, n), a.dtype());
  Tensor info = zeros(batch, ScalarType::Int32);
  Tensor v;
  {
    autograd::AutoGradMode off(false);
    Tensor work = work_copy(a);
    on_float_type(a.dtype(), [&](auto zero) {
      using T = decltype(zero);
      for (int64_t b = 0; b < count; ++b) {
        // NOTE [Row-major matrices in LAPACK]: the buffer is A^T column-major, so
        // A's lower triangle is its upper one, and its columns (V's) come back as rows.
        info.data<int32_t>()[b] =
            kernels::eigh(work.data<T>() + b * n * n, int(n), l.data<T>() + b * n, !upper, vectors);
      }
    });
    // V's columns are work's rows: work read transposed (a new tensor over its
    // buffer, not a view) is V column-major, as torch's (NOTE [Column-major results])
    if (vectors) {
      DimVector strides = work.strides();
      std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
      v = alias_with_geometry(work, work.sizes(), strides, 0);
    } else {
      v = empty({0}, a.dtype());
    }
  }
  if (autograd::forward_ad::any_tangent({&a})) {
    autograd::forward_ad::NoPropagation off;
    auto [dl, dv] =
        autograd::formulas::linalg_eigh_tangents(autograd::forward_ad::tangent(a), l, v);
    set_tangents({{&l, dl}});
    if (compute_v) set_tangents({{&v, dv}});
  }
  if (autograd::should_record({&a})) {
    auto node = autograd::new_node(OpKind::LinalgEigh, {&a});
    autograd::finish_node_saving_outputs(node, {&a}, {&l, &v});
  }
  return {l, compute_v ? v : empty({0}, a.dtype()), info};
}

}  // namespace gradtrack::ops
