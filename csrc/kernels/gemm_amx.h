// bfloat16 matrix products on AMX tiles (NOTE [AMX bfloat16 products] in
// gemm_amx.cpp).
#pragma once

#include "core/tensor.h"

namespace gradtrack::kernels {

/// True if this CPU has AMX-BF16 and the OS let this process use its tiles
/// (asked once).
bool amx_bf16_available();

/// Whether bfloat16 products take the AMX kernel where it runs (tests and
/// timings switch it off to compare with the float32 path).
bool use_amx_bf16();
void set_amx_bf16(bool on);

/// c[i] (+)= a[i] @ b[i] for bfloat16 a [B, M, K] and b [B, K, N] of any
/// strides into dense float32 c [B, M, N], the products summed in float32.
/// Only call if amx_bf16_available().
void gemm_amx_bf16(const Tensor& c, const Tensor& a, const Tensor& b, bool accumulate);

/// out[i] = a[i] @ b[i] as gemm_amx_bf16 sums it, rounded straight into
/// bfloat16 `out` [B, M, N] (unit stride along N; must not overlap a or b)
/// with no float32 copy of the result. Only call if amx_bf16_available().
void gemm_amx_bf16_rounded(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace gradtrack::kernels
