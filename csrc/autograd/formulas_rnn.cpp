// The backward of lstm_layer (MkldnnRnnLayerBackward0): backpropagation
// through time in one kernel call (NOTE [LSTM layer] in kernels/nn/rnn.cpp).
#include "autograd/formulas_rnn.h"

#include "kernels/kernels.h"
#include "kernels/nn/rnn.h"
#include "ops/ops.h"

namespace gradtrack::autograd::rnn_formulas {

namespace {

Tensor dense_or_none(const Tensor& t) {
  return t.defined() ? kernels::aligned(ops::contiguous(t)) : Tensor();
}

}  // namespace

// Inputs: (x, w_ih, w_hh, b_ih, b_hh, h0, c0); extras: dense x, h0, c0, w_ih,
// w_hh, then the gates, cell states and their tanh of the forward.
TensorList lstm_layer_bw(const BackwardCtx& c, const TensorList& g) {
  // The kernel's gradients are not themselves differentiable: refuse rather
  // than hand back a graph that would silently miss the second derivative.
  GT_CHECK(!GradMode::is_enabled(),
           "the derivative of MkldnnRnnLayerBackward0 (a float32 LSTM layer's backward) is not "
           "implemented in gradtrack; for double backward run the LSTM in float64");
  const DimVector& dims = c.attrs().ints0;
  const int64_t T = dims[0], B = dims[1], I = dims[2], H = dims[3];
  const ScalarType dt = c.result().dtype();
  Tensor gout = dense_or_none(g.size() > 0 ? g[0] : Tensor());
  Tensor ghy = dense_or_none(g.size() > 1 ? g[1] : Tensor());
  Tensor gcy = dense_or_none(g.size() > 2 ? g[2] : Tensor());
  auto maybe = [&](bool want, const DimVector& shape) {
    return want ? empty(shape, dt) : Tensor();
  };
  Tensor dx = maybe(c.needs(0), {T, B, I}), dw_ih = maybe(c.needs(1), {4 * H, I});
  Tensor dw_hh = maybe(c.needs(2), {4 * H, H}), db = maybe(c.needs(3) || c.needs(4), {4 * H});
  Tensor dh0 = maybe(c.needs(5), {B, H}), dc0 = maybe(c.needs(6), {B, H});
  Tensor dgates = empty({T, B, 4 * H}, dt);
  const kernels::nn::LstmDims d{T, B, I, H, c.attrs().flag};
  GT_DISPATCH_FLOAT(dt, "lstm_layer_backward", [&] {
    using S = scalar_t;
    auto p = [](const Tensor& t) { return t.defined() ? t.data<S>() : nullptr; };
    kernels::nn::LstmGrads<S> grads{p(gout), p(ghy), p(gcy),   p(dgates), p(dx),
                                    p(dh0),  p(dc0), p(dw_ih), p(dw_hh),  p(db)};
    kernels::nn::lstm_layer_backward<S>(
        d, c.extra(0).data<S>(), c.extra(1).data<S>(), c.extra(2).data<S>(), c.extra(3).data<S>(),
        c.extra(4).data<S>(), c.result().data<S>(),
        {c.extra(5).data<S>(), c.extra(6).data<S>(), c.extra(7).data<S>()}, grads);
  });
  TensorList out(7);
  out[0] = dx;
  out[1] = dw_ih;
  out[2] = dw_hh;
  if (c.needs(3)) out[3] = db;
  if (c.needs(4)) out[4] = db;
  out[5] = dh0;
  out[6] = dc0;
  return out;
}

}  // namespace gradtrack::autograd::rnn_formulas
