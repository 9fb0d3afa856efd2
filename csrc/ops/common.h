// Helpers shared by the op files (not part of the public op API).
#pragma once

#include <functional>
#include <type_traits>
#include <variant>

#include "autograd/formulas.h"
#include "autograd/forward_ad.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "ops/ops.h"

namespace gradtrack::ops {

using autograd::OpKind;

namespace ops_detail {
// The attribute struct a fill takes: `[&](autograd::DimAttrs& at) { at.dim = d; }`.
template <typename Fill>
struct FillArg : FillArg<decltype(&Fill::operator())> {};
template <typename C, typename A>
struct FillArg<void (C::*)(A&) const> {
  using type = A;
};
template <typename A>
struct FillArg<void(A&)> {
  using type = A;
};
}  // namespace ops_detail

/// Runs an op's fill on `at` (NOTE [Named attributes] in autograd/attrs.h): a
/// fill taking an attribute struct makes `at` hold that struct and fills it; one
/// taking autograd::Attrs& (an op that picks the struct itself) gets `at`.
template <typename Fill>
void fill_attrs(autograd::Attrs& at, const Fill& fill) {
  using A = typename ops_detail::FillArg<Fill>::type;
  if constexpr (std::is_same_v<A, autograd::Attrs>) {
    fill(at);
  } else {
    fill(at.set<A>());
  }
}
/// The fill of an op whose node keeps no attributes.
inline void no_attrs(std::monostate&) {}

/// Records node `kind` for `out` if any input requires grad; `fill` sets its
/// attributes (fill_attrs). With a dual level and a tangent on an input, also
/// gives `out` its tangent.
template <typename Fill>
void record(OpKind kind, std::initializer_list<const Tensor*> inputs, const Tensor& out,
            const Fill& fill, const std::vector<const Tensor*>& extras = {}) {
  if (autograd::forward_ad::any_tangent(inputs)) {
    autograd::Attrs at;
    fill_attrs(at, fill);
    autograd::forward_ad::propagate(kind, inputs, out, at, extras);
  }
  if (!autograd::should_record(inputs)) return;
  auto node = autograd::new_node(kind, inputs);
  fill_attrs(node->attrs, fill);
  autograd::finish_node(node, inputs, {&out}, extras);
}
inline void record(OpKind kind, std::initializer_list<const Tensor*> inputs, const Tensor& out) {
  record(kind, inputs, out, no_attrs);
}

/// Writes `value` (an out-of-place op's result, computed with grad mode off) into
/// self and records `kind` (NOTE [In-place forms of composed ops] in inplace.cpp).
Tensor inplace_write(const char* label, OpKind kind, std::initializer_list<const Tensor*> inputs,
                     const Tensor& self, const Tensor& value,
                     const std::function<void(autograd::Attrs&)>& fill,
                     const std::vector<const Tensor*>& extras = {});
/// The broadcast shape of two tensors (fast when equal).
inline DimVector broadcast2(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() ? a.sizes() : broadcast_shapes(a.sizes(), b.sizes());
}

/// NOTE [out= written in place]
/// `torch.mul(a, b, out=o)` computed a fresh result and copied it into `o`:
/// over 1M floats, 1.7x the time of torch, which writes `o` directly. Now
/// python/gradtrack/_out.py calls an elementwise function with out= through
/// `_C._inplace.into`, which arms an OutSlot with `o` when `o` is contiguous
/// and shares no memory with any argument (a tangent on any of them was
/// refused before: NOTE [out= rules] in python/gradtrack/_out.py). The first
/// elementwise result (empty_result) of `o`'s shape and dtype is then `o`
/// itself. When that is what the function returns, `o`'s counter bumps once
/// (as copy_'s did) and nothing is copied; when an intermediate took it, the
/// final result is copied over it as before. mm and bmm (and matmul of two
/// matrices) take `o` the same way for their one result (product_result in
/// ops/linalg.cpp): with out= they ran 15-20% slower than without, the copy.
namespace out_slot {
extern thread_local const Tensor* armed;
}

/// The armed out= tensor if it has this shape and dtype (and disarms it).
inline Tensor take_out(const DimVector& shape, ScalarType dt) {
  const Tensor* o = out_slot::armed;
  if (o == nullptr || o->dtype() != dt || o->sizes() != shape) return Tensor();
  out_slot::armed = nullptr;
  return *o;
}

/// The result of an elementwise op over `inputs` (in PyTorch's operand order):
/// contiguous when every input is, else in their memory order
/// (NOTE [Elementwise output layout]), or the armed out= tensor.
inline Tensor empty_result(const DimVector& shape, ScalarType dt, const Tensor& a) {
  if (Tensor o = take_out(shape, dt); o.defined()) return o;
  if (a.is_contiguous()) return empty(shape, dt);
  return empty_strided(shape, dense_strides_following(shape, {&a}), dt);
}
inline Tensor empty_result(const DimVector& shape, ScalarType dt, const Tensor& a,
                           const Tensor& b) {
  if (Tensor o = take_out(shape, dt); o.defined()) return o;
  if (a.is_contiguous() && b.is_contiguous()) return empty(shape, dt);
  return empty_strided(shape, dense_strides_following(shape, {&a, &b}), dt);
}
inline Tensor empty_result(const DimVector& shape, ScalarType dt, const Tensor& a, const Tensor& b,
                           const Tensor& c) {
  if (Tensor o = take_out(shape, dt); o.defined()) return o;
  if (a.is_contiguous() && b.is_contiguous() && c.is_contiguous()) return empty(shape, dt);
  return empty_strided(shape, dense_strides_following(shape, {&a, &b, &c}), dt);
}

/// Dims of `shape` for a possibly negative `dim` list; sets bits of a mask.
uint64_t dims_mask(const DimVector& dims, int64_t ndim, bool empty_means_all);

/// The dtype checks of the hand-written special and integer rows (gcd on floats,
/// heaviside of two dtypes), shared by their functions and in-place forms.
void check_special_binary(kernels::BinaryOp op, ScalarType dt, ScalarType self, ScalarType other);
/// torch's refusal of a floating result for bitwise_and/or/xor, named by the op (a no-op
/// for other kernels); shared by the functions and their in-place forms.
void check_bitwise_dtype(kernels::BinaryOp op, ScalarType dt);

/// A float dtype for an op that only computes in floating point.
inline ScalarType to_float_type(ScalarType t) { return is_floating(t) ? t : default_float_type(); }

namespace ops_detail {
/// dst[indices] = values (or +=), no checks beyond indexing's own (and, with
/// same_dtype, index_put_'s dtype rule), no autograd.
void index_put_kernel(const Tensor& dst, const IndexList& idx, const Tensor& values,
                      bool accumulate, bool same_dtype);
/// How an indexing node keeps its index list: which dims have an index
/// (IndexAttrs::has_index), and the index tensors themselves (the node's extras).
void index_attrs(autograd::IndexAttrs& at, const IndexList& idx);
std::vector<const Tensor*> index_extras(const IndexList& idx);
/// index_extras(idx), then the boolean masks of `given` that idx expanded:
/// saved with the node only so that a later write to a mask refuses the
/// backward, as torch's saved indices do (its formulas read idx).
std::vector<const Tensor*> index_extras(const IndexList& idx, const IndexList& given);
/// scatter's checks (index dtype and shape, src dtype) and its kernel:
/// writes src (read at index's positions) into dst along dim d, or adds it.
void check_scatter_src(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src);
void scatter_kernel(const Tensor& dst, int64_t d, const Tensor& index, const Tensor& src, bool add);
/// dst (a fresh contiguous tensor) reduced with src at index along d (NOTE [Scatter
/// reductions] in indexing.cpp); reduce: 0 sum, 1 prod, 2 mean, 3 amax, 4 amin.
void scatter_reduce_kernel(const Tensor& dst, int64_t d, const Tensor& index, const Tensor& src,
                           int64_t reduce, bool include_self);
/// scatter with a number: its checks, and the value as a src shaped like index.
Tensor scatter_value_src(const Tensor& self, int64_t d, const Tensor& index, Scalar value);
}  // namespace ops_detail

/// Checks PyTorch's rules for `alpha` of add/sub.
void check_alpha(ScalarType dtype, Scalar alpha);

/// PyTorch refuses subtraction with a bool operand (a Python bool counts as one).
void check_sub_bool(ScalarType a, ScalarType b);

}  // namespace gradtrack::ops
