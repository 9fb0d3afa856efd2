// The LSTM layer: one matrix product for the input projections of all steps,
// then per step one product for the hidden projection and a fused pointwise
// cell; the backward is the same walk in reverse (NOTE [LSTM layer]).
//
// NOTE [LSTM layer]
// torch hands a float32 LSTM layer to oneDNN, whose node is
// MkldnnRnnLayerBackward0; this is that layer on OpenBLAS. The forward keeps
// the activated gates, the cell states and their tanh, so the backward needs
// no transcendental function: per step it forms the gates' gradient dG_t
// (i, f, g, o: [B, 4H]) and dh_{t-1} = dG_t W_hh. The weight gradients are
// then three large products over all steps at once: dW_ih = dG^T X,
// dW_hh = dG^T H_prev (H_prev being the outputs shifted by one step, plus h0)
// and dX = dG W_ih.
#include "kernels/nn/rnn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/blas.h"
#include "kernels/parallel.h"
#include "kernels/simd.h"
#include "kernels/simd_math.h"
#include "kernels/small_gemm.h"

namespace gradtrack::kernels::nn {

namespace {

// One thread's c [m, n] (leading dimension ldc) = beta * c + op(a) op(b), on
// OpenBLAS; k == 0 scales c (BLAS rejects a zero leading dimension).
template <typename T>
void gemm_ld(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
             int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : c[i * ldc + j] * beta;
    return;
  }
  blas_gemm<T>(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

// Part p of `parts` equal parts of [0, n).
struct Span {
  int64_t lo, hi;
};
Span share(int64_t p, int64_t parts, int64_t n) { return {n * p / parts, n * (p + 1) / parts}; }

// NOTE [LSTM products in one region]
// The layer's large products (the input projection before the steps; the
// gradients of x and of both weights after them) and their small companions
// (bias fill, W_hh^T, dW_hh's first step, db) run in one parallel region per
// side, each thread taking its share of rows of every one: a region per
// product cost a fork and a barrier each, and the small ones ran on one
// thread while the other waited. Worth it from ~8M multiply-adds in total.
int64_t product_parts(int64_t madds) {
  return madds >= (int64_t(1) << 23) ? std::max(1, get_num_threads()) : 1;
}

// NOTE [LSTM rows in parallel]
// A batch row's recurrence never reads another row: h_t[b] needs only
// h_{t-1}[b], and going back dh_{t-1}[b] only dG_t[b]. So the threads each take
// a block of rows through every step, with no barrier between steps; the
// per-step products were serial before, most of a small layer's time. A block
// is worth a thread from about a million multiply-adds over the steps.
int64_t recurrence_grain(const LstmDims& d) {
  const int64_t per_row = std::max<int64_t>(1, d.steps * 4 * d.hidden * d.hidden);
  return std::max<int64_t>(1, (int64_t(1) << 20) / per_row);
}

// One step's product c[m, n] = beta * c + a[m, k] @ b[k, n] (NOTE [Small
// GEMM]): a few rows per thread, where BLAS's packing of b costs as much as
// the product. Many rows per thread go to BLAS, which packs b once for them.
template <typename T>
void step_gemm(int64_t m, int64_t n, int64_t k, const T* a, const T* b, int64_t ldb, T beta, T* c) {
  if (m <= 64) return small_gemm<T>(m, n, k, a, k, b, ldb, beta, c, n);
  if (n == 0) return;
  blas_gemm<T>(false, false, m, n, k, a, k, b, ldb, beta, c, n);
}

// W_hh^T's row length: 16 elements past 4H, so that its rows (a
// power-of-two bytes apart at the usual sizes) do not all fall into the same
// few L1 sets while the small GEMM walks down a column panel (measured 74 ->
// 83 GFLOP/s at 10 rows, H = 128).
int64_t padded_ld(int64_t G) { return G + 16; }

// e[i] = exp(scale * v[i]): the vector polynomial for float32.
void scaled_exp(const float* v, float scale, float* e, int64_t n) {
  for (int64_t i = 0; i < n; ++i) e[i] = scale * v[i];
  simd::exp(e, e, n);
}

// Activates one step's gates in place and forms c and h. float32 goes through
// vector loops: sigmoid = 1 / (1 + e^-x) on the vector exp, and the vector tanh
// (kernels/simd_math.h), within 1 ulp as torch's; float64 uses the library
// functions, for gradcheck-grade accuracy.
void cell_forward(float* g, const float* cp, float* c, float* tc, float* h, int64_t B, int64_t H,
                  std::vector<float>& scratch) {
  const int64_t G = 4 * H;
  scratch.resize(static_cast<size_t>(B * G));
  float* e = scratch.data();
  for (int64_t b = 0; b < B; ++b) {
    float* row = g + b * G;
    float* er = e + b * G;
    scaled_exp(row, -1.0f, er, 2 * H);
    simd::tanh(row + 2 * H, row + 2 * H, H);
    scaled_exp(row + 3 * H, -1.0f, er + 3 * H, H);
    for (int64_t j = 0; j < 2 * H; ++j) row[j] = 1.0f / (1.0f + er[j]);
    for (int64_t j = 3 * H; j < G; ++j) row[j] = 1.0f / (1.0f + er[j]);
    const float* i = row;
    const float* f = row + H;
    const float* gg = row + 2 * H;
    float* cr = c + b * H;
    for (int64_t j = 0; j < H; ++j) cr[j] = f[j] * cp[b * H + j] + i[j] * gg[j];
  }
  simd::tanh(c, tc, B * H);
  for (int64_t b = 0; b < B; ++b) {
    const float* o = g + b * G + 3 * H;
    for (int64_t j = 0; j < H; ++j) h[b * H + j] = o[j] * tc[b * H + j];
  }
}

void cell_forward(double* g, const double* cp, double* c, double* tc, double* h, int64_t B,
                  int64_t H, std::vector<double>&) {
  const int64_t G = 4 * H;
  for (int64_t b = 0; b < B; ++b) {
    double* row = g + b * G;
    for (int64_t j = 0; j < G; ++j)
      row[j] = (j >= 2 * H && j < 3 * H) ? std::tanh(row[j]) : 1.0 / (1.0 + std::exp(-row[j]));
    for (int64_t j = 0; j < H; ++j) {
      const int64_t k = b * H + j;
      c[k] = row[H + j] * cp[k] + row[j] * row[2 * H + j];
      tc[k] = std::tanh(c[k]);
      h[k] = row[3 * H + j] * tc[k];
    }
  }
}

// One step back: from dh (the hidden state's gradient, gout included) and dc
// (updated in place to the previous cell's gradient), the gates' gradient.
// (No two arguments overlap; saying so lets the loop vectorise.)
template <typename T>
void cell_backward(const T* __restrict__ act, const T* __restrict__ cp, const T* __restrict__ tc,
                   const T* __restrict__ dh, T* __restrict__ dc, T* __restrict__ dg, int64_t B,
                   int64_t H) {
  const int64_t G = 4 * H;
  for (int64_t b = 0; b < B; ++b) {
    const T* a = act + b * G;
    T* d = dg + b * G;
    for (int64_t j = 0; j < H; ++j) {
      const int64_t k = b * H + j;
      const T i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j], t = tc[k];
      const T dcv = dc[k] + dh[k] * o * (T(1) - t * t);
      d[j] = dcv * g * i * (T(1) - i);
      d[H + j] = dcv * cp[k] * f * (T(1) - f);
      d[2 * H + j] = dcv * i * (T(1) - g * g);
      d[3 * H + j] = dh[k] * t * o * (T(1) - o);
      dc[k] = dcv * f;
    }
  }
}

// The gradients of x and of the weights from all steps' gate gradients dG
// (NOTE [LSTM layer], NOTE [LSTM products in one region]).
template <typename T>
void weight_grads(const LstmDims& d, const T* x, const T* h0, const T* w_ih, const T* out,
                  const LstmGrads<T>& g) {
  const int64_t B = d.batch, H = d.hidden, G = 4 * H, I = d.input, R = d.steps * B;
  // dW_hh: the step that started from h0, then every other step from the
  // output next to it (one block product: the shifted outputs are contiguous).
  // (No steps: both products are empty and dW_hh is zero.)
  const int64_t k_first = d.steps > 0 ? B : 0, k_rest = R - k_first;
  const T* dg_first = g.dgates + (d.reverse ? k_rest : 0) * G;
  const T* dg_rest = g.dgates + (d.reverse ? 0 : k_first) * G;
  const T* h_rest = out + (d.reverse ? k_first * H : 0);
  const int64_t parts = product_parts(R * G * (2 * I + H));
  parallel_for(parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const Span r = share(p, parts, R), q = share(p, parts, G);
      const int64_t m = q.hi - q.lo;
      if (g.dx)
        gemm_ld<T>(false, false, r.hi - r.lo, I, G, g.dgates + r.lo * G, G, w_ih, I, T(0),
                   g.dx + r.lo * I, I);
      if (g.dw_ih)
        gemm_ld<T>(true, false, m, I, R, g.dgates + q.lo, G, x, I, T(0), g.dw_ih + q.lo * I, I);
      if (g.dw_hh) {
        gemm_ld<T>(true, false, m, H, k_first, dg_first + q.lo, G, h0, H, T(0), g.dw_hh + q.lo * H,
                   H);
        gemm_ld<T>(true, false, m, H, k_rest, dg_rest + q.lo, G, h_rest, H, T(1),
                   g.dw_hh + q.lo * H, H);
      }
      if (g.db) {  // column sums, each in row order
        for (int64_t j = q.lo; j < q.hi; ++j) g.db[j] = T(0);
        for (int64_t i = 0; i < R; ++i)
          for (int64_t j = q.lo; j < q.hi; ++j) g.db[j] += g.dgates[i * G + j];
      }
    }
  });
}

}  // namespace

template <typename T>
void lstm_layer_forward(const LstmDims& d, const T* x, const T* h0, const T* c0, const T* w_ih,
                        const T* w_hh, const T* bias, T* out, T* hy, T* cy, LstmWork<T> work) {
  const int64_t B = d.batch, H = d.hidden, G = 4 * H, S = B * H;
  T* gates = work.gates;
  // W_hh^T once, row-major [H, 4H] (rows padded, padded_ld): the per-step
  // products then stream it without a transpose.
  const int64_t ldw = padded_ld(G), I = d.input, R = d.steps * B;
  std::vector<T> w_hh_t(static_cast<size_t>(H * ldw), T(0));
  // NOTE [LSTM products in one region]
  const int64_t parts = product_parts(R * G * I);
  parallel_for(parts, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi; ++p) {
      const Span r = share(p, parts, R), k = share(p, parts, H);
      for (int64_t i = r.lo; i < r.hi; ++i) {
        if (bias)
          std::memcpy(gates + i * G, bias, sizeof(T) * G);
        else
          std::memset(gates + i * G, 0, sizeof(T) * G);
      }
      gemm_ld<T>(false, true, r.hi - r.lo, G, I, x + r.lo * I, I, w_ih, I, T(1), gates + r.lo * G,
                 G);
      for (int64_t j = k.lo; j < k.hi; ++j)
        for (int64_t c = 0; c < G; ++c) w_hh_t[j * ldw + c] = w_hh[c * H + j];
    }
  });
  // NOTE [LSTM rows in parallel]
  parallel_for(B, recurrence_grain(d), [&](int64_t lo, int64_t hi) {
    const int64_t m = hi - lo;
    std::vector<T> scratch;
    const T *hp = h0 + lo * H, *cp = c0 + lo * H;
    for (int64_t s = 0; s < d.steps; ++s) {
      const int64_t t = d.reverse ? d.steps - 1 - s : s;
      T* g = gates + (t * B + lo) * G;
      const int64_t at = t * S + lo * H;
      step_gemm<T>(m, G, H, hp, w_hh_t.data(), ldw, T(1), g);
      cell_forward(g, cp, work.cells + at, work.tanh_cells + at, out + at, m, H, scratch);
      hp = out + at;
      cp = work.cells + at;
    }
    std::memcpy(hy + lo * H, hp, sizeof(T) * m * H);
    std::memcpy(cy + lo * H, cp, sizeof(T) * m * H);
  });
}

template <typename T>
void lstm_layer_backward(const LstmDims& d, const T* x, const T* h0, const T* c0, const T* w_ih,
                         const T* w_hh, const T* out, LstmWork<const T> work,
                         const LstmGrads<T>& g) {
  const int64_t T_ = d.steps, B = d.batch, H = d.hidden, G = 4 * H, S = B * H;
  std::vector<T> dh(S, T(0)), dc(S, T(0));
  if (g.ghy) std::memcpy(dh.data(), g.ghy, sizeof(T) * S);
  if (g.gcy) std::memcpy(dc.data(), g.gcy, sizeof(T) * S);
  // NOTE [LSTM rows in parallel]
  parallel_for(B, recurrence_grain(d), [&](int64_t lo, int64_t hi) {
    const int64_t m = hi - lo, row = lo * H;
    T *dhr = dh.data() + row, *dcr = dc.data() + row;
    for (int64_t s = T_ - 1; s >= 0; --s) {
      const int64_t t = d.reverse ? T_ - 1 - s : s;
      if (g.gout)
        for (int64_t k = 0; k < m * H; ++k) dhr[k] += g.gout[t * S + row + k];
      const T* cp = s == 0 ? c0 : work.cells + (d.reverse ? t + 1 : t - 1) * S;
      T* dg = g.dgates + (t * B + lo) * G;
      cell_backward(work.gates + (t * B + lo) * G, cp + row, work.tanh_cells + t * S + row, dhr,
                    dcr, dg, m, H);
      step_gemm<T>(m, H, G, dg, w_hh, H, T(0), dhr);
    }
  });
  if (g.dh0) std::memcpy(g.dh0, dh.data(), sizeof(T) * S);
  if (g.dc0) std::memcpy(g.dc0, dc.data(), sizeof(T) * S);
  weight_grads(d, x, h0, w_ih, out, g);
}

#define GT_LSTM_INSTANTIATE(T)                                                                  \
  template void lstm_layer_forward<T>(const LstmDims&, const T*, const T*, const T*, const T*,  \
                                      const T*, const T*, T*, T*, T*, LstmWork<T>);             \
  template void lstm_layer_backward<T>(const LstmDims&, const T*, const T*, const T*, const T*, \
                                       const T*, const T*, LstmWork<const T>,                   \
                                       const LstmGrads<T>&);
GT_LSTM_INSTANTIATE(float)
GT_LSTM_INSTANTIATE(double)
#undef GT_LSTM_INSTANTIATE

}  // namespace gradtrack::kernels::nn
