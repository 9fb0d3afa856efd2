// Random fills beyond normal_/uniform_: bernoulli, exponential, geometric,
// cauchy, log_normal, random_ and multinomial, with torch's checks, messages
// and draw order (the kernels are in kernels/random.cpp).
#include <cmath>
#include <limits>

#include "autograd/provenance.h"
#include "ops/common.h"

namespace gradtrack::ops {

namespace {

Generator& pick(Generator* gen) { return gen ? *gen : default_generator(); }

// An in-place random fill: refuses overlapping self, records a node whose
// gradient is zero (the values do not depend on self), bumps the version.
template <typename Write>
const Tensor& fill_inplace(const char* label, OpKind kind, const Tensor& self, const Write& write) {
  GT_CHECK(!has_internal_overlap(self),
           "unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.");
  std::shared_ptr<autograd::FormulaNode> node;
  if (is_floating(self.dtype()) && autograd::should_record({&self})) {
    node = autograd::new_node(kind, {&self});
    autograd::save_inplace_inputs(node, {&self}, Tensor());
  }
  write();
  self->bump_version();
  autograd::note_write(self, label);
  // Forward AD: the new values do not depend on the old ones (a zero tangent).
  if (is_floating(self.dtype()) && autograd::forward_ad::any_tangent({&self}))
    autograd::forward_ad::propagate_inplace(kind, {&self}, self, self, autograd::Attrs{}, {});
  if (node) autograd::finish_inplace_node(node, self);
  return self;
}

void check_float_p(const Tensor& p) {
  // torch checks each probability as it draws; checking first leaves self
  // untouched when one is out of range.
  Tensor pd = to_dtype(p, ScalarType::Float64);
  if (!pd.is_contiguous()) pd = clone(pd);
  const double* v = pd.data<double>();
  for (int64_t i = 0; i < pd.numel(); ++i)
    GT_CHECK(v[i] >= 0 && v[i] <= 1,
             "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
             "message be improved?  If so, please report an enhancement request to PyTorch.)");
}

void check_multinomial_row(const Tensor& row) {
  Tensor r = to_dtype(row, ScalarType::Float64);
  if (!r.is_contiguous()) r = clone(r);
  const double* v = r.data<double>();
  double sum = 0;
  for (int64_t j = 0; j < r.numel(); ++j) {
    GT_CHECK(v[j] >= 0, "invalid multinomial distribution (encountering probability entry < 0)");
    GT_CHECK(std::isfinite(v[j]),
             "invalid multinomial distribution (encountering probability entry = infinity or "
             "NaN)");
    sum += v[j];
  }
  GT_CHECK(sum > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
}

// Without replacement (or one sample) torch draws q ~ Exp(1) shaped like the
// input and takes the largest p / q per row: argmax for one sample, else the
// top n in descending order.
void multinomial_by_exponentials(const Tensor& input, int64_t n, const Tensor& out,
                                 Generator& gen) {
  Tensor pd = to_dtype(input, ScalarType::Float64);
  if (!pd.is_contiguous()) pd = clone(pd);
  const int64_t k = input.size(-1), rows = pd.numel() / std::max<int64_t>(k, 1);
  const double* pv = pd.data<double>();
  bool ok = true, zero_row = false;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < k; ++j) {
      ok = ok && pv[r * k + j] >= 0 && pv[r * k + j] < INFINITY;
      sum += pv[r * k + j];
    }
    zero_row = zero_row || sum == 0;
  }
  GT_CHECK(ok, "probability tensor contains either `inf`, `nan` or element < 0");
  GT_CHECK(!zero_row, "invalid multinomial distribution (sum of probabilities <= 0)");
  Tensor q = empty_like(input, input.dtype());
  kernels::exponential(q, 1.0, gen);
  GT_DISPATCH_FLOAT(input.dtype(), "multinomial", [&] {
    using T = scalar_t;
    Tensor qc = q.is_contiguous() ? q : clone(q);
    Tensor pc = input.is_contiguous() ? input : clone(input);
    const T* qv = qc.data<T>();
    const T* pt = pc.data<T>();
    int64_t* o = out.data<int64_t>();
    std::vector<std::pair<T, int64_t>> ranked(static_cast<size_t>(k));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < k; ++j) ranked[j] = {pt[r * k + j] / qv[r * k + j], j};
      // Descending by value; among equals the lower index first.
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      for (int64_t s = 0; s < n; ++s) o[r * n + s] = ranked[s].second;
    }
  });
}

}  // namespace

Tensor inplace_bernoulli(const Tensor& self, double p, Generator* gen) {
  GT_CHECK(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  return fill_inplace("bernoulli_", OpKind::Bernoulli, self,
                      [&] { kernels::bernoulli_scalar(self, p, pick(gen)); });
}

Tensor inplace_bernoulli(const Tensor& self, const Tensor& p, Generator* gen) {
  GT_CHECK_IMPL(is_floating(p.dtype()), "\"bernoulli_tensor_cpu_p_\" not implemented for '",
                scalar_type_name(p.dtype()), "'");
  Tensor pe = expand(p, self.sizes());
  check_float_p(pe);
  return fill_inplace("bernoulli_", OpKind::BernoulliTensor, self,
                      [&] { kernels::bernoulli_tensor(self, pe, pick(gen)); });
}

Tensor bernoulli(const Tensor& input, Generator* gen) {
  GT_CHECK_IMPL(is_floating(input.dtype()), "\"bernoulli_tensor_cpu_p_\" not implemented for '",
                scalar_type_name(input.dtype()), "'");
  check_float_p(input);
  Tensor out = empty_like(input, input.dtype());
  kernels::bernoulli_tensor(out, input, pick(gen));
  record(OpKind::BernoulliFunctional, {&input}, out);
  return out;
}

Tensor inplace_exponential(const Tensor& self, double lambd, Generator* gen) {
  GT_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  GT_CHECK(is_floating(self.dtype()),
           "Exponential distribution is a continuous probability distribution. dtype must be a "
           "floating point but you specified ",
           scalar_type_name(self.dtype()));
  return fill_inplace("exponential_", OpKind::Exponential, self,
                      [&] { kernels::exponential(self, lambd, pick(gen)); });
}

Tensor inplace_geometric(const Tensor& self, double p, Generator* gen) {
  GT_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  return fill_inplace("geometric_", OpKind::Geometric, self,
                      [&] { kernels::geometric(self, p, pick(gen)); });
}

Tensor inplace_cauchy(const Tensor& self, double median, double sigma, Generator* gen) {
  GT_CHECK(sigma > 0.0, "cauchy_ expects sigma > 0.0, but found sigma=", sigma);
  GT_CHECK_IMPL(is_floating(self.dtype()), "\"cauchy_cpu\" not implemented for '",
                scalar_type_name(self.dtype()), "'");
  return fill_inplace("cauchy_", OpKind::Cauchy, self,
                      [&] { kernels::cauchy(self, median, sigma, pick(gen)); });
}

Tensor inplace_log_normal(const Tensor& self, double mean, double std, Generator* gen) {
  GT_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  GT_CHECK_IMPL(is_floating(self.dtype()), "\"log_normal_cpu\" not implemented for '",
                scalar_type_name(self.dtype()), "'");
  return fill_inplace("log_normal_", OpKind::LogNormal, self,
                      [&] { kernels::log_normal(self, mean, std, pick(gen)); });
}

namespace {

// The largest integer `dt` holds exactly (floats: 2^mantissa), and its name
// in torch's bound errors.
int64_t top_value(ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool: return 1;
    case ScalarType::UInt8: return 255;
    case ScalarType::Int32: return std::numeric_limits<int32_t>::max();
    case ScalarType::Float32: return int64_t(1) << 24;
    case ScalarType::Float64: return int64_t(1) << 53;
    default: return std::numeric_limits<int64_t>::max();
  }
}
int64_t bottom_value(ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool:
    case ScalarType::UInt8: return 0;
    case ScalarType::Int32: return std::numeric_limits<int32_t>::min();
    case ScalarType::Float32: return -(int64_t(1) << 24);
    case ScalarType::Float64: return -(int64_t(1) << 53);
    default: return std::numeric_limits<int64_t>::min();
  }
}

}  // namespace

Tensor inplace_random(const Tensor& self, int64_t from, std::optional<int64_t> to, int variant,
                      Generator* gen) {
  const ScalarType dt = self.dtype();
  const OpKind kind = variant == 0   ? OpKind::RandomFromTo
                      : variant == 1 ? OpKind::RandomTo
                                     : OpKind::Random;
  if (variant == 2) {
    return fill_inplace("random_", kind, self, [&] { kernels::random_default(self, pick(gen)); });
  }
  const char* type = cpp_type_name(dt);
  if (to) {
    GT_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
             " >= to=", *to);
    GT_CHECK(from >= bottom_value(dt) && from <= top_value(dt), "from is out of bounds for ", type);
    GT_CHECK(*to - 1 >= bottom_value(dt) && *to - 1 <= top_value(dt),
             "to - 1 is out of bounds for ", type);
    const uint64_t range = static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
    return fill_inplace("random_", kind, self,
                        [&] { kernels::random_from_to(self, range, from, pick(gen)); });
  }
  GT_CHECK(from >= bottom_value(dt) && from <= top_value(dt), "from is out of bounds for ", type);
  if (from == std::numeric_limits<int64_t>::min() && dt == ScalarType::Int64)
    return fill_inplace("random_", kind, self,
                        [&] { kernels::random_full_range(self, pick(gen)); });
  const uint64_t range = static_cast<uint64_t>(top_value(dt)) - static_cast<uint64_t>(from) + 1;
  return fill_inplace("random_", kind, self,
                      [&] { kernels::random_from_to(self, range, from, pick(gen)); });
}

Tensor multinomial(const Tensor& input, int64_t n, bool replacement, Generator* gen) {
  GT_CHECK(input.dim() > 0 && input.dim() <= 2, "prob_dist must be 1 or 2 dim");
  GT_CHECK(is_floating(input.dtype()),
           "multinomial only supports floating-point dtypes for input, got: ",
           scalar_type_name(input.dtype()));
  const int64_t k = input.size(-1);
  GT_CHECK(n > 0, "cannot sample n_sample <= 0 samples");
  GT_CHECK(replacement || n <= k,
           "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  const int64_t rows = input.dim() == 2 ? input.size(0) : 1;
  DimVector shape = input.dim() == 2 ? DimVector{rows, n} : DimVector{n};
  Tensor out = empty(shape, ScalarType::Int64);
  if (!replacement || n == 1) {
    multinomial_by_exponentials(input, n, out, pick(gen));
    return out;
  }
  Tensor in2 = input.dim() == 2 ? input : unsqueeze(input, 0);
  for (int64_t r = 0; r < rows; ++r) check_multinomial_row(select(in2, 0, r));
  for (int64_t r = 0; r < rows; ++r)
    kernels::multinomial_row(select(in2, 0, r), n, out.data<int64_t>() + r * n, 1, pick(gen));
  return out;
}

}  // namespace gradtrack::ops
