// _C._nn: the nn.functional entries; _C._optim: the optimizers' fused steps.
#include "ops/optim_adaptive.h"
#include "ops/autocast.h"
#include "ops/nn/loss.h"
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

// ---- the adaptive optimizers' fused steps (optim/adam.py, rmsprop.py, ...) ----
ops::OptimArgs optim_args(const Tensor& p, const Tensor& g, const Tensor& step, py::handle s0,
                          py::handle s1, py::handle s2, std::string label) {
  const auto opt = [](py::handle h) { return h.is_none() ? Tensor() : h.cast<Tensor>(); };
  return ops::OptimArgs{p, g, step, {opt(s0), opt(s1), opt(s2)}, std::move(label)};
}

void bind_optim_adaptive(py::module_& m) {
  m.def("adam_update", [](const Tensor& p, const Tensor& g, const Tensor& step, py::handle m1,
                          py::handle m2, py::handle vmax, double lr, double beta1, double beta2,
                          double eps, double wd, bool maximize, bool decoupled, std::string label) {
    ops::adam_update(optim_args(p, g, step, m1, m2, vmax, std::move(label)), lr, beta1, beta2, eps,
                     wd, maximize, decoupled);
  });
  m.def("rmsprop_update", [](const Tensor& p, const Tensor& g, const Tensor& step, py::handle sq,
                             py::handle buf, py::handle gavg, double lr, double alpha, double eps,
                             double wd, double momentum, bool maximize) {
    ops::rmsprop_update(optim_args(p, g, step, sq, buf, gavg, "RMSprop.step"), lr, alpha, eps, wd,
                        momentum, maximize);
  });
  m.def("adagrad_update", [](const Tensor& p, const Tensor& g, const Tensor& step, py::handle sum,
                             double lr, double lr_decay, double eps, double wd, bool maximize) {
    ops::adagrad_update(optim_args(p, g, step, sum, py::none(), py::none(), "Adagrad.step"), lr,
                        lr_decay, eps, wd, maximize);
  });
  m.def("adamax_update",
        [](const Tensor& p, const Tensor& g, const Tensor& step, py::handle m1, py::handle inf,
           double lr, double beta1, double beta2, double eps, double wd, bool maximize) {
          ops::adamax_update(optim_args(p, g, step, m1, inf, py::none(), "Adamax.step"), lr, beta1,
                             beta2, eps, wd, maximize);
        });
  m.def("nadam_update",
        [](const Tensor& p, const Tensor& g, const Tensor& step, const Tensor& mu_product,
           py::handle m1, py::handle m2, double lr, double beta1, double beta2, double eps,
           double wd, double momentum_decay, bool maximize, bool decoupled) {
          ops::nadam_update(optim_args(p, g, step, m1, m2, py::none(), "NAdam.step"), mu_product,
                            lr, beta1, beta2, eps, wd, momentum_decay, maximize, decoupled);
        });
  m.def("radam_update", [](const Tensor& p, const Tensor& g, const Tensor& step, py::handle m1,
                           py::handle m2, double lr, double beta1, double beta2, double eps,
                           double wd, bool maximize, bool decoupled) {
    ops::radam_update(optim_args(p, g, step, m1, m2, py::none(), "RAdam.step"), lr, beta1, beta2,
                      eps, wd, maximize, decoupled);
  });
}

void bind_nn(py::module_& m) {
  m.def("nll_loss",
        [](const Tensor& x, const Tensor& t, py::handle w, int64_t red, int64_t ignore) {
          Tensor wt = w.is_none() ? Tensor() : w.cast<Tensor>();
          return ops::nll_loss(x, t, wt.defined() ? &wt : nullptr, red, ignore);
        });
  m.def("nll_loss2d",
        [](const Tensor& x, const Tensor& t, py::handle w, int64_t red, int64_t ignore) {
          Tensor wt = w.is_none() ? Tensor() : w.cast<Tensor>();
          return ops::nll_loss2d(x, t, wt.defined() ? &wt : nullptr, red, ignore);
        });
  m.def("mse_loss",
        [](const Tensor& a, const Tensor& t, int64_t red) { return ops::mse_loss(a, t, red); });
  m.def("linear", [](const Tensor& x, const Tensor& w, py::handle b) {
    if (b.is_none()) {
      return ops::autocast::lowered(
          [](const Tensor& x2, const Tensor& w2) { return ops::linear(x2, w2, nullptr); }, x, w);
    }
    return ops::autocast::lowered([](const Tensor& x2, const Tensor& w2,
                                     const Tensor& b2) { return ops::linear(x2, w2, &b2); },
                                  x, w, b.cast<Tensor>());
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
  bind_optim_adaptive(optim);  // the adaptive optimizers
}

}  // namespace gradtrack::python
