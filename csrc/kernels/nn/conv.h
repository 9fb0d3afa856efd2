// Convolution kernels: im2col / col2im around the OpenBLAS GEMM.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace gradtrack::kernels {

/// NOTE [Convolution sides]
/// A convolution and its transpose are the same three products seen from two
/// sides. The "image" side is the large spatial tensor im2col reads (a
/// convolution's input, a transposed convolution's output); the "col" side is
/// the small one (the convolution's output, the transposed one's input). The
/// weight is in both cases a matrix per group of [col channels, image
/// channels * kD * kH * kW], so:
///   down:  col = W @ im2col(image)            (conv forward, conv_T grad_input)
///   up:    image += col2im(W^T @ col)         (conv grad_input, conv_T forward)
///   wgrad: gW += col @ im2col(image)^T        (both weight gradients)
/// A 2-D convolution is the 3-D one with depth 1, a 1-D one also has height
/// 1. The im2col matrix's columns are the output positions, depth-major, so an
/// output "row" of the tiles below is one (depth, height) pair.
struct ConvGeom {
  int64_t n = 0, groups = 1;
  int64_t img_c = 0, img_h = 0, img_w = 0;  // all image channels
  int64_t col_c = 0, col_h = 0, col_w = 0;  // all col channels
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t img_d = 1, col_d = 1, kd = 1, sd = 1, pd = 0, dd = 1;  // depth (3-D only)
};

/// col (dense [n, col_c, col_h, col_w]) = W @ im2col(image) (+ bias, dense
/// [col_c] of col's dtype, added to each sample right after its product).
void conv_down(const Tensor& col, const Tensor& image, const Tensor& weight, const ConvGeom& g,
               const Tensor* bias = nullptr);
/// image (dense) = (zero ? 0 : image) + col2im(W^T @ col); with `zero`, each
/// thread zeroes its own samples first (image may hold anything).
void conv_up(const Tensor& image, const Tensor& col, const Tensor& weight, const ConvGeom& g,
             bool zero = false);
/// gw (dense, weight's shape) = sum over the batch of col @ im2col(image)^T.
void conv_wgrad(const Tensor& gw, const Tensor& col, const Tensor& image, const ConvGeom& g);

}  // namespace gradtrack::kernels
