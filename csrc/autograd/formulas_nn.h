// The backward formulas of the nn layer ops (formulas_nn.cpp); their rows
// are in the table of formulas.cpp.
#pragma once

#include "autograd/formulas.h"

namespace gradtrack::autograd::nn_formulas {

TensorList activation_bw(const BackwardCtx& c, const TensorList& g);
TensorList group_norm_bw(const BackwardCtx& c, const TensorList& g);
TensorList batch_norm_bw(const BackwardCtx& c, const TensorList& g);
TensorList embedding_bw(const BackwardCtx& c, const TensorList& g);
TensorList bce_bw(const BackwardCtx& c, const TensorList& g);
TensorList bce_logits_bw(const BackwardCtx& c, const TensorList& g);
TensorList smooth_l1_bw(const BackwardCtx& c, const TensorList& g);
TensorList huber_bw(const BackwardCtx& c, const TensorList& g);
// forward-mode AD (jvp) of the activations
Tensor activation_jvp(const JvpCtx& c);

}  // namespace gradtrack::autograd::nn_formulas
