// What the formula files share: the math names they are written in, short
// names for the contexts, and a few helpers. Included by every
// autograd/formulas/<area>.cpp and by nothing else.
//
// Each formula returns one gradient per forward input (undefined where not
// needed) and is written with differentiable ops, so create_graph=True (double
// backward) works. FormulaNode::apply then sums each gradient down to its
// input's shape and casts it to its dtype: no formula undoes broadcasting.
#pragma once

#include "formula_decls.h"
#include "ops/common.h"
#include "ops/ops.h"

namespace gradtrack::autograd::formulas {

using namespace ::gradtrack::ops;  // NOLINT: the formulas read as math
using TL = TensorList;
using C = BackwardCtx;
using J = JvpCtx;

/// Forward-mode formulas read input i's primal as x(c, i) and tangent as t(c, i).
namespace args {
inline const Tensor& x(const J& c, size_t i = 0) { return c.primals[i]; }
inline const Tensor& t(const J& c, size_t i = 0) { return c.tangents[i]; }
/// Tangent i, zeros where the input has none.
Tensor t_or_zero(const J& c, size_t i);
/// The sum of two optional terms (undefined: absent).
Tensor plus(const Tensor& a, const Tensor& b);
}  // namespace args
using namespace args;  // NOLINT: x(c), t(c)
using ops::t;          // t(c) would otherwise hide ops::t (transpose) from the formulas

/// A zero of `like`'s dtype, or of the result's (forward mode).
Tensor zero_scalar(const Tensor& like);
Tensor zero_scalar(const J& c);
/// Zeros shaped and typed like forward input i.
Tensor zeros_of(const C& c, size_t i);
/// What at::zeros gives inside a PyTorch formula: its zero_ runs through the
/// autograd layer and counts as a write, so the tensor is at version 1
/// (new_zeros and zeros_like are not).
Tensor written_zeros_of(const C& c, size_t i);
/// PyTorch's maybe_multiply: the Scalar overload (MulBackward1), skipped for 1.
Tensor scale(const Tensor& g, Scalar s);
Tensor times(const Tensor& t, double v);
Tensor plus(const Tensor& t, double v);
Tensor one_minus(const Tensor& t);
/// The constant c as a function of s with derivative zero (sign's): a piecewise
/// constant derivative must still be a node of s's graph, as torch's
/// *BackwardBackward nodes are, so a second backward reaches s (with zeros).
Tensor flat(const Tensor& s, double c);
/// v where cond holds, zero elsewhere (forward mode).
Tensor mask_where(const Tensor& cond, const Tensor& v, const J& c);
/// The index list of an indexing node: IndexAttrs::has_index says which dims
/// have an index, the extras are the index tensors.
IndexList saved_indices(const C& c);
IndexList saved_indices(const J& c);

}  // namespace gradtrack::autograd::formulas
