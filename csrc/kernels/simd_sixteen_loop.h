// The loop of the AVX-512 kernels that map each float to one float (exp, sigmoid and
// silu in simd.cpp, log in simd_log_exp.cpp, atan in simd_atan_rows.cpp). Only reached
// after a run-time check for x86-64-v4 (NOTE [SIMD clones] in simd.h).
#pragma once

#include <cstdint>

#include "kernels/prefetch.h"
#include "kernels/simd_clones.h"

#ifdef GT_HAVE_SIMD_CLONES
#include <immintrin.h>

namespace gradtrack::kernels::simd {

/// out[i] = f(in[i]), sixteen floats at a time: two vectors a step (the next pair's loads
/// start earlier: 15% faster than one for exp, 5% for atan), then the tail through masked
/// loads, which read nothing past the end. With `ahead` > 0 each step asks for the input
/// that many bytes on (NOTE [Streaming prefetch]). f takes and returns an __m512 and must
/// be built for x86-64-v4: a lambda inside a `#pragma GCC target` region, or a function
/// object whose call has the target attribute (NOTE [Lambdas in clones] in simd.cpp).
/// `out` may be `in`.
template <typename F>
__attribute__((target("arch=x86-64-v4"), always_inline)) inline void by_sixteen(const float* in,
                                                                                float* out,
                                                                                int64_t n, F f,
                                                                                int64_t ahead = 0) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    if (ahead > 0) prefetch_ahead(in + i, ahead);
    const __m512 a = f(_mm512_loadu_ps(in + i)), b = f(_mm512_loadu_ps(in + i + 16));
    _mm512_storeu_ps(out + i, a);
    _mm512_storeu_ps(out + i + 16, b);
  }
  for (; i < n; i += 16) {
    const __mmask16 live =
        n - i >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(out + i, live, f(_mm512_maskz_loadu_ps(live, in + i)));
  }
}

}  // namespace gradtrack::kernels::simd
#endif
