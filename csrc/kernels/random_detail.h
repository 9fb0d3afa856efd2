// Building blocks of the random kernels: torch's per-draw transformations
// (ATen's TransformationHelper / DistributionsHelper rules, re-derived and
// checked against torch 2.13) and the batched normal fill.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/generator.h"

namespace gradtrack::kernels::random_detail {

/// U[from, to): the low 24 (float) or 53 (double) bits of one 32- or 64-bit
/// draw, scaled, then `x * (to - from) + from` in T with one rounding (torch's
/// build fuses it; for [0, 1) both forms are exact, so that case skips fma).
template <typename T>
inline T uniform_from_bits(uint64_t bits, T from, T to) {
  if constexpr (std::is_same_v<T, float>) {
    const float x = static_cast<float>(bits & 0xFFFFFFu) * (1.0f / 16777216.0f);
    return from == 0.0f && to == 1.0f ? x : std::fma(x, to - from, from);
  } else {
    const double x =
        static_cast<double>(bits & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
    return from == 0.0 && to == 1.0 ? x : std::fma(x, to - from, from);
  }
}

template <typename T>
inline T uniform_real(Generator& g, T from, T to) {
  if constexpr (std::is_same_v<T, float>)
    return uniform_from_bits<float>(g.random(), from, to);
  else
    return uniform_from_bits<double>(g.random64(), from, to);
}

/// n uniform draws into out[0..n), the same stream as n uniform_real calls.
/// The caller holds the generator's lock.
template <typename T>
void uniform_block(Generator& g, T* out, int64_t n, T from, T to);

/// One N(mean, std) draw in double: Box-Muller on two 53-bit uniforms, the
/// sine half cached for the next call (torch's normal_distribution<double>).
double normal_scalar(Generator& g, double mean, double std);

/// torch's normal_fill: n >= 16 uniforms, then Box-Muller over blocks of 16
/// (first 8 with the last 8); a ragged tail redraws the last 16. Takes the lock.
template <typename T>
void normal_fill(Generator& g, T* data, int64_t n, T mean, T std);

/// The Box-Muller transform of `blocks` 16-element blocks of float uniforms in
/// place (the float32 normal_fill's math, without drawing).
void normal_transform_float(float* data, int64_t blocks, float mean, float std);

/// -log(1 - u) / lambda, as torch's CPU exponential transformation.
inline double exponential_from(double u, double lambda) { return -1.0 / lambda * std::log1p(-u); }

}  // namespace gradtrack::kernels::random_detail
