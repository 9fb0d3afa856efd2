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
#include "kernels/small_gemm.h"

namespace gradtrack::kernels::nn {

namespace {

// c [m, n] = beta * c + op(a) op(b), row-major with dense leading dimensions.
// OpenBLAS runs on one thread (NOTE [One thread pool]); a large product is
// split by rows of c over the OpenMP threads (the products over all steps;
// a per-step product is too small to pay for a parallel region).
template <typename T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T beta, T* c) {
  if (m == 0 || n == 0) return;
  const int lda = int(ta ? m : k), ldb = int(tb ? k : n);
  if (k == 0) {
    for (int64_t i = 0; i < m * n; ++i) c[i] = beta == T(0) ? T(0) : c[i] * beta;
    return;
  }
  const bool split = m * n * k >= (int64_t(1) << 23) && m >= 16;
  parallel_for(m, split ? 8 : m, [&](int64_t lo, int64_t hi) {
    const T* ap = ta ? a + lo : a + lo * lda;
    blas_gemm<T>(ta, tb, hi - lo, n, k, ap, lda, b, ldb, beta, c + lo * n, n);
  });
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
// exp on vectors (sigmoid = 1 / (1 + e^-x), tanh = 2 / (1 + e^-2x) - 1);
// float64 uses the library functions, for gradcheck-grade accuracy.
void cell_forward(float* g, const float* cp, float* c, float* tc, float* h, int64_t B, int64_t H,
                  std::vector<float>& scratch) {
  const int64_t G = 4 * H;
  scratch.resize(static_cast<size_t>(B * G));
  float* e = scratch.data();
  for (int64_t b = 0; b < B; ++b) {
    float* row = g + b * G;
    float* er = e + b * G;
    scaled_exp(row, -1.0f, er, 2 * H);
    scaled_exp(row + 2 * H, -2.0f, er + 2 * H, H);
    scaled_exp(row + 3 * H, -1.0f, er + 3 * H, H);
    for (int64_t j = 0; j < 2 * H; ++j) row[j] = 1.0f / (1.0f + er[j]);
    for (int64_t j = 2 * H; j < 3 * H; ++j) row[j] = 2.0f / (1.0f + er[j]) - 1.0f;
    for (int64_t j = 3 * H; j < G; ++j) row[j] = 1.0f / (1.0f + er[j]);
    const float* i = row;
    const float* f = row + H;
    const float* gg = row + 2 * H;
    float* cr = c + b * H;
    for (int64_t j = 0; j < H; ++j) cr[j] = f[j] * cp[b * H + j] + i[j] * gg[j];
  }
  float* ec = scratch.data();
  scaled_exp(c, -2.0f, ec, B * H);
  for (int64_t b = 0; b < B; ++b) {
    const float* o = g + b * G + 3 * H;
    for (int64_t j = 0; j < H; ++j) {
      const float t = 2.0f / (1.0f + ec[b * H + j]) - 1.0f;
      tc[b * H + j] = t;
      h[b * H + j] = o[j] * t;
    }
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

}  // namespace

template <typename T>
void lstm_layer_forward(const LstmDims& d, const T* x, const T* h0, const T* c0, const T* w_ih,
                        const T* w_hh, const T* bias, T* out, T* hy, T* cy, LstmWork<T> work) {
  const int64_t B = d.batch, H = d.hidden, G = 4 * H, S = B * H;
  T* gates = work.gates;
  // The fill and the transpose below run over threads too: serial, they
  // were most of what kept one thread busier than the other.
  const int64_t grain = std::max<int64_t>(1, kGrainSize / G);
  parallel_for(d.steps * B, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      if (bias)
        std::memcpy(gates + r * G, bias, sizeof(T) * G);
      else
        std::memset(gates + r * G, 0, sizeof(T) * G);
    }
  });
  gemm<T>(false, true, d.steps * B, G, d.input, x, w_ih, T(1), gates);
  // W_hh^T once, row-major [H, 4H]: the per-step products then stream it
  // without a transpose (measurably faster for OpenBLAS at small batch).
  const int64_t ldw = padded_ld(G);
  std::vector<T> w_hh_t(static_cast<size_t>(H * ldw), T(0));
  parallel_for(H, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t k = lo; k < hi; ++k)
      for (int64_t r = 0; r < G; ++r) w_hh_t[k * ldw + r] = w_hh[r * H + k];
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
  if (g.dx) gemm<T>(false, false, T_ * B, d.input, G, g.dgates, w_ih, T(0), g.dx);
  if (g.dw_ih) gemm<T>(true, false, G, d.input, T_ * B, g.dgates, x, T(0), g.dw_ih);
  if (g.dw_hh) {
    // The step that started from h0, then every other step from the output
    // next to it (one block product: the shifted outputs are contiguous).
    const int64_t first = d.reverse ? T_ - 1 : 0;
    gemm<T>(true, false, G, H, B, g.dgates + first * B * G, h0, T(0), g.dw_hh);
    const T* dg_rest = g.dgates + (d.reverse ? 0 : B * G);
    const T* h_rest = out + (d.reverse ? S : 0);
    gemm<T>(true, false, G, H, (T_ - 1) * B, dg_rest, h_rest, T(1), g.dw_hh);
  }
  if (g.db) {  // column sums, threads over columns (each sums in row order)
    parallel_for(G, std::max<int64_t>(1, kGrainSize / (T_ * B)), [&](int64_t lo, int64_t hi) {
      for (int64_t j = lo; j < hi; ++j) g.db[j] = T(0);
      for (int64_t r = 0; r < T_ * B; ++r)
        for (int64_t j = lo; j < hi; ++j) g.db[j] += g.dgates[r * G + j];
    });
  }
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
