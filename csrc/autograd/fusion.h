// Two backward nodes run as one pass over memory (NOTE [Fused relu backward]).
#pragma once

#include <cstdint>
#include <functional>

#include "autograd/formulas.h"

namespace gradtrack::autograd {

/// The MulBackward0 node that relu node `node` sends its gradient to, when the
/// tensors allow the pair to run as one pass; null otherwise. Looks only at
/// the nodes and tensors: whether anything else could see the gradient between
/// the two nodes is the engine's question.
FormulaNode* relu_mul_partner(Node& node, const TensorList& grads);

/// Runs `relu` then `mul` (its partner) as one pass, with everything a user
/// can observe in the order the two separate runs would give: relu's saved
/// result is checked, `done(relu)`, mul's saved inputs are checked, the
/// gradients are computed, `done(mul)`. Returns mul's gradients.
TensorList run_relu_mul(FormulaNode& relu, FormulaNode& mul, const Tensor& g,
                        const std::function<void(Node&)>& done);

/// How many pairs ran fused in this process (tests check which graphs fuse).
uint64_t fused_pairs();
/// Turns fusion off or on (tests compare the two); returns the previous setting.
bool set_fusion_enabled(bool on);

}  // namespace gradtrack::autograd
