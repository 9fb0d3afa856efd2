// Advanced indexing (integer and boolean tensors), gather/scatter, masks.
//
// NOTE [Advanced indexing layout]
// The Python layer turns basic indices (ints, slices, None, ...) into views
// and hands the rest here as one optional index per dim. Index tensors are
// broadcast to a shape B. If the indexed dims are adjacent, B replaces them in
// place; otherwise B goes first (NumPy's rule). Internally every gather and
// scatter runs in the "B first" layout: offsets[b] (the indexed dims) plus
// rest_offsets[r] (the other dims).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "kernels/reduced_float.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

Tensor nonzero_columns(const Tensor& mask, std::vector<Tensor>& cols) {
  Tensor m = contiguous(to_dtype(mask, ScalarType::Bool));
  const bool* p = m.data<bool>();
  const int64_t n = m.numel(), nd = m.dim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  for (int64_t k = 0; k < nd; ++k) cols.push_back(empty({count}, ScalarType::Int64));
  int64_t row = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!p[i]) continue;
    int64_t rem = i;
    for (int64_t k = nd - 1; k >= 0; --k) {
      cols[k].data<int64_t>()[row] = rem % m.sizes()[k];
      rem /= m.sizes()[k];
    }
    ++row;
  }
  return m;
}

struct IndexPlan {
  IndexList idx;                 // one per dim of `a`, bool masks expanded
  std::vector<int64_t> pos;      // the indexed dims
  DimVector b_shape;             // broadcast index shape
  std::vector<int64_t> offsets;  // per b: element offset of the indexed dims (plan_offsets)
  DimVector rest_dims;           // dims without an index, in order
  std::vector<int64_t> rest_offsets;
  DimVector result_shape;     // the user-visible layout
  DimVector front_to_result;  // permutation from [B..., rest...] to result
  bool permuted = false;
};

// The shapes of an indexing (checked); plan_offsets then reads the indices.
IndexPlan plan_index(const Tensor& a, const IndexList& raw) {
  IndexPlan p;
  IndexList& idx = p.idx;
  std::vector<int64_t>& pos = p.pos;
  idx = expand_bool_indices(a, raw);
  GT_CHECK_INDEX(static_cast<int64_t>(idx.size()) <= a.dim(),
                 "too many indices for tensor of dimension ", a.dim());
  idx.resize(static_cast<size_t>(a.dim()));
  bool first = true;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (!idx[d]) {
      p.rest_dims.push_back(d);
      continue;
    }
    pos.push_back(d);
    if (first) {
      p.b_shape = idx[d]->sizes();
      first = false;
    } else {
      DimVector prev = p.b_shape;
      try {
        p.b_shape = broadcast_shapes(prev, idx[d]->sizes());
      } catch (const Error&) {
        std::string shapes;
        for (int64_t q : pos) shapes += (shapes.empty() ? "" : ", ") + shape_str(idx[q]->sizes());
        throw IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes " +
            shapes);
      }
    }
  }
  DimVector rest_sizes;
  for (int64_t d : p.rest_dims) rest_sizes.push_back(a.sizes()[d]);
  const int64_t nr = numel_of(rest_sizes);
  p.rest_offsets.assign(static_cast<size_t>(nr), 0);
  for (int64_t r = 0; r < nr; ++r) {
    int64_t rem = r, off = 0;
    for (int64_t k = static_cast<int64_t>(rest_sizes.size()) - 1; k >= 0; --k) {
      off += (rem % rest_sizes[k]) * a.strides()[p.rest_dims[k]];
      rem /= rest_sizes[k];
    }
    p.rest_offsets[r] = off;
  }
  // Adjacent indexed dims keep their place; otherwise B goes first.
  bool adjacent = !pos.empty() && pos.back() - pos.front() + 1 == static_cast<int64_t>(pos.size());
  int64_t before = adjacent ? pos.front() : 0;
  const int64_t nbd = static_cast<int64_t>(p.b_shape.size());
  const int64_t nrest = static_cast<int64_t>(rest_sizes.size());
  for (int64_t i = 0; i < before; ++i) p.front_to_result.push_back(nbd + i);
  for (int64_t i = 0; i < nbd; ++i) p.front_to_result.push_back(i);
  for (int64_t i = before; i < nrest; ++i) p.front_to_result.push_back(nbd + i);
  p.permuted = before > 0 && nbd > 0;
  DimVector front(p.b_shape);
  for (int64_t s : rest_sizes) front.push_back(s);
  for (int64_t k : p.front_to_result) p.result_shape.push_back(front[k]);
  return p;
}

// Checks every index against its dim's size and sums the element offsets.
void plan_offsets(IndexPlan& p, const Tensor& a) {
  const int64_t nb = numel_of(p.b_shape);
  p.offsets.assign(static_cast<size_t>(nb), 0);
  int64_t k = 0;  // PyTorch numbers the index tensors, not the tensor's dims
  for (int64_t d : p.pos) {
    Tensor e = empty(p.b_shape, ScalarType::Int64);
    kernels::copy(e, to_dtype(*p.idx[d], ScalarType::Int64));
    const int64_t* ip = e.data<int64_t>();
    const int64_t size = a.sizes()[d], stride = a.strides()[d];
    for (int64_t b = 0; b < nb; ++b) {
      int64_t v = ip[b];
      GT_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", k,
                     " with size ", size);
      p.offsets[b] += (v < 0 ? v + size : v) * stride;
    }
    ++k;
  }
}

DimVector inverse_perm(const DimVector& perm) {
  DimVector inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

// A no-history permuted alias (geometry only).
Tensor permute_alias(const Tensor& t, const DimVector& perm) {
  DimVector s(perm.size()), st(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    s[i] = t.sizes()[perm[i]];
    st[i] = t.strides()[perm[i]];
  }
  return alias_with_geometry(t, s, st, t->offset());
}

// A float32 copy of a reduced-float t with t's strides: a plan's offsets, computed from
// t's strides, address the same elements in it (kernels::widen's copy is contiguous).
Tensor widened_in_place(const Tensor& t) {
  Tensor w = empty_strided(t.sizes(), t.strides(), ScalarType::Float32);
  kernels::copy(w, t);
  return w;
}

Tensor gather_with_plan(const Tensor& a, const IndexPlan& p) {
  // NOTE [Reduced floats are stored, not computed]: float16 moves as float32.
  if (is_reduced_float(a.dtype()))
    return kernels::narrowed(gather_with_plan(widened_in_place(a), p), a.dtype());
  DimVector front(p.b_shape);
  for (int64_t d : p.rest_dims) front.push_back(a.sizes()[d]);
  Tensor out = empty(front, a.dtype());
  const int64_t nb = static_cast<int64_t>(p.offsets.size());
  const int64_t nr = static_cast<int64_t>(p.rest_offsets.size());
  GT_DISPATCH_ALL(a.dtype(), [&] {
    // `a` may alias unaligned memory (NOTE [Unaligned memory]): read bytes.
    const char* src = a.raw();
    scalar_t* dst = out.data<scalar_t>();
    parallel_for(nb, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(nr, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t b = lo; b < hi; ++b)
                     for (int64_t r = 0; r < nr; ++r)
                       dst[b * nr + r] = kernels::load<scalar_t>(
                           src + (p.offsets[b] + p.rest_offsets[r]) *
                                     static_cast<int64_t>(sizeof(scalar_t)));
                 });
  });
  if (!p.permuted) return out;
  Tensor res = empty(p.result_shape, a.dtype());
  kernels::copy(res, permute_alias(out, p.front_to_result));
  return res;
}

// `values` broadcast to the indexing result, in the "B first" layout.
Tensor values_for_plan(const IndexPlan& p, const Tensor& values) {
  Tensor v;
  try {
    v = expand(values, p.result_shape);
  } catch (const Error&) {
    throw Error(str_cat("shape mismatch: value tensor of shape ", shape_str(values.sizes()),
                        " cannot be broadcast to indexing result of shape ",
                        shape_str(p.result_shape)));
  }
  return p.permuted ? permute_alias(v, inverse_perm(p.front_to_result)) : v;
}

void scatter_with_plan(const Tensor& dst, const IndexPlan& p, const Tensor& v, bool accumulate) {
  if (is_reduced_float(dst.dtype())) {
    Tensor wide = widened_in_place(dst);
    scatter_with_plan(wide, p, v, accumulate);
    return kernels::copy(dst, wide);
  }
  DimVector front(v.sizes());
  Tensor vals = empty(front, dst.dtype());
  kernels::copy(vals, v);
  const int64_t nb = static_cast<int64_t>(p.offsets.size());
  const int64_t nr = static_cast<int64_t>(p.rest_offsets.size());
  GT_DISPATCH_ALL(dst.dtype(), [&] {
    char* out = dst.raw();  // may be unaligned (NOTE [Unaligned memory])
    const scalar_t* src = vals.data<scalar_t>();
    for (int64_t b = 0; b < nb; ++b) {
      for (int64_t r = 0; r < nr; ++r) {
        char* slot =
            out + (p.offsets[b] + p.rest_offsets[r]) * static_cast<int64_t>(sizeof(scalar_t));
        const scalar_t v = src[b * nr + r];
        if (!accumulate) {
          kernels::store<scalar_t>(slot, v);
        } else if constexpr (std::is_same_v<scalar_t, bool>) {
          kernels::store<scalar_t>(slot, kernels::load<scalar_t>(slot) || v);
        } else {
          kernels::store<scalar_t>(slot, scalar_t(kernels::load<scalar_t>(slot) + v));
        }
      }
    }
  });
}

}  // namespace

namespace ops_detail {
void index_attrs(autograd::IndexAttrs& at, const IndexList& idx) {
  at.has_index.clear();
  for (const auto& i : idx) at.has_index.push_back(i ? 1 : 0);
}

std::vector<const Tensor*> index_extras(const IndexList& idx) {
  std::vector<const Tensor*> extras;
  for (const auto& t : idx)
    if (t) extras.push_back(&*t);
  return extras;
}
std::vector<const Tensor*> index_extras(const IndexList& idx, const IndexList& given) {
  std::vector<const Tensor*> extras = index_extras(idx);
  for (const auto& t : given)
    if (t && (t->dtype() == ScalarType::Bool || t->dtype() == ScalarType::UInt8))
      extras.push_back(&*t);
  return extras;
}
}  // namespace ops_detail

IndexList expand_bool_indices(const Tensor& a, const IndexList& indices) {
  IndexList out;
  int64_t d = 0;
  for (const auto& idx : indices) {
    if (!idx) {
      out.push_back(std::nullopt);
      ++d;
      continue;
    }
    const Tensor& t = *idx;
    if (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8) {
      for (int64_t k = 0; k < t.dim(); ++k) {
        GT_CHECK_INDEX(d + k < a.dim() && t.sizes()[k] == a.sizes()[d + k],
                       "The shape of the mask ", shape_str(t.sizes()), " at index ", k,
                       " does not match the shape of the indexed tensor ", shape_str(a.sizes()),
                       " at index ", d + k);
      }
      std::vector<Tensor> cols;
      nonzero_columns(t, cols);
      for (Tensor& c : cols) out.push_back(c);
      d += t.dim();
    } else {
      GT_CHECK_INDEX(is_integral(t.dtype()),
                     "tensors used as indices must be long, int, byte or bool tensors");
      out.push_back(t);
      ++d;
    }
  }
  return out;
}

Tensor nonzero(const Tensor& a) {
  autograd::AutoGradMode no_graph(false);
  std::vector<Tensor> cols;
  Tensor m = nonzero_columns(a, cols);
  int64_t n = 0;
  for (int64_t i = 0; i < m.numel(); ++i) n += m.data<bool>()[i];
  const int64_t nd = a.dim();
  Tensor out = empty({n, nd}, ScalarType::Int64);
  int64_t* o = out.data<int64_t>();
  for (int64_t k = 0; k < nd; ++k) {
    const int64_t* src = cols[k].data<int64_t>();
    for (int64_t r = 0; r < n; ++r) o[r * nd + k] = src[r];
  }
  return out;
}

Tensor masked_select(const Tensor& a, const Tensor& mask) {
  GT_CHECK(mask.dtype() == ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  const DimVector shape = broadcast_shapes(a.sizes(), mask.sizes());
  Tensor m = expand(mask, shape);
  Tensor out;
  {
    autograd::AutoGradMode no_graph(false);
    out = index(expand(a, shape), IndexList{m});
  }
  record(OpKind::MaskedSelect, {&a}, out,
         [&](autograd::MaskedSelectAttrs& at) { at.shape = shape; }, {&m});
  return out;
}

Tensor index(const Tensor& a, const IndexList& indices) {
  IndexList idx = expand_bool_indices(a, indices);
  IndexPlan p = plan_index(a, idx);
  plan_offsets(p, a);
  Tensor out = gather_with_plan(a, p);
  record(
      OpKind::Index, {&a}, out, [&](autograd::IndexAttrs& at) { ops_detail::index_attrs(at, idx); },
      ops_detail::index_extras(idx, indices));
  return out;
}

Tensor index_put(const Tensor& a, const IndexList& indices, const Tensor& values, bool accumulate) {
  // PyTorch's out-of-place index_put: a fresh result (version 0) whose node,
  // IndexPutBackward0, connects to a and values directly (no clone node).
  Tensor out;
  {
    autograd::AutoGradMode no_graph(false);
    out = clone(a);
    inplace_index_put(out, indices, values, accumulate);
  }
  out = alias_fresh_counter(out);
  record(
      OpKind::IndexPut, {&a, &values}, out,
      [&](autograd::IndexAttrs& at) {
        ops_detail::index_attrs(at, indices);
        at.accumulate = accumulate;
      },
      ops_detail::index_extras(indices));
  return out;
}

namespace ops_detail {
void index_put_kernel(const Tensor& dst, const IndexList& idx, const Tensor& values,
                      bool accumulate, bool same_dtype) {
  // PyTorch's order: the value's shape, its dtype, then each index's bounds.
  IndexPlan p = plan_index(dst, idx);
  Tensor v = values_for_plan(p, values);
  GT_CHECK(!same_dtype || values.dtype() == dst.dtype(),
           "Index put requires the source and destination dtypes match, got ",
           scalar_type_name(dst.dtype()), " for the destination and ",
           scalar_type_name(values.dtype()), " for the source.");
  plan_offsets(p, dst);
  scatter_with_plan(dst, p, v, accumulate);
}
}  // namespace ops_detail

Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value, bool value_is_tensor) {
  GT_CHECK(mask.dtype() == ScalarType::Bool,
           "masked_fill_ only supports boolean masks, but got mask "
           "with dtype ",
           cpp_type_name(mask.dtype()));
  GT_CHECK(value.dim() == 0,
           "masked_fill_ only supports a 0-dimensional value tensor, but got "
           "tensor with ",
           value.dim(), " dimension(s).");
  Tensor out = empty(broadcast_shapes(mask.sizes(), a.sizes()), a.dtype());
  kernels::where(out, mask, cast_for_kernel(value, a.dtype()), a);
  // A value that needs no gradient is not an input of the node (PyTorch's
  // masked_fill with a number has a single edge).
  if (value_is_tensor) {
    record(OpKind::MaskedFillTensor, {&a, &value}, out, no_attrs, {&mask});
  } else {
    record(OpKind::MaskedFill, {&a}, out, no_attrs, {&mask});
  }
  return out;
}

namespace {
void check_index_dtype(const Tensor& index, const char* name) {
  GT_CHECK(index.dtype() == ScalarType::Int64 || index.dtype() == ScalarType::Int32, name,
           "(): Expected dtype int32/int64 for index");
}

// Size k of t, a 0-dim tensor counting as one element long (PyTorch's
// ensure_nonempty_size); a k past t's dims raises the dim IndexError.
int64_t nonempty_size(const Tensor& t, int64_t k) {
  return t.dim() == 0 ? 1 : t.sizes()[wrap_dim(k, t.dim())];
}

void check_gather_shape(const Tensor& a, int64_t d, const Tensor& index) {
  GT_CHECK(index.dim() == a.dim() || (index.dim() <= 1 && a.dim() <= 1),
           "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t k = 0; k < index.dim(); ++k) {
    GT_CHECK(k == d || index.sizes()[k] <= nonempty_size(a, k), "Size does not match at dimension ",
             k, " expected index ", shape_str(index.sizes()), " to be no larger than self ",
             shape_str(a.sizes()), " apart from dimension ", d);
  }
}

// The index fits self (apart from dim d) and src (if any) everywhere: src is
// read at index's positions.
void check_scatter_shape(const Tensor& self, int64_t d, const Tensor& index, const Tensor* src) {
  if (index.numel() == 0) return;
  GT_CHECK(std::max<int64_t>(self.dim(), 1) == std::max<int64_t>(index.dim(), 1),
           "Index tensor must have the same number of dimensions as self tensor");
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  bool fits = true;
  for (int64_t k = 0; fits && k < nd; ++k)
    fits = k == d || nonempty_size(index, k) <= nonempty_size(self, k);
  // (Reading a size src lacks is the dim IndexError, before the dims check.)
  for (int64_t k = 0; src && fits && k < nd; ++k)
    fits = nonempty_size(index, k) <= nonempty_size(*src, k);
  GT_CHECK(!src || std::max<int64_t>(src->dim(), 1) == std::max<int64_t>(index.dim(), 1),
           "Index tensor must have the same number of dimensions as src tensor");
  GT_CHECK(fits, "Expected index ", shape_str(index.sizes()), " to be no larger than self ",
           shape_str(self.sizes()), " apart from dimension ", d,
           src ? str_cat(" and to be no larger size than src ", shape_str(src->sizes())) : "");
}

// f(i, offset) for flat positions i in [lo, hi) of the contiguous int64 index ic, with
// offset the element of `t` at i's coordinates, dim d's replaced by the index value. The
// coordinates advance as an odometer (a division per dim only at lo).
template <typename F>
void gather_range(const Tensor& t, int64_t d, const Tensor& ic, int64_t lo, int64_t hi,
                  const F& f) {
  if (lo >= hi) return;
  const int64_t* ip = ic.data<int64_t>();
  const int64_t nd = ic.dim();
  // t's strides with dim d's zeroed (the index value gives that one), and the index's
  // sizes, in locals: read once per element, not through the tensors.
  DimVector coord(static_cast<size_t>(nd), 0), stride(static_cast<size_t>(nd), 0);
  DimVector size(ic.sizes().begin(), ic.sizes().end());
  for (int64_t k = 0; k < nd; ++k) stride[k] = k != d ? t.strides()[k] : 0;
  int64_t rem = lo, off = 0;
  for (int64_t k = nd - 1; k >= 0; --k) {
    coord[k] = rem % size[k];
    rem /= size[k];
    off += coord[k] * stride[k];
  }
  const int64_t step_d = t.dim() ? t.strides()[d] : 0;
  const int64_t last = nd - 1;
  for (int64_t i = lo; i < hi;) {
    // along the last dim, then the odometer's carry
    const int64_t run = nd ? std::min(hi - i, size[last] - coord[last]) : hi - i;
    const int64_t s_last = nd ? stride[last] : 0;
    for (int64_t j = 0; j < run; ++j) f(i + j, off + j * s_last + ip[i + j] * step_d);
    i += run;
    if (nd == 0) break;
    off += run * s_last;
    coord[last] += run;
    for (int64_t k = last; k >= 0 && coord[k] == size[k]; --k) {
      off -= coord[k] * stride[k];
      coord[k] = 0;
      if (k == 0) break;
      off += stride[k - 1];
      ++coord[k - 1];
    }
  }
}

// Calls f(flat position in index, offset in `t` with dim d replaced by index value), on
// the threads if `parallel` (only where f writes position i alone: gather).
template <typename F>
void for_each_gather(const Tensor& t, int64_t d, const Tensor& index, const F& f,
                     bool parallel = false) {
  Tensor ic = kernels::aligned(contiguous(to_dtype(index, ScalarType::Int64)));
  const int64_t* ip = ic.data<int64_t>();
  const int64_t n = ic.numel();
  const int64_t size = t.dim() ? t.sizes()[d] : 1;
  // No wrapping: gather/scatter take indices in [0, size), as PyTorch's. Checked first,
  // so that no thread throws.
  for (int64_t i = 0; i < n; ++i)
    GT_CHECK(ip[i] >= 0 && ip[i] < size, "index ", ip[i], " is out of bounds for dimension ", d,
             " with size ", size);
  if (!parallel) return gather_range(t, d, ic, 0, n, f);
  parallel_for(n, kGrainSize, [&](int64_t lo, int64_t hi) { gather_range(t, d, ic, lo, hi, f); });
}
}  // namespace

Tensor gather(const Tensor& a, int64_t dim, const Tensor& index) {
  int64_t d = wrap_dim(dim, a.dim());
  check_index_dtype(index, "gather");
  check_gather_shape(a, d, index);
  if (is_reduced_float(a.dtype())) {
    Tensor out = kernels::narrowed(gather(kernels::widen(a), dim, index), a.dtype());
    record(OpKind::Gather, {&a}, out, [&](autograd::DimAttrs& at) { at.dim = d; }, {&index});
    return out;
  }
  Tensor out = empty(index.sizes(), a.dtype());
  GT_DISPATCH_ALL(a.dtype(), [&] {
    const char* src = a.raw();  // may be unaligned (NOTE [Unaligned memory])
    scalar_t* dst = out.data<scalar_t>();
    for_each_gather(
        a, d, index,
        [&](int64_t i, int64_t off) {
          dst[i] = kernels::load<scalar_t>(src + off * static_cast<int64_t>(sizeof(scalar_t)));
        },
        true);
  });
  record(OpKind::Gather, {&a}, out, [&](autograd::DimAttrs& at) { at.dim = d; }, {&index});
  return out;
}

namespace ops_detail {
void check_scatter_src(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src) {
  check_index_dtype(index, "scatter");
  GT_CHECK(self.dtype() == src.dtype(), "scatter(): Expected self.dtype to be equal to src.dtype");
  check_scatter_shape(self, d, index, &src);
}

Tensor scatter_value_src(const Tensor& self, int64_t d, const Tensor& index, Scalar value) {
  check_index_dtype(index, "scatter");
  check_scatter_shape(self, d, index, nullptr);
  check_fits(value, self.dtype());
  return full(index.sizes(), value, self.dtype());
}

void scatter_kernel(const Tensor& dst, int64_t d, const Tensor& index, const Tensor& src,
                    bool add) {
  if (index.numel() == 0) return;  // (then src's dims were not checked)
  if (is_reduced_float(dst.dtype())) {
    Tensor wide = kernels::widen(dst);
    scatter_kernel(wide, d, index, kernels::widen(src), add);
    return kernels::copy(dst, wide);
  }
  // src may be larger than index: read it through index's positions (a 0-dim
  // src is one element long).
  DimVector strides = src.dim() == index.dim() ? src.strides() : DimVector(index.dim(), 1);
  Tensor picked =
      kernels::aligned(contiguous(alias_with_geometry(src, index.sizes(), strides, src->offset())));
  GT_DISPATCH_ALL(dst.dtype(), [&] {
    char* base = dst.raw();  // may be unaligned (NOTE [Unaligned memory])
    const scalar_t* sp = picked.data<scalar_t>();
    for_each_gather(dst, d, index, [&](int64_t i, int64_t off) {
      char* at = base + off * static_cast<int64_t>(sizeof(scalar_t));
      scalar_t cur = sp[i];
      if (add) {
        if constexpr (std::is_same_v<scalar_t, bool>) {
          cur = kernels::load<scalar_t>(at) || sp[i];
        } else {
          cur = scalar_t(kernels::load<scalar_t>(at) + sp[i]);
        }
      }
      std::memcpy(at, &cur, sizeof cur);
    });
  });
}

template <typename T>
T reduce_times(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return T(a * b);
  }
}

// NOTE [Scatter reductions]
// scatter_reduce and index_reduce write into a fresh contiguous copy of self, one
// index position after another in order, as PyTorch's CPU kernel: without
// include_self the first value reaching a place replaces self's; mean divides each
// place by how many values it took (self counting as one), flooring for integers;
// amax/amin keep a NaN from either side.
void scatter_reduce_kernel(const Tensor& dst, int64_t d, const Tensor& index, const Tensor& src,
                           int64_t reduce, bool include_self) {
  if (index.numel() == 0) return;
  if (is_reduced_float(dst.dtype())) {
    Tensor wide = kernels::widen(dst);
    scatter_reduce_kernel(wide, d, index, kernels::widen(src), reduce, include_self);
    return kernels::copy(dst, wide);
  }
  DimVector strides = src.dim() == index.dim() ? src.strides() : DimVector(index.dim(), 1);
  Tensor picked =
      kernels::aligned(contiguous(alias_with_geometry(src, index.sizes(), strides, src->offset())));
  std::vector<int64_t> count(reduce == 2 ? size_t(dst.numel()) : 0, include_self ? 1 : 0);
  std::vector<char> taken(include_self ? 0 : size_t(dst.numel()), 0);
  GT_DISPATCH_ALL(dst.dtype(), [&] {
    scalar_t* out = dst.data<scalar_t>();
    const scalar_t* sp = picked.data<scalar_t>();
    for_each_gather(dst, d, index, [&](int64_t i, int64_t off) {
      const scalar_t v = sp[i];
      scalar_t& cur = out[off];
      if (reduce == 2) ++count[size_t(off)];
      if (!include_self && !taken[size_t(off)]) {
        taken[size_t(off)] = 1;
        cur = v;
        return;
      }
      if (reduce == 0 || reduce == 2) {
        cur = scalar_t(cur + v);
      } else if (reduce == 1) {
        cur = reduce_times(cur, v);
      } else if (reduce == 3) {
        cur = v != v ? v : (cur < v ? v : cur);
      } else {
        cur = v != v ? v : (v < cur ? v : cur);
      }
    });
    if (reduce != 2) return;
    for (size_t k = 0; k < count.size(); ++k) {
      if (count[k] <= 1) continue;
      if constexpr (std::is_floating_point_v<scalar_t>) {
        out[k] = scalar_t(out[k] / scalar_t(count[k]));
      } else if constexpr (std::is_same_v<scalar_t, bool>) {
        out[k] = out[k];
      } else {
        const int64_t num = int64_t(out[k]), den = count[k];
        int64_t q = num / den;
        if ((num % den != 0) && ((num < 0) != (den < 0))) --q;
        out[k] = scalar_t(q);
      }
    }
  });
}
}  // namespace ops_detail

namespace {
// A new contiguous copy of a with src scattered (or added) in (PyTorch's
// result is allocated by the op, not cloned from self, so it does not keep a
// transposed self's layout).
Tensor scattered_copy(const Tensor& a, int64_t d, const Tensor& index, const Tensor& src,
                      bool add) {
  Tensor out = empty(a.sizes(), a.dtype());
  kernels::copy(out, a);
  ops_detail::scatter_kernel(out, d, index, src, add);
  return out;
}

// scatter / scatter_add with a tensor src.
Tensor scatter_src(OpKind kind, bool add, const Tensor& a, int64_t dim, const Tensor& index,
                   const Tensor& src) {
  int64_t d = wrap_dim(dim, a.dim());
  ops_detail::check_scatter_src(a, d, index, src);
  Tensor out = scattered_copy(a, d, index, src, add);
  record(kind, {&a, &src}, out, [&](autograd::DimAttrs& at) { at.dim = d; }, {&index});
  return out;
}
}  // namespace

Tensor scatter_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_src(OpKind::ScatterAdd, true, a, dim, index, src);
}

Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_src(OpKind::Scatter, false, a, dim, index, src);
}

Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, Scalar value) {
  int64_t d = wrap_dim(dim, a.dim());
  Tensor out =
      scattered_copy(a, d, index, ops_detail::scatter_value_src(a, d, index, value), false);
  record(OpKind::ScatterValue, {&a}, out, [&](autograd::DimAttrs& at) { at.dim = d; }, {&index});
  return out;
}

namespace {
// index_select of a contiguous `a` along d with a checked contiguous int64 index (ip,
// len): for each block of the dims before d, the index's rows (each the contiguous dims
// after d) copied whole; rows of one element copied as one value.
template <typename E>
void copy_rows(const char* src, char* dst, const int64_t* ip, int64_t len, int64_t size, int64_t lo,
               int64_t hi) {
  const E* s = reinterpret_cast<const E*>(src);
  E* o = reinterpret_cast<E*>(dst);
  for (int64_t r = lo; r < hi;) {
    const int64_t base = r / len * size, j0 = r % len, end = std::min(hi, r - j0 + len);
    for (int64_t j = j0; r < end; ++j, ++r) o[r] = s[base + ip[j]];
  }
}

Tensor select_rows(const Tensor& a, int64_t d, const int64_t* ip, int64_t len) {
  DimVector shape(a.sizes().begin(), a.sizes().end());
  const int64_t size = shape[d];
  shape[d] = len;
  Tensor out = empty(shape, a.dtype());
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= shape[k];
  for (int64_t k = d + 1; k < int64_t(shape.size()); ++k) inner *= shape[k];
  const int64_t es = int64_t(itemsize(a.dtype())), row = inner * es;
  const char* src = a.raw();
  char* dst = out.raw();
  const int64_t rows = outer * len;
  const bool one = inner == 1 && (es == 1 || es == 2 || es == 4 || es == 8) && a.is_aligned();
  // grain: about kGrainSize elements' bytes per chunk
  const int64_t grain = std::max<int64_t>(1, kGrainSize * 4 / std::max<int64_t>(row, 1));
  parallel_for(rows, grain, [&](int64_t lo, int64_t hi) {
    if (one) {
      if (es == 1) return copy_rows<uint8_t>(src, dst, ip, len, size, lo, hi);
      if (es == 2) return copy_rows<uint16_t>(src, dst, ip, len, size, lo, hi);
      if (es == 4) return copy_rows<uint32_t>(src, dst, ip, len, size, lo, hi);
      return copy_rows<uint64_t>(src, dst, ip, len, size, lo, hi);
    }
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t o = r / len, j = r % len;
      std::memcpy(dst + r * row, src + (o * size + ip[j]) * row, static_cast<size_t>(row));
    }
  });
  return out;
}
}  // namespace

Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index) {
  int64_t d = wrap_dim(dim, a.dim());
  GT_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  GT_CHECK(is_integral(index.dtype()), "index_select(): Expected dtype int32 or int64 for index");
  IndexList idx(static_cast<size_t>(d));
  idx.push_back(index.dim() == 0 ? reshape(index, {1}) : index);
  Tensor as_long;
  {
    // index_select takes no negative indices (unlike indexing, which wraps
    // them): PyTorch refuses -1 as out of range, with a RuntimeError of its
    // own words when selecting along dim 1 (its dim-1 kernel checks them).
    as_long = kernels::aligned(contiguous(to_dtype(*idx.back(), ScalarType::Int64)));
    const int64_t size = a.dim() ? a.sizes()[d] : 1;
    GT_CHECK(size > 0 || as_long.numel() == 0 || a.dim() <= 1,
             "index_select(): self indexing axis dim should be positive");
    const int64_t* ip = as_long.data<int64_t>();
    for (int64_t i = 0; i < as_long.numel(); ++i) {
      int64_t v = ip[i];
      if (v >= 0 && v < size) continue;
      GT_CHECK(d != 1, "INDICES element is out of DATA bounds, id=", v, " axis_dim=", size);
      throw IndexError("index out of range in self");
    }
  }
  Tensor out;
  if (a.dim() > 0 && a.is_contiguous()) {
    out = select_rows(a, d, as_long.data<int64_t>(), as_long.numel());
  } else {
    autograd::AutoGradMode off(false);
    // A 0-dim tensor selects from itself seen as one element.
    out = ops::index(a.dim() == 0 ? reshape(a, {1}) : a, idx);
  }
  out = a.dim() == 0 ? reshape(out, {}) : out;
  record(OpKind::IndexSelect, {&a}, out, [&](autograd::DimAttrs& at) { at.dim = d; },
         {&*idx.back()});
  return out;
}

}  // namespace gradtrack::ops
