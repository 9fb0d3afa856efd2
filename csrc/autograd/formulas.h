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
#include "op_kinds.h"

namespace gradtrack::autograd {

// Every node kind, area by area: GT_FORALL_OPS from the derivative rows of
// python/gradtrack/_declarations (NOTE [One declaration per op]), written into
// the build tree as op_kinds.h.
enum class OpKind : uint16_t {
#define GT_ENUM(K) K,
  GT_FORALL_OPS(GT_ENUM)
#undef GT_ENUM
      NumKinds
};

/// What a backward formula sees: the unpacked saved tensors, the attributes,
/// which inputs need a gradient, and the forward inputs' shapes and dtypes.
/// A node's apply() makes one; so does forward AD, to run an elementwise op's
/// backward formula on a tangent (NOTE [Forward-mode derivatives from the
/// backward] in forward_ad.cpp).
struct BackwardCtx {
  OpKind kind;
  const Attrs& attributes;
  const GradMetaList& inputs;  // shapes/dtypes of the forward inputs
  const TensorList& saved;     // by slot: inputs, then result, then extras
  size_t num_extras;
  const EdgeList* edges;  // a node's edges: an input needs a gradient if its edge is valid
  uint64_t needed = 0;    // without edges: bit i set if input i needs a gradient

  bool needs(size_t i) const {
    if (edges) return i < edges->size() && edge_wanted((*edges)[i]);
    return i < 64 && ((needed >> i) & 1);
  }
  /// The node's attribute struct T (NOTE [Named attributes] in attrs.h).
  template <class T>
  const T& attrs() const {
    return attributes.get<T>();
  }
  size_t num_inputs() const { return inputs.size(); }
  const GradMeta& input(size_t i) const { return inputs[i]; }
  const Tensor& saved_input(size_t i) const { return saved[i]; }
  const Tensor& result() const { return saved[inputs.size()]; }
  const Tensor& extra(size_t i) const { return saved[saved.size() - num_extras + i]; }
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

/// One row of the table (NOTE [Formula rows] in formula_table.cpp), written
/// from python/gradtrack/_declarations at build time.
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
  /// Forward-mode derivative; null and not jvp_from_backward: forward AD
  /// raises PyTorch's "not implemented" error for the op.
  JvpFn jvp = nullptr;
  /// An elementwise op: its jvp is its backward formula on the tangent.
  bool jvp_from_backward = false;
  /// PyTorch's generated node saves (visible to pack hooks) and unpacks (which
  /// modified tensor an error names) its inputs last first.
  bool saves_last_input_first = false;
  bool unpacks_last_input_first = false;
  /// PyTorch's NotImplemented node: made without a sequence number (it runs as
  /// early as an AccumulateGrad), and forward AD's error names the aten op.
  bool not_implemented = false;
  /// The formula takes each incoming gradient as given or absent (PyTorch's
  /// undefined gradients) instead of zero-filled (NOTE [Absent gradients] in engine.cpp).
  bool takes_absent_grads = false;
  /// The aten name forward AD's error names, where it is not the grad_fn's.
  const char* aten_name = nullptr;

  bool has_jvp() const { return jvp || jvp_from_backward; }
};
const FormulaRow& formula_row(OpKind kind);
bool formula_table_ok();
/// The row's forward-mode derivative: its jvp, or its backward on the tangents.
Tensor run_jvp(const FormulaRow& row, const JvpCtx& c);

/// A node built from a table row.
class FormulaNode : public Node {
 public:
  explicit FormulaNode(const FormulaRow& row) : row_(row) {}
  std::string name() const override { return row_.name; }
  TensorList apply(TensorList&& grads) override;
  void release_variables() override;
  void check_silent_writes() const override {
    for (const SavedTensor& s : saved) s.check_silent(*this);
  }

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

/// True if grad mode is on and any of `inputs` requires grad.
bool should_record(std::initializer_list<const Tensor*> inputs);
/// Creates the node for `kind` with edges to `inputs`' histories.
std::shared_ptr<FormulaNode> new_node(OpKind kind, std::initializer_list<const Tensor*> inputs);
/// Saves what the row asks for and makes the node the producer of `outputs`.
void finish_node(const std::shared_ptr<FormulaNode>& node,
                 std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs,
                 const std::vector<const Tensor*>& extras = {});
/// finish_node for a node whose formulas read its own outputs (the
/// decompositions): they are its extras, saved as outputs (PyTorch's is_output:
/// no reference cycle, and a double backward sees them with their history).
void finish_node_saving_outputs(const std::shared_ptr<FormulaNode>& node,
                                std::initializer_list<const Tensor*> inputs,
                                std::initializer_list<const Tensor*> outputs);
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
