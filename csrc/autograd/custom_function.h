// The node of a user-defined autograd Function: its backward is a callback
// supplied by the language binding.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "autograd/saved_tensor.h"

namespace gradtrack::autograd {

/// The user's backward, as the binding supplies it. The binding owns whatever
/// objects of its language the callback holds, and must release them safely
/// (for Python: with the GIL held) in its destructor.
class FunctionCallback {
 public:
  virtual ~FunctionCallback() = default;
  /// One gradient per forward output (undefined where none arrived and the
  /// node does not materialize), returns one per forward tensor input.
  virtual TensorList call(TensorList&& grads) = 0;
  /// The node is being destroyed (its edges still intact): a binding whose
  /// ctx object outlives the node keeps what it can still answer.
  virtual void node_destroyed(const Node& node) {}
};

/// NOTE [Custom function nodes]
/// A custom Function records one node like any op: edges to its tensor
/// inputs, one gradient slot per tensor output, and the tensors the user
/// saved, kept as SavedTensor so the version check, the "backward through the
/// graph a second time" error and retain_graph behave exactly as for built-in
/// nodes. Only the backward differs: the engine calls the callback, which runs
/// the user's code (taking the GIL first; the engine itself holds no Python
/// state). As in PyTorch, freeing the graph frees only the saved tensors: a
/// backward that never reads them can run again.
class CustomFunctionNode : public Node {
 public:
  CustomFunctionNode(std::string name, std::unique_ptr<FunctionCallback> callback)
      : name_(std::move(name)), callback_(std::move(callback)) {}
  ~CustomFunctionNode() override;

  std::string name() const override { return name_; }
  TensorList apply(TensorList&& grads) override;
  void release_variables() override;
  bool materialize_grads() const override { return materialize_; }
  void set_materialize_grads(bool value) { materialize_ = value; }
  void check_silent_writes() const override {
    for (const SavedTensor& s : saved_) s.check_silent(*this);
  }

  /// Saves `t` (undefined: the user saved None); `is_output` when `t` is one
  /// of this node's outputs (kept without its history: no cycle).
  void save(const Tensor& t, bool is_output);
  /// The saved tensors, checked (NOTE [Saved tensors]); an output comes back
  /// with this node as its grad_fn, as PyTorch's ctx.saved_tensors does.
  TensorList unpack_saved();
  FunctionCallback* callback() const { return callback_.get(); }

 private:
  std::string name_;
  std::unique_ptr<FunctionCallback> callback_;
  std::vector<SavedTensor> saved_;
  bool materialize_ = true;
};

/// How a custom Function's output relates to its inputs, decided by the
/// caller (which sees the user's objects).
struct FunctionOutput {
  Tensor value;
  bool is_input = false;  // the very tensor object of an input
  bool dirty = false;     // marked with ctx.mark_dirty
  bool non_differentiable = false;
};

/// Wires the outputs of a custom Function to `node` (null when nothing is
/// recorded), as PyTorch's _wrap_outputs: dirty outputs get the node as their
/// new history (CopySlices for a view), an input returned unchanged becomes a
/// view of it, non-differentiable outputs get a gradient slot but no history.
/// Returns the tensors the user receives.
TensorList wrap_function_outputs(const std::shared_ptr<CustomFunctionNode>& node,
                                 std::vector<FunctionOutput>& outputs);

}  // namespace gradtrack::autograd
