// Indexed writes: index_add, index_copy, index_fill, the indexed reductions
// (scatter_reduce, index_reduce), take, put, masked_scatter and the scatters into a view
// (select_scatter, slice_scatter, diagonal_scatter). Each checks its arguments with PyTorch's
// words, computes its value with the indexing ops under grad mode off, and records PyTorch's node
// (IndexAddBackward0, TakeBackward0, ...); the in-place forms write that value (NOTE [In-place
// forms of composed ops] in inplace.cpp).
#include "autograd/variable.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

std::string shape_of(const Tensor& t) { return shape_str(t.sizes()); }

bool is_index_type(ScalarType t) { return t == ScalarType::Int64 || t == ScalarType::Int32; }

// The index's values as int64, contiguous.
Tensor long_values(const Tensor& index) {
  return kernels::aligned(contiguous(to_dtype(index, ScalarType::Int64)));
}

// The index list that indexes dim `d` only.
IndexList at_dim(int64_t d, const Tensor& index) {
  IndexList idx(static_cast<size_t>(d));
  idx.emplace_back(reshape(to_dtype(index, ScalarType::Int64), {index.numel()}));
  return idx;
}

int64_t size_at(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

// Every index within [-size, size) (`wrap`) or [0, size); throws `fail(v)` for the first
// that is not.
template <typename Fail>
void check_bounds(const Tensor& index, int64_t size, bool wrap, const Fail& fail) {
  Tensor v = long_values(index);
  const int64_t* p = v.data<int64_t>();
  for (int64_t i = 0; i < v.numel(); ++i) {
    if (p[i] < size && p[i] >= (wrap ? -size : 0)) continue;
    fail(p[i]);
  }
}

// Checks shared by index_add and index_copy: a vector index, source's shape.
void check_index_source(const char* op, const Tensor& self, int64_t d, const Tensor& index,
                        const Tensor& source) {
  GT_CHECK_INDEX(index.dim() <= 1, op,
                 "(): Index is supposed to be a vector, but got dim: ", index.dim(),
                 " with type: ", scalar_type_name(index.dtype()), " and size: ", shape_of(index));
  GT_CHECK(is_index_type(index.dtype()), op,
           "(): Expected dtype int32/int64 for index but got: ", scalar_type_name(index.dtype()));
}

// `flat` (a result computed on a flattened or 1-element form of self) in self's shape,
// as a tensor of its own: a reshape would hand out a view, which torch's result is not.
Tensor in_shape_of(const Tensor& self, const Tensor& flat) {
  if (flat.sizes() == self.sizes()) return flat;
  Tensor out = empty(self.sizes(), flat.dtype());
  kernels::copy(out, reshape(flat, self.sizes()));
  return out;
}

int64_t dim_of(const Tensor& self, int64_t dim) {
  return wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
}

Tensor off_value(const std::function<Tensor()>& f) {
  autograd::AutoGradMode off(false);
  return f();
}

}  // namespace

// ---- index_add ---------------------------------------------------------------------------

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha) {
  const int64_t d = dim_of(self, dim);
  check_index_source("index_add_", self, d, index, source);
  GT_CHECK(self.dtype() == source.dtype(), "index_add_(): self (", scalar_type_name(self.dtype()),
           ") and source (", scalar_type_name(source.dtype()), ") must have the same scalar type");
  GT_CHECK(index.numel() == size_at(source, source.dim() == 0 ? 0 : d),
           "index_add_(): Number of indices (", index.numel(),
           ") should be equal to source.size(dim): (", size_at(source, source.dim() == 0 ? 0 : d),
           "), for dim: ", d);
  bool same = source.dim() == self.dim() || (self.dim() <= 1 && source.dim() <= 1);
  for (int64_t i = 0; same && i < self.dim(); ++i)
    same = i == d || self.sizes()[i] == source.sizes()[i];
  GT_CHECK(same,
           "source tensor shape must match self tensor shape, excluding the specified dimension. "
           "Got self.shape = ",
           shape_of(self), " source.shape = ", shape_of(source));
  check_bounds(index, size_at(self, d), false, [&](int64_t v) {
    throw Error(str_cat("index ", v, " is out of bounds for dimension ", d, " with size ",
                        size_at(self, d)));
  });
  Tensor out = off_value([&] {
    Tensor flat_self = self.dim() == 0 ? reshape(self, {1}) : self;
    Tensor src = source.dim() == 0 ? reshape(source, {1}) : source;
    if (!alpha.equals(1)) src = mul(src, alpha);
    return in_shape_of(self, index_put(flat_self, at_dim(d, index), src, true));
  });
  record(OpKind::IndexAddAlpha, {&self, &source}, out,
         [&](autograd::DimAlphaAttrs& at) {
           at.dim = d;
           at.alpha = alpha;
         },
         {&index});
  return out;
}

// ---- index_copy --------------------------------------------------------------------------

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = dim_of(self, dim);
  GT_CHECK_INDEX(index.dim() <= 1, "index_copy_(): Index should have dimension 1 or 0 (got ",
                 index.dim(), ")");
  GT_CHECK_INDEX(index.numel() == size_at(source, source.dim() == 0 ? 0 : d),
                 "index_copy_(): Number of indices (", index.numel(),
                 ") should be equal to source.size(dim) (",
                 size_at(source, source.dim() == 0 ? 0 : d), ")");
  GT_CHECK_INDEX(index.dtype() == ScalarType::Int64,
                 "index_copy_(): Expected a long tensor for index, but got ",
                 scalar_type_name(index.dtype()));
  GT_CHECK(self.dtype() == source.dtype(),
           "index_copy_(): self and source expected to have the same dtype, but got (self) ",
           scalar_type_name(self.dtype()), " and (source) ", scalar_type_name(source.dtype()));
  check_bounds(index, size_at(self, d), false, [&](int64_t v) {
    throw IndexError(str_cat("index_copy_(): index ", v, " is out of bounds for dimension ", d,
                             " with size ", size_at(self, d)));
  });
  Tensor out = off_value([&] {
    Tensor s = self.dim() == 0 ? reshape(self, {1}) : self;
    Tensor src = source.dim() == 0 ? reshape(source, {1}) : source;
    return in_shape_of(self, index_put(s, at_dim(d, index), src, false));
  });
  record(OpKind::IndexCopy, {&self, &source}, out, [&](autograd::DimAttrs& at) { at.dim = d; },
         {&index});
  return out;
}

// ---- index_fill --------------------------------------------------------------------------

namespace {
Tensor index_fill_value(const Tensor& self, int64_t d, const Tensor& index, const Tensor& value) {
  GT_CHECK_INDEX(index.dtype() == ScalarType::Int64,
                 "index_fill_(): Expected dtype int64 for index.");
  GT_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  check_bounds(index, size_at(self, d), true, [&](int64_t v) {
    throw IndexError(str_cat("index ", v, " is out of bounds for dimension ", d, " with size ",
                             size_at(self, d)));
  });
  return off_value([&] {
    Tensor s = self.dim() == 0 ? reshape(self, {1}) : self;
    return in_shape_of(self, index_put(s, at_dim(d, index), to_dtype(value, self.dtype()), false));
  });
}
}  // namespace

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  const int64_t d = dim_of(self, dim);
  Tensor out = index_fill_value(self, d, index, scalar_tensor(value, self.dtype()));
  record(OpKind::IndexFill, {&self}, out, [&](autograd::DimAttrs& at) { at.dim = d; }, {&index});
  return out;
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  GT_CHECK(value.dim() == 0,
           "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
  const int64_t d = dim_of(self, dim);
  Tensor out = index_fill_value(self, d, index, value);
  record(OpKind::IndexFillTensor, {&self, &value}, out, [&](autograd::DimAttrs& at) { at.dim = d; },
         {&index});
  return out;
}

// ---- take / put --------------------------------------------------------------------------

namespace {
void check_flat_index(const Tensor& self, const Tensor& index) {
  check_bounds(index, self.numel(), true, [&](int64_t v) {
    throw IndexError(str_cat("out of range: tried to access index ", v, " on a tensor of ",
                             self.numel(), " elements."));
  });
}
}  // namespace

Tensor take(const Tensor& self, const Tensor& index) {
  GT_CHECK(index.dtype() == ScalarType::Int64, "take(): Expected a long tensor for index, but got ",
           scalar_type_name(index.dtype()));
  check_flat_index(self, index);
  Tensor out = off_value([&] {
    IndexList idx{std::optional<Tensor>(index)};
    return ops::index(reshape(self, {self.numel()}), idx);
  });
  record(OpKind::Take, {&self}, out, no_attrs, {&index});
  return out;
}

Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  GT_CHECK(index.dtype() == ScalarType::Int64, "put_(): Expected a long tensor for index, but got ",
           scalar_type_name(index.dtype()));
  GT_CHECK(self.dtype() == source.dtype(),
           "put_(): self and source expected to have the same dtype, but got self.dtype = ",
           scalar_type_name(self.dtype()),
           " and source.dtype = ", scalar_type_name(source.dtype()));
  GT_CHECK_INDEX(source.numel() == index.numel(),
                 "put_(): Expected source and index to have the same number of elements, but got "
                 "source.numel() = ",
                 source.numel(), ", index.numel() = ", index.numel());
  check_flat_index(self, index);
  Tensor out = off_value([&] {
    IndexList idx{std::optional<Tensor>(reshape(index, {index.numel()}))};
    return in_shape_of(self, index_put(reshape(self, {self.numel()}), idx,
                                       reshape(source, {source.numel()}), accumulate));
  });
  record(OpKind::Put, {&self, &source}, out,
         [&](autograd::IndexAttrs& at) { at.accumulate = accumulate; }, {&index});
  return out;
}

// ---- masked_scatter ----------------------------------------------------------------------

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  GT_CHECK(mask.dtype() == ScalarType::Bool,
           "masked_scatter_ only supports boolean masks, but got mask with dtype ",
           scalar_type_name(mask.dtype()));
  GT_CHECK(self.dtype() == source.dtype(),
           "masked_scatter: expected self and source to have same dtypes but got",
           scalar_type_name(self.dtype()), " and ", scalar_type_name(source.dtype()));
  Tensor out = off_value([&] {
    const DimVector shape = broadcast2(self, mask);
    Tensor m = expand(mask, shape);
    Tensor picked = masked_select(m, m);
    GT_CHECK(source.numel() >= picked.numel(),
             "Number of elements of source < number of ones in mask");
    Tensor values = narrow(reshape(source, {source.numel()}), 0, 0, picked.numel());
    IndexList idx{std::optional<Tensor>(m)};
    return index_put(contiguous(expand(self, shape)), idx, values, false);
  });
  record(OpKind::MaskedScatter, {&self, &source}, out, no_attrs, {&mask});
  return out;
}

// ---- select_scatter, slice_scatter, diagonal_scatter -------------------------------------

namespace {
// A copy of self with `src` written into the view `view(copy)`.
template <typename View>
Tensor scatter_into_view(const Tensor& self, const Tensor& src, const View& view) {
  return off_value([&] {
    Tensor out = clone(self);
    Tensor target = view(out);
    GT_CHECK(target.sizes() == src.sizes(),
             "expected src to have a size equal to the slice of self. src size = ", shape_of(src),
             ", slice size = ", shape_of(target));
    kernels::copy(target, to_dtype(src, out.dtype()));
    return out;
  });
}
}  // namespace

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.sizes()[d];
  const int64_t i = index < 0 ? index + n : index;
  Tensor out = scatter_into_view(self, src, [&](const Tensor& t) { return select(t, d, index); });
  record(OpKind::SelectScatter, {&self, &src}, out, [&](autograd::SelectAttrs& at) {
    at.dim = d;
    at.index = i;
  });
  return out;
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor out =
      scatter_into_view(self, src, [&](const Tensor& t) { return slice(t, d, start, end, step); });
  // The bounds as slice clamped them, for the formulas.
  const int64_t n = self.sizes()[d];
  auto clampi = [&](std::optional<int64_t> v, int64_t dflt) {
    int64_t x = v ? *v : dflt;
    if (x < 0) x += n;
    return std::min(std::max<int64_t>(x, 0), n);
  };
  const int64_t s = clampi(start, 0), e = std::max(clampi(end, n), s);
  record(OpKind::SliceScatter, {&self, &src}, out, [&](autograd::SliceAttrs& at) {
    at.dim = d;
    at.start = s;
    at.end = e;
    at.step = step;
  });
  return out;
}

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1,
                        int64_t dim2) {
  const int64_t d1 = wrap_dim(dim1, self.dim()), d2 = wrap_dim(dim2, self.dim());
  Tensor out =
      scatter_into_view(self, src, [&](const Tensor& t) { return diagonal(t, offset, d1, d2); });
  record(OpKind::DiagonalScatter, {&self, &src}, out, [&](autograd::DiagonalAttrs& at) {
    at.offset = offset;
    at.dim1 = d1;
    at.dim2 = d2;
  });
  return out;
}

// ---- scatter_reduce, index_reduce ---------------------------------------------------------

namespace {
// torch's scatter_reduce also takes the old names "max" and "min" (codes 5 and 6: amax
// and amin forward, a backward that refuses them, as torch's).
constexpr const char* kReduceNames[] = {"sum", "prod", "mean", "amax", "amin", "max", "min"};

int64_t reduce_code(const std::string& reduce) {
  for (int64_t i = 0; i < 7; ++i)
    if (reduce == kReduceNames[i]) return i;
  return -1;
}

// index_reduce's index as a scatter index: each index value repeated across source's
// other dims, in source's shape.
Tensor index_as_scatter(const Tensor& index, const Tensor& source, int64_t d) {
  DimVector shape(size_t(source.dim()), 1);
  shape[size_t(d)] = index.numel();
  return contiguous(expand(reshape(to_dtype(index, ScalarType::Int64), shape), source.sizes()));
}

Tensor reduced_copy(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src,
                    int64_t code, bool include_self) {
  Tensor out = empty(self.sizes(), self.dtype());
  kernels::copy(out, self);
  ops_detail::scatter_reduce_kernel(out, d, index, src, code >= 5 ? code - 2 : code, include_self);
  return out;
}
}  // namespace

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  const int64_t code = reduce_code(reduce);
  GT_CHECK(code >= 0, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  const int64_t d = wrap_dim(dim, self.dim());
  ops_detail::check_scatter_src(self, d, index, src);
  Tensor out = reduced_copy(self, d, index, src, code, include_self);
  record(OpKind::ScatterReduce, {&self, &src}, out,
         [&](autograd::ScatterReduceAttrs& at) {
           at.dim = d;
           at.reduce = code;
           at.include_self = include_self;
         },
         {&index});
  return out;
}

namespace {
void check_index_reduce(const Tensor& self, int64_t d, const Tensor& index, const Tensor& source,
                        const std::string& reduce) {
  GT_CHECK(reduce_code(reduce) >= 1 && reduce_code(reduce) <= 4,
           "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce,
           ".");
  check_index_source("index_reduce_", self, d, index, source);
  GT_CHECK(self.dtype() == source.dtype(), "index_reduce_(): self (",
           scalar_type_name(self.dtype()), ") and source (", scalar_type_name(source.dtype()),
           ") must have the same scalar type");
  GT_CHECK(index.numel() == size_at(source, source.dim() == 0 ? 0 : d),
           "index_reduce_(): Number of indices (", index.numel(),
           ") should be equal to source.size(dim): (", size_at(source, source.dim() == 0 ? 0 : d),
           "), for dim: ", d);
  bool same = source.dim() == self.dim() || (self.dim() <= 1 && source.dim() <= 1);
  for (int64_t i = 0; same && i < self.dim(); ++i)
    same = i == d || self.sizes()[i] == source.sizes()[i];
  GT_CHECK(same,
           "source tensor shape must match self tensor shape, excluding the specified dimension. "
           "Got self.shape = ",
           shape_of(self), " source.shape = ", shape_of(source));
  check_bounds(index, size_at(self, d), false,
               [&](int64_t) { throw IndexError("index out of range in self"); });
}
}  // namespace

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self) {
  const int64_t d = dim_of(self, dim);
  check_index_reduce(self, d, index, source, reduce);
  const int64_t code = reduce_code(reduce);
  Tensor out = off_value([&] {
    Tensor flat_self = self.dim() == 0 ? reshape(self, {1}) : self;
    Tensor src = source.dim() == 0 ? reshape(source, {1}) : source;
    Tensor r = reduced_copy(flat_self, d, index_as_scatter(index, src, d), src, code, include_self);
    return in_shape_of(self, r);
  });
  record(OpKind::IndexReduce, {&self, &source}, out,
         [&](autograd::ScatterReduceAttrs& at) {
           at.dim = d;
           at.reduce = code;
           at.include_self = include_self;
         },
         {&index});
  return out;
}

// ---- in-place forms ----------------------------------------------------------------------

Tensor inplace_index_add_alpha(const Tensor& self, int64_t dim, const Tensor& index,
                               const Tensor& source, Scalar alpha) {
  Tensor v = off_value([&] { return index_add(self, dim, index, source, alpha); });
  const int64_t d = dim_of(self, dim);
  return inplace_write("index_add_", OpKind::IndexAddAlpha, {&self, &source}, self, v,
                       [&](autograd::Attrs& at) {
                         auto& a = at.set<autograd::DimAlphaAttrs>();
                         a.dim = d;
                         a.alpha = alpha;
                       },
                       {&index});
}

Tensor inplace_index_copy(const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor& source) {
  Tensor v = off_value([&] { return index_copy(self, dim, index, source); });
  const int64_t d = dim_of(self, dim);
  return inplace_write("index_copy_", OpKind::IndexCopy, {&self, &source}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::DimAttrs>().dim = d; },
                       {&index});
}

Tensor inplace_index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  Tensor v = off_value([&] { return index_fill(self, dim, index, value); });
  const int64_t d = dim_of(self, dim);
  return inplace_write("index_fill_", OpKind::IndexFill, {&self}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::DimAttrs>().dim = d; },
                       {&index});
}

Tensor inplace_index_fill(const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor& value) {
  Tensor v = off_value([&] { return index_fill(self, dim, index, value); });
  const int64_t d = dim_of(self, dim);
  return inplace_write("index_fill_", OpKind::IndexFillTensor, {&self, &value}, self, v,
                       [&](autograd::Attrs& at) { at.set<autograd::DimAttrs>().dim = d; },
                       {&index});
}

Tensor inplace_put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor v = off_value([&] { return put(self, index, source, accumulate); });
  return inplace_write(
      "put_", OpKind::Put, {&self, &source}, self, v,
      [&](autograd::Attrs& at) { at.set<autograd::IndexAttrs>().accumulate = accumulate; },
      {&index});
}

Tensor inplace_masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  Tensor v = off_value([&] { return masked_scatter(self, mask, source); });
  return inplace_write("masked_scatter_", OpKind::MaskedScatter, {&self, &source}, self, v,
                       [](autograd::Attrs&) {}, {&mask});
}

Tensor inplace_scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index,
                              const Tensor& src, const std::string& reduce, bool include_self) {
  Tensor v = off_value([&] { return scatter_reduce(self, dim, index, src, reduce, include_self); });
  const int64_t d = wrap_dim(dim, self.dim());
  return inplace_write("scatter_reduce_", OpKind::ScatterReduce, {&self, &src}, self, v,
                       [&](autograd::Attrs& at) {
                         auto& a = at.set<autograd::ScatterReduceAttrs>();
                         a.dim = d;
                         a.reduce = reduce_code(reduce);
                         a.include_self = include_self;
                       },
                       {&index});
}

Tensor inplace_index_reduce(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& source, const std::string& reduce, bool include_self) {
  Tensor v =
      off_value([&] { return index_reduce(self, dim, index, source, reduce, include_self); });
  const int64_t d = dim_of(self, dim);
  return inplace_write("index_reduce_", OpKind::IndexReduce, {&self, &source}, self, v,
                       [&](autograd::Attrs& at) {
                         auto& a = at.set<autograd::ScatterReduceAttrs>();
                         a.dim = d;
                         a.reduce = reduce_code(reduce);
                         a.include_self = include_self;
                       },
                       {&index});
}

}  // namespace gradtrack::ops
