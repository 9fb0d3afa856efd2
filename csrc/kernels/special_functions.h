// torch.special's value-only functions: the Bessel functions of orders 0 and 1
// (first and second kind, modified, scaled), the spherical j0, Airy's Ai, and
// the classical orthogonal polynomials of a degree n. Their results never
// carry a gradient (PyTorch records no node for them), so they have no node
// kind and no row in the op list: a kernel over contiguous memory of one
// floating dtype, called from gradtrack/special.py once the arguments are
// promoted and broadcast.
//
// NOTE [Value-only special functions]
// PyTorch evaluates these with the Cephes approximations, in the dtype of the
// result (float32 in float32, with float32 constants), and the polynomials by
// their three-term recurrences with a trigonometric closed form for high
// degrees inside [-1, 1]. Matching torch to the last bits means the same
// algorithm in the same precision and the same order of operations; the
// helpers in special_bessel.cpp and special_polynomials.cpp are written for
// that, and the tests compare with torch at tolerances of float rounding.
// PyTorch's kernels are built for AVX2/AVX-512 with FMA, where the compiler
// contracts a * b + c into one rounding: the loops here are cloned for x86-64-v3
// (FMA) and built with -ffp-contract=fast, everything they call inlined
// (GT_SPECIAL_CLONES), so an FMA machine rounds as torch does there and a
// machine without FMA as torch's default kernels do.
#pragma once

#include <cstdint>

#include "kernels/simd_clones.h"

#ifdef GT_HAVE_SIMD_CLONES
#define GT_SPECIAL_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), flatten))
#else
#define GT_SPECIAL_CLONES
#endif

namespace gradtrack::kernels::special {

enum class ValueUnary : int {
  BesselJ0,
  BesselJ1,
  BesselY0,
  BesselY1,
  ModifiedBesselI0,
  ModifiedBesselI1,
  ModifiedBesselK0,
  ModifiedBesselK1,
  ScaledModifiedBesselK0,
  ScaledModifiedBesselK1,
  SphericalBesselJ0,
  AiryAi,
  Count
};

enum class Polynomial : int {
  ChebyshevT,
  ChebyshevU,
  ChebyshevV,
  ChebyshevW,
  ShiftedChebyshevT,
  ShiftedChebyshevU,
  ShiftedChebyshevV,
  ShiftedChebyshevW,
  HermiteH,
  HermiteHe,
  LaguerreL,
  LegendreP,
  Count
};

/// out[i] = f(x[i]) for i < count; T is float or double.
template <typename T>
void value_unary(ValueUnary f, const T* x, T* out, int64_t count);

/// out[i] = p_n[i](x[i]) for i < count; the degree is n[i] truncated to an integer.
template <typename T>
void polynomial(Polynomial p, const T* x, const T* n, T* out, int64_t count);

}  // namespace gradtrack::kernels::special
