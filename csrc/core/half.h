// float16 and bfloat16 as 16-bit storage words, and their conversions to and
// from float32 (NOTE [Reduced floats are stored, not computed]).
#pragma once

#include <cstdint>
#include <cstring>

namespace gradtrack {

// NOTE [Reduced floats are stored, not computed]
// float16 and bfloat16 tensors hold raw 16-bit words. No kernel does
// arithmetic on them: as PyTorch on the CPU, every op widens its operands to
// float32, runs the float32 kernel and rounds each result back
// (kernels/reduced_float.cpp). The conversions round to nearest, ties to
// even, as PyTorch's; a NaN keeps its sign and the top of its payload into
// float16 (quiet bit set), and becomes 0x7FC0 in bfloat16, as PyTorch's
// scalar conversion gives. (PyTorch's vectorised bfloat16 copy writes 0xFFFF
// for NaN in blocks of 16 elements; both are NaN.)
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
// The same for double, for the kernels that work a float's result out in double.
inline uint64_t double_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}
inline double bits_double(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}

inline uint16_t float_to_half(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((ax >> 13) & 0x3FFu));
  if (ax >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 rounds to inf
  if (ax < 0x33000000u) return static_cast<uint16_t>(sign);  // <= half the smallest subnormal
  uint32_t q, rem, halfway;
  if (ax < 0x38800000u) {
    // A float16 subnormal counts units of 2^-24: shift the full significand.
    const uint32_t e = ax >> 23, m = (ax & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - e;
    q = m >> shift;
    rem = m & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1u);
  } else {
    // Rebias the exponent (127 -> 15) and drop 13 significand bits; a carry
    // out of the significand correctly bumps the exponent.
    const uint32_t r = ax - (112u << 23);
    q = r >> 13;
    rem = r & 0x1FFFu;
    halfway = 0x1000u;
  }
  if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  if (e == 0x1F) return bits_float(sign | 0x7F800000u | (m << 13));
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-08f;  // m * 2^-24, exact
    return sign ? -v : v;
  }
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

inline uint16_t float_to_bfloat16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u;
  // Round the low 16 bits to nearest, ties to the even upper half.
  const uint32_t up = 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + up) >> 16);
}

inline float bfloat16_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

}  // namespace gradtrack
