// Factories: constant fills, ranges, identity, random tensors.
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/half.h"
#include "kernels/reduced_float.h"
#include "ops/common.h"

namespace gradtrack::ops {

Tensor zeros(const DimVector& sizes, ScalarType dtype) { return full(sizes, Scalar(0), dtype); }
Tensor ones(const DimVector& sizes, ScalarType dtype) { return full(sizes, Scalar(1), dtype); }

Tensor full(const DimVector& sizes, Scalar value, ScalarType dtype) {
  Tensor out = empty(sizes, dtype);
  kernels::fill(out, value);
  return out;
}

Tensor zeros_like(const Tensor& a) { return zeros(a.sizes(), a.dtype()); }

Tensor scalar_tensor(Scalar value, ScalarType dtype) { return full({}, value, dtype); }

namespace {

// arange's length. NOTE [arange in int64]: for an int64 result PyTorch counts
// in int64 arithmetic, which wraps near the limits (arange(-2**63, 2**63 - 1,
// 2**62) is empty); we wrap the same way, in unsigned arithmetic to stay defined.
double arange_length(Scalar start, Scalar end, Scalar step, ScalarType dt) {
  // Integer results take the bounds as int64 first (1.5 counts as 1).
  if (!is_floating(dt)) {
    for (Scalar v : {start, end, step}) check_fits(v, ScalarType::Int64);
  }
  if (dt == ScalarType::Int64) {
    int64_t s = start.to_int(), e = end.to_int(), st = step.to_int();
    GT_CHECK(st != 0, "step must be nonzero");
    GT_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
             "upper bound and lower bound inconsistent with step sign");
    uint64_t span = uint64_t(e) - uint64_t(s) + uint64_t(st) - uint64_t(st > 0 ? 1 : -1);
    int64_t n = static_cast<int64_t>(span);
    // (The truncating division cannot trap: st == -1 only with e <= s.)
    return static_cast<double>(st == -1 ? int64_t(0 - uint64_t(n)) : n / st);
  }
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  GT_CHECK(st != 0, "step must be nonzero");
  GT_CHECK(std::isfinite(s) && std::isfinite(e), "unsupported range: ", s, " -> ", e);
  GT_CHECK((st > 0 && e >= s) || (st < 0 && e <= s),
           "upper bound and lower bound inconsistent with step sign");
  return std::ceil((e - s) / st);
}

}  // namespace

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<ScalarType> dtype) {
  bool any_float = start.is_float() || end.is_float() || step.is_float();
  ScalarType dt = dtype ? *dtype : (any_float ? default_float_type() : ScalarType::Int64);
  // float16 counts in float32 and rounds (NOTE [Reduced floats are stored, not computed]).
  if (is_reduced_float(dt))
    return kernels::narrowed(arange(start, end, step, ScalarType::Float32), dt);
  double n = arange_length(start, end, step, dt);
  constexpr double kLimit = 9223372036854775808.0;  // 2**63
  GT_CHECK(n >= 0 && n <= kLimit, "invalid size, possible overflow?");
  // PyTorch's length 2**63 wraps to -2**63 and fails as a size.
  GT_CHECK(n < kLimit, "IntArrayRef contains an int that cannot be represented as a SymInt: ",
           std::numeric_limits<int64_t>::min());
  Tensor out = empty({static_cast<int64_t>(n)}, dt);
  GT_DISPATCH_ALL(dt, [&] {
    scalar_t* p = out.data<scalar_t>();
    if (!is_floating(dt)) {
      // Integer results count in int64, wrapping as PyTorch's do.
      uint64_t si = uint64_t(start.to_int()), sti = uint64_t(step.to_int());
      for (int64_t i = 0; i < out.numel(); ++i) {
        p[i] = static_cast<scalar_t>(static_cast<int64_t>(si + uint64_t(i) * sti));
      }
    } else {
      double s = start.to_double(), st = step.to_double();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<scalar_t>(s + double(i) * st);
    }
  });
  return out;
}

namespace {

// double -> int64 as x86's conversion (and so PyTorch's) gives it, without
// C++'s undefined behaviour: out of range and NaN give INT64_MIN.
int64_t x86_int64(double v) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!(v >= -kTwo63 && v < kTwo63)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// A linspace end as the number Python gave: a whole number is taken as the
// int it would have been (c10 checks ints and floats differently).
Scalar as_number(double v) {
  const bool whole = std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.2e18;
  return whole ? Scalar(static_cast<int64_t>(v)) : Scalar(v);
}

// PyTorch converts both ends to the result's type first, with c10's checks: an
// integer end (-1 for uint8 wraps to 255, as c10 allows) or the range of a
// reduced float, which fill_'s conversion does not check.
void check_linspace_end(double v, ScalarType t) {
  if (is_reduced_float(t)) {
    const bool half = t == ScalarType::Float16;
    const double max = half ? 65504.0 : 3.3895313892515355e38;
    GT_CHECK(!(std::isfinite(v) && std::fabs(v) > max),
             "value cannot be converted to type c10::", half ? "Half" : "BFloat16",
             " without overflow");
    return;
  }
  check_fits(as_number(v), t);
}

// float16/bfloat16: PyTorch computes in the reduced type, rounding after every
// operation (measured: bit for bit over random ends and lengths); the values
// go to a float32 buffer, each exactly representable in the result type.
Tensor linspace_reduced(double start, double end, int64_t steps, ScalarType dtype) {
  const bool half = dtype == ScalarType::Float16;
  auto r = [half](float x) {
    return half ? half_to_float(float_to_half(x)) : bfloat16_to_float(float_to_bfloat16(x));
  };
  Tensor out = empty({steps}, ScalarType::Float32);
  float* p = out.data<float>();
  const float s = r(float(start)), e = r(float(end));
  const float step = r(r(e - s) / r(float(steps - 1)));
  const int64_t half_way = steps / 2;
  for (int64_t i = 0; i < steps; ++i) {
    p[i] = i < half_way ? r(s + r(step * r(float(i)))) : r(e - r(step * r(float(steps - 1 - i))));
  }
  return kernels::narrowed(out, dtype);
}

}  // namespace

Tensor linspace(double start, double end, int64_t steps, ScalarType dtype) {
  GT_CHECK(steps >= 0, "number of steps must be non-negative");
  // no values to convert, or one: PyTorch fills it as fill_ would
  if (steps == 0) return empty({0}, dtype);
  if (steps == 1) {
    check_fits(as_number(start), dtype);
    return full({1}, as_number(start), dtype);
  }
  GT_CHECK_IMPL(dtype != ScalarType::Bool, "\"linspace_cpu\" not implemented for 'Bool'");
  check_linspace_end(start, dtype);
  check_linspace_end(end, dtype);
  if (is_reduced_float(dtype)) return linspace_reduced(start, end, steps, dtype);
  Tensor out = empty({steps}, dtype);
  // PyTorch fills the first half from `start` and the second from `end`, so
  // both endpoints are exact, each value rounded once (a fused multiply-add):
  // in the result's precision for floats, in double for integers (measured:
  // bit for bit).
  GT_DISPATCH_ALL(dtype, [&] {
    scalar_t* p = out.data<scalar_t>();
    using step_t = std::conditional_t<std::is_floating_point_v<scalar_t>, scalar_t, double>;
    scalar_t s, e;
    if constexpr (std::is_floating_point_v<scalar_t>) {
      s = scalar_t(start), e = scalar_t(end);
    } else {  // through int64: a negative end wraps for uint8 as PyTorch's does
      // an end of 2**63 - 1 arrived as the double 2**63: it is int64's max
      s = static_cast<scalar_t>(start >= 0x1p63 ? std::numeric_limits<int64_t>::max()
                                                : x86_int64(start));
      e = static_cast<scalar_t>(end >= 0x1p63 ? std::numeric_limits<int64_t>::max()
                                              : x86_int64(end));
    }
    const step_t step = (step_t(e) - step_t(s)) / step_t(steps - 1);
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) {
      const step_t v = i < half ? std::fma(step, step_t(i), step_t(s))
                                : std::fma(-step, step_t(steps - 1 - i), step_t(e));
      if constexpr (std::is_floating_point_v<scalar_t>) {
        p[i] = v;
      } else {
        p[i] = static_cast<scalar_t>(x86_int64(v));
      }
    }
  });
  return out;
}

Tensor eye(int64_t n, int64_t m, ScalarType dtype) {
  GT_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  GT_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  int64_t numel;
  GT_CHECK(!__builtin_mul_overflow(n, m, &numel), "numel: integer multiplication overflow");
  if (is_reduced_float(dtype)) return kernels::narrowed(eye(n, m, ScalarType::Float32), dtype);
  Tensor out = zeros({n, m}, dtype);
  GT_DISPATCH_ALL(dtype, [&] {
    scalar_t* p = out.data<scalar_t>();
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = scalar_t(1);
  });
  return out;
}

Tensor rand(const DimVector& sizes, ScalarType dtype, Generator* gen) {
  GT_CHECK_IMPL(is_floating(dtype), "\"check_uniform_bounds\" not implemented for '",
                scalar_type_name(dtype), "'");
  Tensor out = empty(sizes, dtype);
  kernels::uniform(out, 0, 1, gen ? *gen : default_generator());
  return out;
}

Tensor randn(const DimVector& sizes, ScalarType dtype, Generator* gen) {
  GT_CHECK_IMPL(is_floating(dtype), "\"normal_kernel_cpu\" not implemented for '",
                scalar_type_name(dtype), "'");
  Tensor out = empty(sizes, dtype);
  kernels::normal(out, 0, 1, gen ? *gen : default_generator());
  return out;
}

// randint: ops/random.cpp (it shares random_'s bound checks)

Tensor randperm(int64_t n, ScalarType dtype, Generator* gen) {
  GT_CHECK(n >= 0, "n must be non-negative, got", n);
  Tensor idx = empty({n}, ScalarType::Int64);
  kernels::randperm(idx, gen ? *gen : default_generator());
  return to_dtype(idx, dtype);
}

}  // namespace gradtrack::ops
