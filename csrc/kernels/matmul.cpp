// Matrix products: our AVX-512 GEMM or OpenBLAS for float types, a plain loop
// for integers.
#include <cstring>

#include "kernels/blas.h"
#include "kernels/gemm_amx.h"
#include "kernels/reduced_float.h"
#include "kernels/pointwise.h"
#include "kernels/matmul.h"
#include "kernels/parallel.h"

extern "C" {
void scipy_openblas_set_num_threads(int n);
char* scipy_openblas_get_corename(void);
}

namespace gradtrack::kernels {

namespace {

constexpr int64_t kBlasLimit = INT32_MAX;

// How a 2-D operand can be handed to BLAS without a copy.
struct Layout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

Layout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  const int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
  if ((cols == 1 || cs == 1) && (rows == 1 || rs >= c1)) return {true, false, rows == 1 ? c1 : rs};
  if ((rows == 1 || rs == 1) && (cols == 1 || cs >= r1)) return {true, true, cols == 1 ? r1 : cs};
  return {};
}

// One [M, K] @ [K, N] product, split over OpenMP threads along M or N.
template <typename T>
void gemm_one(T* c, int64_t ldc, const T* a, Layout la, const T* b, Layout lb, int64_t m, int64_t n,
              int64_t k, T beta, bool parallel) {
  const int64_t flops = m * n * k;
  int threads = parallel && flops >= (int64_t(1) << 18) ? get_num_threads() : 1;
  const bool split_m = m >= n;
  const int64_t along = split_m ? m : n;
  if (threads > along) threads = static_cast<int>(along);
  // Our kernel splits the product over the threads itself (NOTE [AVX-512 GEMM threads]).
  if (gemm_avx512_wins<T>(m, n, k))
    return gemm_avx512<T>(la.trans, lb.trans, m, n, k, a, la.ld, b, lb.ld, beta, c, ldc, threads);
  if (threads <= 1) {
    blas_gemm<T>(la.trans, lb.trans, m, n, k, a, la.ld, b, lb.ld, beta, c, ldc);
    return;
  }
  parallel_for(threads, 0, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; ++t) {
      int64_t per = (along + threads - 1) / threads;
      int64_t lo = t * per, hi = lo + per < along ? lo + per : along;
      if (lo >= hi) continue;
      if (split_m) {
        const T* ap = la.trans ? a + lo : a + lo * la.ld;
        blas_gemm<T>(la.trans, lb.trans, hi - lo, n, k, ap, la.ld, b, lb.ld, beta, c + lo * ldc,
                     ldc);
      } else {
        const T* bp = lb.trans ? b + lo * lb.ld : b + lo;
        blas_gemm<T>(la.trans, lb.trans, m, hi - lo, k, a, la.ld, bp, lb.ld, beta, c + lo, ldc);
      }
    }
  });
}

Tensor dense_copy(const Tensor& t) {
  Tensor c = empty(t.sizes(), t.dtype());
  copy(c, t);
  return c;
}

template <typename T>
void float_gemm(const Tensor& out, const Tensor& a0, const Tensor& b0, bool accumulate) {
  const int64_t B = out.sizes()[0], M = out.sizes()[1], N = out.sizes()[2], K = a0.sizes()[2];
  Tensor a = a0, b = b0;
  Layout la = blas_layout(M, K, a.strides()[1], a.strides()[2]);
  Layout lb = blas_layout(K, N, b.strides()[1], b.strides()[2]);
  if (!la.ok) {
    a = dense_copy(a0);
    la = blas_layout(M, K, a.strides()[1], a.strides()[2]);
  }
  if (!lb.ok) {
    b = dense_copy(b0);
    lb = blas_layout(K, N, b.strides()[1], b.strides()[2]);
  }
  GT_CHECK(M < kBlasLimit && N < kBlasLimit && K < kBlasLimit && la.ld < kBlasLimit &&
               lb.ld < kBlasLimit,
           "matmul: dimensions too large for 32-bit BLAS");
  const T beta = accumulate ? T(1) : T(0);
  T* c = out.data<T>();
  const T* ap = a.data<T>();
  const T* bp = b.data<T>();
  const int64_t sa = a.strides()[0], sb = b.strides()[0], sc = out.strides()[0];
  const int64_t ldc = out.strides()[1];
  // Many small products, or at least two per thread: threads over the batch
  // (one fork for the whole batch, each product packed once); few big ones:
  // threads inside each product.
  const int64_t threads = get_num_threads();
  if (B > 1 && (M * N * K < (int64_t(1) << 18) || (threads > 1 && B >= 2 * threads))) {
    parallel_for(B, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, M * N * K)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t i = lo; i < hi; ++i)
                     gemm_one<T>(c + i * sc, ldc, ap + i * sa, la, bp + i * sb, lb, M, N, K, beta,
                                 false);
                 });
    return;
  }
  for (int64_t i = 0; i < B; ++i)
    gemm_one<T>(c + i * sc, ldc, ap + i * sa, la, bp + i * sb, lb, M, N, K, beta, true);
}

template <typename T>
void int_gemm(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate) {
  const int64_t B = out.sizes()[0], M = out.sizes()[1], N = out.sizes()[2], K = a.sizes()[2];
  const auto& as = a.strides();
  const auto& bs = b.strides();
  const auto& cs = out.strides();
  T* c = out.data<T>();
  const T* ap = a.data<T>();
  const T* bp = b.data<T>();
  parallel_for(B * M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * K)),
               [&](int64_t lo, int64_t hi) {
                 for (int64_t r = lo; r < hi; ++r) {
                   int64_t bi = r / M, i = r % M;
                   T* crow = c + bi * cs[0] + i * cs[1];
                   if (!accumulate)
                     for (int64_t j = 0; j < N; ++j) crow[j * cs[2]] = T(0);
                   for (int64_t kk = 0; kk < K; ++kk) {
                     T av = ap[bi * as[0] + i * as[1] + kk * as[2]];
                     const T* brow = bp + bi * bs[0] + kk * bs[1];
                     for (int64_t j = 0; j < N; ++j) crow[j * cs[2]] += av * brow[j * bs[2]];
                   }
                 }
               });
}

}  // namespace

void gemm(const Tensor& out, const Tensor& a0, const Tensor& b0, bool accumulate,
          const char* name) {
  if (out.numel() == 0) return;
  if (any_reduced({&out, &a0, &b0})) {  // NOTE [Reduced floats are stored, not computed]
    const int64_t k = a0.sizes()[2];
    const bool bf16 = out.dtype() == ScalarType::BFloat16 && a0.dtype() == ScalarType::BFloat16 &&
                      b0.dtype() == ScalarType::BFloat16;
    const bool amx = bf16 && k > 0 && use_amx_bf16();  // NOTE [AMX bfloat16 products]
    if (amx && !accumulate && out.strides()[2] == 1 && !may_overlap(out, a0) &&
        !may_overlap(out, b0)) {
      // NOTE [Rounding as the tiles leave]
      ScopedGilRelease gil(out.numel() * k >= kReleaseGilAbove * 4 && !in_parallel_region());
      return gemm_amx_bf16_rounded(out, aligned(a0), aligned(b0));
    }
    WideOut w(out, accumulate);
    if (amx) {
      ScopedGilRelease gil(out.numel() * k >= kReleaseGilAbove * 4 && !in_parallel_region());
      gemm_amx_bf16(w.t, aligned(a0), aligned(b0), accumulate);
    } else {
      gemm(w.t, widen(a0), widen(b0), accumulate, name);
    }
    return w.commit();
  }
  const Tensor a = aligned(a0), b = aligned(b0);
  const int64_t work = out.numel() * a.sizes()[2];
  ScopedGilRelease gil(work >= kReleaseGilAbove * 4 && !in_parallel_region());
  if (a.sizes()[2] == 0) {
    if (!accumulate) fill(out, Scalar(0));
    return;
  }
  switch (out.dtype()) {
    case ScalarType::Float32: return float_gemm<float>(out, a, b, accumulate);
    case ScalarType::Float64: return float_gemm<double>(out, a, b, accumulate);
    case ScalarType::Int64: return int_gemm<int64_t>(out, a, b, accumulate);
    case ScalarType::Int32: return int_gemm<int32_t>(out, a, b, accumulate);
    case ScalarType::UInt8: return int_gemm<uint8_t>(out, a, b, accumulate);
    case ScalarType::Int8: return int_gemm<int8_t>(out, a, b, accumulate);
    case ScalarType::Int16: return int_gemm<int16_t>(out, a, b, accumulate);
    default:
      throw NotImplementedError(
          str_cat("\"", name, "\" not implemented for '", scalar_type_name(out.dtype()), "'"));
  }
}

const char* blas_init() {
  scipy_openblas_set_num_threads(1);
  return scipy_openblas_get_corename();
}

}  // namespace gradtrack::kernels
