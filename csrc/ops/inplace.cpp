// THE in-place entry: every in-place write passes here, in this order:
//   1. checks (overlap, broadcast only *from* the other operand, dtype cast),
//      so a refused op changes nothing;
//   2. the node, built from the history self had before the write (and a
//      clone of self if the formula needs the old value);
//   3. the kernel, writing into self;
//   4. one version bump;
//   5. the rebase of self's history (CopySlices when self is a view).
// The leaf / view-of-leaf refusals happen before, in python/gradtrack/_inplace.py.
#include <functional>
#include <limits>

#include "autograd/provenance.h"
#include "ops/common.h"

namespace gradtrack::ops {

using kernels::BinaryOp;
using kernels::UnaryOp;

void check_no_internal_overlap(const Tensor& self) {
  GT_CHECK(!has_internal_overlap(self),
           "unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.");
}

constexpr const char* kOverlapError =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation.";

// NOTE [Memory overlap] (core/tensor.h): an input that is exactly self is fine.
void check_no_partial_overlap(const Tensor& self, const Tensor& other) {
  GT_CHECK(overlap_status(self, other) != Overlap::Partial, kOverlapError);
}

namespace {

// index_put_ refuses any input sharing self's elements, even all of them.
void check_no_overlap(const Tensor& self, const Tensor& other) {
  Overlap o = overlap_status(self, other);
  GT_CHECK(o != Overlap::Partial && o != Overlap::Full, kOverlapError);
}

// Same storage, geometry and dtype: a copy that changes nothing.
bool same_elements(const Tensor& a, const Tensor& b) {
  return a.is_same(b) ||
         (a->storage() == b->storage() && a->offset() == b->offset() && a.dtype() == b.dtype() &&
          a.sizes() == b.sizes() && a.strides() == b.strides());
}

void check_broadcast_into(const Tensor& self, const DimVector& other) {
  if (other == self.sizes()) return;
  DimVector b = broadcast_shapes(self.sizes(), other);
  GT_CHECK(b == self.sizes(), "output with shape ", shape_str(self.sizes()),
           " doesn't match the broadcast shape ", shape_str(b));
}

void check_cast(ScalarType result, ScalarType self) {
  GT_CHECK(can_cast(result, self), "result type ", scalar_type_name(result),
           " can't be cast to the desired output type ", scalar_type_name(self));
}

// torch's ldexp_ names itself where the other ops name the result type.
void check_ldexp_cast(BinaryOp k, ScalarType result, ScalarType self) {
  GT_CHECK(k != BinaryOp::Ldexp || can_cast(result, self),
           "ldexp can't be cast to the desired output type ", scalar_type_name(self));
}

// NOTE [In-place specs from the op list]
// An in-place variant records the row its out-of-place op records, read from
// the op list (NOTE [One declaration per op]), so the two cannot drift apart
// (before the list, div_ with a rounding mode, remainder_ and floor_divide_
// had drifted to another op's gradient). The list's kind columns are tokens;
// these names give them their meaning here.
namespace list_tokens {
#define GT_TOKEN(K) [[maybe_unused]] constexpr OpKind K = OpKind::K;
GT_FORALL_OPS(GT_TOKEN)
#undef GT_TOKEN
// Bitwise ops never record: only integers and bools, which cannot require grad.
constexpr OpKind NoGrad = OpKind::NumKinds;
// The op takes no number operand: the binding refuses one (inplace_takes_number).
constexpr OpKind NoNumber = static_cast<OpKind>(static_cast<int>(OpKind::NumKinds) + 1);
constexpr DtypeRule Float = DtypeRule::Float, Same = DtypeRule::Same,
                    Floating = DtypeRule::Floating, Custom = DtypeRule::Custom;
}  // namespace list_tokens

struct InplaceSpec {
  const char* name;   // the method name without the underscore
  const char* label;  // with it: what provenance says wrote the tensor
  bool unary;
  int kernel;          // UnaryOp or BinaryOp, as `unary` says
  OpKind tensor_kind;  // the formula row with a tensor operand (unary: the op's)
  OpKind scalar_kind;  // ... with a number operand
  DtypeRule rule;
};

constexpr InplaceSpec kInplaceSpecs[] = {
#define GT_UNARY_SPEC(K, name, kind, rule) \
  {#name,                                  \
   #name "_",                              \
   true,                                   \
   static_cast<int>(UnaryOp::K),           \
   list_tokens::kind,                      \
   list_tokens::kind,                      \
   list_tokens::rule},
#define GT_BINARY_SPEC(K, name, tkind, skind, rule) \
  {#name,                                           \
   #name "_",                                       \
   false,                                           \
   static_cast<int>(BinaryOp::K),                   \
   list_tokens::tkind,                              \
   list_tokens::skind,                              \
   list_tokens::rule},
    GT_INPLACE_UNARY(GT_UNARY_SPEC) GT_INPLACE_BINARY(GT_BINARY_SPEC)
#undef GT_BINARY_SPEC
#undef GT_UNARY_SPEC
};

const InplaceSpec& spec_of(InplaceOp op) { return kInplaceSpecs[static_cast<size_t>(op)]; }

bool records(OpKind kind) { return kind < OpKind::NumKinds; }

bool divides(BinaryOp k) {
  return k == BinaryOp::FloorDivide || k == BinaryOp::TruncDiv || k == BinaryOp::Remainder ||
         k == BinaryOp::Fmod;
}

// div_ is the one in-place op with modes: its kernel and rows follow the mode,
// as div's out-of-place overloads do (DivBackward0 without a mode, DivBackward2
// with one, None included).
struct BinaryCall {
  BinaryOp kernel;
  OpKind tensor_kind, scalar_kind;
  bool float_result;
};

BinaryCall binary_call(InplaceOp op, const DivMode& mode) {
  const InplaceSpec& spec = spec_of(op);
  GT_CHECK(!spec.unary, "gradtrack: not a binary in-place op");
  BinaryCall call{static_cast<BinaryOp>(spec.kernel), spec.tensor_kind, spec.scalar_kind,
                  spec.rule == DtypeRule::Float};
  if (op != InplaceOp::Div || !mode.given) return call;
  if (mode.rounding.empty()) return {BinaryOp::Div, OpKind::DivMode, OpKind::DivModeScalar, true};
  GT_CHECK(mode.rounding == "floor" || mode.rounding == "trunc",
           "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
           mode.rounding, "'");
  return {mode.rounding == "floor" ? BinaryOp::FloorDivide : BinaryOp::TruncDiv,
          OpKind::DivRounding, OpKind::DivRoundingScalar, false};
}

// Runs kernel(out, in) so that self ends up holding its result computed in
// `dt`: in place when dt is self's dtype, else through a temporary of dtype
// `dt` (the input cast to it) copied back into self.
template <typename Kernel>
void compute_into(const Tensor& self, ScalarType dt, const Kernel& kernel) {
  if (dt == self.dtype()) return kernel(self, self);
  Tensor tmp = empty(self.sizes(), dt);
  kernel(tmp, cast_for_kernel(self, dt));
  kernels::copy(self, tmp);
}

// Writes op(self, other) into self, computing in `dt`.
void write_binary(BinaryOp k, const Tensor& self, const Tensor& other, ScalarType dt,
                  Scalar alpha) {
  Tensor o = cast_for_kernel(other, dt);
  compute_into(self, dt,
               [&](const Tensor& out, const Tensor& in) { kernels::binary(k, out, in, o, alpha); });
}

// The clamp family names the output type as a C++ type ("long int"), unlike
// add_ (measured on torch 2.13).
void check_clamp_cast(ScalarType result, const Tensor& self) {
  GT_CHECK(can_cast(result, self.dtype()), "result type ", scalar_type_name(result),
           " can't be cast to the desired output type ", cpp_type_name(self.dtype()));
}

// Steps 2-5 around `write` for an op whose inputs are `inputs` (self first).
template <typename Write, typename Fill>
void run_inplace(const char* label, OpKind kind, bool differentiable,
                 std::initializer_list<const Tensor*> inputs, const Tensor& self,
                 const Write& write, const Fill& fill,
                 const std::vector<const Tensor*>& extras = {}) {
  // Forward AD (NOTE [Forward AD through in-place ops]): an op without a jvp
  // raises before the write; otherwise self's old value is kept for the jvp.
  const bool fw = differentiable && autograd::forward_ad::any_tangent(inputs);
  Tensor fw_old;
  if (fw) {
    autograd::forward_ad::check_inplace(kind, label);
    fw_old = empty_like(self, self.dtype());  // dense even when self is a gapped view
    kernels::copy(fw_old, self);
  }
  bool rec = differentiable && autograd::should_record(inputs);
  Tensor old_self;
  std::shared_ptr<autograd::FormulaNode> node;
  if (rec) {
    if (autograd::inplace_needs_old_self(kind, inputs)) old_self = clone(self);
    node = autograd::new_node(kind, inputs);
  }
  if (node) autograd::save_inplace_inputs(node, inputs, old_self);
  write();
  self->bump_version();
  autograd::note_write(self, label);
  if (fw) {
    autograd::Attrs at;
    fill_attrs(at, fill);
    autograd::forward_ad::propagate_inplace(kind, inputs, self, fw_old, at, extras);
  }
  if (node) {
    fill_attrs(node->attrs, fill);
    autograd::finish_inplace_node(node, self, extras);
  }
}

}  // namespace

const char* inplace_name(InplaceOp op) { return spec_of(op).name; }

bool inplace_takes_number(InplaceOp op) { return spec_of(op).scalar_kind != list_tokens::NoNumber; }

Tensor inplace_binary(InplaceOp op, const Tensor& self, const Tensor& other, Scalar alpha,
                      const DivMode& mode) {
  const BinaryCall call = binary_call(op, mode);
  if (op == InplaceOp::Sub) check_sub_bool(self.dtype(), other.dtype());
  // PyTorch's TensorIterator order: memory overlap, then shapes, then dtypes;
  // the kernel's own refusals (bitwise on floats, integer division by zero) last.
  check_no_internal_overlap(self);
  check_no_partial_overlap(self, other);
  check_broadcast_into(self, other.sizes());
  ScalarType promoted = result_type(self, other);
  ScalarType dt = call.float_result ? to_float_type(promoted) : promoted;
  check_ldexp_cast(call.kernel, dt, self.dtype());
  check_cast(dt, self.dtype());
  if (op == InplaceOp::Add || op == InplaceOp::Sub) check_alpha(dt, alpha);
  check_special_binary(call.kernel, dt, self.dtype(), other.dtype());
  check_bitwise_dtype(call.kernel, dt);
  if (spec_of(op).rule == DtypeRule::Floating) {
    GT_CHECK_IMPL(is_floating(dt), "\"", spec_of(op).name, "_cpu\" not implemented for '",
                  scalar_type_name(dt), "'");
  }
  if (!is_floating(dt) && divides(call.kernel))
    GT_CHECK(!kernels::any_zero(other), "ZeroDivisionError");
  const OpKind kind = call.tensor_kind;
  run_inplace(
      spec_of(op).label, kind, records(kind), {&self, &other}, self,
      [&] { write_binary(call.kernel, self, other, dt, alpha); },
      [&](autograd::Attrs& at) {
        if (op == InplaceOp::Add || op == InplaceOp::Sub)
          at.set<autograd::AlphaAttrs>().alpha = alpha;
      });
  return self;
}

Tensor inplace_binary(InplaceOp op, const Tensor& self, Scalar other, Scalar alpha,
                      const DivMode& mode) {
  const BinaryCall call = binary_call(op, mode);
  GT_CHECK(inplace_takes_number(op), "gradtrack: ", spec_of(op).label, " takes no number operand");
  if (op == InplaceOp::Sub)
    check_sub_bool(self.dtype(), other.is_bool() ? ScalarType::Bool : ScalarType::Int64);
  check_no_internal_overlap(self);
  ScalarType promoted = result_type(self, other);
  ScalarType dt = call.float_result ? to_float_type(promoted) : promoted;
  check_cast(dt, self.dtype());
  if (op == InplaceOp::Add || op == InplaceOp::Sub) check_alpha(dt, alpha);
  check_special_binary(call.kernel, dt, self.dtype(), dt);
  check_bitwise_dtype(call.kernel, dt);
  GT_CHECK(!(is_integral(dt) && !other.is_float() && other.to_int() == 0 && divides(call.kernel)),
           "ZeroDivisionError");
  if (op == InplaceOp::Pow) {
    GT_CHECK(!(is_integral(dt) && !other.is_float() && other.to_int() < 0),
             "Integers to negative integer powers are not allowed.");
  }
  // the kernel applies alpha in every dtype (NOTE [add and sub with alpha round once])
  const Scalar kernel_alpha = op == InplaceOp::Add || op == InplaceOp::Sub ? alpha : Scalar(1);
  const OpKind kind = call.scalar_kind;
  run_inplace(
      spec_of(op).label, kind, records(kind), {&self}, self,
      [&] {
        compute_into(self, dt, [&](const Tensor& out, const Tensor& in) {
          kernels::binary_scalar(call.kernel, out, in, other, kernel_alpha, false);
        });
      },
      [&](autograd::Attrs& at) {
        // What the out-of-place op with a number keeps.
        if (op == InplaceOp::Add || op == InplaceOp::Sub) {
          at.set<autograd::AlphaAttrs>().alpha = alpha;
        } else if (op == InplaceOp::Pow) {
          at.set<autograd::PowAttrs>().exponent = other;
        } else {
          at.set<autograd::ScalarOperandAttrs>().other = other;
        }
      });
  return self;
}

Tensor inplace_unary(InplaceOp op, const Tensor& self) {
  const InplaceSpec& spec = spec_of(op);
  GT_CHECK(spec.unary, "gradtrack: not a unary in-place op");
  GT_CHECK(!(op == InplaceOp::Neg && self.dtype() == ScalarType::Bool),
           "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
           "invert a mask, use the `~` or `logical_not()` operator instead.");
  if (op == InplaceOp::Frac) {
    GT_CHECK_IMPL(is_floating(self.dtype()), "\"frac_cpu\" not implemented for '",
                  scalar_type_name(self.dtype()), "'");
  }
  check_no_internal_overlap(self);
  ScalarType dt = spec.rule == DtypeRule::Float ? to_float_type(self.dtype()) : self.dtype();
  // square_ is pow_(2): a bool self would compute in int64, as pow(bool, 2) does.
  if (op == InplaceOp::Square) dt = result_type(self, Scalar(int64_t(2)));
  check_cast(dt, self.dtype());
  const OpKind kind = spec.tensor_kind;
  // square_ records pow(self, 2), as PyTorch's, exponent included.
  run_inplace(
      spec.label, kind, true, {&self}, self,
      [&] { kernels::unary(static_cast<UnaryOp>(spec.kernel), self, self); },
      [&](autograd::Attrs& at) {
        if (op == InplaceOp::Square) at.set<autograd::PowAttrs>().exponent = Scalar(int64_t(2));
      });
  return self;
}

Tensor inplace_clamp(const Tensor& self, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  GT_CHECK(lo || hi, "gradtrack.clamp: At least one of 'min' or 'max' must not be None");
  check_no_internal_overlap(self);
  ResultTypeState s;
  s.add_tensor(self.dtype(), self.dim() == 0);
  if (lo) s.add_number(lo->kind());
  if (hi) s.add_number(hi->kind());
  check_clamp_cast(s.result(), self);
  run_inplace(
      "clamp_", OpKind::Clamp, true, {&self}, self, [&] { kernels::clamp(self, self, lo, hi); },
      [&](autograd::ClampAttrs& at) {
        at.min = lo;
        at.max = hi;
      });
  return self;
}

Tensor inplace_clamp(const Tensor& self, const Tensor* lo, const Tensor* hi) {
  GT_CHECK(lo || hi, "gradtrack.clamp: At least one of 'min' or 'max' must not be None");
  check_no_internal_overlap(self);
  ResultTypeState s;
  s.add_tensor(self.dtype(), self.dim() == 0);
  for (const Tensor* b : {lo, hi}) {
    if (!b) continue;
    s.add_tensor(b->dtype(), b->dim() == 0);
    check_broadcast_into(self, b->sizes());
    check_no_partial_overlap(self, *b);
  }
  ScalarType dt = s.result();
  check_clamp_cast(dt, self);
  // As out-of-place clamp: the node always has three inputs, a missing bound
  // being an infinite constant.
  bool floating = is_floating(self.dtype());
  const double inf = std::numeric_limits<double>::infinity();
  Tensor l = lo ? *lo : floating ? full({}, Scalar(-inf), dt) : Tensor();
  Tensor h = hi ? *hi : floating ? full({}, Scalar(inf), dt) : Tensor();
  auto write = [&] {
    Tensor lc = lo ? cast_for_kernel(*lo, dt) : Tensor(),
           hc = hi ? cast_for_kernel(*hi, dt) : Tensor();
    compute_into(self, dt, [&](const Tensor& out, const Tensor& in) {
      kernels::clamp_tensor(out, in, lo ? &lc : nullptr, hi ? &hc : nullptr);
    });
  };
  if (floating) {
    run_inplace("clamp_", OpKind::ClampTensor, true, {&self, &l, &h}, self, write, no_attrs);
  } else {
    run_inplace("clamp_", OpKind::ClampTensor, false, {&self}, self, write, no_attrs);
  }
  return self;
}

Tensor inplace_clamp_bound(bool is_min, const Tensor& self, Scalar bound) {
  check_no_internal_overlap(self);
  check_clamp_cast(result_type(self, bound), self);
  std::optional<Scalar> lo, hi;
  (is_min ? lo : hi) = bound;
  run_inplace(
      is_min ? "clamp_min_" : "clamp_max_", is_min ? OpKind::ClampMin : OpKind::ClampMax, true,
      {&self}, self, [&] { kernels::clamp(self, self, lo, hi); },
      [&](autograd::ClampAttrs& at) {
        at.min = lo;
        at.max = hi;
      });
  return self;
}

Tensor inplace_clamp_bound(bool is_min, const Tensor& self, const Tensor& bound) {
  check_no_internal_overlap(self);
  check_no_partial_overlap(self, bound);
  check_broadcast_into(self, bound.sizes());
  ScalarType dt = result_type(self, bound);
  check_clamp_cast(dt, self);
  auto write = [&] {
    Tensor b = cast_for_kernel(bound, dt);
    const Tensor* lo = is_min ? &b : nullptr;
    const Tensor* hi = is_min ? nullptr : &b;
    compute_into(self, dt, [&](const Tensor& out, const Tensor& in) {
      kernels::clamp_tensor(out, in, lo, hi);
    });
  };
  run_inplace(is_min ? "clamp_min_" : "clamp_max_",
              is_min ? OpKind::ClampMinTensor : OpKind::ClampMaxTensor, true, {&self, &bound}, self,
              write, no_attrs);
  return self;
}

Tensor inplace_fill(const Tensor& self, Scalar value) {
  check_fits(value, self.dtype());
  run_inplace(
      "fill_", OpKind::Fill, true, {&self}, self, [&] { kernels::fill(self, value); }, no_attrs);
  return self;
}

Tensor inplace_fill(const Tensor& self, const Tensor& value) {
  GT_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
           value.dim(), " dimensions.");
  // PyTorch fills from a tensor with copy_: an expanded self is refused, and a
  // value inside self is read (cloned) before the write.
  check_no_internal_overlap(self);
  Tensor v = value;
  if (value->storage() == self->storage()) {
    v = empty({}, value.dtype());
    kernels::copy(v, value);
  }
  run_inplace(
      "fill_", OpKind::FillTensor, true, {&self, &value}, self, [&] { kernels::copy(self, v); },
      no_attrs);
  return self;
}

Tensor inplace_zero(const Tensor& self) {
  run_inplace(
      "zero_", OpKind::Zero, true, {&self}, self, [&] { kernels::fill(self, Scalar(0)); },
      no_attrs);
  return self;
}

Tensor inplace_copy(const Tensor& self, const Tensor& src) {
  // A copy onto the very same elements is skipped before any check, as in PyTorch.
  const bool same = same_elements(self, src);
  if (!same) {
    check_no_internal_overlap(self);
    check_no_partial_overlap(self, src);
    check_broadcast_into(self, src.sizes());
  }
  // Integer tensors cannot require grad: copy_ into one records nothing.
  run_inplace(
      "copy_", OpKind::CopyInto, is_floating(self.dtype()), {&self, &src}, self,
      [&] {
        if (!same) kernels::copy(self, src);
      },
      no_attrs);
  return self;
}

Tensor inplace_normal(const Tensor& self, double mean, double std, Generator* gen) {
  check_no_internal_overlap(self);
  GT_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  GT_CHECK_IMPL(is_floating(self.dtype()), "\"normal_kernel_cpu\" not implemented for '",
                scalar_type_name(self.dtype()), "'");
  run_inplace(
      "normal_", OpKind::Normal, true, {&self}, self,
      [&] { kernels::normal(self, mean, std, gen ? *gen : default_generator()); }, no_attrs);
  return self;
}

Tensor inplace_uniform(const Tensor& self, double lo, double hi, Generator* gen) {
  check_no_internal_overlap(self);
  GT_CHECK(lo <= hi, "uniform_ expects to return a [from, to) range, but found from=", lo,
           " > to=", hi);
  GT_CHECK_IMPL(is_floating(self.dtype()), "\"check_uniform_bounds\" not implemented for '",
                scalar_type_name(self.dtype()), "'");
  run_inplace(
      "uniform_", OpKind::Uniform, true, {&self}, self,
      [&] { kernels::uniform(self, lo, hi, gen ? *gen : default_generator()); }, no_attrs);
  return self;
}

namespace {

constexpr const char* kIndexPutExpanded =
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
    "tensor";
constexpr const char* kMaskedFillExpanded =
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = "
    "scalar";

// The one boolean mask of an index list without other index tensors, if any.
const Tensor* only_mask(const IndexList& indices) {
  const Tensor* mask = nullptr;
  for (const auto& t : indices) {
    if (!t) continue;
    if (mask || (t->dtype() != ScalarType::Bool && t->dtype() != ScalarType::UInt8)) return nullptr;
    mask = &*t;
  }
  return mask;
}

}  // namespace

// NOTE [index_put_ as masked_fill_]
// PyTorch writes `x[mask] = v` with a one-element v as masked_fill_(mask,
// v.item()): then v may have another dtype or alias x, and only masked_fill_'s
// checks apply. Otherwise v must have x's dtype and share no memory with x or
// the indices. An expanded x is written (with a deprecation warning) either way.
namespace {
Tensor index_put_recorded_as(OpKind kind, const Tensor& self, const IndexList& indices,
                             const Tensor& values, bool accumulate) {
  if (has_internal_overlap(self)) warn(kIndexPutExpanded);
  const Tensor* mask = accumulate || values.numel() != 1 ? nullptr : only_mask(indices);
  Tensor v = values;
  IndexList idx;
  if (mask) {
    idx = expand_bool_indices(self, indices);  // checks the mask's shape
    if (has_internal_overlap(self)) warn(kMaskedFillExpanded);
    check_no_partial_overlap(self, *mask);
    v = alias_with_geometry(values, {}, {}, values->offset());
  } else {
    check_no_overlap(self, values);
    for (const auto& t : indices)
      if (t) check_no_overlap(self, *t);
    idx = expand_bool_indices(self, indices);
  }
  run_inplace(
      "index_put_", kind, true, {&self, &values}, self,
      [&] { ops_detail::index_put_kernel(self, idx, v, accumulate, mask == nullptr); },
      [&](autograd::IndexAttrs& at) {
        ops_detail::index_attrs(at, idx);
        at.accumulate = accumulate;
      },
      ops_detail::index_extras(idx, indices));
  return self;
}
}  // namespace

Tensor inplace_index_put(const Tensor& self, const IndexList& indices, const Tensor& values,
                         bool accumulate) {
  return index_put_recorded_as(OpKind::IndexPut, self, indices, values, accumulate);
}

Tensor inplace_index_put_impl(const Tensor& self, const IndexList& indices, const Tensor& values,
                              bool accumulate) {
  return index_put_recorded_as(OpKind::IndexPutImpl, self, indices, values, accumulate);
}

namespace {
// scatter_ / scatter_add_ with a tensor src.
Tensor scatter_src_inplace(const char* label, OpKind kind, bool add, const Tensor& self,
                           int64_t dim, const Tensor& index, const Tensor& src) {
  const int64_t d = wrap_dim(dim, self.dim());
  ops_detail::check_scatter_src(self, d, index, src);
  check_no_internal_overlap(self);
  check_no_overlap(self, src);
  run_inplace(
      label, kind, true, {&self, &src}, self,
      [&] { ops_detail::scatter_kernel(self, d, index, src, add); },
      [&](autograd::DimAttrs& at) { at.dim = d; }, {&index});
  return self;
}
}  // namespace

Tensor inplace_scatter_add(const Tensor& self, int64_t dim, const Tensor& index,
                           const Tensor& src) {
  return scatter_src_inplace("scatter_add_", OpKind::ScatterAdd, true, self, dim, index, src);
}

Tensor inplace_scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor src = ops_detail::scatter_value_src(self, d, index, value);
  check_no_internal_overlap(self);
  run_inplace(
      "scatter_", OpKind::ScatterValue, true, {&self}, self,
      [&] { ops_detail::scatter_kernel(self, d, index, src, false); },
      [&](autograd::DimAttrs& at) { at.dim = d; }, {&index});
  return self;
}

Tensor inplace_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_src_inplace("scatter_", OpKind::Scatter, false, self, dim, index, src);
}

// NOTE [In-place forms of composed ops]
// addmm_, lerp_, cumsum_, lt_, ... compute their out-of-place op's value with
// grad mode off, then write it here and record the out-of-place op's row (or the
// row `kind` names), as tril_ does: the value and the node cannot drift from
// the out-of-place op's. The checks come first, so a refused op changes nothing.
Tensor inplace_write(const char* label, OpKind kind, std::initializer_list<const Tensor*> inputs,
                     const Tensor& self, const Tensor& value,
                     const std::function<void(autograd::Attrs&)>& fill,
                     const std::vector<const Tensor*>& extras) {
  check_broadcast_into(self, value.sizes());
  check_cast(value.dtype(), self.dtype());
  check_no_internal_overlap(self);
  run_inplace(
      label, kind, true, inputs, self, [&] { kernels::copy(self, value); },
      [&](autograd::Attrs& at) { fill(at); }, extras);
  return self;
}

Tensor inplace_compare(Cmp cmp, const Tensor& self, const Tensor& other) {
  static constexpr OpKind kinds[] = {OpKind::EqInplaceTensor, OpKind::NeInplaceTensor,
                                     OpKind::LtInplaceTensor, OpKind::LeInplaceTensor,
                                     OpKind::GtInplaceTensor, OpKind::GeInplaceTensor};
  static constexpr const char* labels[] = {"eq_", "ne_", "lt_", "le_", "gt_", "ge_"};
  check_no_partial_overlap(self, other);
  Tensor value;
  {
    autograd::AutoGradMode off(false);
    value = compare(cmp, self, other);
  }
  const auto i = static_cast<size_t>(cmp);
  return inplace_write(labels[i], kinds[i], {&self, &other}, self, value, [](autograd::Attrs&) {});
}

Tensor inplace_compare(Cmp cmp, const Tensor& self, Scalar other) {
  static constexpr OpKind kinds[] = {OpKind::EqInplace, OpKind::NeInplace, OpKind::LtInplace,
                                     OpKind::LeInplace, OpKind::GtInplace, OpKind::GeInplace};
  static constexpr const char* labels[] = {"eq_", "ne_", "lt_", "le_", "gt_", "ge_"};
  Tensor value;
  {
    autograd::AutoGradMode off(false);
    value = compare(cmp, self, other);
  }
  const auto i = static_cast<size_t>(cmp);
  return inplace_write(labels[i], kinds[i], {&self}, self, value, [](autograd::Attrs&) {});
}

Tensor inplace_index_add(const Tensor& self, int64_t dim, const Tensor& index,
                         const Tensor& source) {
  IndexList idx(static_cast<size_t>(dim));
  idx.emplace_back(index);
  return index_put_recorded_as(OpKind::IndexAdd, self, idx, source, true);
}

namespace {

// masked_fill_'s checks on self and the mask, shared by both value kinds.
void check_masked_fill(const Tensor& self, const Tensor& mask) {
  GT_CHECK(mask.dtype() == ScalarType::Bool,
           "masked_fill_ only supports boolean masks, but got "
           "mask with dtype ",
           cpp_type_name(mask.dtype()));
  if (has_internal_overlap(self)) warn(kMaskedFillExpanded);
  check_no_partial_overlap(self, mask);
  check_broadcast_into(self, mask.sizes());
}

}  // namespace

Tensor inplace_masked_fill(const Tensor& self, const Tensor& mask, Scalar value) {
  check_masked_fill(self, mask);
  check_fits(value, self.dtype());
  Tensor v = scalar_tensor(value, self.dtype());
  run_inplace("masked_fill_", OpKind::MaskedFill, true, {&self}, self,
              [&] { kernels::where(self, mask, v, self); }, no_attrs, {&mask});
  return self;
}

Tensor inplace_masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  GT_CHECK(value.dim() == 0,
           "masked_fill_ only supports a 0-dimensional value tensor, but got "
           "tensor with ",
           value.dim(), " dimension(s).");
  check_masked_fill(self, mask);
  // The value is an input of MaskedFillBackward1, so its gradient flows.
  Tensor v = empty({}, self.dtype());
  kernels::copy(v, value);
  run_inplace("masked_fill_", OpKind::MaskedFillTensor, true, {&self, &value}, self,
              [&] { kernels::where(self, mask, v, self); }, no_attrs, {&mask});
  return self;
}

// tril_ / triu_ write the triangle back into
// self and record the out-of-place op's row (TrilBackward0 / TriuBackward0).
Tensor inplace_tril(const Tensor& self, int64_t diagonal, bool upper) {
  Tensor value;
  {
    autograd::AutoGradMode off(false);
    value = tril(self, diagonal, upper);
  }
  check_no_internal_overlap(self);
  run_inplace(
      upper ? "triu_" : "tril_", upper ? OpKind::Triu : OpKind::Tril, true, {&self}, self,
      [&] { kernels::copy(self, value); },
      [&](autograd::TriangleAttrs& at) { at.diagonal = diagonal; });
  return self;
}

}  // namespace gradtrack::ops
