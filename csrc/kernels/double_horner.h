// The Horner sum of a double polynomial, lowest degree first, shared by the vector loops
// of simd_trig.cpp and simd_hyperbolic.cpp. Both are built with -ffp-contract=fast, so
// each step p * x + c[k] becomes one FMA in every clone. simd_log_exp.cpp, built without
// contraction, keeps its own with std::fma.
#pragma once

namespace gradtrack::kernels::simd {
// One copy per file that includes it (an unnamed namespace): the steps' contraction
// follows that file's flags, and no two files share a definition built differently.
namespace {

template <int N>
__attribute__((always_inline)) inline double horner(const double (&c)[N], double x) {
  double p = c[N - 1];
  for (int k = N - 2; k >= 0; --k) p = p * x + c[k];
  return p;
}

}  // namespace
}  // namespace gradtrack::kernels::simd
