// Random fills beyond normal_/uniform_: bernoulli, exponential, geometric,
// cauchy, log_normal, random_ and multinomial, with torch's checks, messages
// and draw order (the kernels are in kernels/random.cpp).
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "autograd/provenance.h"
#include "core/half.h"
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
  // p / q in the input's dtype (float16 / bfloat16: computed in float and
  // rounded, as torch's div_), ranked exactly in double.
  Tensor ratio;
  {
    autograd::AutoGradMode off(false);
    ratio = contiguous(to_dtype(div(input, q), ScalarType::Float64));
  }
  const double* rv = ratio.data<double>();
  int64_t* o = out.data<int64_t>();
  std::vector<std::pair<double, int64_t>> ranked(static_cast<size_t>(k));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < k; ++j) ranked[j] = {rv[r * k + j], j};
    // Descending by value; among equals the lower index first.
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (int64_t s = 0; s < n; ++s) o[r * n + s] = ranked[s].second;
  }
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

Tensor rrelu_noise(const Tensor& input, double lower, double upper, Generator* gen) {
  GT_CHECK_IMPL(input.dtype() == ScalarType::Float32 || input.dtype() == ScalarType::Float64,
                "\"rrelu_with_noise_out_cpu\" not implemented for '",
                scalar_type_name(input.dtype()), "'");
  Tensor x = contiguous(input);
  Tensor noise = empty(input.sizes(), input.dtype());
  Generator& g = pick(gen);
  std::lock_guard<std::mutex> guard(g.mutex());
  // uniform_real_distribution<double>: the low 53 bits of a 64-bit draw.
  const double scale = 1.0 / double(uint64_t(1) << 53);
  auto draw = [&] {
    return double(g.random64() & ((uint64_t(1) << 53) - 1)) * scale * (upper - lower) + lower;
  };
  if (input.dtype() == ScalarType::Float32) {
    const float* xp = x.data<float>();
    float* np = noise.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) np[i] = xp[i] <= 0.0f ? float(draw()) : 1.0f;
  } else {
    const double* xp = x.data<double>();
    double* np = noise.data<double>();
    for (int64_t i = 0; i < x.numel(); ++i) np[i] = xp[i] <= 0.0 ? draw() : 1.0;
  }
  return noise;
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

// The bounds of an integer dtype (floating dtypes: float_random_range).
int64_t top_value(ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool: return 1;
    case ScalarType::UInt8: return 255;
    case ScalarType::Int32: return std::numeric_limits<int32_t>::max();
    case ScalarType::Int8: return std::numeric_limits<int8_t>::max();
    case ScalarType::Int16: return std::numeric_limits<int16_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}
int64_t bottom_value(ScalarType dt) {
  switch (dt) {
    case ScalarType::Bool:
    case ScalarType::UInt8: return 0;
    case ScalarType::Int32: return std::numeric_limits<int32_t>::min();
    case ScalarType::Int8: return std::numeric_limits<int8_t>::min();
    case ScalarType::Int16: return std::numeric_limits<int16_t>::min();
    default: return std::numeric_limits<int64_t>::min();
  }
}

// NOTE [random_ bounds of floating dtypes]
// torch first moves a bound the dtype cannot hold exactly inward (its
// update_from / update_to: `from` up, `to` down, by the dtype's spacing there),
// then refuses bounds outside the dtype's finite range and only warns about
// those beyond 2^digits, where not every integer is representable.
int float_digits(ScalarType dt) {
  switch (dt) {
    case ScalarType::Float16: return 11;
    case ScalarType::BFloat16: return 8;
    case ScalarType::Float32: return 24;
    default: return 53;
  }
}

double float_max(ScalarType dt) {
  switch (dt) {
    case ScalarType::Float16: return 65504.0;
    case ScalarType::BFloat16: return 3.3895313892515355e38;
    case ScalarType::Float32: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

// static_cast<int64_t>(static_cast<scalar_t>(v)); x86 turns inf into INT64_MIN.
int64_t through_dtype(int64_t v, ScalarType dt) {
  double r = static_cast<double>(v);
  if (dt != ScalarType::Float64) {
    const float f = static_cast<float>(v);
    r = dt == ScalarType::Float16    ? half_to_float(float_to_half(f))
        : dt == ScalarType::BFloat16 ? bfloat16_to_float(float_to_bfloat16(f))
                                     : f;
  }
  if (!std::isfinite(r) || std::fabs(r) >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(r);
}

int64_t highest_bit(int64_t v) {
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int n = 0;
  while (u >>= 1) ++n;
  return n;
}

int64_t update_from(int64_t from, ScalarType dt) {
  const int64_t plus_1 = through_dtype(from + 1, dt);
  if (plus_1 >= from) return from;
  return plus_1 + (int64_t(1) << (highest_bit(from + 1) - float_digits(dt) + 1));
}

int64_t update_to(int64_t to, ScalarType dt) {
  const int64_t minus_1 = through_dtype(to - 1, dt);
  if (minus_1 < to) return to;
  return minus_1 - (int64_t(1) << (highest_bit(to - 1) - float_digits(dt) + 1));
}

void check_float_bound(int64_t v, const char* name, ScalarType dt) {
  const double max = float_max(dt), x = static_cast<double>(v);
  const char* type = cpp_type_name(dt);
  GT_CHECK(x >= -max && x <= max, name, " is out of bounds for ", type);
  const int d = float_digits(dt);
  if (v < -(int64_t(1) << d) || v > (int64_t(1) << d)) {
    warn(str_cat(name, " is out of bounds [-(2^", d, "), 2^", d, "]. Due to precision limitations ",
                 type,
                 " can support discrete uniform distribution only within this range. This "
                 "warning will become an error in version 1.7 release, please fix the code in "
                 "advance"));
  }
}

// (range, base) of random_(from, to) on a floating dtype, or nullopt for the
// full 64-bit range.
std::optional<std::pair<uint64_t, int64_t>> float_random_range(int64_t from,
                                                               std::optional<int64_t> to,
                                                               ScalarType dt) {
  if (to) {
    int64_t hi = *to;
    GT_CHECK(from < hi, "random_ expects 'from' to be less than 'to', but got from=", from,
             " >= to=", hi);
    from = update_from(from, dt);
    hi = update_to(hi, dt);
    GT_CHECK(from < hi,
             "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but "
             "got from=",
             from, " >= to=", hi);
    check_float_bound(from, "from", dt);
    check_float_bound(hi - 1, "to - 1", dt);
    return std::make_pair(static_cast<uint64_t>(hi) - static_cast<uint64_t>(from), from);
  }
  if (from == std::numeric_limits<int64_t>::min()) return std::nullopt;
  const int64_t to_inc = int64_t(1) << float_digits(dt);
  from = update_from(from, dt);
  GT_CHECK(from < to_inc,
           "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
           "to dtype, but got from=",
           from, " > to_inc=", to_inc);
  check_float_bound(from, "from", dt);
  check_float_bound(to_inc, "to - 1", dt);
  return std::make_pair(static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1, from);
}

}  // namespace

namespace {

// (range, base) of random_(from, to) after torch's checks, or nullopt for the
// full 64-bit range.
std::optional<std::pair<uint64_t, int64_t>> random_range(ScalarType dt, int64_t from,
                                                         std::optional<int64_t> to) {
  if (is_floating(dt)) return float_random_range(from, to, dt);
  const char* type = cpp_type_name(dt);
  if (to) {
    GT_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
             " >= to=", *to);
    GT_CHECK(from >= bottom_value(dt) && from <= top_value(dt), "from is out of bounds for ", type);
    GT_CHECK(*to - 1 >= bottom_value(dt) && *to - 1 <= top_value(dt),
             "to - 1 is out of bounds for ", type);
    return std::make_pair(static_cast<uint64_t>(*to) - static_cast<uint64_t>(from), from);
  }
  GT_CHECK(from >= bottom_value(dt) && from <= top_value(dt), "from is out of bounds for ", type);
  if (from == std::numeric_limits<int64_t>::min() && dt == ScalarType::Int64) return std::nullopt;
  return std::make_pair(static_cast<uint64_t>(top_value(dt)) - static_cast<uint64_t>(from) + 1,
                        from);
}

void run_random(const Tensor& out, const std::optional<std::pair<uint64_t, int64_t>>& rb,
                Generator& gen) {
  if (rb)
    kernels::random_from_to(out, rb->first, rb->second, gen);
  else
    kernels::random_full_range(out, gen);
}

}  // namespace

Tensor inplace_random(const Tensor& self, int64_t from, std::optional<int64_t> to, int variant,
                      Generator* gen) {
  const OpKind kind = variant == 0   ? OpKind::RandomFromTo
                      : variant == 1 ? OpKind::RandomTo
                                     : OpKind::Random;
  if (variant == 2) {
    return fill_inplace("random_", kind, self, [&] { kernels::random_default(self, pick(gen)); });
  }
  const auto rb = random_range(self.dtype(), from, to);
  GT_CHECK_IMPL(rb || self.dtype() != ScalarType::Float16,
                "\"random_full_64_bits_range_kernel_cpu\" not implemented for 'Half'");
  return fill_inplace("random_", kind, self, [&] { run_random(self, rb, pick(gen)); });
}

Tensor randint(int64_t low, int64_t high, const DimVector& sizes, ScalarType dtype,
               Generator* gen) {
  // torch's randint is empty(...).random_(low, high): the same checks, no version bump
  const auto rb = random_range(dtype, low, high);
  Tensor out = empty(sizes, dtype);
  run_random(out, rb, pick(gen));
  return out;
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
