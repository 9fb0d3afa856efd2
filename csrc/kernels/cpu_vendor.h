// Which CPU this is, for the kernels whose fastest form differs by vendor
// (NOTE [Tuned per vendor] in gemm_avx512.cpp and the notes it names). Each
// answer is read once and kept.
#pragma once

namespace gradtrack::kernels {

/// True on an Intel CPU.
bool cpu_is_intel();

/// True on an AMD CPU.
bool cpu_is_amd();

/// True on an AMD Zen 4, whose AVX-512 unit runs each 512-bit operation as
/// two 256-bit halves: AVX2 code does as many FLOPs per cycle there.
bool avx512_in_halves();

}  // namespace gradtrack::kernels
