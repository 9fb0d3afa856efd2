// Stride-1 float32 convolutions without an im2col matrix: the geometry both
// kernels take, and the AVX2 kernel (NOTE [Implicit im2col on AVX2] in
// conv_implicit_avx2.cpp). The AVX-512 kernel is declared in gemm_avx512.h.
#pragma once

#include <cstdint>

namespace gradtrack::kernels {

/// One sample and group: out[o][y][x] = sum over c, i, j of w[o][c][i][j] *
/// img[c][y - ph + i dh][x - pw + j dw] (zero outside the image) for o < oc
/// and all output rows y < oh, x < ow. w is dense [oc, ic kh kw], img dense
/// [ic, ih, iw], out dense [oc, oh, ow].
struct ImplicitConv {
  int64_t oc, ic, ih, iw, kh, kw, ph, pw, dh, dw, oh, ow;
};

/// True if this CPU runs conv_implicit_avx2 (AVX2 and FMA).
bool conv_implicit_avx2_available();

/// True if the convolution forward uses conv_implicit_avx2 where it applies:
/// by default on CPUs that have AVX2 but not our AVX-512 GEMM; tests and
/// timings switch it (set_conv_implicit_avx2(false) selects im2col + BLAS).
bool use_conv_implicit_avx2();
void set_conv_implicit_avx2(bool on);

/// The AVX2 kernel, on the calling thread. Only call if use_conv_implicit_avx2().
void conv_implicit_avx2(const float* w, const float* img, float* out, const ImplicitConv& g);

}  // namespace gradtrack::kernels
