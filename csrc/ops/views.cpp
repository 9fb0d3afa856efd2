// Views: results that share their base's storage and version counter
// (reshapes, transposes, selections, splits, diagonals), and the backward
// helpers that undo them.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "autograd/profiling.h"
#include "autograd/variable.h"
#include "ops/as_strided.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

autograd::CreationMeta current_creation_meta() {
  if (autograd::InferenceMode::is_enabled()) return autograd::CreationMeta::InferenceMode;
  return autograd::GradMode::is_enabled() ? autograd::CreationMeta::Default
                                          : autograd::CreationMeta::NoGradMode;
}

// Outputs of split/unbind made in grad mode carry the multi-output rule
// whether or not the input requires grad (it may later be written in place
// with a value that does), as PyTorch's.
autograd::CreationMeta multi_output_meta(autograd::CreationMeta current) {
  return current == autograd::CreationMeta::Default ? autograd::CreationMeta::MultiOutputNode
                                                    : current;
}

// A view of `a` with new geometry, recorded as `kind`.
template <typename Fill>
Tensor make_view_op(const Tensor& a, DimVector sizes, DimVector strides, int64_t offset,
                    OpKind kind, const Fill& fill) {
  Tensor out = alias_with_geometry(a, std::move(sizes), std::move(strides), offset);
  autograd::make_view(out, a, current_creation_meta());
  record(kind, {&a}, out, fill);
  return out;
}

// Infers a -1 entry of `shape` for `numel` elements.
DimVector infer_size(const DimVector& shape, int64_t numel) {
  DimVector out(shape);
  int64_t known = 1, infer = -1;
  bool overflow = false;  // the product left int64: no tensor has that many elements
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      GT_CHECK(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      GT_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i], " at index ", i, " of shape ",
               shape_str(shape));
      if (shape[i] == 0) {
        known = 0;
        overflow = false;
      } else if (known != 0 && __builtin_mul_overflow(known, shape[i], &known)) {
        overflow = true;
      }
    }
  }
  GT_CHECK(!overflow, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
  if (infer >= 0 && known == 0) {
    GT_CHECK(numel != 0, "cannot reshape tensor of 0 elements into shape ", shape_str(shape),
             " because the unspecified dimension size -1 can be any value and is ambiguous");
  }
  if (infer >= 0) {
    GT_CHECK(known != 0 && numel % known == 0, "shape '", shape_str(shape),
             "' is invalid for input of size ", numel);
    out[infer] = numel / known;
  } else {
    GT_CHECK(known == numel, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
  }
  return out;
}

// Strides for viewing (sizes, strides) as `shape`, if possible (PyTorch's
// computeStride: each run of merged old dims must stay contiguous).
bool view_strides(const DimVector& sizes, const DimVector& strides, const DimVector& shape,
                  DimVector& out) {
  out = DimVector(shape.size());
  if (numel_of(sizes) == 0 || sizes.empty()) {
    out = contiguous_strides(shape);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = strides.empty() ? 1 : strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

Tensor view(const Tensor& a, const DimVector& shape) {
  autograd::profiling::Scope scope("aten::view", {&a}, 2);
  DimVector target = infer_size(shape, a.numel());
  DimVector strides;
  GT_CHECK(view_strides(a.sizes(), a.strides(), target, strides),
           "view size is not compatible with input tensor's size and stride (at least one "
           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view_op(a, target, strides, a->offset(), OpKind::View, no_attrs);
}

// PyTorch's _unsafe_view: view's geometry, but a tensor of its own to autograd
// (no _base), recorded as UnsafeViewBackward0 (the composites that end in it).
Tensor unsafe_view(const Tensor& a, const DimVector& shape) {
  autograd::profiling::Scope scope("aten::_unsafe_view", {&a}, 2);
  DimVector target = infer_size(shape, a.numel());
  DimVector strides;
  GT_CHECK(view_strides(a.sizes(), a.strides(), target, strides),
           "view size is not compatible with input tensor's size and stride (at least one "
           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Tensor out = alias_with_geometry(a, target, strides, a->offset());
  record(OpKind::UnsafeView, {&a}, out);
  return out;
}

Tensor reshape(const Tensor& a, const DimVector& shape) {
  autograd::profiling::Scope scope("aten::reshape", {&a}, 2);
  DimVector target = infer_size(shape, a.numel());
  DimVector strides;
  if (view_strides(a.sizes(), a.strides(), target, strides)) {
    // A viewable but non-contiguous input takes PyTorch's _reshape_alias.
    OpKind kind = a.is_contiguous() ? OpKind::View : OpKind::ReshapeAlias;
    autograd::profiling::Scope step(kind == OpKind::View ? "aten::view" : "aten::_reshape_alias",
                                    {&a}, kind == OpKind::View ? 2 : 3);
    return make_view_op(a, target, strides, a->offset(), kind, no_attrs);
  }
  // Not viewable: a contiguous copy, then an unsafe view of the copy (not a
  // view of `a`), as PyTorch's reshape does.
  Tensor c;
  {
    autograd::profiling::Scope step("aten::clone", {&a}, 2);
    c = contiguous(a);
  }
  autograd::profiling::Scope step("aten::_unsafe_view", {&c}, 2);
  Tensor out = alias_with_geometry(c, target, contiguous_strides(target), c->offset());
  record(OpKind::UnsafeView, {&c}, out);
  return out;
}

void check_as_strided(const Tensor& a, const DimVector& sizes, const DimVector& strides,
                      int64_t off) {
  GT_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  GT_CHECK(off >= 0, "Tensor: invalid storage offset ", off);
  for (int64_t st : strides) {
    GT_CHECK(st >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
             shape_str(strides));
  }
  // PyTorch's storage size in bytes, computed in uint64: a negative size
  // wraps to a huge one and counts as an overflow too.
  const uint64_t item = itemsize(a.dtype());
  uint64_t nbytes = uint64_t(off) + 1;
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) {
      nbytes = 0;
      overflow = false;
      break;
    }
    uint64_t span;
    overflow |= sizes[i] < 0;
    overflow |= __builtin_mul_overflow(uint64_t(strides[i]), uint64_t(sizes[i] - 1), &span);
    overflow |= __builtin_add_overflow(nbytes, span, &nbytes);
  }
  overflow |= __builtin_mul_overflow(nbytes, item, &nbytes);
  overflow |= nbytes > uint64_t(INT64_MAX);
  GT_CHECK(!overflow, "Storage size calculation overflowed with sizes=", shape_str(sizes),
           " and strides=", shape_str(strides));
  GT_CHECK(nbytes <= a->storage()->nbytes(), "setStorage: sizes ", shape_str(sizes), ", strides ",
           shape_str(strides), ", storage offset ", off, ", and itemsize ", item,
           " requiring a storage size of ", nbytes, " are out of bounds for storage of size ",
           a->storage()->nbytes());
}

Tensor as_strided(const Tensor& a, const DimVector& sizes, const DimVector& strides,
                  std::optional<int64_t> offset) {
  autograd::profiling::Scope scope("aten::as_strided", {&a}, 4);
  const int64_t off = offset ? *offset : a->offset();
  check_as_strided(a, sizes, strides, off);
  return make_view_op(a, sizes, strides, off, OpKind::AsStrided, [&](autograd::AsStridedAttrs& at) {
    at.size = sizes;
    at.stride = strides;
    at.storage_offset = off;
    at.base_stride = a.strides();
    at.base_offset = a->offset();
  });
}

Tensor t(const Tensor& a) {
  autograd::profiling::Scope scope("aten::t", {&a}, 1);
  GT_CHECK(a.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", a.dim(), "D");
  if (a.dim() < 2) return make_view_op(a, a.sizes(), a.strides(), a->offset(), OpKind::T, no_attrs);
  DimVector s{a.sizes()[1], a.sizes()[0]}, st{a.strides()[1], a.strides()[0]};
  return make_view_op(a, s, st, a->offset(), OpKind::T, no_attrs);
}

Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) {
  autograd::profiling::Scope scope("aten::transpose", {&a}, 3);
  int64_t x = wrap_dim(d0, a.dim()), y = wrap_dim(d1, a.dim());
  DimVector s(a.sizes()), st(a.strides());
  if (a.dim() > 0) {
    std::swap(s[x], s[y]);
    std::swap(st[x], st[y]);
  }
  return make_view_op(a, s, st, a->offset(), OpKind::Transpose, [&](autograd::TransposeAttrs& at) {
    at.dim0 = x;
    at.dim1 = y;
  });
}

Tensor permute(const Tensor& a, const DimVector& dims) {
  autograd::profiling::Scope scope("aten::permute", {&a}, 2);
  GT_CHECK(static_cast<int64_t>(dims.size()) == a.dim(),
           "permute(sparse_coo): number of dimensions in the tensor input does not match the "
           "length of the desired ordering of dimensions i.e. input.dim() = ",
           a.dim(), " is not equal to len(dims) = ", dims.size());
  DimVector s(dims.size()), st(dims.size()), wrapped(dims.size());
  uint64_t seen = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], a.dim());
    GT_CHECK(!(seen >> d & 1), "permute(): duplicate dims are not allowed.");
    seen |= uint64_t(1) << d;
    wrapped[i] = d;
    s[i] = a.sizes()[d];
    st[i] = a.strides()[d];
  }
  return make_view_op(a, s, st, a->offset(), OpKind::Permute,
                      [&](autograd::DimsAttrs& at) { at.dims = wrapped; });
}

Tensor unsqueeze(const Tensor& a, int64_t dim) {
  int64_t d = wrap_dim(dim, a.dim() + 1);
  DimVector s(a.sizes()), st(a.strides());
  int64_t stride = d < a.dim() ? a.sizes()[d] * a.strides()[d] : 1;
  s.insert(static_cast<size_t>(d), 1);
  st.insert(static_cast<size_t>(d), stride);
  return make_view_op(a, s, st, a->offset(), OpKind::Unsqueeze,
                      [&](autograd::DimAttrs& at) { at.dim = d; });
}

Tensor squeeze(const Tensor& a) {
  DimVector s, st;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.sizes()[d] != 1) {
      s.push_back(a.sizes()[d]);
      st.push_back(a.strides()[d]);
    }
  }
  return make_view_op(a, s, st, a->offset(), OpKind::Squeeze, no_attrs);
}

Tensor squeeze(const Tensor& a, int64_t dim) {
  int64_t d = wrap_dim(dim, a.dim());
  DimVector s(a.sizes()), st(a.strides());
  if (a.dim() > 0 && a.sizes()[d] == 1) {
    s.erase(static_cast<size_t>(d));
    st.erase(static_cast<size_t>(d));
  }
  return make_view_op(a, s, st, a->offset(), OpKind::SqueezeDim,
                      [&](autograd::DimAttrs& at) { at.dim = d; });
}

Tensor squeeze(const Tensor& a, const DimVector& dims) {
  uint64_t mask = 0;
  for (int64_t d : dims) mask |= uint64_t(1) << wrap_dim(d, a.dim());
  DimVector s, st;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if ((mask >> d & 1) && a.sizes()[d] == 1) continue;
    s.push_back(a.sizes()[d]);
    st.push_back(a.strides()[d]);
  }
  return make_view_op(a, s, st, a->offset(), OpKind::SqueezeDims, no_attrs);
}

Tensor alias(const Tensor& a) {
  return make_view_op(a, a.sizes(), a.strides(), a->offset(), OpKind::Alias, no_attrs);
}

// NOTE [Expanded sizes are checked]
// A size of 1 expands to any target, so a negative target (-2) or one whose
// element count overflows int64 got through to a view that later kernels
// trust (cat sized its output from it and wrote past the heap). PyTorch
// refuses both at expand with one message: the product of the sizes,
// multiplied left to right, must not overflow or be negative. Unlike
// PyTorch, a negative size after a 0 (expand(0, -2)) is refused too: its
// product is 0, but a negative size is never a valid shape.
namespace {
void check_view_numel(const DimVector& sizes) {
  int64_t n = 1;
  bool bad = false;
  for (int64_t s : sizes) bad |= s < 0 || __builtin_mul_overflow(n, s, &n);
  GT_CHECK(!bad, "numel: integer multiplication overflow");
}
}  // namespace

Tensor expand(const Tensor& a, const DimVector& sizes) {
  autograd::profiling::Scope scope("aten::expand", {&a}, 3);
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (nd < a.dim()) {
    throw Error(str_cat(
        "expand(", legacy_type_name(a.dtype(), autograd::kModule), "{", shape_str(a.sizes()),
        "}, size=", shape_str(sizes), "): the number of sizes provided (", nd,
        ") must be greater or equal to the number of dimensions in the tensor (", a.dim(), ")"));
  }
  DimVector s(sizes), st(sizes.size());
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t j = i - (nd - a.dim());
    if (j < 0) {
      // PyTorch names -1 here; other negative sizes (and every size of a
      // 0-dim tensor's expand) reach the numel check below.
      GT_CHECK(sizes[i] != -1 || a.dim() == 0, "The expanded size of the tensor (", sizes[i],
               ") isn't allowed in a leading, non-existing dimension ", i);
      // A new leading dim of size 1 keeps a "contiguous" stride, as PyTorch's
      // (0 behind a 0-dim tensor: it has no stride to continue).
      st[i] = sizes[i] == 1 ? (i + 1 < nd ? s[i + 1] * st[i + 1] : 0) : 0;
      continue;
    }
    int64_t cur = a.sizes()[j];
    if (sizes[i] == -1) s[i] = cur;
    if (cur == s[i]) {
      st[i] = a.strides()[j];
    } else {
      GT_CHECK(cur == 1, "The expanded size of the tensor (", s[i],
               ") must match the existing size (", cur, ") at non-singleton dimension ", i,
               ".  Target sizes: ", shape_str(sizes), ".  Tensor sizes: ", shape_str(a.sizes()));
      st[i] = 0;
    }
  }
  check_view_numel(s);
  return make_view_op(a, s, st, a->offset(), OpKind::Expand, no_attrs);
}

Tensor flatten(const Tensor& a, int64_t start, int64_t end) {
  if (a.dim() == 0) return reshape(a, {1});
  int64_t s = wrap_dim(start, a.dim()), e = wrap_dim(end, a.dim());
  GT_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) return a;
  DimVector shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(a.sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged *= a.sizes()[d];
  shape.push_back(merged);
  for (int64_t d = e + 1; d < a.dim(); ++d) shape.push_back(a.sizes()[d]);
  return reshape(a, shape);
}

Tensor select(const Tensor& a, int64_t dim, int64_t index) {
  GT_CHECK_INDEX(a.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, a.dim());
  int64_t size = a.sizes()[d];
  GT_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                 " out of range for tensor of size ", shape_str(a.sizes()), " at dimension ", d);
  int64_t i = index < 0 ? index + size : index;
  DimVector s(a.sizes()), st(a.strides());
  s.erase(static_cast<size_t>(d));
  st.erase(static_cast<size_t>(d));
  return make_view_op(a, s, st, a->offset() + i * a.strides()[d], OpKind::Select,
                      [&](autograd::SelectAttrs& at) {
                        at.input_sizes = a.sizes();
                        at.dim = d;
                        at.index = i;
                      });
}

Tensor slice(const Tensor& a, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  GT_CHECK_INDEX(a.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  GT_CHECK_VALUE(step > 0, "step must be greater than zero");
  int64_t d = wrap_dim(dim, a.dim());
  int64_t size = a.sizes()[d];
  int64_t b = start.value_or(0), e = end.value_or(size);
  if (b < 0) b += size;
  if (e < 0) e += size;
  b = std::clamp<int64_t>(b, 0, size);
  e = std::clamp<int64_t>(e, b, size);
  DimVector s(a.sizes()), st(a.strides());
  s[d] = (e - b + step - 1) / step;
  st[d] = a.strides()[d] * step;
  return make_view_op(a, s, st, a->offset() + b * a.strides()[d], OpKind::Slice,
                      [&](autograd::SliceAttrs& at) {
                        at.input_sizes = a.sizes();
                        at.dim = d;
                        at.start = b;
                        at.end = e;
                        at.step = step;
                      });
}

Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length) {
  int64_t d = wrap_dim(dim, a.dim());
  int64_t size = a.sizes()[d];
  GT_CHECK_INDEX(start >= -size && start <= size,
                 "start out of range (expected to be in range of [", -size, ", ", size,
                 "], but got ", start, ")");
  if (start < 0) start += size;
  GT_CHECK(length >= 0, "narrow(): length must be non-negative.");
  GT_CHECK(start + length <= size, "start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ").");
  return slice(a, d, start, start + length, 1);
}

namespace {
std::vector<Tensor> split_impl(const Tensor& a, const DimVector& sizes, int64_t dim,
                               bool with_sizes);
}  // namespace

std::vector<Tensor> split_with_sizes(const Tensor& a, const DimVector& sizes, int64_t dim) {
  return split_impl(a, sizes, dim, true);
}

namespace {
std::vector<Tensor> split_impl(const Tensor& a, const DimVector& sizes, int64_t dim,
                               bool with_sizes) {
  int64_t d = wrap_dim(dim, a.dim());
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  GT_CHECK(total == a.sizes()[d], "split_with_sizes expects split_sizes to sum exactly to ",
           a.sizes()[d], " (input tensor's size at dimension ", d,
           "), but got split_sizes=", shape_str(sizes));
  std::vector<Tensor> outs;
  int64_t start = 0;
  auto cm = current_creation_meta();
  bool rec = autograd::should_record({&a});
  for (int64_t s : sizes) {
    DimVector sz(a.sizes());
    sz[d] = s;
    Tensor o = alias_with_geometry(a, sz, a.strides(), a->offset() + start * a.strides()[d]);
    autograd::make_view(o, a, multi_output_meta(cm));
    outs.push_back(o);
    start += s;
  }
  if (autograd::forward_ad::any_tangent({&a})) autograd::forward_ad::propagate_views(a, outs);
  if (rec) {
    auto node = autograd::new_node(with_sizes ? OpKind::SplitWithSizes : OpKind::Split, {&a});
    autograd::CatAttrs& at = node->attrs.set<autograd::CatAttrs>();
    at.dim = d;
    at.sizes = sizes;
    for (const Tensor& o : outs) autograd::set_history(o, node);
  }
  return outs;
}
}  // namespace

std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim) {
  int64_t d = wrap_dim(dim, a.dim());
  GT_CHECK(split_size >= 0,
           "split expects split_size be non-negative, but got split_size=", split_size);
  int64_t size = a.sizes()[d];
  DimVector sizes;
  if (split_size == 0) {
    GT_CHECK(size == 0,
             "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
    sizes.push_back(0);
  }
  for (int64_t s = 0; split_size > 0 && s < size; s += split_size)
    sizes.push_back(std::min(split_size, size - s));
  if (sizes.empty()) sizes.push_back(0);
  return split_impl(a, sizes, d, false);
}

std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim) {
  GT_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t d = wrap_dim(dim, a.dim());
  int64_t size = a.sizes()[d];
  int64_t each = (size + chunks - 1) / chunks;
  if (each == 0) each = 1;
  return split(a, std::max<int64_t>(each, 1), d);
}

std::vector<Tensor> unbind(const Tensor& a, int64_t dim) {
  int64_t d = wrap_dim(dim, a.dim());
  std::vector<Tensor> outs;
  bool rec = autograd::should_record({&a});
  auto cm = current_creation_meta();
  DimVector s(a.sizes()), st(a.strides());
  s.erase(static_cast<size_t>(d));
  st.erase(static_cast<size_t>(d));
  for (int64_t i = 0; i < a.sizes()[d]; ++i) {
    Tensor o = alias_with_geometry(a, s, st, a->offset() + i * a.strides()[d]);
    autograd::make_view(o, a, multi_output_meta(cm));
    outs.push_back(o);
  }
  if (autograd::forward_ad::any_tangent({&a})) autograd::forward_ad::propagate_views(a, outs);
  if (rec) {
    auto node = autograd::new_node(OpKind::Unbind, {&a});
    node->attrs.set<autograd::DimAttrs>().dim = d;
    for (const Tensor& o : outs) autograd::set_history(o, node);
  }
  return outs;
}

Tensor select_backward(const Tensor& g, const DimVector& sizes, int64_t dim, int64_t index) {
  Tensor out = zeros(sizes, g.dtype());
  Tensor dst;
  {
    autograd::AutoGradMode off(false);
    dst = select(out, dim, index);
  }
  kernels::copy(dst, g);
  record(OpKind::SelectBackward, {&g}, out, [&](autograd::SelectAttrs& at) {
    at.dim = dim;
    at.index = index;
  });
  return out;
}

Tensor slice_backward(const Tensor& g, const DimVector& sizes, int64_t dim, int64_t start,
                      int64_t end, int64_t step) {
  Tensor out = zeros(sizes, g.dtype());
  Tensor dst;
  {
    autograd::AutoGradMode off(false);
    dst = slice(out, dim, start, end, step);
  }
  kernels::copy(dst, g);
  record(OpKind::SliceBackward, {&g}, out, [&](autograd::SliceAttrs& at) {
    at.dim = dim;
    at.start = start;
    at.end = end;
    at.step = step;
  });
  return out;
}

// As PyTorch's: a 0-dim tensor unfolds as one of one element.
Tensor unfold(const Tensor& a, int64_t dimension, int64_t size, int64_t step) {
  const int64_t ndim = a.dim();
  const int64_t d = wrap_dim(dimension, std::max<int64_t>(ndim, 1));
  const int64_t max_size = ndim == 0 ? 1 : a.sizes()[size_t(d)];
  GT_CHECK(size <= max_size, "maximum size for tensor at dimension ", d, " is ", max_size,
           " but size is ", size);
  GT_CHECK(size >= 0, "size is ", size, " but must be >= 0");
  GT_CHECK(step > 0, "step is ", step, " but must be > 0");
  DimVector sizes(a.sizes()), strides(a.strides());
  sizes.push_back(size);
  strides.push_back(ndim == 0 ? 1 : a.strides()[size_t(d)]);
  if (ndim > 0) {
    sizes[size_t(d)] = (sizes[size_t(d)] - size) / step + 1;
    strides[size_t(d)] *= step;
  }
  return make_view_op(a, sizes, strides, a->offset(), OpKind::Unfold,
                      [&](autograd::UnfoldAttrs& at) {
                        at.self_sizes = a.sizes();
                        at.dimension = d;
                        at.size = size;
                        at.step = step;
                      });
}

// NOTE [Unfold's gradient]
// Window w reads positions w*step + k (k < size) along the dim: for each k, the k-th
// element of every window's gradient is added into positions k, k + step, ... (one
// strided slice per k). Windows that do not overlap (step >= size): one copy.
Tensor unfold_backward(const Tensor& g, const DimVector& sizes, int64_t dimension, int64_t size,
                       int64_t step) {
  Tensor out = zeros(sizes, g.dtype());
  {
    autograd::AutoGradMode off(false);
    Tensor work = sizes.empty() ? reshape(out, {1}) : out;  // a 0-dim input: one element
    const int64_t last = g.dim() - 1;
    const int64_t windows = g.sizes()[size_t(dimension)];
    if (windows > 0 && size > 0) {
      if (step >= size) {
        kernels::copy(unfold(work, dimension, size, step), g);
      } else {
        for (int64_t k = 0; k < size; ++k) {
          Tensor dst = slice(work, dimension, k, k + (windows - 1) * step + 1, step);
          inplace_binary(InplaceOp::Add, dst, select(g, last, k));
        }
      }
    }
  }
  out->set_version_counter(std::make_shared<VersionCounter>());  // one fresh result, as torch's
  record(OpKind::UnfoldBackward, {&g}, out, [&](autograd::UnfoldAttrs& at) {
    at.dimension = dimension;
    at.size = size;
    at.step = step;
  });
  return out;
}

namespace {
struct Geometry {
  DimVector sizes, strides;
  int64_t offset;
};
// The diagonal (offset, d1, d2) of a tensor with this geometry: the other
// dims in order, then the diagonal (PyTorch's layout).
Geometry diagonal_geometry(const DimVector& sizes, const DimVector& strides, int64_t base,
                           int64_t offset, int64_t d1, int64_t d2) {
  const int64_t s1 = sizes[size_t(d1)], s2 = sizes[size_t(d2)];
  int64_t len = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  len = std::max<int64_t>(len, 0);
  Geometry g;
  g.offset = base;
  if (len > 0) {
    g.offset += offset >= 0 ? offset * strides[size_t(d2)] : -offset * strides[size_t(d1)];
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (int64_t(d) == d1 || int64_t(d) == d2) continue;
    g.sizes.push_back(sizes[d]);
    g.strides.push_back(strides[d]);
  }
  g.sizes.push_back(len);
  g.strides.push_back(strides[size_t(d1)] + strides[size_t(d2)]);
  return g;
}
std::pair<int64_t, int64_t> diagonal_dims(int64_t dim1, int64_t dim2, int64_t ndim) {
  const int64_t d1 = wrap_dim(dim1, ndim), d2 = wrap_dim(dim2, ndim);
  GT_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  return {d1, d2};
}
autograd::CreationMeta creation_meta() {
  if (autograd::InferenceMode::is_enabled()) return autograd::CreationMeta::InferenceMode;
  return autograd::GradMode::is_enabled() ? autograd::CreationMeta::Default
                                          : autograd::CreationMeta::NoGradMode;
}
// Zeros of `sizes` with `values` written on the diagonal (offset, d1, d2).
Tensor embed(const Tensor& values, const DimVector& sizes, int64_t offset, int64_t d1, int64_t d2) {
  Tensor out = zeros(sizes, values.dtype());
  Geometry g = diagonal_geometry(sizes, out.strides(), out->offset(), offset, d1, d2);
  Tensor diag = alias_with_geometry(out, g.sizes, g.strides, g.offset);
  GT_CHECK(diag.sizes() == values.sizes() || is_expandable_to(values.sizes(), diag.sizes()),
           "diagonal_backward: gradient of shape ", shape_str(values.sizes()),
           " does not fit the diagonal of shape ", shape_str(diag.sizes()));
  if (diag.numel() > 0) kernels::copy(diag, values);
  return out;
}
void diag_attrs(autograd::DiagonalAttrs& at, int64_t offset, int64_t d1, int64_t d2) {
  at.offset = offset;
  at.dim1 = d1;
  at.dim2 = d2;
}

}  // namespace
Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2, bool copy) {
  auto [d1, d2] = diagonal_dims(dim1, dim2, a.dim());
  Geometry g = diagonal_geometry(a.sizes(), a.strides(), a->offset(), offset, d1, d2);
  if (copy) {
    Tensor out = empty(g.sizes, a.dtype());
    kernels::copy(out, alias_with_geometry(a, g.sizes, g.strides, g.offset));
    record(OpKind::DiagonalCopy, {&a}, out,
           [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, d1, d2); });
    return out;
  }
  Tensor out = alias_with_geometry(a, g.sizes, g.strides, g.offset);
  autograd::make_view(out, a, creation_meta());
  record(OpKind::Diagonal, {&a}, out,
         [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, d1, d2); });
  return out;
}
Tensor diagonal_backward(const Tensor& g, const DimVector& sizes, int64_t offset, int64_t dim1,
                         int64_t dim2) {
  Tensor out = embed(g, sizes, offset, dim1, dim2);
  record(OpKind::DiagonalBackward, {&g}, out,
         [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, dim1, dim2); });
  return out;
}
Tensor diag_embed(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = a.dim() + 1;
  auto [d1, d2] = diagonal_dims(dim1, dim2, nd);
  const int64_t n = (a.dim() == 0 ? 1 : a.sizes().back()) + std::abs(offset);
  DimVector sizes;
  for (int64_t i = 0; i + 1 < a.dim(); ++i) sizes.push_back(a.sizes()[size_t(i)]);
  const int64_t lo = std::min(d1, d2), hi = std::max(d1, d2);
  sizes.insert(size_t(lo), n);
  sizes.insert(size_t(hi), n);
  Tensor out = embed(a, sizes, offset, d1, d2);
  record(OpKind::DiagEmbed, {&a}, out,
         [&](autograd::DiagonalAttrs& at) { diag_attrs(at, offset, d1, d2); });
  return out;
}

}  // namespace gradtrack::ops
