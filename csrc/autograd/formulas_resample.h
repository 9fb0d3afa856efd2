// Backward formulas of padding, interpolation and cdist; their rows are in
// the table in formulas.cpp, in the block marked for them.
#pragma once

#include "autograd/formulas.h"

namespace gradtrack::autograd::resample {

/// Reflect/replicate padding and upsampling: the transposed map.
TensorList resample_bw(const BackwardCtx& c, const TensorList& g);
/// Their backward's own backward: the forward map again.
TensorList resample_backward_bw(const BackwardCtx& c, const TensorList& g);
TensorList constant_pad_bw(const BackwardCtx& c, const TensorList& g);
TensorList cdist_bw(const BackwardCtx& c, const TensorList& g);
TensorList euclidean_dist_bw(const BackwardCtx& c, const TensorList& g);

// Forward AD: every padding and resampling map is linear, so the tangent
// goes through the same map (the backward ops' through their own map).
Tensor resample_jvp(const JvpCtx& c);
Tensor resample_backward_jvp(const JvpCtx& c);
Tensor constant_pad_jvp(const JvpCtx& c);

}  // namespace gradtrack::autograd::resample
