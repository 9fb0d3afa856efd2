// The backward of the fused LSTM layer (formulas_rnn.cpp); its row is in the
// table of formulas.cpp.
#pragma once

#include "autograd/formulas.h"

namespace gradtrack::autograd::rnn_formulas {

TensorList lstm_layer_bw(const BackwardCtx& c, const TensorList& g);

}  // namespace gradtrack::autograd::rnn_formulas
