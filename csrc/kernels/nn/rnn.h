// The LSTM layer kernels: a whole layer's forward over every time step, and
// its backpropagation through time, on dense row-major memory.
#pragma once

#include <cstdint>

namespace gradtrack::kernels::nn {

/// Sizes of one LSTM layer: T steps, batch B, input size I, hidden size H.
struct LstmDims {
  int64_t steps, batch, input, hidden;
  bool reverse;  // run the steps from the last to the first
};

/// What the forward keeps for the backward: the four activated gates
/// (i, f, g, o) of every step [T, B, 4H], the cell states [T, B, H] and their
/// tanh [T, B, H].
template <typename T>
struct LstmWork {
  T* gates;
  T* cells;
  T* tanh_cells;
};

/// out [T, B, H] = the hidden state of every step; hy, cy [B, H] the last.
/// `bias` is b_ih + b_hh [4H], or null.
template <typename T>
void lstm_layer_forward(const LstmDims& d, const T* x, const T* h0, const T* c0, const T* w_ih,
                        const T* w_hh, const T* bias, T* out, T* hy, T* cy, LstmWork<T> work);

/// Gradients in, as given (null: zero): of out, hy, cy. Gradients out (null:
/// not wanted, except dgates which is scratch [T, B, 4H]): dx, dh0, dc0, dw_ih,
/// dw_hh and db (the gradient of either bias).
template <typename T>
struct LstmGrads {
  const T *gout, *ghy, *gcy;
  T *dgates, *dx, *dh0, *dc0, *dw_ih, *dw_hh, *db;
};

template <typename T>
void lstm_layer_backward(const LstmDims& d, const T* x, const T* h0, const T* c0, const T* w_ih,
                         const T* w_hh, const T* out, LstmWork<const T> work,
                         const LstmGrads<T>& g);

}  // namespace gradtrack::kernels::nn
