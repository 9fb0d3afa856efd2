// Pointwise kernels: pure math on strided memory. No autograd, no Python.
//
// Callers (csrc/ops/) have already promoted dtypes, broadcast shapes and
// allocated `out`; inputs of an arithmetic kernel share the compute dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

#include "core/scalar.h"
#include "core/tensor.h"
#include "kernels/copy.h"
#include "op_list.h"

namespace gradtrack::kernels {

// Both enums are expanded from the op list (NOTE [One declaration per op] in
// python/gradtrack/_declarations; the build writes it as op_list.h).
#define GT_KERNEL_ENUM(K) K,
enum class BinaryOp { GT_BINARY_KERNELS(GT_KERNEL_ENUM) };
enum class UnaryOp { GT_UNARY_KERNELS(GT_KERNEL_ENUM) };
#undef GT_KERNEL_ENUM

bool is_comparison(BinaryOp op);

/// out = a op b (op's `alpha` scales b for Add/Sub). `b` may be a Scalar.
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha);
void binary_scalar(BinaryOp op, const Tensor& out, const Tensor& a, Scalar b, Scalar alpha,
                   bool scalar_first);
void unary(UnaryOp op, const Tensor& out, const Tensor& a);
/// Integer division by zero is an error in PyTorch; checked before dividing.
bool any_zero(const Tensor& t);

void clamp(const Tensor& out, const Tensor& a, std::optional<Scalar> lo, std::optional<Scalar> hi);
void clamp_tensor(const Tensor& out, const Tensor& a, const Tensor* lo, const Tensor* hi);
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
/// out = torch.lerp(a, end, w), one float dtype (w may be a 0-dim tensor; reduced floats
/// computed in float32 and rounded once, as torch's opmath).
void lerp(const Tensor& out, const Tensor& a, const Tensor& end, const Tensor& w);
/// out = torch.nan_to_num(a) of float32 or float64, with NaN, +inf and -inf replaced by
/// with[0..2] (already in a's dtype's range).
void nan_to_num(const Tensor& out, const Tensor& a, const double* with);
/// out = torch.addcmul(self, t1, t2, value=value), or addcdiv with `divide`, one float
/// dtype, rounded as torch's kernels (simd::addcmul; reduced floats in float32).
void addcmul(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
             double value, bool divide);
/// Fused backward helpers: g where !(y <= 0) (NaN passes), g * y * (1 - y), g * (1 - y*y).
void threshold_backward(const Tensor& out, const Tensor& g, const Tensor& y);
void sigmoid_backward(const Tensor& out, const Tensor& g, const Tensor& y);
void tanh_backward(const Tensor& out, const Tensor& g, const Tensor& y);
/// Both gradients of a * b in one pass over memory (dense, same shape and
/// dtype): ga = g * b, gb = g * a.
void mul_backward(const Tensor& ga, const Tensor& gb, const Tensor& g, const Tensor& a,
                  const Tensor& b);
/// threshold_backward followed by a multiplication, in one pass:
/// out = (y <= 0 ? 0 : g) * other (NOTE [Fused relu backward]).
void relu_mul_backward(const Tensor& out, const Tensor& g, const Tensor& y, const Tensor& other);

}  // namespace gradtrack::kernels
