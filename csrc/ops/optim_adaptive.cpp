// The adaptive optimizers' steps: the per-step numbers computed in doubles as
// PyTorch's Python does, one fused kernel over the elements, then the version
// bumps and the provenance note (NOTE [Adaptive optimizer arithmetic]).
#include "ops/optim_adaptive.h"

#include <cmath>

#include "autograd/provenance.h"
#include "kernels/optim_adaptive.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

/// `step += 1` on a 0-dim state tensor (in its own dtype, as PyTorch's
/// in-place add rounds); returns the new value as a Python float would read it.
double advance(const Tensor& step) {
  GT_CHECK(step.defined() && step.numel() == 1,
           "optimizer state 'step' must be a 1-element tensor");
  double value = 0;
  switch (step.dtype()) {
    case ScalarType::Float32: value = *step.data<float>() = *step.data<float>() + 1.0f; break;
    case ScalarType::Float64: value = *step.data<double>() = *step.data<double>() + 1.0; break;
    case ScalarType::Int64:
      value = static_cast<double>(*step.data<int64_t>() = *step.data<int64_t>() + 1);
      break;
    default:
      throw Error(
          str_cat("optimizer state 'step' has unsupported dtype ", scalar_type_name(step.dtype())));
  }
  step->bump_version();
  return value;
}

bool dense_like(const Tensor& t, const Tensor& p) {
  return t.is_contiguous() && t.is_aligned() && t.dtype() == p.dtype() && t.sizes() == p.sizes();
}

Tensor dense_copy(const Tensor& t, const Tensor& p) {
  Tensor out = empty(p.sizes(), p.dtype());
  kernels::copy(out, t);
  return out;
}

/// Runs `kernel` on dense operands: the tensors themselves in the usual case
/// (contiguous, aligned, one dtype), else dense copies written back afterwards.
template <typename F>
void run_dense(const OptimArgs& a, const F& kernel) {
  GT_CHECK(is_floating(a.p.dtype()), "optimizer step: parameter of dtype ",
           scalar_type_name(a.p.dtype()), " is not a floating point tensor");
  const auto check_shape = [&](const Tensor& t, const char* what) {
    GT_CHECK(t.sizes() == a.p.sizes(), "optimizer step: the ", what, " has shape ",
             shape_str(t.sizes()), " but its parameter has shape ", shape_str(a.p.sizes()));
  };
  check_shape(a.grad, "gradient");
  kernels::OptimOperands o;
  const bool p_direct = a.p.is_contiguous() && a.p.is_aligned();
  o.p = p_direct ? a.p : dense_copy(a.p, a.p);
  o.grad = dense_like(a.grad, a.p) ? a.grad : dense_copy(a.grad, a.p);
  bool copied[3] = {false, false, false};
  for (int k = 0; k < 3; ++k) {
    if (!a.s[k].defined()) continue;
    check_shape(a.s[k], "state tensor");
    copied[k] = !dense_like(a.s[k], a.p);
    o.s[k] = copied[k] ? dense_copy(a.s[k], a.p) : a.s[k];
  }
  kernel(o);
  if (!p_direct) kernels::copy(a.p, o.p);
  for (int k = 0; k < 3; ++k)
    if (copied[k]) kernels::copy(a.s[k], o.s[k]);
}

/// The versions PyTorch's ops leave: `p_writes` on the parameter, `s_writes[k]` on state k.
void bump_versions(const OptimArgs& a, int p_writes, std::initializer_list<int> s_writes) {
  for (int i = 0; i < p_writes; ++i) a.p->bump_version();
  int k = 0;
  for (int n : s_writes) {
    if (a.s[k].defined())
      for (int i = 0; i < n; ++i) a.s[k]->bump_version();
    ++k;
  }
  autograd::note_write(a.p, a.label.c_str());
}

}  // namespace

void adam_update(const OptimArgs& a, double lr, double beta1, double beta2, double eps,
                 double weight_decay, bool maximize, bool decoupled) {
  const double step = advance(a.step);
  kernels::AdamScalars h{};
  h.beta1 = beta1;
  h.beta2 = beta2;
  h.eps = eps;
  h.weight_decay = weight_decay;
  h.decay_factor = 1 - lr * weight_decay;
  h.step_size = lr / (1 - std::pow(beta1, step));
  h.bias_correction2_sqrt = std::pow(1 - std::pow(beta2, step), 0.5);
  h.maximize = maximize;
  h.decoupled = decoupled;
  run_dense(a, [&](const kernels::OptimOperands& o) { kernels::adam_step(o, h); });
  bump_versions(a, decoupled && weight_decay != 0 ? 2 : 1, {1, 2, 1});
}

void rmsprop_update(const OptimArgs& a, double lr, double alpha, double eps, double weight_decay,
                    double momentum, bool maximize) {
  GT_CHECK(momentum <= 0 || a.s[1].defined(),
           "RMSprop: momentum > 0 but the state has no 'momentum_buffer'");
  advance(a.step);
  const kernels::RmspropScalars h{lr, alpha, eps, weight_decay, momentum, maximize};
  OptimArgs b = a;
  if (momentum <= 0) b.s[1] = Tensor();  // PyTorch ignores a buffer when momentum is 0
  run_dense(b, [&](const kernels::OptimOperands& o) { kernels::rmsprop_step(o, h); });
  bump_versions(b, 1, {2, 2, 1});
}

void adagrad_update(const OptimArgs& a, double lr, double lr_decay, double eps, double weight_decay,
                    bool maximize) {
  const double step = advance(a.step);
  const kernels::AdagradScalars h{lr / (1 + (step - 1) * lr_decay), eps, weight_decay, maximize};
  run_dense(a, [&](const kernels::OptimOperands& o) { kernels::adagrad_step(o, h); });
  bump_versions(a, 1, {1});
}

void adamax_update(const OptimArgs& a, double lr, double beta1, double beta2, double eps,
                   double weight_decay, bool maximize) {
  const double step = advance(a.step);
  const double clr = lr / (1 - std::pow(beta1, step));
  const kernels::AdamaxScalars h{beta1, beta2, eps, weight_decay, clr, maximize};
  run_dense(a, [&](const kernels::OptimOperands& o) { kernels::adamax_step(o, h); });
  bump_versions(a, 1, {1, 2});
}

/// `mu_product *= mu` in the tensor's dtype; returns the new value.
double scale_mu_product(const Tensor& mu_product, double mu) {
  GT_CHECK(mu_product.defined() && mu_product.numel() == 1,
           "NAdam: state 'mu_product' must be a 1-element tensor");
  double value = GT_DISPATCH_FLOAT(mu_product.dtype(), "nadam", [&] {
    using T = scalar_t;
    T* m = mu_product.data<T>();
    *m = *m * T(mu);
    return static_cast<double>(*m);
  });
  mu_product->bump_version();
  return value;
}

void nadam_update(const OptimArgs& a, const Tensor& mu_product, double lr, double beta1,
                  double beta2, double eps, double weight_decay, double momentum_decay,
                  bool maximize, bool decoupled) {
  const double step = advance(a.step);
  const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, step * momentum_decay));
  const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (step + 1) * momentum_decay));
  const double product = scale_mu_product(mu_product, mu);
  kernels::NadamScalars h{};
  h.beta1 = beta1;
  h.beta2 = beta2;
  h.eps = eps;
  h.weight_decay = weight_decay;
  h.decay_factor = 1 - lr * weight_decay;
  h.bias_correction2 = 1 - std::pow(beta2, step);
  h.grad_coef = -lr * (1.0 - mu) / (1.0 - product);
  h.avg_coef = (-lr * mu_next) / (1.0 - product * mu_next);
  h.maximize = maximize;
  h.decoupled = decoupled;
  run_dense(a, [&](const kernels::OptimOperands& o) { kernels::nadam_step(o, h); });
  bump_versions(a, decoupled && weight_decay != 0 ? 3 : 2, {1, 2});
}

void radam_update(const OptimArgs& a, double lr, double beta1, double beta2, double eps,
                  double weight_decay, bool maximize, bool decoupled) {
  const double step = advance(a.step);
  kernels::RadamScalars h{};
  h.beta1 = beta1;
  h.beta2 = beta2;
  h.eps = eps;
  h.weight_decay = weight_decay;
  h.decay_factor = 1 - lr * weight_decay;
  h.lr = lr;
  h.bias_correction1 = 1 - std::pow(beta1, step);
  const double bc2 = 1 - std::pow(beta2, step);
  h.bias_correction2_sqrt = std::pow(bc2, 0.5);
  const double rho_inf = 2 / (1 - beta2) - 1;
  const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bc2;
  h.rectified = rho_t > 5.0;
  if (h.rectified)
    h.rect = std::pow((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t),
                      0.5);
  h.maximize = maximize;
  h.decoupled = decoupled;
  run_dense(a, [&](const kernels::OptimOperands& o) { kernels::radam_step(o, h); });
  bump_versions(a, decoupled && weight_decay != 0 ? 2 : 1, {1, 2});
}

}  // namespace gradtrack::ops
