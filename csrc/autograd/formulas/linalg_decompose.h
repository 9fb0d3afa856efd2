// The forward-mode tangents of the decompositions (svd, qr, eigh), which give
// several outputs their tangents at once: ops/linalg_decompose.cpp sets them.
// Their backward formulas are rows of the table (formulas/linalg_decompose.cpp).
#pragma once

#include <tuple>

#include "core/tensor.h"

namespace gradtrack::autograd::formulas {

/// (dU, dS, dVh) of A = U diag(S) Vh along dA (reduced factors, real input).
std::tuple<Tensor, Tensor, Tensor> linalg_svd_tangents(const Tensor& da, const Tensor& u,
                                                       const Tensor& s, const Tensor& vh);
/// (dQ, dR) of A = Q R along dA (Q with min(m, n) columns).
std::pair<Tensor, Tensor> linalg_qr_tangents(const Tensor& da, const Tensor& q, const Tensor& r);
/// (dL, dV) of A = V diag(L) V^T along dA.
std::pair<Tensor, Tensor> linalg_eigh_tangents(const Tensor& da, const Tensor& l, const Tensor& v);

}  // namespace gradtrack::autograd::formulas
