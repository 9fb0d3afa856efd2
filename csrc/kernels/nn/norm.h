// Normalization kernels: statistics and the normalize-and-scale pass shared
// by layer_norm, group_norm and batch_norm.
//
// NOTE [One layout for three norms]
// Each norm reads x as (N, C, L) with L the product of the trailing dims:
//   group_norm: stats per (n, group), over C/G channels times L;
//   layer_norm: group_norm with one group, C = the normalized numel, L = 1
//               (the weight then indexes the channel dim);
//   batch_norm: stats per channel c, over N and L.
// The weight and bias always index the channel c.
#pragma once

#include "core/tensor.h"

namespace gradtrack::kernels::nn {

/// Mean and 1/sqrt(var + eps) of each of `rows` contiguous rows of `cols`
/// elements of dense x (biased variance), into dense mean and rstd.
void row_moments(const Tensor& x, int64_t rows, int64_t cols, double eps, const Tensor& mean,
                 const Tensor& rstd);
/// layer_norm's forward over dense (rows, cols) x: row_moments and then
/// norm_apply (one group, L = 1), each row in one visit.
void layer_norm_rows(const Tensor& out, const Tensor& x, int64_t rows, int64_t cols, double eps,
                     const Tensor& mean, const Tensor& rstd, const Tensor& w, const Tensor& b);
/// Per channel of dense (N, C, L) x: the mean and the biased variance.
void channel_moments(const Tensor& x, int64_t n, int64_t c, int64_t l, const Tensor& mean,
                     const Tensor& var);
/// out[n, c, l] = (x - mean[s]) * rstd[s] * w[c] + b[c], s the stats index:
/// c when groups == 0 (batch norm), else n * groups + c / (C / groups).
/// w, b may be undefined (no affine). All dense, one float dtype.
void norm_apply(const Tensor& out, const Tensor& x, int64_t n, int64_t c, int64_t l, int64_t groups,
                const Tensor& mean, const Tensor& rstd, const Tensor& w, const Tensor& b);

/// layer_norm's backward over dense (rows, cols) from the saved mean and rstd:
/// dx (if defined; w, indexing cols, may be undefined) and the sums over rows
/// dw = sum g * xhat and db = sum g (each if defined). g is read at
/// r * g_stride[0] + j * g_stride[1]: dense (cols, 1), or (0, 0) for the
/// broadcast gradient of a sum, which then is never copied.
void layer_norm_backward(const Tensor& g, const int64_t g_stride[2], const Tensor& x,
                         const Tensor& mean, const Tensor& rstd, const Tensor& w, int64_t rows,
                         int64_t cols, const Tensor& dx, const Tensor& dw, const Tensor& db);

/// batch_norm's backward over dense (N, C, L) with per-channel mean and rstd
/// (the batch's in training, the running ones in eval): dx (if defined; in
/// training it includes the statistics' dependence on x), dw, db (if defined).
void batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                         const Tensor& w, int64_t n, int64_t c, int64_t l, bool training,
                         const Tensor& dx, const Tensor& dw, const Tensor& db);

}  // namespace gradtrack::kernels::nn
