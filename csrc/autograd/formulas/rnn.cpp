// The fused LSTM layer.
// The backward formulas of their nodes and, beside them, the forward-mode
// formulas that are not derived from a backward. The rows naming them are
// python/gradtrack/_declarations/rnn.py (NOTE [One declaration per op]).
#include <vector>

#include "autograd/formulas/common.h"

namespace gradtrack::autograd::formulas {

namespace {
Tensor dense_or_none(const Tensor& t) {
  return t.defined() ? kernels::aligned(ops::contiguous(t)) : Tensor();
}
Tensor or_zeros(const TensorList& g, size_t i, const DimVector& shape, ScalarType dt) {
  return i < g.size() && g[i].defined() ? g[i] : zeros(shape, dt);
}
// With create_graph: the forward recomputed and the same backpropagation
// written with differentiable ops, so the gradients have a graph of their own
// (double backward through the layer).
TensorList lstm_layer_bw_graph(const BackwardCtx& c, const TensorList& g) {
  const LstmDims& d = c.attrs<LstmDims>();
  const int64_t T = d.steps, B = d.batch, H = d.hidden;
  const bool reverse = d.reverse;
  const Tensor &x = c.extra(0), &w_ih = c.extra(3), &w_hh = c.extra(4);
  const ScalarType dt = x.dtype();
  Tensor xw = matmul(x, t(w_ih));
  for (size_t k : {size_t(5), size_t(6)})
    if (c.extra(k).dim() == 1) xw = add(xw, c.extra(k));
  std::vector<Tensor> i(T), f(T), gg(T), o(T), tc(T), hprev(T), cprev(T);
  Tensor h = c.extra(1), cell = c.extra(2);
  for (int64_t s = 0; s < T; ++s) {
    const int64_t k = reverse ? T - 1 - s : s;
    Tensor pre = add(select(xw, 0, k), mm(h, t(w_hh)));
    i[k] = sigmoid(narrow(pre, 1, 0, H));
    f[k] = sigmoid(narrow(pre, 1, H, H));
    gg[k] = tanh(narrow(pre, 1, 2 * H, H));
    o[k] = sigmoid(narrow(pre, 1, 3 * H, H));
    hprev[k] = h;
    cprev[k] = cell;
    cell = add(mul(f[k], cell), mul(i[k], gg[k]));
    tc[k] = tanh(cell);
    h = mul(o[k], tc[k]);
  }
  Tensor dh = or_zeros(g, 1, {B, H}, dt), dc = or_zeros(g, 2, {B, H}, dt);
  const bool has_gout = !g.empty() && g[0].defined();
  std::vector<Tensor> dg(T);
  Tensor dw_hh = zeros({4 * H, H}, dt);
  for (int64_t s = T - 1; s >= 0; --s) {
    const int64_t k = reverse ? T - 1 - s : s;
    if (has_gout) dh = add(dh, select(g[0], 0, k));
    Tensor dcv = add(dc, mul(mul(dh, o[k]), one_minus(mul(tc[k], tc[k]))));
    dg[k] = cat({mul(mul(dcv, gg[k]), mul(i[k], one_minus(i[k]))),
                 mul(mul(dcv, cprev[k]), mul(f[k], one_minus(f[k]))),
                 mul(mul(dcv, i[k]), one_minus(mul(gg[k], gg[k]))),
                 mul(mul(dh, tc[k]), mul(o[k], one_minus(o[k])))},
                1);
    dc = mul(dcv, f[k]);
    dh = mm(dg[k], w_hh);
    dw_hh = add(dw_hh, mm(t(dg[k]), hprev[k]));
  }
  Tensor dgates = stack(dg, 0);
  Tensor flat = reshape(dgates, {T * B, 4 * H});
  Tensor db = sum(flat, {0}, false);
  TensorList out(7);
  if (c.needs(0)) out[0] = matmul(dgates, w_ih);
  if (c.needs(1)) out[1] = mm(t(flat), reshape(x, {T * B, d.input}));
  if (c.needs(2)) out[2] = dw_hh;
  if (c.needs(3)) out[3] = db;
  if (c.needs(4)) out[4] = db;
  if (c.needs(5)) out[5] = dh;
  if (c.needs(6)) out[6] = dc;
  return out;
}

}  // namespace
// Inputs: (x, w_ih, w_hh, b_ih, b_hh, h0, c0); extras: x, h0, c0, w_ih, w_hh,
// b_ih, b_hh (0-dim when absent), then the forward's gates, cell states and
// their tanh.
TensorList lstm_layer_bw(const BackwardCtx& c, const TensorList& g) {
  // The kernel's gradients are not themselves differentiable.
  if (GradMode::is_enabled()) return lstm_layer_bw_graph(c, g);
  const LstmDims& d = c.attrs<LstmDims>();
  const int64_t T = d.steps, B = d.batch, I = d.input, H = d.hidden;
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
  Tensor x = dense_or_none(c.extra(0)), h0 = dense_or_none(c.extra(1));
  Tensor c0 = dense_or_none(c.extra(2)), w_ih = dense_or_none(c.extra(3));
  Tensor w_hh = dense_or_none(c.extra(4));
  GT_DISPATCH_FLOAT(dt, "lstm_layer_backward", [&] {
    using S = scalar_t;
    auto p = [](const Tensor& t) { return t.defined() ? t.data<S>() : nullptr; };
    kernels::nn::LstmGrads<S> grads{p(gout), p(ghy), p(gcy),   p(dgates), p(dx),
                                    p(dh0),  p(dc0), p(dw_ih), p(dw_hh),  p(db)};
    kernels::nn::lstm_layer_backward<S>(
        d, x.data<S>(), h0.data<S>(), c0.data<S>(), w_ih.data<S>(), w_hh.data<S>(),
        c.result().data<S>(), {c.extra(7).data<S>(), c.extra(8).data<S>(), c.extra(9).data<S>()},
        grads);
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

}  // namespace gradtrack::autograd::formulas
