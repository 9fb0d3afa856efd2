// _C._nn, the layer entries: activations with parameters, norms, embedding,
// dropout's noise and the losses of ops/nn/. nn.functional checks the
// arguments torch checks in Python, then calls these.
#include "ops/nn/loss.h"
#include "ops/memory_format.h"
#include "ops/nn/nn.h"
#include "python/common.h"

namespace gradtrack::python {

namespace {

using kernels::nn::Act;
using kernels::nn::ActParams;

// None or a tensor, as the pointer the ops take (valid while `slot` lives).
const Tensor* optional_tensor(py::handle h, Tensor& slot) {
  if (h.is_none()) return nullptr;
  slot = h.cast<Tensor>();
  return &slot;
}

void bind_activations(py::module_& m) {
  m.def("activation", [](int kind, const Tensor& x, double a, double b, double c) {
    Tensor y = ops::activation(static_cast<Act>(kind), x, ActParams{a, b, c});
    // NOTE [Channels-last results]; torch's log_sigmoid writes row-major
    if (static_cast<Act>(kind) != Act::LogSigmoid) ops::follow_layout(y, x);
    return y;
  });
  m.def("activation_", [](int kind, const Tensor& x, double a, double b, double c) {
    return ops::activation_(static_cast<Act>(kind), x, ActParams{a, b, c});
  });
  py::dict kinds;
  kinds["gelu"] = int(Act::Gelu);
  kinds["gelu_tanh"] = int(Act::GeluTanh);
  kinds["silu"] = int(Act::Silu);
  kinds["leaky_relu"] = int(Act::LeakyRelu);
  kinds["elu"] = int(Act::Elu);
  kinds["softplus"] = int(Act::Softplus);
  kinds["hardtanh"] = int(Act::Hardtanh);
  kinds["mish"] = int(Act::Mish);
  kinds["hardswish"] = int(Act::Hardswish);
  kinds["log_sigmoid"] = int(Act::LogSigmoid);
  kinds["celu"] = int(Act::Celu);
  kinds["hardsigmoid"] = int(Act::Hardsigmoid);
  m.attr("activation_kinds") = kinds;
}

void bind_norms(py::module_& m) {
  m.def("layer_norm",
        [](const Tensor& x, py::handle shape, py::handle w, py::handle b, double eps) {
          Tensor ws, bs;
          return ops::native_layer_norm(x, to_dims(shape), optional_tensor(w, ws),
                                        optional_tensor(b, bs), eps)[0];
        });
  m.def("group_norm", [](const Tensor& x, int64_t groups, py::handle w, py::handle b, double eps) {
    Tensor ws, bs;
    return ops::follow_layout(
        ops::native_group_norm(x, optional_tensor(w, ws), optional_tensor(b, bs), groups, eps)[0],
        x);
  });
  m.def("batch_norm", [](const Tensor& x, py::handle w, py::handle b, py::handle rm, py::handle rv,
                         bool training, double momentum, double eps) {
    Tensor ws, bs, ms, vs;
    return ops::follow_layout(
        ops::native_batch_norm(x, optional_tensor(w, ws), optional_tensor(b, bs),
                               optional_tensor(rm, ms), optional_tensor(rv, vs), training, momentum,
                               eps)[0],
        x);
  });
}

void bind_embedding_losses(py::module_& m) {
  m.def("embedding", &ops::embedding);
  m.def("embedding_renorm_", &ops::embedding_renorm_);
  m.def("dropout_noise", &ops::dropout_noise);
  m.def("binary_cross_entropy", [](const Tensor& x, const Tensor& y, py::handle w, int64_t red) {
    Tensor ws;
    return ops::binary_cross_entropy(x, y, optional_tensor(w, ws), red);
  });
  m.def("binary_cross_entropy_with_logits",
        [](const Tensor& x, const Tensor& y, py::handle w, py::handle pw, int64_t red) {
          Tensor ws, ps;
          return ops::binary_cross_entropy_with_logits(x, y, optional_tensor(w, ws),
                                                       optional_tensor(pw, ps), red);
        });
  m.def("smooth_l1_loss", [](const Tensor& x, const Tensor& y, int64_t red, double beta) {
    return ops::smooth_l1_or_huber(x, y, red, beta, false);
  });
  m.def("huber_loss", [](const Tensor& x, const Tensor& y, int64_t red, double delta) {
    return ops::smooth_l1_or_huber(x, y, red, delta, true);
  });
}

}  // namespace

void bind_nn_layers(py::module_& nn) {
  bind_activations(nn);
  bind_norms(nn);
  bind_embedding_losses(nn);
  // recurrent layers: one direction of one LSTM layer
  nn.def("lstm_layer", [](const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                          const Tensor& w_hh, py::handle b_ih, py::handle b_hh, bool reverse) {
    Tensor bi, bh;
    auto r = ops::lstm_layer(x, h0, c0, w_ih, w_hh, optional_tensor(b_ih, bi),
                             optional_tensor(b_hh, bh), reverse);
    return py::make_tuple(r[0], r[1], r[2]);
  });
}

}  // namespace gradtrack::python
