// The non-tensor arguments a node keeps for its formulas, by name.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>

#include "core/error.h"
#include "core/scalar.h"
#include "core/small_vector.h"
#include "kernels/nn/activation.h"
#include "kernels/nn/rnn.h"
#include "ops/nn/conv.h"
#include "ops/resample.h"

namespace gradtrack::autograd {

// NOTE [Named attributes]
// A node keeps the non-tensor arguments its formulas read as named fields, as
// PyTorch's generated nodes do (`dim`, `keepdim`, `alpha`): one struct per
// family of formulas that read the same things, its fields named as
// derivatives.yaml and native_functions.yaml name the arguments. An op sets its
// struct when it records (`record(..., [&](DimAttrs& at) { at.dim = d; })`), a
// formula reads it back (`c.attrs<DimAttrs>().dim`). Attrs holds exactly one of
// them; reading another is a bug in gradtrack, reported as an internal error
// naming both structs, never a read of unrelated bytes.
//
// Every node pays for Attrs' largest inline alternative. The few structs larger
// than addmm's (nn.Linear's node) belong to ops that are rarer and far costlier
// than one allocation (convolution, pooling, resampling, as_strided regenerated
// after an in-place write): they are kept on the heap, so a node of add or sum
// is not as large as a convolution's arguments.

/// add, sub, rsub (tensor or number other) and add_, sub_: other's factor.
struct AlphaAttrs {
  Scalar alpha;
};
/// mul, div (every rounding mode) with a number other, mul_by_scalar,
/// div_by_scalar, and the in-place forms with a number (also remainder_,
/// fmod_, floor_divide_).
struct ScalarOperandAttrs {
  Scalar other;
};
/// pow(tensor, number), pow_ with a number, square_ (pow_(2)).
struct PowAttrs {
  Scalar exponent;
};
/// pow(number, tensor): the number (torch's `self`).
struct PowBaseAttrs {
  Scalar base;
};
/// polygamma(n, x): the order.
struct PolygammaAttrs {
  int64_t n = 0;
};
/// mvlgamma(x, p): the dimension.
struct MvlgammaAttrs {
  int64_t p = 1;
};
/// logit(x, eps): the clamp of the input (below 0: none, torch's eps=None).
struct LogitAttrs {
  double eps = -1;
};
/// clamp, clamp_min, clamp_max with number bounds, and their in-place forms.
struct ClampAttrs {
  std::optional<Scalar> min, max;
};
/// addcmul, addcdiv and their in-place forms: the factor of the product or quotient.
struct ValueAttrs {
  Scalar value;
};
/// index_add and index_add_: the indexed dim and source's factor.
struct DimAlphaAttrs {
  int64_t dim = 0;
  Scalar alpha;
};
/// lerp with a number weight.
struct LerpAttrs {
  Scalar weight;
};
/// sum, mean, amax, amin, logsumexp: the reduced dims (wrapped, ascending).
struct ReduceAttrs {
  DimVector dim;
  bool keepdim = false;
  int64_t reduced_numel = 0;  // elements reduced into each result element (mean)
};
/// var, std, var_mean, std_mean.
struct VarAttrs : ReduceAttrs {
  double correction = 0;
};
/// linalg.vector_norm.
struct VectorNormAttrs : ReduceAttrs {
  double ord = 2;
};
/// max, min, median along a dim, kthvalue, mode, prod along a dim.
struct DimReduceAttrs {
  int64_t dim = 0;
  bool keepdim = false;
};
/// gather, scatter, scatter_add, index_select, sort, topk, cumsum, cumprod, cummax,
/// cummin, logcumsumexp,
/// softmax, log_softmax and their backward ops, cross, stack, unbind,
/// unsqueeze, unsqueeze_, squeeze(dim).
struct DimAttrs {
  int64_t dim = 0;
};
/// cat (each input's length along dim), split and split_with_sizes (each
/// piece's length: their backward is a cat).
struct CatAttrs {
  int64_t dim = 0;
  DimVector sizes;
};
/// transpose, transpose_.
struct TransposeAttrs {
  int64_t dim0 = 0, dim1 = 0;
};
/// permute, flip.
struct DimsAttrs {
  DimVector dims;
};
/// roll.
struct RollAttrs {
  DimVector shifts, dims;
};
/// repeat.
struct RepeatAttrs {
  DimVector repeats;
};
/// tril, triu and their in-place forms.
struct TriangleAttrs {
  int64_t diagonal = 0;
};
/// diagonal, diagonal_copy, diagonal_backward, diag_embed.
struct DiagonalAttrs {
  int64_t offset = 0, dim1 = 0, dim2 = 0;
};
/// select, select_backward (input_sizes: select's input; empty for select_backward).
struct SelectAttrs {
  DimVector input_sizes;
  int64_t dim = 0, index = 0;
};
/// slice, slice_backward (input_sizes: slice's input; empty for slice_backward).
struct SliceAttrs {
  DimVector input_sizes;
  int64_t dim = 0, start = 0, end = 0, step = 1;
};
/// unfold, unfold_backward (self_sizes: unfold's input; empty for unfold_backward).
struct UnfoldAttrs {
  DimVector self_sizes;
  int64_t dimension = 0, size = 0, step = 1;
};
/// as_strided, and the node a view gets when its base was written in place.
struct AsStridedAttrs {
  DimVector size, stride;
  int64_t storage_offset = 0;
  DimVector base_stride;
  int64_t base_offset = 0;
};
/// constant_pad_nd.
struct PadAttrs {
  DimVector pad;
};
/// masked_select: the broadcast shape of input and mask.
struct MaskedSelectAttrs {
  DimVector shape;
};
/// index, index_put, index_put_, _index_put_impl_, index_add_ (the index
/// tensors are the node's extras).
struct IndexAttrs {
  DimVector has_index;  // per indexed dim: 1 if an index tensor indexes it
  bool accumulate = false;
};
/// mm: the operands' strides (a column-major operand gets a column-major gradient).
struct MmAttrs {
  DimVector mat1_strides, mat2_strides;
};
/// addmm.
struct AddmmAttrs : MmAttrs {
  Scalar beta, alpha;
};
/// baddbmm, addmv.
struct BetaAlphaAttrs {
  Scalar beta, alpha;
};
/// nll_loss, mse_loss, binary_cross_entropy(_with_logits), smooth_l1_loss,
/// huber_loss. reduction: 0 none, 1 mean, 2 sum.
struct LossAttrs {
  int64_t reduction = 0;
  int64_t ignore_index = -100;
  bool has_weight = false, has_pos_weight = false;
  double beta = 0;   // smooth_l1_loss
  double delta = 0;  // huber_loss
};
/// cdist, dist.
struct CdistAttrs {
  double p = 2;
};
/// renorm.
struct RenormAttrs {
  double p = 2;
  int64_t dim = 0;
  double maxnorm = 0;
};
/// scatter_reduce, index_reduce (reduce: 0 sum, 1 prod, 2 mean, 3 amax, 4 amin).
struct ScatterReduceAttrs {
  int64_t dim = 0;
  int64_t reduce = 0;
  bool include_self = true;
};
/// native_layer_norm, native_group_norm, native_batch_norm: x read as
/// (n, c, l) in `groups` groups (NOTE [One layout for three norms]).
struct NormAttrs {
  int64_t n = 0, c = 0, l = 0, groups = 0;
  double eps = 0;
  bool has_weight = false;
  bool training = false;  // batch_norm: batch statistics, not the running ones
};
/// gelu, silu, leaky_relu, elu/selu/celu, softplus, hardtanh, mish,
/// hardswish, log_sigmoid, and the in-place forms.
struct ActivationAttrs {
  kernels::nn::Act act = kernels::nn::Act::Gelu;
  kernels::nn::ActParams params;
  bool from_result = false;  // an in-place form: the formula reads the result
};
/// embedding.
struct EmbeddingAttrs {
  int64_t num_weights = 0, padding_idx = -1;
  bool scale_grad_by_freq = false;
};
/// linalg.solve_ex, solve_triangular, cholesky_ex, cholesky_solve; svd
/// (full_matrices), qr (mode: 0 'reduced', 1 'complete', 2 'r').
struct LinalgAttrs {
  bool upper = false, left = true, unitriangular = false, full_matrices = false;
  int mode = 0;
};
/// convolution_backward (ConvolutionBackwardBackward0): which gradients it computed.
struct ConvBackwardAttrs {
  ops::ConvArgs args;
  std::array<bool, 3> output_mask{};
};
// Used as they are: convolution (ConvArgs); max_pool2d_with_indices,
// avg_pool2d, avg_pool2d_backward (PoolArgs); the reflection and replication
// pads, the upsamplings and their backward ops (ResampleSpec); the fused LSTM
// layer (LstmDims).
using kernels::nn::LstmDims;
using ops::ConvArgs;
using ops::PoolArgs;
using ops::ResampleSpec;

// Every attribute struct, once: the alternatives of Attrs.
// clang-format off: one name per struct, as a table
#define GT_FORALL_ATTRS(X)                                                                   \
  X(AlphaAttrs) X(ScalarOperandAttrs) X(PowAttrs) X(PowBaseAttrs) X(PolygammaAttrs) X(ClampAttrs) X(LerpAttrs) \
  X(ReduceAttrs) X(VarAttrs) X(VectorNormAttrs) X(DimReduceAttrs) X(DimAttrs) X(CatAttrs)    \
  X(TransposeAttrs) X(DimsAttrs) X(RollAttrs) X(RepeatAttrs) X(TriangleAttrs)               \
  X(DiagonalAttrs) X(SelectAttrs) X(SliceAttrs) X(AsStridedAttrs) X(PadAttrs)               \
  X(MaskedSelectAttrs) X(IndexAttrs) X(MmAttrs) X(AddmmAttrs) X(BetaAlphaAttrs) X(LossAttrs) \
  X(CdistAttrs) X(NormAttrs) X(ActivationAttrs) X(EmbeddingAttrs) X(ConvArgs)               \
  X(ConvBackwardAttrs) X(PoolArgs) X(ResampleSpec) X(LstmDims) X(ValueAttrs) X(DimAlphaAttrs) \
  X(LinalgAttrs) X(RenormAttrs) X(ScatterReduceAttrs) X(UnfoldAttrs) X(MvlgammaAttrs)        \
  X(LogitAttrs)
// clang-format on

namespace attrs_detail {
// NOTE [Named attributes]: larger than addmm's, a struct is kept on the heap.
template <class T>
constexpr bool kBoxed = sizeof(T) > sizeof(AddmmAttrs);
template <class T>
using Stored = std::conditional_t<kBoxed<T>, std::unique_ptr<T>, T>;

template <class V, class T, size_t I = 0>
constexpr size_t index_of() {
  if constexpr (std::is_same_v<std::variant_alternative_t<I, V>, T>) {
    return I;
  } else {
    return index_of<V, T, I + 1>();
  }
}

[[noreturn]] inline void wrong_attrs(const char* wanted, const char* held) {
  throw Error(str_cat("gradtrack internal error: a formula read the attributes as ", wanted,
                      ", but the op recorded ", held));
}
}  // namespace attrs_detail

/// The attribute struct of one node (NOTE [Named attributes]); no attributes
/// (std::monostate) until an op sets one.
class Attrs {
 public:
  /// Makes this hold a default T, replacing what it held, and returns it to fill.
  template <class T>
  T& set() {
    using S = attrs_detail::Stored<T>;
    if constexpr (attrs_detail::kBoxed<T>) {
      return *value_.template emplace<S>(std::make_unique<T>());
    } else {
      return value_.template emplace<S>();
    }
  }
  /// The T this holds; anything else is an internal error.
  template <class T>
  const T& get() const {
    const auto* held = std::get_if<attrs_detail::Stored<T>>(&value_);
    if constexpr (attrs_detail::kBoxed<T>) {
      if (held && *held) return **held;
    } else {
      if (held) return *held;
    }
    attrs_detail::wrong_attrs(kNames[attrs_detail::index_of<Value, attrs_detail::Stored<T>>()],
                              kNames[value_.index()]);
  }

 private:
#define GT_ATTRS_ALTERNATIVE(T) , attrs_detail::Stored<T>
  using Value = std::variant<std::monostate GT_FORALL_ATTRS(GT_ATTRS_ALTERNATIVE)>;
#undef GT_ATTRS_ALTERNATIVE
#define GT_ATTRS_NAME(T) , #T
  static constexpr const char* kNames[] = {"no attributes" GT_FORALL_ATTRS(GT_ATTRS_NAME)};
#undef GT_ATTRS_NAME
  Value value_;
};

}  // namespace gradtrack::autograd
