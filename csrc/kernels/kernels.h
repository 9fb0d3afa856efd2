// The kernel API: pure math on strided memory. No autograd, no Python.
//
// Callers (csrc/ops/) have already promoted dtypes, broadcast shapes and
// allocated `out`; inputs of an arithmetic kernel share the compute dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

#include "core/scalar.h"
#include "core/tensor.h"
#include "kernels/pointwise_ops.h"

namespace gradtrack::kernels {

// NOTE [Unaligned memory]
// A tensor made by from_numpy/as_tensor aliases the array's memory, and NumPy
// allows arrays whose data is not aligned to the element size (torch aliases
// those too). Reading such memory through a `double*` is undefined behaviour,
// so the loops in loops.h take their typed fast paths only when every pointer is
// aligned, and otherwise read and write each element with memcpy. Strides are
// multiples of the element size, so one check of the run's first element
// decides for the whole run. Other kernels read and write such tensors with
// load/store, or read an aligned() copy.
template <typename T>
inline T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
inline void store(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
template <typename T>
inline bool aligned_for(const char* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

// Both enums are expanded from the op list (NOTE [The op list]).
enum class BinaryOp { GT_BINARY_OPS(GT_FIRST_COLUMN) GT_BINARY_KERNELS_ONLY(GT_FIRST_COLUMN) };
enum class UnaryOp { GT_UNARY_OPS(GT_FIRST_COLUMN) GT_UNARY_KERNELS_ONLY(GT_FIRST_COLUMN) };

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
/// out = src, converting dtype and broadcasting src.
void copy(const Tensor& out, const Tensor& src);
/// For kernels that read through typed pointers: `t` itself when its memory is
/// aligned for its dtype, else a contiguous copy (NOTE [Unaligned memory]).
Tensor aligned(const Tensor& t);
void fill(const Tensor& out, Scalar value);
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
/// out = a + alpha * b (a fused step for SGD and accumulation).
void add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha);

}  // namespace gradtrack::kernels

namespace gradtrack::kernels {

enum class ReduceOp { Sum, Prod, Max, Min, Any, All };

/// out (keepdim shape) = reduction of `in` over the dims set in `mask`.
/// Sum/Prod of integers must arrive as int64; Any/All read any dtype.
void reduce(ReduceOp op, const Tensor& out, const Tensor& in, uint64_t mask);
/// Max or min over the dims in `mask` (one dim, or all) with the flat index of
/// the first extreme element (NaN counts as the extreme, as in PyTorch).
/// `values` may be null (argmax/argmin).
void reduce_arg(bool is_max, const Tensor* values, const Tensor& indices, const Tensor& in,
                uint64_t mask);

}  // namespace gradtrack::kernels

namespace gradtrack::kernels {

/// out[b] = beta * out[b] + a[b] @ b[b] for every batch b. Operands are 3-D
/// ([B, M, K] @ [B, K, N] -> [B, M, N]) with any strides; `out` is dense.
/// `name` is the kernel PyTorch's "not implemented for" error names.
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate,
          const char* name = "addmm_impl_cpu_");
/// Pins OpenBLAS to one thread (NOTE [One thread pool]); returns its core name.
const char* blas_init();

/// A counter-based generator (Philox4x32-10): the same seed gives the same
/// numbers whatever the thread count, because element i of a draw always uses
/// counter (offset + i).
class Generator {
 public:
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  /// Reserves n counters; returns the first.
  uint64_t advance(uint64_t n);
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_state(uint64_t seed, uint64_t offset) {
    seed_ = seed;
    offset_ = offset;
  }

 private:
  uint64_t seed_ = 67280421310721ULL;  // PyTorch's default CPU seed
  uint64_t offset_ = 0;
};
Generator& default_generator();

void uniform(const Tensor& out, double lo, double hi, Generator& gen);
void normal(const Tensor& out, double mean, double std, Generator& gen);
/// Integers in [lo, hi).
void randint(const Tensor& out, int64_t lo, int64_t hi, Generator& gen);
/// A random permutation of 0..n-1 into a dense int64 tensor.
void randperm(const Tensor& out, Generator& gen);

}  // namespace gradtrack::kernels
