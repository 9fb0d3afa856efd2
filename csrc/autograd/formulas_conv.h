// Backward formulas of the convolution and pooling ops (rows in formulas.cpp).
#pragma once

#include "autograd/formulas.h"

namespace gradtrack::autograd {

TensorList convolution_bw(const BackwardCtx& c, const TensorList& g);
TensorList max_pool2d_bw(const BackwardCtx& c, const TensorList& g);
TensorList avg_pool2d_bw(const BackwardCtx& c, const TensorList& g);
TensorList adaptive_avg_pool2d_bw(const BackwardCtx& c, const TensorList& g);
TensorList avg_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g);
TensorList adaptive_avg_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g);
TensorList convolution_backward_bw(const BackwardCtx& c, const TensorList& g);
TensorList max_pool2d_backward_bw(const BackwardCtx& c, const TensorList& g);

}  // namespace gradtrack::autograd
