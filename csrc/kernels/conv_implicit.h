// Stride-1 float32 convolutions without an im2col matrix: the geometry both
// kernels take, the AVX-512 kernel (NOTE [Implicit im2col] in
// conv_implicit_avx512.cpp) and the AVX2 kernel (NOTE [Implicit im2col on
// AVX2] in conv_implicit_avx2.cpp).
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

/// Rows of w (output channels) each microkernel call of the AVX-512 and AVX2
/// kernels takes: a product split into parts of whole multiples of these gives
/// every output the same sums as the whole product.
constexpr int64_t kImplicitRowsAvx512 = 14, kImplicitRowsAvx2 = 6;
/// Output columns per tile of the AVX-512 kernel (NOTE [Implicit im2col]).
constexpr int64_t kImplicitColsAvx512 = 32;

/// One sample and group on 512-bit vectors (NOTE [Implicit im2col] in
/// conv_implicit_avx512.cpp), on the calling thread; only call if
/// use_gemm_avx512().
void conv_implicit_avx512(const float* w, const float* img, float* out, const ImplicitConv& g);

/// True if this CPU runs conv_implicit_avx2 (AVX2 and FMA).
bool conv_implicit_avx2_available();

/// Where the convolutions use the AVX2 kernels (forward, input and weight
/// gradients) instead of im2col + BLAS.
enum class ImplicitAvx2 : int {
  kNever = 0,      ///< im2col + BLAS
  kWhereWins = 1,  ///< the products it was measured faster on (implicit_avx2_wins)
  kAlways = 2,     ///< every stride-1 float32 product (tests)
};
/// By default kWhereWins on CPUs that have AVX2 but not our AVX-512 GEMM, on
/// Zen 4 and on Intel (where only the weight gradient takes it, on 512-bit
/// tiles: NOTE [Weight gradient on Zen 4] and NOTE [Weight gradient on Intel]
/// in kernels/nn/conv.cpp), else kNever; tests and timings switch it.
/// Never above kNever without AVX2.
ImplicitAvx2 conv_implicit_avx2_mode();
void set_conv_implicit_avx2_mode(ImplicitAvx2 mode);

/// True if the forward of one (sample, group) product, out [oc, oh x ow] =
/// w [oc, k] @ im2col [k, oh x ow], runs on conv_implicit_avx2 (NOTE [Implicit
/// im2col on AVX2: where]).
bool implicit_avx2_wins(int64_t oc, int64_t oh, int64_t ow, int64_t k);

/// The AVX2 kernel, on the calling thread. Only call if conv_implicit_avx2_available().
void conv_implicit_avx2(const float* w, const float* img, float* out, const ImplicitConv& g);

/// The weight gradient of the same product, added into gw (dense [oc, ic kh
/// kw]): gw += gy @ im2col(img)^T for gy dense [oc, oh, ow] (NOTE [Weight
/// gradient on AVX2]). On the calling thread; only call if
/// conv_implicit_avx2_available().
void conv_wgrad_implicit_avx2(const float* gy, const float* img, float* gw, const ImplicitConv& g);
/// The same with 512-bit vectors (tiles of 14 depths by 32 channels); only
/// call if gemm_avx512_available(). With `runs` each weight sums its pixels in
/// runs (NOTE [Weight gradient in pixel runs]); with `split` the tiles go over
/// the threads (not from inside a parallel region: the bits stay the same).
void conv_wgrad_implicit_avx512(const float* gy, const float* img, float* gw, const ImplicitConv& g,
                                bool runs = false, bool split = false);

}  // namespace gradtrack::kernels
