// THE derivative table. Each formula returns one gradient per forward input
// (undefined where not needed) and is written with differentiable ops, so
// create_graph=True (double backward) works. FormulaNode::apply then sums
// each gradient down to its input's shape and casts it to its dtype: no
// formula undoes broadcasting itself.
#include <cmath>

#include "autograd/formulas.h"
#include "autograd/formulas_conv.h"
#include "autograd/formulas_nn.h"
#include "autograd/formulas_rnn.h"
#include "autograd/jvp_formulas.h"
#include "autograd/formulas_extra.h"
#include "autograd/formulas_resample.h"
#include "ops/svd.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/reduced_float.h"
#include "ops/ops.h"

namespace gradtrack::autograd {

namespace {

using namespace ::gradtrack::ops;  // NOLINT: the formulas read as math
using TL = TensorList;
using C = BackwardCtx;

Tensor zeros_of(const C& c, size_t i) { return zeros(c.input(i).shape, c.input(i).dtype); }
// What at::zeros gives inside a PyTorch formula: its zero_ runs through the
// autograd layer and counts as a write, so the tensor is at version 1
// (new_zeros and zeros_like are not).
Tensor written_zeros_of(const C& c, size_t i) {
  Tensor z = zeros_of(c, i);
  z->bump_version();
  return z;
}
Tensor zero_scalar(const Tensor& like) { return zeros({}, like.dtype()); }
// PyTorch's maybe_multiply: the Scalar overload (MulBackward1), skipped for 1.
Tensor scale(const Tensor& g, Scalar s) { return s.equals(1) ? g : mul_by_scalar(g, s); }

TL add_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? scale(g[0], c.attrs<AlphaAttrs>().alpha) : Tensor()};
}
TL pass_bw(const C&, const TL& g) { return {g[0]}; }
// The negated side is neg(g) times alpha, as PyTorch's maybe_multiply(-grad, alpha):
// under create_graph its node is NegBackward0 (then MulBackward0 when alpha != 1).
TL sub_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? scale(neg(g[0]), c.attrs<AlphaAttrs>().alpha) : Tensor()};
}
TL rsub_bw(const C& c, const TL& g) {
  return {scale(neg(g[0]), c.attrs<AlphaAttrs>().alpha), g[0]};
}
TL rsub_scalar_bw(const C& c, const TL& g) {
  return {scale(neg(g[0]), c.attrs<AlphaAttrs>().alpha)};
}
// The gradient of a full reduction (`(a * b).sum()`) reaches the product as
// one value expanded to its shape (every stride 0). Small products then take
// both gradients in one loop: the same float products as two mul() calls
// (g * b[i], g * a[i]), without their broadcasting set-up. Large ones keep the
// threaded kernels.
bool mul_bw_broadcast(const Tensor& g, const Tensor& a, const Tensor& b, Tensor& ga, Tensor& gb) {
  const ScalarType dt = a.dtype();
  if ((dt != ScalarType::Float32 && dt != ScalarType::Float64) || g.dtype() != dt ||
      b.dtype() != dt || g.sizes() != a.sizes() || a.sizes() != b.sizes() || g.numel() == 0 ||
      g.numel() > kGrainSize || !a.is_contiguous() || !b.is_contiguous() || !a.is_aligned() ||
      !b.is_aligned() || !g.is_aligned())
    return false;
  for (int64_t st : g.strides())
    if (st != 0) return false;
  ga = empty(a.sizes(), dt);
  gb = empty(a.sizes(), dt);
  const int64_t n = g.numel();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T gv = *g.data<T>();
    const T* xa = a.data<T>();
    const T* xb = b.data<T>();
    T* pa = ga.data<T>();
    T* pb = gb.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      pa[i] = gv * xb[i];
      pb[i] = gv * xa[i];
    }
  };
  dt == ScalarType::Float32 ? run(float(0)) : run(double(0));
  return true;
}

TL mul_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  Tensor ga, gb;
  if (c.needs(0) && c.needs(1) && !GradMode::is_enabled() && mul_bw_broadcast(g[0], a, b, ga, gb))
    return {ga, gb};
  // Both gradients of a large product in one pass: 5 memory streams, not 6.
  if (c.needs(0) && c.needs(1) && !GradMode::is_enabled() && g[0].sizes() == a.sizes() &&
      a.sizes() == b.sizes() && g[0].dtype() == a.dtype() && a.dtype() == b.dtype() &&
      is_floating(a.dtype()) && g[0].is_contiguous() && a.is_contiguous() && b.is_contiguous() &&
      g[0].is_aligned() && a.is_aligned() && b.is_aligned()) {
    Tensor ga = empty(a.sizes(), a.dtype()), gb = empty(a.sizes(), a.dtype());
    kernels::mul_backward(ga, gb, g[0], a, b);
    return {ga, gb};
  }
  return {c.needs(0) ? mul(g[0], b) : Tensor(), c.needs(1) ? mul(g[0], a) : Tensor()};
}
TL mul_scalar_bw(const C& c, const TL& g) {
  return {mul(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
TL mul_by_scalar_bw(const C& c, const TL& g) {
  return {mul_by_scalar(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
TL div_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  return {c.needs(0) ? div(g[0], b) : Tensor(),
          // -g * ((a / b) / b), as PyTorch computes (and graphs) it.
          c.needs(1) ? mul(neg(g[0]), div(div(a, b), b)) : Tensor()};
}
TL div_scalar_bw(const C& c, const TL& g) {
  return {div(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
TL div_by_scalar_bw(const C& c, const TL& g) {
  return {div_by_scalar(g[0], c.attrs<ScalarOperandAttrs>().other)};
}
// NOTE [Formulas shaped like PyTorch's]
// With create_graph=True the ops a formula calls become the gradient's graph,
// and users (and the differential tests) see its node names. The formulas
// below that matter for that are written with the ops, operand order and
// overloads PyTorch's derivatives use: a number multiplies through
// mul_by_scalar (MulBackward1), not the wrapped-number mul (MulBackward0).
// Without a graph being built only the values count, and a cheaper form with
// the same values may be used.
TL pow_scalar_bw(const C& c, const TL& g) {
  // g * (e * x^(e-1)), the exponent as a double; exponent 0 gives zeros.
  const Scalar e = c.attrs<PowAttrs>().exponent;
  const Tensor& a = c.saved_input(0);
  if (e.equals(0)) return {zeros_like(a)};
  // x ** 1 still computes a new tensor: passing g through would hand out a view
  // (an expanded gradient) where PyTorch's gradient is fresh.
  if (!GradMode::is_enabled() && e.equals(2)) return {mul(g[0], mul(a, Scalar(int64_t(2))))};
  const double ed = e.to_double();
  return {mul(g[0], mul_by_scalar(pow(a, Scalar(ed - 1)), Scalar(ed)))};
}
TL pow_tensor_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  TL out(2);
  if (c.needs(0)) {
    // Zero where the exponent is 0 (0 ** 0 has gradient 0, not 0 * inf).
    Tensor d = mul(g[0], mul(b, pow(a, sub_by_scalar(b, Scalar(int64_t(1))))));
    out[0] = where(compare(Cmp::Eq, b, Scalar(0.0)), zero_scalar(g[0]), d);
  }
  if (c.needs(1)) {
    // x^y * log(x), but 0 where x == 0 and y >= 0 (log(0) would give NaN).
    Tensor mask =
        logical(Logic::And, compare(Cmp::Eq, a, Scalar(0.0)), compare(Cmp::Ge, b, Scalar(0.0)));
    const Tensor& r = c.result();
    Tensor d = mul(r, log(to_dtype(a, r.dtype())));
    out[1] = mul(g[0], where(mask, zero_scalar(g[0]), d));
  }
  return out;
}
TL pow_base_bw(const C& c, const TL& g) {
  const double base = c.attrs<PowBaseAttrs>().base.to_double();
  Tensor d = mul_by_scalar(c.result(), Scalar(std::log(base)));
  if (base == 0) d = where(compare(Cmp::Ge, c.saved_input(0), Scalar(0.0)), zero_scalar(g[0]), d);
  return {mul(g[0], d)};
}
TL neg_bw(const C&, const TL& g) { return {neg(g[0])}; }
TL abs_bw(const C& c, const TL& g) { return {mul(g[0], sgn(c.saved_input(0)))}; }
TL exp_bw(const C& c, const TL& g) { return {mul(g[0], c.result())}; }
TL log_bw(const C& c, const TL& g) { return {div(g[0], c.saved_input(0))}; }
TL sqrt_bw(const C& c, const TL& g) { return {div(g[0], mul_by_scalar(c.result(), Scalar(2.0)))}; }
// -0.5 * grad * result.pow(3), grouped as PyTorch's (MulBackward1 on grad).
TL rsqrt_bw(const C& c, const TL& g) {
  return {mul(mul_by_scalar(g[0], Scalar(-0.5)), pow(c.result(), Scalar(int64_t(3))))};
}
TL sin_bw(const C& c, const TL& g) { return {mul(g[0], cos(c.saved_input(0)))}; }
TL cos_bw(const C& c, const TL& g) { return {mul(g[0], neg(sin(c.saved_input(0))))}; }
TL tanh_bw(const C& c, const TL& g) { return {tanh_backward(g[0], c.result())}; }
TL sigmoid_bw(const C& c, const TL& g) { return {sigmoid_backward(g[0], c.result())}; }
TL sigmoid_backward_bw(const C& c, const TL& g) {
  const Tensor& gy = c.saved_input(0);
  const Tensor& y = c.saved_input(1);
  return {c.needs(0) ? sigmoid_backward(g[0], y) : Tensor(),
          c.needs(1) ? mul(mul(g[0], gy), rsub(mul(y, Scalar(int64_t(2))), Scalar(int64_t(1))))
                     : Tensor()};
}
TL tanh_backward_bw(const C& c, const TL& g) {
  const Tensor& gy = c.saved_input(0);
  const Tensor& y = c.saved_input(1);
  return {c.needs(0) ? tanh_backward(g[0], y) : Tensor(),
          c.needs(1) ? mul(mul(g[0], gy), mul(y, Scalar(int64_t(-2)))) : Tensor()};
}
TL relu_bw(const C& c, const TL& g) { return {threshold_backward(g[0], c.result())}; }
TL reciprocal_bw(const C& c, const TL& g) {
  const Tensor& y = c.result();
  return {mul(neg(g[0]), mul(y, y))};
}
TL zero_bw(const C& c, const TL& g) {
  TL out(c.node.inputs.size());
  out[0] = zeros_like(g[0]).sizes() == c.input(0).shape ? zeros_like(g[0]) : zeros_of(c, 0);
  return out;
}
// `x + 1` in PyTorch's formulas is the wrapped-number overload (AddBackward1).
TL log1p_bw(const C& c, const TL& g) {
  return {div(g[0], add_by_scalar(c.saved_input(0), Scalar(int64_t(1))))};
}
TL expm1_bw(const C& c, const TL& g) {
  return {mul(g[0], add_by_scalar(c.result(), Scalar(int64_t(1))))};
}

TL extreme_pair_bw(const C& c, const TL& g, Cmp loses) {
  // Ties share the gradient; only a strictly losing operand gets zero, so a
  // NaN (which compares false with everything) takes the whole gradient.
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  // Each side is where(...) then masked_fill_ in place (version 1), as PyTorch's.
  auto side = [&](const Tensor& self, const Tensor& other) {
    Tensor shared = where(compare(Cmp::Eq, a, b), div_by_scalar(g[0], Scalar(int64_t(2))), g[0]);
    return inplace_masked_fill(shared, compare(loses, self, other), Scalar(int64_t(0)));
  };
  TL out(2);
  if (c.needs(0)) out[0] = side(a, b);
  if (c.needs(1)) out[1] = side(b, a);
  return out;
}
TL maximum_bw(const C& c, const TL& g) { return extreme_pair_bw(c, g, Cmp::Lt); }
TL minimum_bw(const C& c, const TL& g) { return extreme_pair_bw(c, g, Cmp::Gt); }
TL clamp_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const ClampAttrs& at = c.attrs<ClampAttrs>();
  Tensor keep;
  if (at.min) keep = compare(Cmp::Ge, a, *at.min);
  if (at.max) {
    Tensor le = compare(Cmp::Le, a, *at.max);
    keep = keep.defined() ? logical(Logic::And, keep, le) : le;
  }
  return {where(keep, g[0], zero_scalar(g[0]))};
}
TL clamp_tensor_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& lo = c.saved_input(1);
  const Tensor& hi = c.saved_input(2);
  Tensor z = zero_scalar(g[0]);
  // PyTorch's clamp_backward / clamp_backward_min_max, comparison for comparison: a NaN
  // (in the input or a bound) passes no gradient, and lo == hi passes none to lo.
  Tensor lo_wins = logical(Logic::And, compare(Cmp::Lt, a, lo), compare(Cmp::Lt, lo, hi));
  Tensor hi_wins = logical(Logic::Or, compare(Cmp::Gt, a, hi), compare(Cmp::Lt, hi, lo));
  Tensor self_ok = logical(Logic::And, compare(Cmp::Ge, a, lo), compare(Cmp::Le, a, hi));
  return {c.needs(0) ? where(self_ok, g[0], z) : Tensor(),
          c.needs(1) ? where(lo_wins, g[0], z) : Tensor(),
          c.needs(2) ? where(hi_wins, g[0], z) : Tensor()};
}
TL where_bw(const C& c, const TL& g) {
  const Tensor& cond = c.extra(0);
  Tensor z = zero_scalar(g[0]);
  return {c.needs(0) ? where(cond, g[0], z) : Tensor(),
          c.needs(1) ? where(cond, z, g[0]) : Tensor()};
}

// Puts back the reduced dims of a keepdim=False result, then expands.
Tensor unreduce(const Tensor& g, const C& c) {
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  Tensor r = g;
  if (!at.keepdim) {
    for (int64_t d : at.dim) r = unsqueeze(r, d);
  }
  return expand(r, c.input(0).shape);
}
TL sum_all_bw(const C& c, const TL& g) { return {expand(g[0], c.input(0).shape)}; }
TL sum_dim_bw(const C& c, const TL& g) { return {unreduce(g[0], c)}; }
// Divided through div_by_scalar, as PyTorch's formulas: under create_graph the
// gradient's node is DivBackward1.
TL mean_all_bw(const C& c, const TL& g) {
  return {div_by_scalar(expand(g[0], c.input(0).shape), Scalar(numel_of(c.input(0).shape)))};
}
TL mean_dim_bw(const C& c, const TL& g) {
  return {div_by_scalar(unreduce(g[0], c), Scalar(c.attrs<ReduceAttrs>().reduced_numel))};
}
TL extreme_all_bw(const C& c, const TL& g) {
  // The gradient is shared evenly by every element equal to the extreme.
  const Tensor& a = c.saved_input(0);
  const Tensor& r = c.result();
  Tensor mask = logical(Logic::Or, compare(Cmp::Eq, a, r), logical(Logic::And, isnan(a), isnan(r)));
  Tensor count = sum(mask, {}, false);
  // As PyTorch: zeros, then masked_fill_ (so the result is at version 1).
  Tensor out = zeros(a.sizes(), a.dtype());
  return {inplace_masked_fill(out, mask, div(g[0], count))};
}
TL extreme_dim_bw(const C& c, const TL& g) {
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  if (c.input(0).shape.empty()) return {g[0]};
  Tensor idx = c.extra(0), gg = g[0];
  if (!at.keepdim) {
    idx = unsqueeze(idx, at.dim);
    gg = unsqueeze(gg, at.dim);
  }
  // PyTorch's value_selecting_reduction_backward: at::zeros (version 1), then
  // the gradient scattered in place (version 2).
  return {inplace_scatter(written_zeros_of(c, 0), at.dim, idx, gg)};
}
TL reshape_bw(const C& c, const TL& g) { return {reshape(g[0], c.input(0).shape)}; }
// squeeze's gradient puts the dropped size-1 dims back one unsqueeze at a time
// (nothing when none was dropped), as PyTorch's unsqueeze_to: the
// create_graph=True graph shows UnsqueezeBackward0 nodes, not a view.
TL squeeze_bw(const C& c, const TL& g) {
  const DimVector& in = c.input(0).shape;
  Tensor r = g[0];
  for (int64_t i = 0; r.dim() < static_cast<int64_t>(in.size()); ++i)
    if (i >= r.dim() || r.sizes()[i] != in[i]) r = unsqueeze(r, i);
  return {r};
}
TL as_strided_bw(const C& c, const TL& g) {
  const AsStridedAttrs& at = c.attrs<AsStridedAttrs>();
  return {as_strided_backward(g[0], c.input(0).shape, at.base_stride, at.base_offset, at.size,
                              at.stride, at.storage_offset)};
}
TL t_bw(const C&, const TL& g) { return {t(g[0])}; }
TL transpose_bw(const C& c, const TL& g) {
  const TransposeAttrs& at = c.attrs<TransposeAttrs>();
  return {transpose(g[0], at.dim0, at.dim1)};
}
TL permute_bw(const C& c, const TL& g) {
  const DimVector& p = c.attrs<DimsAttrs>().dims;
  DimVector inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return {permute(g[0], inv)};
}
TL unsqueeze_bw(const C& c, const TL& g) { return {squeeze(g[0], c.attrs<DimAttrs>().dim)}; }
TL select_bw(const C& c, const TL& g) {
  const SelectAttrs& at = c.attrs<SelectAttrs>();
  return {select_backward(g[0], at.input_sizes, at.dim, at.index)};
}
TL slice_bw(const C& c, const TL& g) {
  const SliceAttrs& at = c.attrs<SliceAttrs>();
  return {slice_backward(g[0], at.input_sizes, at.dim, at.start, at.end, at.step)};
}
TL select_backward_bw(const C& c, const TL& g) {
  const SelectAttrs& at = c.attrs<SelectAttrs>();
  return {select(g[0], at.dim, at.index)};
}
TL slice_backward_bw(const C& c, const TL& g) {
  const SliceAttrs& at = c.attrs<SliceAttrs>();
  return {slice(g[0], at.dim, at.start, at.end, at.step)};
}
TL copy_into_bw(const C& c, const TL& g) {
  return {c.needs(0) ? zeros_like(g[0]) : Tensor(), g[0]};
}
TL fill_bw(const C& c, const TL& g) {
  TL out(c.node.inputs.size());
  out[0] = zeros_like(g[0]);
  if (out.size() > 1 && c.needs(1)) out[1] = sum(g[0], {}, false);
  return out;
}

IndexList saved_indices(const C& c) {
  IndexList idx;
  size_t k = 0;
  for (int64_t present : c.attrs<IndexAttrs>().has_index) {
    if (present)
      idx.emplace_back(c.extra(k++));
    else
      idx.emplace_back(std::nullopt);
  }
  return idx;
}
TL index_bw(const C& c, const TL& g) {
  // Zeros written in place, as PyTorch's index_backward (IndexPutImplBackward0).
  return {inplace_index_put_impl(zeros_of(c, 0), saved_indices(c), g[0], true)};
}
TL index_put_bw(const C& c, const TL& g) {
  IndexList idx = saved_indices(c);
  TL out(2);
  const bool accumulate = c.attrs<IndexAttrs>().accumulate;
  if (c.needs(0)) out[0] = accumulate ? g[0] : index_put(g[0], idx, zero_scalar(g[0]), false);
  if (c.needs(1)) out[1] = index(g[0], idx);
  return out;
}
// The gradient written at the mask's true places of the broadcast shape, then
// summed back to the input's shape, as PyTorch's masked_select_backward.
TL masked_select_bw(const C& c, const TL& g) {
  Tensor full = zeros(c.attrs<MaskedSelectAttrs>().shape, g[0].dtype());
  Tensor written = index_put(full, IndexList{c.extra(0)}, g[0], false);
  return {sum_to(written, c.input(0).shape)};
}
TL masked_fill_bw(const C& c, const TL& g) {
  const Tensor& mask = c.extra(0);
  Tensor z = zero_scalar(g[0]);
  TL out(c.node.inputs.size());
  if (c.needs(0)) out[0] = masked_fill(g[0], mask, z);
  if (out.size() > 1 && c.needs(1)) out[1] = sum(where(mask, g[0], z), {}, false);
  return out;
}
TL gather_bw(const C& c, const TL& g) {
  // new_zeros, then scatter_add_ (version 1), as PyTorch's gather_backward.
  return {inplace_scatter_add(zeros_of(c, 0), c.attrs<DimAttrs>().dim, c.extra(0), g[0])};
}
// scatter: self's gradient is zero where src was written, src's is read there.
TL scatter_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(c.node.inputs.size());
  if (c.needs(0)) out[0] = scatter(g[0], d, c.extra(0), Scalar(int64_t(0)));
  if (out.size() > 1 && c.needs(1)) out[1] = gather(g[0], d, c.extra(0));
  return out;
}
TL scatter_add_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? gather(g[0], c.attrs<DimAttrs>().dim, c.extra(0)) : Tensor()};
}
// The saved index may alias a numpy array changed since forward (no version
// bump): index_add would wrap a now negative index silently, where PyTorch's
// index_add refuses it (in its words for a 1-D input, otherwise naming the
// dim; its 3-D dim-1 kernel's IndexError is not reproduced).
void check_saved_select_index(const GradMeta& in, int64_t d, const Tensor& index) {
  Tensor ic = kernels::aligned(contiguous(to_dtype(index, ScalarType::Int64)));
  const int64_t size = in.shape.empty() ? 1 : in.shape[static_cast<size_t>(d)];
  for (int64_t i = 0; i < ic.numel(); ++i) {
    const int64_t v = ic.data<int64_t>()[i];
    if (v >= 0 && v < size) continue;
    GT_CHECK_INDEX(in.shape.size() > 1, "index out of range in self");
    throw Error(str_cat("index ", v, " is out of bounds for dimension ", d, " with size ", size));
  }
}
TL index_select_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  check_saved_select_index(c.input(0), d, c.extra(0));
  // Zeros index_add_ed in place, as PyTorch's index_select_backward; a
  // 0-dim input was selected from as one element, and so is its gradient.
  Tensor z = zeros_of(c, 0);
  if (z.dim() == 0) {
    return {reshape(inplace_index_add(reshape(z, {1}), 0, c.extra(0), reshape(g[0], {1})), {})};
  }
  return {inplace_index_add(z, d, c.extra(0), g[0])};
}
TL cat_bw(const C& c, const TL& g) {
  TL out;
  int64_t offset = 0;
  const CatAttrs& at = c.attrs<CatAttrs>();
  const int64_t d = at.dim;
  for (size_t i = 0; i < c.node.inputs.size(); ++i) {
    int64_t n = at.sizes[i];
    const DimVector& shape = c.input(i).shape;
    if (shape.size() == 1 && shape[0] == 0) {  // at::zeros({0}) in PyTorch's formula
      out.push_back(c.needs(i) ? written_zeros_of(c, i) : Tensor());
      continue;
    }
    out.push_back(c.needs(i) ? narrow(g[0], d, offset, n) : Tensor());
    offset += n;
  }
  return out;
}
TL stack_bw(const C& c, const TL& g) {
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out;
  for (size_t i = 0; i < c.node.inputs.size(); ++i)
    out.push_back(c.needs(i) ? select(g[0], d, static_cast<int64_t>(i)) : Tensor());
  return out;
}
TL split_bw(const C& c, const TL& g) { return {cat(g, c.attrs<CatAttrs>().dim)}; }
TL unbind_bw(const C& c, const TL& g) { return {stack(g, c.attrs<DimAttrs>().dim)}; }
// PyTorch's mm_mat1_backward / mm_mat2_backward: an input that was column-major
// when the product was taken (strides (1, rows)) gets its gradient column-major
// too, as the transpose of a product.
bool column_major(const GradMeta& input, const DimVector& strides) {
  return strides.size() == 2 && strides[0] == 1 && strides[1] == input.shape[0];
}
Tensor mm_mat1_bw(const Tensor& g, const Tensor& mat2, bool col) {
  return col ? t(mm(mat2, t(g))) : mm(g, t(mat2));
}
Tensor mm_mat2_bw(const Tensor& g, const Tensor& mat1, bool col) {
  return col ? t(mm(t(g), mat1)) : mm(t(mat1), g);
}
TL mm_bw(const C& c, const TL& g) {
  const MmAttrs& at = c.attrs<MmAttrs>();
  return {c.needs(0) ? mm_mat1_bw(g[0], c.saved_input(1), column_major(c.input(0), at.mat1_strides))
                     : Tensor(),
          c.needs(1) ? mm_mat2_bw(g[0], c.saved_input(0), column_major(c.input(1), at.mat2_strides))
                     : Tensor()};
}
TL mv_bw(const C& c, const TL& g) {
  return {c.needs(0) ? outer(g[0], c.saved_input(1)) : Tensor(),
          c.needs(1) ? mv(t(c.saved_input(0)), g[0]) : Tensor()};
}
TL dot_bw(const C& c, const TL& g) {
  // grad * other, in PyTorch's operand order (create_graph shows it).
  return {c.needs(0) ? mul(g[0], c.saved_input(1)) : Tensor(),
          c.needs(1) ? mul(g[0], c.saved_input(0)) : Tensor()};
}
TL bmm_bw(const C& c, const TL& g) {
  return {c.needs(0) ? bmm(g[0], transpose(c.saved_input(1), 1, 2)) : Tensor(),
          c.needs(1) ? bmm(transpose(c.saved_input(0), 1, 2), g[0]) : Tensor()};
}
TL addmm_bw(const C& c, const TL& g) {
  const AddmmAttrs& at = c.attrs<AddmmAttrs>();
  const bool col1 = column_major(c.input(1), at.mat1_strides);
  const bool col2 = column_major(c.input(2), at.mat2_strides);
  return {c.needs(0) ? scale(g[0], at.beta) : Tensor(),
          c.needs(1) ? scale(mm_mat1_bw(g[0], c.saved_input(2), col1), at.alpha) : Tensor(),
          c.needs(2) ? scale(mm_mat2_bw(g[0], c.saved_input(1), col2), at.alpha) : Tensor()};
}
TL log_softmax_bw(const C& c, const TL& g) {
  return {log_softmax_backward(g[0], c.result(), c.attrs<DimAttrs>().dim)};
}
TL softmax_bw(const C& c, const TL& g) {
  return {softmax_backward(g[0], c.result(), c.attrs<DimAttrs>().dim)};
}
// The backward ops' own gradients (inputs: the incoming gradient go, the
// forward result y), PyTorch's softmax_double_backward and its log form.
Tensor sum_keepdim(const Tensor& t, int64_t dim) { return sum(t, {dim}, true, std::nullopt, true); }
TL softmax_data_bw(const C& c, const TL& g) {
  const Tensor &go = c.saved_input(0), &y = c.saved_input(1);
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(2);
  if (c.needs(0)) out[0] = softmax_backward(g[0], y, d);
  if (c.needs(1)) {
    out[1] = sub(sub(mul(go, g[0]), mul(sum_keepdim(mul(y, go), d), g[0])),
                 mul(go, sum_keepdim(mul(y, g[0]), d)));
  }
  return out;
}
TL log_softmax_data_bw(const C& c, const TL& g) {
  const Tensor &go = c.saved_input(0), &y = c.saved_input(1);
  const int64_t d = c.attrs<DimAttrs>().dim;
  TL out(2);
  if (c.needs(0)) out[0] = sub(g[0], sum_keepdim(mul(g[0], exp(y)), d));
  if (c.needs(1)) out[1] = mul(mul(neg(sum_keepdim(go, d)), exp(y)), g[0]);
  return out;
}
// NOTE [nll_loss backward checks what it saved]
// The target and weight are saved as the user's tensors, not copies: a
// numpy label array shared through from_numpy, or `.data` replaced, changes
// them between forward and backward without a version bump. Backward so
// re-checks, as PyTorch's does, everything it indexes with: the target's
// rank, length and dtype, the weight's length and dtype, and each label's
// range (PyTorch leaves the last unchecked for reduction='none' and writes
// out of bounds; here it raises the same IndexError as the other
// reductions).
void check_nll_saved(const GradMeta& in, const Tensor& target, const Tensor* weight) {
  const int64_t nd = static_cast<int64_t>(in.shape.size());
  GT_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  if (!(nd == 1 && target.dim() == 0)) {
    GT_CHECK_INDEX(target.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
    GT_CHECK(in.shape[0] == target.sizes()[0], "size mismatch (got input: ", shape_str(in.shape),
             ", target: ", shape_str(target.sizes()), ")");
  }
  GT_CHECK(!weight || weight->numel() == in.shape.back(),
           "weight tensor should be defined either for all or no classes");
  GT_CHECK(target.dtype() == ScalarType::Int64 || target.dtype() == ScalarType::UInt8,
           "expected scalar type Long but found ", scalar_type_name(target.dtype()));
  GT_CHECK(!weight || weight->dtype() == in.dtype, "expected scalar type ",
           scalar_type_name(in.dtype), " but found ", scalar_type_name(weight->dtype()));
}
TL nll_loss_bw(const C& c, const TL& g) {
  // d loss / d logp is -w[t] / denom at each row's target: a constant
  // coefficient tensor, times the incoming gradient (linear, so any order).
  const LossAttrs& at = c.attrs<LossAttrs>();
  const Tensor& target = c.extra(0);
  const Tensor& total_weight = c.extra(1);
  const GradMeta& in = c.input(0);
  check_nll_saved(in, target, at.has_weight ? &c.extra(2) : nullptr);
  const bool batched = in.shape.size() == 2;
  const int64_t n = batched ? in.shape[0] : 1, cls = in.shape.back();
  // float16 / bfloat16: the coefficients in float, rounded once
  const ScalarType cdt = is_reduced_float(in.dtype) ? ScalarType::Float32 : in.dtype;
  Tensor coef = zeros(in.shape, cdt);
  Tensor tg = kernels::aligned(contiguous(to_dtype(target, ScalarType::Int64)));
  Tensor w = at.has_weight ? kernels::aligned(contiguous(kernels::widen(c.extra(2)))) : Tensor();
  const Tensor tw = kernels::widen(total_weight);
  GT_DISPATCH_FLOAT(cdt, "nll_loss_backward", [&] {
    scalar_t* p = coef.data<scalar_t>();
    const int64_t* t = tg.data<int64_t>();
    double denom = at.reduction == 1 ? double(kernels::load<scalar_t>(tw.raw())) : 1.0;
    for (int64_t i = 0; i < n; ++i) {
      if (t[i] == at.ignore_index) continue;
      GT_CHECK_INDEX(t[i] >= 0 && t[i] < cls, "Target ", t[i], " is out of bounds.");
      double wi = at.has_weight ? double(w.data<scalar_t>()[t[i]]) : 1.0;
      p[i * cls + t[i]] = static_cast<scalar_t>(-wi / denom);
    }
  });
  if (cdt != in.dtype) coef = kernels::narrowed(coef, in.dtype);
  Tensor gg = (at.reduction == 0 && batched) ? unsqueeze(g[0], 1) : g[0];
  return {mul(coef, gg)};
}
TL mse_loss_bw(const C& c, const TL& g) {
  const LossAttrs& at = c.attrs<LossAttrs>();
  Tensor d = sub(c.saved_input(0), c.saved_input(1));
  double k =
      at.reduction == 1 ? 2.0 / double(std::max<int64_t>(numel_of(c.input(0).shape), 1)) : 2.0;
  Tensor ga = mul(mul(d, Scalar(k)), g[0]);
  return {c.needs(0) ? ga : Tensor(), c.needs(1) ? neg(ga) : Tensor()};
}
TL threshold_backward_bw(const C& c, const TL& g) {
  return {c.needs(0) ? threshold_backward(g[0], c.saved_input(1)) : Tensor(),
          c.needs(1) ? zeros_of(c, 1) : Tensor()};
}
// The product of the other elements along `d`, from differentiable ops so a
// create_graph=True gradient of prod can be differentiated again (its second
// derivative is not zero where there are zeros). Halves recursively: each
// half's own exclusive products times the other half's product; a stretch
// without zeros is prod / x, a length-1 stretch the constant 1.
Tensor exclusive_products(const Tensor& x, int64_t d) {
  const int64_t n = x.sizes()[d];
  if (n <= 1) return ones(x.sizes(), x.dtype());
  if (!kernels::any_zero(x)) return div(prod(x, d, true, std::nullopt), x);
  const int64_t m = n / 2;
  Tensor lo = narrow(x, d, 0, m), hi = narrow(x, d, m, n - m);
  Tensor own = cat({exclusive_products(lo, d), exclusive_products(hi, d)}, d);
  Tensor other = cat({expand(prod(hi, d, true, std::nullopt), lo.sizes()),
                      expand(prod(lo, d, true, std::nullopt), hi.sizes())},
                     d);
  return mul(own, other);
}
int64_t count_zeros(const Tensor& x) {
  Tensor n = to_dtype(sum(compare(Cmp::Eq, x, Scalar(0)), {}, false), ScalarType::Int64);
  return *n.data<int64_t>();
}
TL prod_bw(const C& c, const TL& g) {
  // d prod / d x_i is the product of the other elements: result / x_i unless
  // there are zeros. A 0-dim input is its own product: the gradient is g.
  const Tensor& x = c.saved_input(0);
  if (x.dim() == 0) return {g[0]};
  const int64_t n_zero = count_zeros(x);
  if (n_zero == 0) return {mul(g[0], div(c.result(), x))};
  if (!GradMode::is_enabled()) {
    if (n_zero > 1) return {zeros_like(x)};
    return {reshape(mul(g[0], prod_others(reshape(x, {-1}), 0)), x.sizes())};
  }
  return {view(mul(g[0], exclusive_products(reshape(contiguous(x), {-1}), 0)), x.sizes())};
}
TL amax_bw(const C& c, const TL& g) {
  // Shared evenly by the elements equal to the maximum of their slice.
  const ReduceAttrs& at = c.attrs<ReduceAttrs>();
  const Tensor& x = c.saved_input(0);
  Tensor r = c.result(), gg = g[0];
  if (!at.keepdim) {
    // PyTorch's restore_reduced_dims: one view to the keepdim shape.
    DimVector kept = x.sizes();
    for (int64_t d : at.dim) kept[static_cast<size_t>(d)] = 1;
    r = view(r, kept);
    gg = view(gg, kept);
  }
  // (g / count) * mask: a NaN maximum matches nothing, so 0 / 0 makes the
  // whole slice's gradient NaN, as in PyTorch.
  Tensor mask = compare(Cmp::Eq, r, x);
  Tensor count = sum(mask, at.dim, true, std::nullopt, true);
  return {mul(div(gg, count), mask)};
}
TL remainder_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? mul(neg(g[0]), div_mode(c.saved_input(0), c.saved_input(1), "floor"))
                           : Tensor()};
}
TL not_implemented_bw(const C&, const TL&) {
  throw Error("derivative for aten::floor_divide is not implemented");
}
// PyTorch's not-implemented node names the in-place overload that made it.
TL not_implemented_inplace_bw(const C&, const TL&) {
  throw Error("derivative for aten::floor_divide_ is not implemented");
}
TL fmod_bw(const C& c, const TL& g) {
  return {g[0], c.needs(1) ? mul(neg(g[0]), div_mode(c.saved_input(0), c.saved_input(1), "trunc"))
                           : Tensor()};
}

// ---- the op list's newer unary and binary ops ----
Tensor one_minus_square(const Tensor& x) {
  return add_by_scalar(neg(mul(x, x)), Scalar(int64_t(1)));
}
TL tan_bw(const C& c, const TL& g) {
  return {mul(g[0], add_by_scalar(pow(c.result(), Scalar(int64_t(2))), Scalar(int64_t(1))))};
}
TL asin_bw(const C& c, const TL& g) {
  return {mul(g[0], rsqrt(one_minus_square(c.saved_input(0))))};
}
TL acos_bw(const C& c, const TL& g) {
  return {mul(g[0], neg(rsqrt(one_minus_square(c.saved_input(0)))))};
}
TL atan_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {div(g[0], add_by_scalar(mul(x, x), Scalar(int64_t(1))))};
}
TL sinh_bw(const C& c, const TL& g) { return {mul(g[0], cosh(c.saved_input(0)))}; }
TL cosh_bw(const C& c, const TL& g) { return {mul(g[0], sinh(c.saved_input(0)))}; }
TL log2_bw(const C& c, const TL& g) {
  return {div(g[0], mul_by_scalar(c.saved_input(0), Scalar(std::log(2.0))))};
}
TL log10_bw(const C& c, const TL& g) {
  return {div(g[0], mul_by_scalar(c.saved_input(0), Scalar(std::log(10.0))))};
}
// 2 / sqrt(pi) * exp(-x^2) * g.
TL erf_bw(const C& c, const TL& g) {
  Tensor e = exp(neg(pow(c.saved_input(0), Scalar(int64_t(2)))));
  return {mul(mul_by_scalar(e, Scalar(2.0 / std::sqrt(M_PI))), g[0])};
}
// -2 / sqrt(pi) * exp(-x^2) * g.
TL erfc_bw(const C& c, const TL& g) {
  Tensor e = exp(neg(pow(c.saved_input(0), Scalar(int64_t(2)))));
  return {mul(mul_by_scalar(e, Scalar(-2.0 / std::sqrt(M_PI))), g[0])};
}
// sqrt(pi) / 2 * exp(erfinv(x)^2) * g, from the saved result erfinv(x).
TL erfinv_bw(const C& c, const TL& g) {
  Tensor e = exp(pow(c.result(), Scalar(int64_t(2))));
  return {mul(mul_by_scalar(e, Scalar(0.5 * std::sqrt(M_PI))), g[0])};
}
TL asinh_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {mul(g[0], rsqrt(add_by_scalar(pow(x, Scalar(int64_t(2))), Scalar(int64_t(1)))))};
}
TL acosh_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {mul(g[0], rsqrt(sub_by_scalar(pow(x, Scalar(int64_t(2))), Scalar(int64_t(1)))))};
}
TL atanh_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  return {div(g[0], rsub(pow(x, Scalar(int64_t(2))), Scalar(int64_t(1))))};
}
// (pi x cos(pi x) - sin(pi x)) / (pi x^2) * g, and 0 at x == 0 (sinc is flat there).
TL sinc_bw(const C& c, const TL& g) {
  const Tensor& x = c.saved_input(0);
  Tensor px = mul_by_scalar(x, Scalar(M_PI));
  Tensor num = sub(mul(px, cos(px)), sin(px));
  Tensor d = div(num, mul(px, x));
  return {mul(where(compare(Cmp::Eq, x, Scalar(0.0)), zero_scalar(d), d), g[0])};
}
// torch has no formula for the in-place inverse hyperbolics: their nodes raise.
template <const char* Name>
TL inplace_version_missing_bw(const C&, const TL&) {
  throw NotImplementedError(
      str_cat("the derivative for 'inplace version of ", Name, "' is not implemented."));
}
constexpr char kAsinh[] = "asinh", kAcosh[] = "acosh", kAtanh[] = "atanh";
TL deg2rad_bw(const C&, const TL& g) { return {mul_by_scalar(g[0], Scalar(M_PI / 180.0))}; }
TL rad2deg_bw(const C&, const TL& g) { return {mul_by_scalar(g[0], Scalar(180.0 / M_PI))}; }
TL exp2_bw(const C& c, const TL& g) {
  return {mul_by_scalar(mul(g[0], c.result()), Scalar(std::log(2.0)))};
}
// d/da atan2(a, b) = b / (a^2 + b^2), d/db = -a / (a^2 + b^2).
TL atan2_bw(const C& c, const TL& g) {
  const Tensor& a = c.saved_input(0);
  const Tensor& b = c.saved_input(1);
  Tensor recip = reciprocal(add(mul(a, a), mul(b, b)));
  return {c.needs(0) ? mul(mul(g[0], b), recip) : Tensor(),
          c.needs(1) ? mul(mul(g[0], neg(a)), recip) : Tensor()};
}
TL hypot_bw(const C& c, const TL& g) {
  return {c.needs(0) ? div(mul(g[0], c.saved_input(0)), c.result()) : Tensor(),
          c.needs(1) ? div(mul(g[0], c.saved_input(1)), c.result()) : Tensor()};
}
// One bound: the gradient passes where the input is inside it; with a tensor
// bound, the rest goes to the bound.
TL clamp_min_bw(const C& c, const TL& g) {
  const Scalar min = c.attrs<ClampAttrs>().min.value();
  return {where(compare(Cmp::Ge, c.saved_input(0), min), g[0], zero_scalar(g[0]))};
}
TL clamp_max_bw(const C& c, const TL& g) {
  const Scalar max = c.attrs<ClampAttrs>().max.value();
  return {where(compare(Cmp::Le, c.saved_input(0), max), g[0], zero_scalar(g[0]))};
}
TL clamp_bound_tensor_bw(const C& c, const TL& g, Cmp keep) {
  Tensor inside = compare(keep, c.saved_input(0), c.saved_input(1));
  Tensor z = zero_scalar(g[0]);
  return {c.needs(0) ? where(inside, g[0], z) : Tensor(),
          c.needs(1) ? where(inside, z, g[0]) : Tensor()};
}
TL clamp_min_tensor_bw(const C& c, const TL& g) { return clamp_bound_tensor_bw(c, g, Cmp::Ge); }
TL clamp_max_tensor_bw(const C& c, const TL& g) { return clamp_bound_tensor_bw(c, g, Cmp::Le); }
TL prod_dim_bw(const C& c, const TL& g) {
  // Per slice along dim: the product of the other elements of the slice.
  const Tensor& x = c.saved_input(0);
  if (x.dim() == 0) return {g[0]};
  const DimReduceAttrs& at = c.attrs<DimReduceAttrs>();
  const int64_t d = at.dim;
  Tensor gg = at.keepdim ? g[0] : unsqueeze(g[0], d);
  if (count_zeros(x) == 0) {
    Tensor r = at.keepdim ? c.result() : unsqueeze(c.result(), d);
    return {mul(gg, div(r, x))};
  }
  if (!GradMode::is_enabled()) return {mul(gg, prod_others(x, d))};
  return {mul(gg, exclusive_products(x, d))};
}
TL zeros_bw(const C& c, const TL& g) {
  TL out(c.node.inputs.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (c.needs(i)) out[i] = zeros_of(c, i);
  return out;
}

// NOTE [Formula rows]
// Each row names what its node saves, as PyTorch's generated nodes do:
// `.saves_input(i, grads)` saves input i when one of the gradients `grads`
// is needed (each of those formulas reads it; PyTorch's should_compute_output),
// `.saves_result()` the output, `.saves_wrapped_number()` a Python number
// operand (x * 2 saves the wrapped 2), and `.wrapped_number_edge()` gives that
// number an edge of its own (None), as PyTorch's wrapped-number tensors have.
constexpr uint8_t ForGrad0 = 1, ForGrad1 = 2, ForGrad2 = 4, ForGrads01 = 3, ForAnyGrad = 7;

class Row {
 public:
  Row(OpKind kind, const char* name, BackwardFn fn) {
    r_.kind = kind;
    r_.name = name;
    r_.fn = fn;
  }
  Row& saves_input(size_t i, uint8_t grads) {
    r_.input_needed_by[i] = grads;
    return *this;
  }
  Row& saves_result() {
    r_.saves_result = true;
    return *this;
  }
  Row& saves_wrapped_number() {
    r_.saves_scalar = true;
    return *this;
  }
  Row& wrapped_number_edge() {
    r_.scalar_edge = true;
    return *this;
  }
  /// The forward-mode derivative (jvp_formulas.cpp).
  Row& jvp(JvpFn fn) {
    r_.jvp = fn;
    return *this;
  }
  operator FormulaRow() const { return r_; }  // NOLINT: rows read as a table

 private:
  FormulaRow r_;
};

const FormulaRow kRows[] = {
    Row(OpKind::Add, "AddBackward0", add_bw).jvp(jvp::add_jvp),
    Row(OpKind::AddScalar, "AddBackward0", pass_bw).jvp(jvp::add_scalar_jvp).wrapped_number_edge(),
    Row(OpKind::Sub, "SubBackward0", sub_bw).jvp(jvp::sub_jvp),
    Row(OpKind::SubScalar, "SubBackward0", pass_bw).jvp(jvp::add_scalar_jvp).wrapped_number_edge(),
    Row(OpKind::Rsub, "RsubBackward0", rsub_bw).jvp(jvp::rsub_jvp),
    Row(OpKind::RsubScalar, "RsubBackward1", rsub_scalar_bw).jvp(jvp::rsub_scalar_jvp),
    Row(OpKind::Mul, "MulBackward0", mul_bw)
        .jvp(jvp::mul_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad0),
    Row(OpKind::MulScalar, "MulBackward0", mul_scalar_bw)
        .jvp(jvp::mul_scalar_jvp)
        .saves_wrapped_number()
        .wrapped_number_edge(),
    Row(OpKind::Div, "DivBackward0", div_bw)
        .jvp(jvp::div_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrads01),
    Row(OpKind::DivScalar, "DivBackward0", div_scalar_bw)
        .jvp(jvp::div_scalar_jvp)
        .saves_wrapped_number()
        .wrapped_number_edge(),
    Row(OpKind::PowScalar, "PowBackward0", pow_scalar_bw)
        .jvp(jvp::pow_scalar_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::PowTensor, "PowBackward1", pow_tensor_bw)
        .jvp(jvp::pow_tensor_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01)
        .saves_result(),
    Row(OpKind::PowScalarBase, "PowBackward2", pow_base_bw)
        .jvp(jvp::pow_base_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Neg, "NegBackward0", neg_bw).jvp(jvp::neg_jvp),
    Row(OpKind::Abs, "AbsBackward0", abs_bw).jvp(jvp::abs_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Exp, "ExpBackward0", exp_bw).jvp(jvp::exp_jvp).saves_result(),
    Row(OpKind::Log, "LogBackward0", log_bw).jvp(jvp::log_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Sqrt, "SqrtBackward0", sqrt_bw).jvp(jvp::sqrt_jvp).saves_result(),
    Row(OpKind::Rsqrt, "RsqrtBackward0", rsqrt_bw).jvp(jvp::rsqrt_jvp).saves_result(),
    Row(OpKind::Sin, "SinBackward0", sin_bw).jvp(jvp::sin_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Cos, "CosBackward0", cos_bw).jvp(jvp::cos_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Tanh, "TanhBackward0", tanh_bw).jvp(jvp::tanh_jvp).saves_result(),
    Row(OpKind::Sigmoid, "SigmoidBackward0", sigmoid_bw).jvp(jvp::sigmoid_jvp).saves_result(),
    Row(OpKind::Relu, "ReluBackward0", relu_bw).jvp(jvp::relu_jvp).saves_result(),
    Row(OpKind::Reciprocal, "ReciprocalBackward0", reciprocal_bw)
        .jvp(jvp::reciprocal_jvp)
        .saves_result(),
    Row(OpKind::Sign, "SignBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Floor, "FloorBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Ceil, "CeilBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Round, "RoundBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Trunc, "TruncBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Log1p, "Log1PBackward0", log1p_bw).jvp(jvp::log1p_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Expm1, "Expm1Backward0", expm1_bw).jvp(jvp::expm1_jvp).saves_result(),
    Row(OpKind::Maximum, "MaximumBackward0", maximum_bw)
        .jvp(jvp::maximum_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::Minimum, "MinimumBackward0", minimum_bw)
        .jvp(jvp::minimum_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::Clamp, "ClampBackward1", clamp_bw).jvp(jvp::clamp_jvp).saves_input(0, ForGrad0),
    Row(OpKind::ClampTensor, "ClampBackward0", clamp_tensor_bw)
        .jvp(jvp::clamp_tensor_jvp)
        .saves_input(0, ForAnyGrad)
        .saves_input(1, ForAnyGrad)
        .saves_input(2, ForAnyGrad),
    Row(OpKind::Where, "WhereBackward0", where_bw).jvp(jvp::where_jvp),
    Row(OpKind::SumAll, "SumBackward0", sum_all_bw).jvp(jvp::sum_all_jvp),
    Row(OpKind::SumDim, "SumBackward1", sum_dim_bw).jvp(jvp::sum_dim_jvp),
    Row(OpKind::MeanAll, "MeanBackward0", mean_all_bw).jvp(jvp::mean_all_jvp),
    Row(OpKind::MeanDim, "MeanBackward1", mean_dim_bw).jvp(jvp::mean_dim_jvp),
    Row(OpKind::MaxAll, "MaxBackward1", extreme_all_bw)
        .jvp(jvp::extreme_all_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::MinAll, "MinBackward1", extreme_all_bw)
        .jvp(jvp::extreme_all_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::MaxDim, "MaxBackward0", extreme_dim_bw).jvp(jvp::extreme_dim_jvp),
    Row(OpKind::MinDim, "MinBackward0", extreme_dim_bw).jvp(jvp::extreme_dim_jvp),
    Row(OpKind::View, "ViewBackward0", reshape_bw).jvp(jvp::view_jvp),
    Row(OpKind::UnsafeView, "UnsafeViewBackward0", reshape_bw).jvp(jvp::view_jvp),
    Row(OpKind::AsStrided, "AsStridedBackward0", as_strided_bw).jvp(jvp::view_jvp),
    Row(OpKind::AsStridedInplace, "AsStridedBackward1", as_strided_bw),
    Row(OpKind::T, "TBackward0", t_bw).jvp(jvp::view_jvp),
    Row(OpKind::TInplace, "TBackward1", t_bw),
    Row(OpKind::Transpose, "TransposeBackward0", transpose_bw).jvp(jvp::view_jvp),
    Row(OpKind::Permute, "PermuteBackward0", permute_bw).jvp(jvp::view_jvp),
    Row(OpKind::Unsqueeze, "UnsqueezeBackward0", unsqueeze_bw).jvp(jvp::view_jvp),
    Row(OpKind::UnsqueezeInplace, "UnsqueezeBackward1", unsqueeze_bw),
    Row(OpKind::Squeeze, "SqueezeBackward0", squeeze_bw).jvp(jvp::view_jvp),
    Row(OpKind::SqueezeDim, "SqueezeBackward1", squeeze_bw).jvp(jvp::view_jvp),
    Row(OpKind::SqueezeInplace, "SqueezeBackward3", squeeze_bw),
    Row(OpKind::Expand, "ExpandBackward0", pass_bw).jvp(jvp::view_jvp),
    Row(OpKind::Select, "SelectBackward0", select_bw).jvp(jvp::view_jvp),
    Row(OpKind::Slice, "SliceBackward0", slice_bw).jvp(jvp::view_jvp),
    Row(OpKind::SelectBackward, "SelectBackwardBackward0", select_backward_bw),
    Row(OpKind::SliceBackward, "SliceBackwardBackward0", slice_backward_bw),
    Row(OpKind::Clone, "CloneBackward0", pass_bw).jvp(jvp::copy_jvp),
    Row(OpKind::ToCopy, "ToCopyBackward0", pass_bw).jvp(jvp::copy_jvp),
    Row(OpKind::CopyInto, "gradtrack::autograd::CopyBackwards", copy_into_bw)
        .jvp(jvp::copy_into_jvp),
    Row(OpKind::Fill, "FillBackward2", fill_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Zero, "ZeroBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Normal, "NormalBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Uniform, "UniformBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Index, "IndexBackward0", index_bw).jvp(jvp::index_jvp),
    Row(OpKind::IndexPut, "IndexPutBackward0", index_put_bw).jvp(jvp::index_put_jvp),
    Row(OpKind::MaskedFill, "MaskedFillBackward0", masked_fill_bw).jvp(jvp::masked_fill_jvp),
    Row(OpKind::Gather, "GatherBackward0", gather_bw).jvp(jvp::gather_jvp).saves_input(0, ForGrad0),
    Row(OpKind::ScatterAdd, "ScatterAddBackward0", scatter_add_bw).jvp(jvp::scatter_add_jvp),
    Row(OpKind::IndexSelect, "IndexSelectBackward0", index_select_bw).jvp(jvp::index_select_jvp),
    Row(OpKind::Cat, "CatBackward0", cat_bw),
    Row(OpKind::Stack, "StackBackward0", stack_bw),
    Row(OpKind::Split, "SplitBackward0", split_bw),
    Row(OpKind::Unbind, "UnbindBackward0", unbind_bw),
    Row(OpKind::Mm, "MmBackward0", mm_bw)
        .jvp(jvp::mm_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad0),
    Row(OpKind::Mv, "MvBackward0", mv_bw)
        .jvp(jvp::mv_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad0),
    Row(OpKind::Dot, "DotBackward0", dot_bw)
        .jvp(jvp::dot_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad0),
    Row(OpKind::Bmm, "BmmBackward0", bmm_bw)
        .jvp(jvp::bmm_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad0),
    Row(OpKind::Addmm, "AddmmBackward0", addmm_bw)
        .jvp(jvp::addmm_jvp)
        .saves_input(1, ForGrad2)
        .saves_input(2, ForGrad1),
    Row(OpKind::LogSoftmax, "LogSoftmaxBackward0", log_softmax_bw)
        .jvp(jvp::log_softmax_jvp)
        .saves_result(),
    Row(OpKind::Softmax, "SoftmaxBackward0", softmax_bw).jvp(jvp::softmax_jvp).saves_result(),
    Row(OpKind::NllLoss, "NllLossBackward0", nll_loss_bw).jvp(jvp::nll_loss_jvp),
    Row(OpKind::MseLoss, "MseLossBackward0", mse_loss_bw)
        .jvp(jvp::mse_loss_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::ThresholdBackward, "ThresholdBackwardBackward0", threshold_backward_bw)
        .saves_input(1, ForGrad0),
    Row(OpKind::Prod, "ProdBackward0", prod_bw)
        .jvp(jvp::prod_all_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Amax, "AmaxBackward0", amax_bw)
        .jvp(jvp::amax_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Remainder, "RemainderBackward1", remainder_bw)
        .jvp(jvp::remainder_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad1),
    Row(OpKind::RemainderScalar, "RemainderBackward0", pass_bw).jvp(jvp::identity_jvp),
    Row(OpKind::DivRounding, "DivBackward2", zeros_bw).jvp(jvp::zero_jvp),
    Row(OpKind::DivRoundingScalar, "DivBackward2", zeros_bw)
        .jvp(jvp::zero_jvp)
        .wrapped_number_edge(),
    Row(OpKind::SigmoidBackward, "SigmoidBackwardBackward0", sigmoid_backward_bw)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrads01),
    Row(OpKind::TanhBackward, "TanhBackwardBackward0", tanh_backward_bw)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrads01),
    Row(OpKind::ReshapeAlias, "ReshapeAliasBackward0", reshape_bw).jvp(jvp::view_jvp),
    Row(OpKind::Alias, "AliasBackward0", pass_bw).jvp(jvp::view_jvp),
    Row(OpKind::SplitWithSizes, "SplitWithSizesBackward0", split_bw),
    Row(OpKind::MaskedFillTensor, "MaskedFillBackward1", masked_fill_bw)
        .jvp(jvp::masked_fill_tensor_jvp),
    Row(OpKind::SqueezeDims, "SqueezeBackward2", squeeze_bw).jvp(jvp::view_jvp),
    Row(OpKind::SqueezeDimInplace, "SqueezeBackward4", squeeze_bw),
    Row(OpKind::FloorDivide, "gradtrack::autograd::NotImplemented", not_implemented_bw),
    Row(OpKind::ProdDim, "ProdBackward1", prod_dim_bw)
        .jvp(jvp::prod_dim_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::DivMode, "DivBackward2", div_bw)
        .jvp(jvp::div_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrads01),
    Row(OpKind::DivModeScalar, "DivBackward2", div_scalar_bw)
        .jvp(jvp::div_scalar_jvp)
        .saves_wrapped_number()
        .wrapped_number_edge(),
    Row(OpKind::MulByScalar, "MulBackward1", mul_by_scalar_bw).jvp(jvp::mul_scalar_jvp),
    Row(OpKind::SubByScalar, "SubBackward1", pass_bw).jvp(jvp::add_scalar_jvp),
    Row(OpKind::DivByScalar, "DivBackward1", div_by_scalar_bw).jvp(jvp::div_scalar_jvp),
    Row(OpKind::FillTensor, "FillBackward3", fill_bw).jvp(jvp::copy_into_jvp),
    Row(OpKind::Sgn, "SgnBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::IndexPutImpl, "IndexPutImplBackward0", index_put_bw).jvp(jvp::index_put_jvp),
    Row(OpKind::IndexAdd, "IndexAddBackward0", index_put_bw).jvp(jvp::index_put_jvp),
    Row(OpKind::AddByScalar, "AddBackward1", pass_bw).jvp(jvp::add_scalar_jvp),
    Row(OpKind::SoftmaxBackwardData, "SoftmaxBackwardDataBackward0", softmax_data_bw)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrads01),
    Row(OpKind::LogSoftmaxBackwardData, "LogSoftmaxBackwardDataBackward0", log_softmax_data_bw)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrads01),
    Row(OpKind::Scatter, "ScatterBackward0", scatter_bw).jvp(jvp::scatter_jvp),
    Row(OpKind::ScatterValue, "ScatterBackward1", scatter_bw).jvp(jvp::scatter_value_jvp),
    Row(OpKind::FloorDivideInplace, "gradtrack::autograd::NotImplemented",
        not_implemented_inplace_bw),
    Row(OpKind::Fmod, "FmodBackward1", fmod_bw)
        .jvp(jvp::fmod_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad1),
    Row(OpKind::FmodScalar, "FmodBackward0", pass_bw).jvp(jvp::identity_jvp),
    Row(OpKind::Atan2, "Atan2Backward0", atan2_bw)
        .jvp(jvp::atan2_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::Hypot, "HypotBackward0", hypot_bw)
        .jvp(jvp::hypot_jvp)
        .saves_input(0, ForGrad0)
        .saves_input(1, ForGrad1)
        .saves_result(),
    Row(OpKind::ClampMin, "ClampMinBackward0", clamp_min_bw)
        .jvp(jvp::clamp_min_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::ClampMax, "ClampMaxBackward0", clamp_max_bw)
        .jvp(jvp::clamp_max_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::ClampMinTensor, "ClampMinBackward1", clamp_min_tensor_bw)
        .jvp(jvp::clamp_min_tensor_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::ClampMaxTensor, "ClampMaxBackward1", clamp_max_tensor_bw)
        .jvp(jvp::clamp_max_tensor_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::Tan, "TanBackward0", tan_bw).jvp(jvp::tan_jvp).saves_result(),
    Row(OpKind::Asin, "AsinBackward0", asin_bw).jvp(jvp::asin_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Acos, "AcosBackward0", acos_bw).jvp(jvp::acos_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Atan, "AtanBackward0", atan_bw).jvp(jvp::atan_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Sinh, "SinhBackward0", sinh_bw).jvp(jvp::sinh_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Cosh, "CoshBackward0", cosh_bw).jvp(jvp::cosh_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Log2, "Log2Backward0", log2_bw).jvp(jvp::log2_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Log10, "Log10Backward0", log10_bw).jvp(jvp::log10_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Erf, "ErfBackward0", erf_bw).jvp(jvp::erf_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Exp2, "Exp2Backward0", exp2_bw).jvp(jvp::exp2_jvp).saves_result(),
    Row(OpKind::Frac, "FracBackward0", pass_bw).jvp(jvp::identity_jvp),
    // torch's random fills: the result does not depend on self's old values
    Row(OpKind::Bernoulli, "BernoulliBackward2", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::BernoulliTensor, "BernoulliBackward1", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::BernoulliFunctional, "BernoulliBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Exponential, "ExponentialBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Geometric, "GeometricBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Cauchy, "CauchyBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::LogNormal, "LogNormalBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::RandomFromTo, "RandomBackward0", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::RandomTo, "RandomBackward1", zero_bw).jvp(jvp::zero_jvp),
    Row(OpKind::Random, "RandomBackward2", zero_bw).jvp(jvp::zero_jvp),
    // convolution and pooling (formulas_conv.cpp); PyTorch saves input and
    // weight whenever any of the three gradients is needed.
    Row(OpKind::Convolution, "ConvolutionBackward0", convolution_bw)
        .jvp(jvp::convolution_jvp)
        .saves_input(0, ForAnyGrad)
        .saves_input(1, ForAnyGrad),
    Row(OpKind::ConvolutionNoBias, "ConvolutionBackward0", convolution_bw)
        .jvp(jvp::convolution_jvp)
        .saves_input(0, ForAnyGrad)
        .saves_input(1, ForAnyGrad)
        .wrapped_number_edge(),
    Row(OpKind::MaxPool2DWithIndices, "MaxPool2DWithIndicesBackward0", max_pool2d_bw)
        .jvp(jvp::max_pool_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::AvgPool2D, "AvgPool2DBackward0", avg_pool2d_bw)
        .jvp(jvp::avg_pool_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::AdaptiveAvgPool2D, "AdaptiveAvgPool2DBackward0", adaptive_avg_pool2d_bw)
        .jvp(jvp::adaptive_avg_pool_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::AdaptiveMaxPool2D, "AdaptiveMaxPool2DBackward0", max_pool2d_bw)
        .jvp(jvp::max_pool_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::AvgPool2DBackward, "AvgPool2DBackwardBackward0", avg_pool2d_backward_bw),
    Row(OpKind::AdaptiveAvgPool2DBackward, "AdaptiveAvgPool2DBackwardBackward0",
        adaptive_avg_pool2d_backward_bw),
    Row(OpKind::ConvolutionBackward, "ConvolutionBackwardBackward0", convolution_backward_bw)
        .saves_input(0, ForAnyGrad)
        .saves_input(1, ForAnyGrad)
        .saves_input(2, ForAnyGrad),
    Row(OpKind::MaxPool2DWithIndicesBackward, "MaxPool2DWithIndicesBackwardBackward0",
        max_pool2d_backward_bw),
    Row(OpKind::AdaptiveMaxPool2DBackward, "AdaptiveMaxPool2DBackwardBackward0",
        max_pool2d_backward_bw),
    // nn layers: activations, norms, embedding, losses (formulas_nn.cpp)
    Row(OpKind::Gelu, "GeluBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::Silu, "SiluBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::LeakyRelu, "LeakyReluBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::LeakyReluInplace, "LeakyReluBackward1", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_result(),
    Row(OpKind::Elu, "EluBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::EluInplace, "EluBackward1", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_result(),
    Row(OpKind::Softplus, "SoftplusBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::Hardtanh, "HardtanhBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::Celu, "CeluBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::CeluInplace, "CeluBackward1", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_result(),
    Row(OpKind::Mish, "MishBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::Hardswish, "HardswishBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::LogSigmoid, "LogSigmoidBackward0", nn_formulas::activation_bw)
        .jvp(nn_formulas::activation_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::NativeLayerNorm, "NativeLayerNormBackward0", nn_formulas::group_norm_bw)
        .jvp(jvp::norm_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrad0),
    Row(OpKind::NativeGroupNorm, "NativeGroupNormBackward0", nn_formulas::group_norm_bw)
        .jvp(jvp::norm_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrad0),
    Row(OpKind::NativeBatchNorm, "NativeBatchNormBackward0", nn_formulas::batch_norm_bw)
        .jvp(jvp::batch_norm_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrad0),
    Row(OpKind::Embedding, "EmbeddingBackward0", nn_formulas::embedding_bw).jvp(jvp::embedding_jvp),
    Row(OpKind::BinaryCrossEntropy, "BinaryCrossEntropyBackward0", nn_formulas::bce_bw)
        .jvp(jvp::bce_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::BinaryCrossEntropyWithLogits, "BinaryCrossEntropyWithLogitsBackward0",
        nn_formulas::bce_logits_bw)
        .jvp(jvp::bce_logits_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::SmoothL1Loss, "SmoothL1LossBackward0", nn_formulas::smooth_l1_bw)
        .jvp(jvp::smooth_l1_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    Row(OpKind::HuberLoss, "HuberLossBackward0", nn_formulas::huber_bw)
        .jvp(jvp::huber_jvp)
        .saves_input(0, ForGrads01)
        .saves_input(1, ForGrads01),
    // round-2 tensor ops (issue 19); formulas in formulas_extra.cpp
    Row(OpKind::Cumsum, "CumsumBackward0", extra::cumsum_bw).jvp(jvp::cumsum_jvp),
    Row(OpKind::Cumprod, "CumprodBackward0", extra::cumprod_bw)
        .jvp(jvp::cumprod_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Sort, "SortBackward0", extra::value_select_bw).jvp(jvp::value_select_jvp),
    Row(OpKind::Topk, "TopkBackward0", extra::value_select_bw).jvp(jvp::value_select_jvp),
    Row(OpKind::Var, "VarBackward0", extra::var_bw).saves_input(0, ForGrad0),
    Row(OpKind::Std, "StdBackward0", extra::std_bw).saves_input(0, ForGrad0).saves_result(),
    Row(OpKind::VarMean, "VarMeanBackward0", extra::var_mean_bw).saves_input(0, ForGrad0),
    Row(OpKind::StdMean, "StdMeanBackward0", extra::std_mean_bw)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Logsumexp, "LogsumexpBackward0", extra::logsumexp_bw)
        .jvp(jvp::logsumexp_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Tril, "TrilBackward0", extra::tril_bw).jvp(jvp::tril_jvp),
    Row(OpKind::Triu, "TriuBackward0", extra::triu_bw).jvp(jvp::triu_jvp),
    Row(OpKind::Flip, "FlipBackward0", extra::flip_bw).jvp(jvp::flip_jvp),
    Row(OpKind::Roll, "RollBackward0", extra::roll_bw).jvp(jvp::roll_jvp),
    Row(OpKind::Repeat, "RepeatBackward0", extra::repeat_bw).jvp(jvp::repeat_jvp),
    Row(OpKind::Kthvalue, "KthvalueBackward0", extra::value_reduce_bw).jvp(jvp::extreme_dim_jvp),
    Row(OpKind::MedianDim, "MedianBackward1", extra::value_reduce_bw).jvp(jvp::extreme_dim_jvp),
    Row(OpKind::MedianAll, "MedianBackward0", extra::median_all_bw)
        .jvp(jvp::extreme_all_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Mode, "ModeBackward0", extra::value_reduce_bw).jvp(jvp::extreme_dim_jvp),
    Row(OpKind::Diagonal, "DiagonalBackward0", extra::diagonal_bw).jvp(jvp::view_jvp),
    Row(OpKind::DiagonalCopy, "DiagonalBackward0_copy", extra::diagonal_bw)
        .jvp(jvp::diagonal_copy_jvp),
    Row(OpKind::DiagonalBackward, "DiagonalBackwardBackward0", extra::diagonal_backward_bw),
    Row(OpKind::DiagEmbed, "DiagEmbedBackward0", extra::diagonal_backward_bw)
        .jvp(jvp::diag_embed_jvp),
    Row(OpKind::Trace, "TraceBackward0", extra::trace_bw).jvp(jvp::trace_jvp),
    Row(OpKind::NanToNum, "NanToNumBackward0", extra::nan_to_num_bw)
        .jvp(jvp::nan_to_num_jvp)
        .saves_input(0, ForGrad0),
    Row(OpKind::LerpScalar, "LerpBackward0", extra::lerp_scalar_bw).jvp(jvp::lerp_scalar_jvp),
    Row(OpKind::LerpTensor, "LerpBackward1", extra::lerp_tensor_bw)
        .jvp(jvp::lerp_tensor_jvp)
        .saves_input(0, ForGrad2)
        .saves_input(1, ForGrad2)
        .saves_input(2, ForGrads01),
    Row(OpKind::VectorNorm, "LinalgVectorNormBackward0", extra::vector_norm_bw)
        .jvp(jvp::vector_norm_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::Baddbmm, "BaddbmmBackward0", extra::baddbmm_bw)
        .jvp(jvp::baddbmm_jvp)
        .saves_input(1, ForGrad2)
        .saves_input(2, ForGrad1),
    Row(OpKind::Addmv, "AddmvBackward0", extra::addmv_bw)
        .jvp(jvp::addmv_jvp)
        .saves_input(1, ForGrad2)
        .saves_input(2, ForGrad1),
    Row(OpKind::Cross, "LinalgCrossBackward0", extra::cross_bw)
        .jvp(jvp::cross_jvp)
        .saves_input(0, ForGrad1)
        .saves_input(1, ForGrad0),
    Row(OpKind::SortStable, "SortBackward1", extra::value_select_bw).jvp(jvp::value_select_jvp),
    // more unary math
    Row(OpKind::Erfc, "ErfcBackward0", erfc_bw).jvp(jvp::erfc_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Erfinv, "ErfinvBackward0", erfinv_bw).jvp(jvp::erfinv_jvp).saves_result(),
    Row(OpKind::Asinh, "AsinhBackward0", asinh_bw).jvp(jvp::asinh_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Acosh, "AcoshBackward0", acosh_bw).jvp(jvp::acosh_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Atanh, "AtanhBackward0", atanh_bw).jvp(jvp::atanh_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Sinc, "SincBackward0", sinc_bw).jvp(jvp::sinc_jvp).saves_input(0, ForGrad0),
    Row(OpKind::Deg2rad, "Deg2RadBackward0", deg2rad_bw).jvp(jvp::deg2rad_jvp),
    Row(OpKind::Rad2deg, "Rad2DegBackward0", rad2deg_bw).jvp(jvp::rad2deg_jvp),
    Row(OpKind::AsinhInplace, "AsinhBackward1", inplace_version_missing_bw<kAsinh>),
    Row(OpKind::AcoshInplace, "AcoshBackward1", inplace_version_missing_bw<kAcosh>),
    Row(OpKind::AtanhInplace, "AtanhBackward1", inplace_version_missing_bw<kAtanh>),
    // amax's formula serves amin: the gradient is shared evenly among the tied extremes
    Row(OpKind::Amin, "AminBackward0", amax_bw)
        .jvp(jvp::amax_jvp)
        .saves_input(0, ForGrad0)
        .saves_result(),
    Row(OpKind::MaskedSelect, "MaskedSelectBackward0", masked_select_bw)
        .jvp(jvp::masked_select_jvp),
    // padding, interpolation, cdist (issue 19)
    Row(OpKind::ConstantPadNd, "ConstantPadNdBackward0", resample::constant_pad_bw)
        .jvp(resample::constant_pad_jvp),
    Row(OpKind::ReflectionPad1D, "ReflectionPad1DBackward0", resample::resample_bw)
        .saves_input(0, ForGrad0)
        .jvp(resample::resample_jvp),
    Row(OpKind::ReflectionPad2D, "ReflectionPad2DBackward0", resample::resample_bw)
        .saves_input(0, ForGrad0)
        .jvp(resample::resample_jvp),
    Row(OpKind::ReflectionPad3D, "ReflectionPad3DBackward0", resample::resample_bw)
        .saves_input(0, ForGrad0)
        .jvp(resample::resample_jvp),
    Row(OpKind::ReplicationPad1D, "ReplicationPad1DBackward0", resample::resample_bw)
        .saves_input(0, ForGrad0)
        .jvp(resample::resample_jvp),
    Row(OpKind::ReplicationPad2D, "ReplicationPad2DBackward0", resample::resample_bw)
        .saves_input(0, ForGrad0)
        .jvp(resample::resample_jvp),
    Row(OpKind::ReplicationPad3D, "ReplicationPad3DBackward0", resample::resample_bw)
        .saves_input(0, ForGrad0)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleNearest1D, "UpsampleNearest1DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleNearest2D, "UpsampleNearest2DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleNearest3D, "UpsampleNearest3DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleNearestExact1D, "UpsampleNearestExact1DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleNearestExact2D, "UpsampleNearestExact2DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleNearestExact3D, "UpsampleNearestExact3DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleLinear1D, "UpsampleLinear1DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleBilinear2D, "UpsampleBilinear2DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleBicubic2D, "UpsampleBicubic2DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::UpsampleTrilinear3D, "UpsampleTrilinear3DBackward0", resample::resample_bw)
        .jvp(resample::resample_jvp),
    Row(OpKind::ReflectionPad1DBackward, "ReflectionPad1DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::ReflectionPad2DBackward, "ReflectionPad2DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::ReflectionPad3DBackward, "ReflectionPad3DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::ReplicationPad1DBackward, "ReplicationPad1DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::ReplicationPad2DBackward, "ReplicationPad2DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::ReplicationPad3DBackward, "ReplicationPad3DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleNearest1DBackward, "UpsampleNearest1DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleNearest2DBackward, "UpsampleNearest2DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleNearest3DBackward, "UpsampleNearest3DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleNearestExact1DBackward, "UpsampleNearestExact1DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleNearestExact2DBackward, "UpsampleNearestExact2DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleNearestExact3DBackward, "UpsampleNearestExact3DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleLinear1DBackward, "UpsampleLinear1DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleBilinear2DBackward, "UpsampleBilinear2DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleBicubic2DBackward, "UpsampleBicubic2DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::UpsampleTrilinear3DBackward, "UpsampleTrilinear3DBackwardBackward0",
        resample::resample_backward_bw)
        .jvp(resample::resample_backward_jvp),
    Row(OpKind::Cdist, "CdistBackward0", resample::cdist_bw)
        .saves_input(0, ForAnyGrad)
        .saves_input(1, ForAnyGrad)
        .saves_result(),
    Row(OpKind::EuclideanDist, "EuclideanDistBackward0", resample::euclidean_dist_bw)
        .saves_input(0, ForAnyGrad)
        .saves_input(1, ForAnyGrad)
        .saves_result(),
    // linalg.svd (issue 19): U, S, Vh kept as the node's extras
    Row(OpKind::LinalgSvd, "LinalgSvdBackward0", svd::linalg_svd_bw),
    // recurrent layers (issue 19): the fused LSTM layer; formula in formulas_rnn.cpp
    Row(OpKind::MkldnnRnnLayer, "MkldnnRnnLayerBackward0", rnn_formulas::lstm_layer_bw)
        .saves_result(),
    Row(OpKind::TransposeInplace, "TransposeBackward1", transpose_bw),
};

}  // namespace

const FormulaRow& formula_row(OpKind kind) { return kRows[static_cast<size_t>(kind)]; }

bool formula_table_ok() {
  constexpr size_t n = sizeof(kRows) / sizeof(kRows[0]);
  if (n != static_cast<size_t>(OpKind::NumKinds)) return false;
  for (size_t i = 0; i < n; ++i)
    if (static_cast<size_t>(kRows[i].kind) != i) return false;
  return true;
}

}  // namespace gradtrack::autograd
