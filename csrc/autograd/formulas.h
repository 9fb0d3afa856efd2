// The derivative table: every differentiable op's backward, its grad_fn name
// and exactly what its forward saves.
#pragma once

#include <initializer_list>
#include <memory>
#include <vector>

#include "autograd/attrs.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_tensor.h"
#include "autograd/variable.h"
#include "core/scalar.h"

namespace gradtrack::autograd {

// Every op that records a node, once. The table in formulas.cpp has one row
// per entry, checked at start-up (formula_table_ok()).
// clang-format off: one row per line, as a table
#define GT_FORALL_OPS(X)                                                                    \
  X(Add) X(AddScalar) X(Sub) X(SubScalar) X(Rsub) X(RsubScalar) X(Mul) X(MulScalar) X(Div)   \
  X(DivScalar) X(PowScalar) X(PowTensor) X(PowScalarBase) X(Neg) X(Abs) X(Exp) X(Log)       \
  X(Sqrt) X(Rsqrt) X(Sin) X(Cos) X(Tanh) X(Sigmoid) X(Relu) X(Reciprocal) X(Sign) X(Floor)   \
  X(Ceil) X(Round) X(Trunc) X(Log1p) X(Expm1) X(Maximum) X(Minimum) X(Clamp) X(ClampTensor) \
  X(Where) X(SumAll) X(SumDim) X(MeanAll) X(MeanDim) X(MaxAll) X(MinAll) X(MaxDim) X(MinDim) \
  X(View) X(UnsafeView) X(AsStrided) X(AsStridedInplace) X(T) X(TInplace) X(Transpose)       \
  X(Permute) X(Unsqueeze) X(UnsqueezeInplace) X(Squeeze) X(SqueezeDim) X(SqueezeInplace)     \
  X(Expand) X(Select) X(Slice) X(SelectBackward) X(SliceBackward) X(Clone) X(ToCopy)         \
  X(CopyInto) X(Fill) X(Zero) X(Normal) X(Uniform) X(Index) X(IndexPut) X(MaskedFill)        \
  X(Gather) X(ScatterAdd) X(IndexSelect) X(Cat) X(Stack) X(Split) X(Unbind) X(Mm) X(Mv)      \
  X(Dot) X(Bmm) X(Addmm) X(LogSoftmax) X(Softmax) X(NllLoss) X(MseLoss) X(ThresholdBackward)  \
  X(Prod) X(Amax) X(Remainder) X(RemainderScalar) X(DivRounding) X(DivRoundingScalar)    \
  X(SigmoidBackward) X(TanhBackward) X(ReshapeAlias) X(Alias) X(SplitWithSizes) X(MaskedFillTensor) \
  X(SqueezeDims) X(SqueezeDimInplace) X(FloorDivide) X(ProdDim) X(DivMode) X(DivModeScalar)   \
  X(MulByScalar) X(SubByScalar) X(DivByScalar) X(FillTensor) X(Sgn) X(IndexPutImpl) X(IndexAdd) \
  X(AddByScalar) X(SoftmaxBackwardData) X(LogSoftmaxBackwardData) \
  X(Scatter) X(ScatterValue) X(FloorDivideInplace) X(Fmod) X(FmodScalar) X(Atan2) X(Hypot)    \
  X(ClampMin) X(ClampMax) X(ClampMinTensor) X(ClampMaxTensor) X(Tan) X(Asin) X(Acos) X(Atan)   \
  X(Sinh) X(Cosh) X(Log2) X(Log10) X(Erf) X(Exp2) X(Frac)                                    \
  /* torch's random fills (ops/random.cpp) */                                                \
  X(Bernoulli) X(BernoulliTensor) X(BernoulliFunctional) X(Exponential) X(Geometric)         \
  X(Cauchy) X(LogNormal) X(RandomFromTo) X(RandomTo) X(Random) \
  /* convolution and pooling */ X(Convolution) X(ConvolutionNoBias) X(MaxPool2DWithIndices)  \
  X(AvgPool2D) X(AdaptiveAvgPool2D) X(AdaptiveMaxPool2D) X(AvgPool2DBackward)              \
  X(AdaptiveAvgPool2DBackward) X(ConvolutionBackward) X(MaxPool2DWithIndicesBackward)         \
  X(AdaptiveMaxPool2DBackward) \
  /* nn layers: activations, norms, embedding, losses */                                     \
  X(Gelu) X(Silu) X(LeakyRelu) X(LeakyReluInplace) X(Elu) X(EluInplace) X(Softplus)            \
  X(Hardtanh) X(Celu) X(CeluInplace) X(Mish) X(Hardswish) X(LogSigmoid) X(NativeLayerNorm)          \
  X(NativeGroupNorm) X(NativeBatchNorm) X(Embedding) X(BinaryCrossEntropy)                      \
  X(BinaryCrossEntropyWithLogits) X(SmoothL1Loss) X(HuberLoss) \
  /* round-2 tensor ops (issue 19): scans, sorts, statistics, shape ops */                  \
  X(Cumsum) X(Cumprod) X(Sort) X(Topk) X(Var) X(Std) X(VarMean) X(StdMean) X(Logsumexp)     \
  X(Tril) X(Triu) X(Flip) X(Roll) X(Repeat) X(Kthvalue) X(MedianDim) X(MedianAll) X(Mode)     \
  X(Diagonal) X(DiagonalCopy) X(DiagonalBackward) X(DiagEmbed) X(Trace) X(NanToNum)         \
  X(LerpScalar) X(LerpTensor) X(VectorNorm) X(Baddbmm) X(Addmv) X(Cross) X(SortStable)     \
  /* more unary math: erfc, erfinv, inverse hyperbolics, sinc, angle units */                 \
  X(Erfc) X(Erfinv) X(Asinh) X(Acosh) X(Atanh) X(Sinc) X(Deg2rad) X(Rad2deg)               \
  X(AsinhInplace) X(AcoshInplace) X(AtanhInplace)                                            \
  /* amin and masked_select */ X(Amin) X(MaskedSelect) \
  /* padding, interpolation, cdist (issue 19); resampling backward kinds follow */         \
  /* their forward kinds in the same order (ops/resample.cpp) */                          \
  X(ConstantPadNd) X(ReflectionPad1D) X(ReflectionPad2D) X(ReflectionPad3D)               \
  X(ReplicationPad1D) X(ReplicationPad2D) X(ReplicationPad3D) X(UpsampleNearest1D)        \
  X(UpsampleNearest2D) X(UpsampleNearest3D) X(UpsampleNearestExact1D)                     \
  X(UpsampleNearestExact2D) X(UpsampleNearestExact3D) X(UpsampleLinear1D)                 \
  X(UpsampleBilinear2D) X(UpsampleBicubic2D) X(UpsampleTrilinear3D)                       \
  X(ReflectionPad1DBackward) X(ReflectionPad2DBackward) X(ReflectionPad3DBackward)        \
  X(ReplicationPad1DBackward) X(ReplicationPad2DBackward) X(ReplicationPad3DBackward)     \
  X(UpsampleNearest1DBackward) X(UpsampleNearest2DBackward)                               \
  X(UpsampleNearest3DBackward) X(UpsampleNearestExact1DBackward)                          \
  X(UpsampleNearestExact2DBackward) X(UpsampleNearestExact3DBackward)                     \
  X(UpsampleLinear1DBackward) X(UpsampleBilinear2DBackward)                               \
  X(UpsampleBicubic2DBackward) X(UpsampleTrilinear3DBackward)                             \
  X(Cdist) X(EuclideanDist)                                                              \
  /* linalg.svd for svdvals and the matrix norms (issue 19) */ X(LinalgSvd) \
  /* recurrent layers (issue 19): the fused LSTM layer */ X(MkldnnRnnLayer)      \
  X(TransposeInplace)
// clang-format on

enum class OpKind : uint16_t {
#define GT_ENUM(K) K,
  GT_FORALL_OPS(GT_ENUM)
#undef GT_ENUM
      NumKinds
};

class FormulaNode;

/// What a backward formula sees: unpacked saved tensors, attributes, which
/// inputs need a gradient, and the forward inputs' shapes.
struct BackwardCtx {
  const FormulaNode& node;
  const TensorList& saved;  // by slot: inputs, then result, then extras
  bool needs(size_t i) const;
  /// The node's attribute struct T (NOTE [Named attributes] in attrs.h).
  template <class T>
  const T& attrs() const;
  const GradMeta& input(size_t i) const;
  const Tensor& saved_input(size_t i) const;
  const Tensor& result() const;
  const Tensor& extra(size_t i) const;
};

using BackwardFn = TensorList (*)(const BackwardCtx& ctx, const TensorList& grads);

/// What a forward-mode (jvp) formula sees (NOTE [Forward-mode AD] in
/// forward_ad.h): the forward inputs, their tangents (undefined where an input
/// has none), the result, the attributes and the extras the op recorded.
struct JvpCtx {
  const TensorList& primals;
  const TensorList& tangents;
  const Tensor& result;
  const Attrs& attrs_;
  const std::vector<const Tensor*>& extras;
  bool has(size_t i) const { return i < tangents.size() && tangents[i].defined(); }
  /// The op's attribute struct T (NOTE [Named attributes] in attrs.h).
  template <class T>
  const T& attrs() const {
    return attrs_.get<T>();
  }
};

/// Returns the result's tangent (undefined: zero); any shape that broadcasts
/// to the result's and any floating dtype (the caller fits it).
using JvpFn = Tensor (*)(const JvpCtx& ctx);

/// One row of the table (NOTE [Formula rows] in formulas.cpp).
struct FormulaRow {
  OpKind kind;
  const char* name;  // the grad_fn name
  BackwardFn fn;
  /// Per input: the set (bit j = input j's gradient) of gradients whose formula
  /// reads it; the input is saved only if one of them is needed, as PyTorch's
  /// generated code does.
  uint8_t input_needed_by[3] = {0, 0, 0};
  bool saves_result = false;
  bool saves_scalar = false;  // a wrapped-number operand counts as a saved tensor
  /// PyTorch wraps the Python number of `x + 1` into a tensor input, so the
  /// node has a second edge (None); ops taking a true Scalar (pow, clamp) don't.
  bool scalar_edge = false;
  /// Forward-mode derivative; null: forward AD raises PyTorch's "not
  /// implemented" error for the op.
  JvpFn jvp = nullptr;
};
const FormulaRow& formula_row(OpKind kind);
bool formula_table_ok();

/// A node built from a table row.
class FormulaNode : public Node {
 public:
  explicit FormulaNode(const FormulaRow& row) : row_(row) {}
  std::string name() const override { return row_.name; }
  TensorList apply(TensorList&& grads) override;
  void release_variables() override;

  const FormulaRow& row() const { return row_; }
  /// apply() in its three steps, for the engine's fused pair (NOTE [Fused
  /// relu backward]): whether it can still run, the saved tensors unpacked
  /// (every check and error of apply), and the formula's gradients summed and
  /// cast to the inputs' shapes and dtypes.
  bool runnable() const { return !(released_ && holds_saved); }
  TensorList unpack_saved();
  TensorList finish(TensorList out) const;
  Attrs attrs;
  GradMetaList inputs;                // shapes/dtypes of the forward inputs
  SmallVector<SavedTensor, 3> saved;  // slot layout: inputs, result, extras
  size_t num_extras = 0;
  bool holds_saved = false;

 private:
  const FormulaRow& row_;
  bool released_ = false;
};

template <class T>
const T& BackwardCtx::attrs() const {
  return node.attrs.get<T>();
}

/// True if grad mode is on and any of `inputs` requires grad.
bool should_record(std::initializer_list<const Tensor*> inputs);
/// Creates the node for `kind` with edges to `inputs`' histories.
std::shared_ptr<FormulaNode> new_node(OpKind kind, std::initializer_list<const Tensor*> inputs);
/// Saves what the row asks for and makes the node the producer of `outputs`.
void finish_node(const std::shared_ptr<FormulaNode>& node,
                 std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs,
                 const std::vector<const Tensor*>& extras = {});
/// In-place ops, before the write: saves the inputs as they are now (self as
/// `old_self`, a clone, when the formula needs its original value), so a
/// write through an operand that aliases self is caught like in PyTorch.
void save_inplace_inputs(const std::shared_ptr<FormulaNode>& node,
                         std::initializer_list<const Tensor*> inputs, const Tensor& old_self);
/// In-place ops, after the write: saves the result/extras and makes the node
/// self's history (CopySlices when self is a view).
void finish_inplace_node(const std::shared_ptr<FormulaNode>& node, const Tensor& self,
                         const std::vector<const Tensor*>& extras = {});
/// Whether an in-place op of `kind` with these inputs must clone self first.
bool inplace_needs_old_self(OpKind kind, std::initializer_list<const Tensor*> inputs);

}  // namespace gradtrack::autograd
