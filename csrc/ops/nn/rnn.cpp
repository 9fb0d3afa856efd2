// lstm_layer: one direction of one float32 LSTM layer as one node,
// MkldnnRnnLayerBackward0, as torch's oneDNN path records it (NOTE [LSTM layer]
// in kernels/nn/rnn.cpp). The Python layer calls it per layer and direction.
#include "kernels/nn/rnn.h"
#include "ops/common.h"
#include "ops/nn/nn.h"

namespace gradtrack::ops {

namespace {

Tensor dense(const Tensor& t) { return kernels::aligned(contiguous(t)); }

void check_lstm_args(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                     const Tensor& w_hh) {
  GT_CHECK(x.dim() == 3 && h0.dim() == 2 && c0.dim() == 2 && w_ih.dim() == 2 && w_hh.dim() == 2,
           "lstm_layer: expected a 3-D input, 2-D states and 2-D weights");
  const int64_t B = x.sizes()[1], H = w_hh.sizes()[1];
  const DimVector state{B, H};
  GT_CHECK(w_ih.sizes()[0] == 4 * H && w_hh.sizes()[0] == 4 * H &&
               w_ih.sizes()[1] == x.sizes()[2] && h0.sizes() == state && c0.sizes() == state,
           "lstm_layer: the input, states and weights do not fit together");
  for (const Tensor* t : {&h0, &c0, &w_ih, &w_hh})
    GT_CHECK(t->dtype() == x.dtype(), "lstm_layer: every tensor must have the input's dtype");
  GT_CHECK_IMPL(x.dtype() == ScalarType::Float32 || x.dtype() == ScalarType::Float64,
                "lstm_layer: only float32 and float64 are supported");
}

}  // namespace

std::vector<Tensor> lstm_layer(const Tensor& x, const Tensor& h0, const Tensor& c0,
                               const Tensor& w_ih, const Tensor& w_hh, const Tensor* b_ih,
                               const Tensor* b_hh, bool reverse) {
  check_lstm_args(x, h0, c0, w_ih, w_hh);
  const int64_t T = x.sizes()[0], B = x.sizes()[1], I = x.sizes()[2], H = w_hh.sizes()[1];
  GT_CHECK(T > 0, "Expected sequence length to be larger than 0 in RNN");
  const ScalarType dt = x.dtype();
  Tensor xd = dense(x), h0d = dense(h0), c0d = dense(c0), wid = dense(w_ih), whd = dense(w_hh);
  Tensor bias;
  if (b_ih || b_hh) {
    Tensor bi = b_ih ? *b_ih : zeros({4 * H}, dt), bh = b_hh ? *b_hh : zeros({4 * H}, dt);
    GT_CHECK(bi.dim() == 1 && bi.sizes()[0] == 4 * H && bh.dim() == 1 && bh.sizes()[0] == 4 * H,
             "lstm_layer: the biases must have 4 * hidden_size elements");
    autograd::AutoGradMode no_grad(false);
    bias = dense(add(bi, bh));
  }
  Tensor out = empty({T, B, H}, dt), hy = empty({B, H}, dt), cy = empty({B, H}, dt);
  Tensor gates = empty({T, B, 4 * H}, dt), cells = empty({T, B, H}, dt);
  Tensor tanh_cells = empty({T, B, H}, dt);
  const kernels::nn::LstmDims d{T, B, I, H, reverse};
  GT_DISPATCH_FLOAT(dt, "lstm_layer", [&] {
    kernels::nn::lstm_layer_forward<scalar_t>(
        d, xd.data<scalar_t>(), h0d.data<scalar_t>(), c0d.data<scalar_t>(), wid.data<scalar_t>(),
        whd.data<scalar_t>(), bias.defined() ? bias.data<scalar_t>() : nullptr,
        out.data<scalar_t>(), hy.data<scalar_t>(), cy.data<scalar_t>(),
        {gates.data<scalar_t>(), cells.data<scalar_t>(), tanh_cells.data<scalar_t>()});
  });
  // torch's node has edges (input, w_ih, w_hh, b_ih, b_hh, hx, cx); a missing
  // bias is a 0-dim placeholder without grad (None in next_functions).
  Tensor none = zeros({}, dt);
  const Tensor* bi = b_ih ? b_ih : &none;
  const Tensor* bh = b_hh ? b_hh : &none;
  if (autograd::should_record({&x, &w_ih, &w_hh, bi, bh, &h0, &c0})) {
    auto node = autograd::new_node(OpKind::MkldnnRnnLayer, {&x, &w_ih, &w_hh, bi, bh, &h0, &c0});
    node->attrs.set<autograd::LstmDims>() = d;
    // The inputs themselves are saved (their versions are checked, and a
    // backward that builds a graph differentiates through them).
    autograd::finish_node(node, {&x, &w_ih, &w_hh, bi, bh, &h0, &c0}, {&out, &hy, &cy},
                          {&x, &h0, &c0, &w_ih, &w_hh, bi, bh, &gates, &cells, &tanh_cells});
  }
  return {out, hy, cy};
}

}  // namespace gradtrack::ops
