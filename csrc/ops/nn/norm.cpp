// layer_norm, group_norm, batch_norm: checks, the kernels of
// kernels/nn/norm.cpp, and one node each (NativeLayerNormBackward0, ...).
//
// NOTE [Norm nodes always have three inputs]
// torch's native_*_norm nodes take (input, weight, bias) with None edges for
// a missing weight or bias; a 0-dim placeholder that does not require grad
// stands in for them here, so next_functions has torch's length.
#include <cmath>

#include "autograd/profiling.h"
#include "kernels/nn/norm.h"
#include "kernels/reduced_float.h"
#include "ops/common.h"
#include "ops/nn/nn.h"

namespace gradtrack::ops {

namespace {

Tensor dense(const Tensor& t) { return kernels::aligned(contiguous(t)); }

Tensor dense_as(const Tensor* t, ScalarType dt) {
  return t ? dense(t->dtype() == dt ? *t : to_dtype(*t, dt)) : Tensor();
}

void record_norm(OpKind kind, const Tensor& x, const Tensor* w, const Tensor* b, const Tensor& out,
                 const std::vector<const Tensor*>& extras, const DimVector& ncl, double eps,
                 int64_t mode) {
  Tensor none = zeros({}, x.dtype());
  const Tensor* wi = w ? w : &none;
  const Tensor* bi = b ? b : &none;
  record(
      kind, {&x, wi, bi}, out,
      [&](autograd::NormAttrs& at) {
        at.n = ncl[0];
        at.c = ncl[1];
        at.l = ncl[2];
        at.groups = ncl[3];
        at.eps = eps;
        at.has_weight = w != nullptr;
        at.training = mode != 0;
      },
      extras);
}

void check_same_dtype(const Tensor& x, const Tensor* w, const Tensor* b) {
  GT_CHECK((!w || w->dtype() == x.dtype()) && (!b || b->dtype() == x.dtype()),
           "mixed dtype (CPU): all inputs must share same datatype.");
}

// NOTE [Reduced norms]
// A float16 / bfloat16 input is normalized in float32: statistics, affine and
// sums in float, the output rounded once; the returned (and saved) statistics
// are rounded to the input's dtype, as torch's. torch's "mixed type" is a
// reduced input whose parameters are all float32 (its first parameter
// decides: one of another dtype makes it mixed); they are then used as they
// are, and the statistics stay float32 (rounding them cost the backward of a
// bfloat16 batch norm under autocast 0.2% of its weight gradient).
bool mixed_type(const Tensor& x, std::initializer_list<const Tensor*> params) {
  if (!is_reduced_float(x.dtype())) return false;
  for (const Tensor* p : params)
    if (p) return p->dtype() != x.dtype();
  return false;
}

void check_params(const Tensor& x, std::initializer_list<const Tensor*> params) {
  if (mixed_type(x, params)) {
    for (const Tensor* p : params)
      GT_CHECK(!p || p->dtype() == ScalarType::Float32,
               "mixed dtype (CPU): expect parameter to have scalar type of Float");
    return;
  }
  if (!is_reduced_float(x.dtype())) return;
  for (const Tensor* p : params)
    GT_CHECK(!p || p->dtype() == x.dtype(), "expected scalar type ", scalar_type_name(x.dtype()),
             " but found ", scalar_type_name(p->dtype()));
}

// The dtype the statistics are computed in.
ScalarType stats_dtype(const Tensor& x) {
  return is_reduced_float(x.dtype()) ? ScalarType::Float32 : x.dtype();
}

// A parameter as the kernels read it: float32 ones of the mixed type as they are.
Tensor param(const Tensor* t, const Tensor& x) {
  if (t && is_reduced_float(x.dtype()) && t->dtype() == ScalarType::Float32) return dense(*t);
  return dense_as(t, x.dtype());
}

Tensor rounded_to(const Tensor& t, ScalarType dt) {
  return t.dtype() == dt ? t : kernels::narrowed(t, dt);
}

// The statistics a norm returns and saves: in the input's dtype, or float32 for
// the mixed type (NOTE [Reduced norms]).
Tensor returned_stats(const Tensor& t, const Tensor& x, bool mixed) {
  return mixed ? t : rounded_to(t, x.dtype());
}

void check_norm_float(const Tensor& x, const char* name) {
  GT_CHECK_IMPL(is_floating(x.dtype()), "\"", name, "\" not implemented for '",
                scalar_type_name(x.dtype()), "'");
}

}  // namespace

std::vector<Tensor> native_layer_norm(const Tensor& x, const DimVector& normalized_shape,
                                      const Tensor* w, const Tensor* b, double eps) {
  autograd::profiling::Scope scope("aten::native_layer_norm", {&x, nullptr, w, b}, 5);
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  const int64_t axis = x.dim() - nd;
  bool fits = axis >= 0;
  for (int64_t i = 0; fits && i < nd; ++i) fits = x.sizes()[axis + i] == normalized_shape[i];
  GT_CHECK(
      fits, "Given normalized_shape=", shape_str(normalized_shape),
      ", expected input with shape [*",
      [&] {
        std::string s;
        for (int64_t v : normalized_shape) s += ", " + std::to_string(v);
        return s;
      }(),
      "], but got input of size", shape_str(x.sizes()));
  check_norm_float(x, "LayerNormKernelImpl");
  if (!is_reduced_float(x.dtype())) check_same_dtype(x, w, b);
  check_params(x, {w, b});
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < x.dim(); ++i) (i < axis ? rows : cols) *= x.sizes()[i];
  Tensor xd = dense(x), out = empty(x.sizes(), x.dtype());
  Tensor mean = empty({rows}, stats_dtype(x)), rstd = empty({rows}, stats_dtype(x));
  Tensor wd = param(w, x), bd = param(b, x);
  if (rows * cols != 0) kernels::nn::layer_norm_rows(out, xd, rows, cols, eps, mean, rstd, wd, bd);
  const bool mixed = mixed_type(x, {w, b});
  mean = returned_stats(mean, x, mixed);
  rstd = returned_stats(rstd, x, mixed);
  record_norm(OpKind::NativeLayerNorm, x, w, b, out, {&mean, &rstd}, {rows, cols, 1, 1}, eps, 0);
  return {out, mean, rstd};
}

std::vector<Tensor> native_group_norm(const Tensor& x, const Tensor* w, const Tensor* b,
                                      int64_t groups, double eps) {
  check_norm_float(x, "GroupNormKernelImpl");
  if (!is_reduced_float(x.dtype())) check_same_dtype(x, w, b);
  check_params(x, {w, b});
  const int64_t n = x.sizes()[0], c = x.sizes()[1];
  int64_t l = 1;
  for (int64_t i = 2; i < x.dim(); ++i) l *= x.sizes()[i];
  Tensor xd = dense(x), out = empty(x.sizes(), x.dtype());
  Tensor mean = empty({n * groups}, stats_dtype(x)), rstd = empty({n * groups}, stats_dtype(x));
  Tensor wd = param(w, x), bd = param(b, x);
  if (x.numel() != 0) {
    kernels::nn::row_moments(xd, n * groups, c / groups * l, eps, mean, rstd);
    kernels::nn::norm_apply(out, xd, n, c, l, groups, mean, rstd, wd, bd);
  }
  const bool mixed = mixed_type(x, {w, b});
  mean = returned_stats(mean, x, mixed);
  rstd = returned_stats(rstd, x, mixed);
  record_norm(OpKind::NativeGroupNorm, x, w, b, out, {&mean, &rstd}, {n, c, l, groups}, eps, 0);
  return {out, mean, rstd};
}

namespace {

// running = (1 - m) * running + m * batch, in place and unrecorded.
void update_running(const Tensor& running, const Tensor& batch, double m) {
  Tensor r = dense(kernels::widen(running));  // a reduced running stat updates in float
  Tensor bt = to_dtype(batch, r.dtype());
  GT_DISPATCH_FLOAT(r.dtype(), "batch_norm", [&] {
    scalar_t* rp = r.data<scalar_t>();
    const scalar_t* bp = bt.data<scalar_t>();
    for (int64_t i = 0; i < r.numel(); ++i)
      rp[i] = static_cast<scalar_t>((1 - m) * double(rp[i]) + m * double(bp[i]));
  });
  if (!r.is_same(running)) kernels::copy(running, r);
}

}  // namespace

std::vector<Tensor> native_batch_norm(const Tensor& x, const Tensor* w, const Tensor* b,
                                      const Tensor* running_mean, const Tensor* running_var,
                                      bool training, double momentum, double eps) {
  check_norm_float(x, "batch_norm");
  if (!is_reduced_float(x.dtype())) {
    check_same_dtype(x, w, b);
    check_same_dtype(x, running_mean, running_var);
  }
  check_params(x, {w, b, running_mean, running_var});
  GT_CHECK(training || (running_mean && running_var),
           "running_mean must be defined in evaluation mode");
  const int64_t n = x.sizes()[0], c = x.dim() > 1 ? x.sizes()[1] : 1;
  int64_t l = 1;
  for (int64_t i = 2; i < x.dim(); ++i) l *= x.sizes()[i];
  const ScalarType sdt = stats_dtype(x);
  Tensor xd = dense(x), out = empty(x.sizes(), x.dtype());
  Tensor wd = param(w, x), bd = param(b, x);
  Tensor mean = empty({c}, sdt), rstd = empty({c}, sdt);
  if (training) {
    Tensor var = empty({c}, sdt);
    if (x.numel() != 0) kernels::nn::channel_moments(xd, n, c, l, mean, var);
    GT_DISPATCH_FLOAT(sdt, "batch_norm", [&] {
      for (int64_t i = 0; i < c; ++i)
        rstd.data<scalar_t>()[i] =
            static_cast<scalar_t>(1.0 / std::sqrt(double(var.data<scalar_t>()[i]) + eps));
    });
    const int64_t count = n * l;
    if (running_mean) update_running(*running_mean, mean, momentum);
    if (running_var && count > 0) {
      // The running variance is the unbiased one.
      Tensor unbiased = mul(var, Scalar(double(count) / double(std::max<int64_t>(count - 1, 1))));
      if (count == 1) unbiased = full({c}, Scalar(NAN), sdt);
      update_running(*running_var, unbiased, momentum);
    }
  } else {
    Tensor rm = dense_as(running_mean, sdt), rv = dense_as(running_var, sdt);
    GT_DISPATCH_FLOAT(sdt, "batch_norm", [&] {
      for (int64_t i = 0; i < c; ++i) {
        mean.data<scalar_t>()[i] = rm.data<scalar_t>()[i];
        rstd.data<scalar_t>()[i] =
            static_cast<scalar_t>(1.0 / std::sqrt(double(rv.data<scalar_t>()[i]) + eps));
      }
    });
  }
  if (x.numel() != 0) kernels::nn::norm_apply(out, xd, n, c, l, 0, mean, rstd, wd, bd);
  const bool mixed = mixed_type(x, {w, b, running_mean, running_var});
  mean = returned_stats(mean, x, mixed);
  rstd = returned_stats(rstd, x, mixed);
  // Training saves the batch statistics; evaluation the running ones it used.
  std::vector<const Tensor*> extras{&mean, &rstd};
  if (!training) extras = {running_mean, running_var};
  record_norm(OpKind::NativeBatchNorm, x, w, b, out, extras, {n, c, l, 0}, eps, training ? 1 : 0);
  return {out, mean, rstd};
}

}  // namespace gradtrack::ops
