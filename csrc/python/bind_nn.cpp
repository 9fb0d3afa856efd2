// _C._nn: the nn.functional entries; _C._optim: the optimizers' fused steps.
#include "python/common.h"

namespace gradtrack::python {

namespace {

void bind_optim(py::module_& m) {
  m.def("sgd_update",
        [](const Tensor& p, const Tensor& g, py::handle buf, double lr, double momentum,
           double dampening, double wd, bool nesterov, bool maximize, bool first) {
          Tensor b = buf.is_none() ? Tensor() : buf.cast<Tensor>();
          ops::sgd_update(p, g, b.defined() ? &b : nullptr, lr, momentum, dampening, wd, nesterov,
                          maximize, first);
        });
}

void bind_nn(py::module_& m) {
  m.def("nll_loss",
        [](const Tensor& x, const Tensor& t, py::handle w, int64_t red, int64_t ignore) {
          Tensor wt = w.is_none() ? Tensor() : w.cast<Tensor>();
          return ops::nll_loss(x, t, wt.defined() ? &wt : nullptr, red, ignore);
        });
  m.def("mse_loss",
        [](const Tensor& a, const Tensor& t, int64_t red) { return ops::mse_loss(a, t, red); });
  m.def("linear", [](const Tensor& x, const Tensor& w, py::handle b) {
    if (b.is_none()) return ops::linear(x, w, nullptr);
    Tensor bias = b.cast<Tensor>();
    return ops::linear(x, w, &bias);
  });
}

}  // namespace

void bind_nn_layers(py::module_& nn);  // bind_nn_layers.cpp

void init_nn(py::module_& m) {
  py::module_ nn = m.def_submodule("_nn");
  bind_nn(nn);
  bind_nn_layers(nn);
  py::module_ optim = m.def_submodule("_optim");
  bind_optim(optim);
}

}  // namespace gradtrack::python
