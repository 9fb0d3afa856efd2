// A tensor kept for backward, with the version it had when saved.
#pragma once

#include <memory>

#include "autograd/node.h"
#include "autograd/saved_tensor_hooks.h"
#include "core/silent_writes.h"

namespace gradtrack::autograd {

/// NOTE [Saved tensors]
/// An op saves exactly what its formula needs (the formula table says what).
/// Inputs are kept as the original tensor object, so the error can name the
/// op that last wrote it (its current grad_fn). Outputs are kept as an alias
/// without grad_fn, to avoid a node -> tensor -> node cycle; unpacking under
/// create_graph re-attaches the owner as their grad_fn. unpack() is THE place
/// that compares versions and that reports use after release.
/// The output of an in-place op on a view is the view, whose node is then its
/// regenerated AsStridedBackward0: that node (while it lives) is what errors
/// name and what create_graph re-attaches, as in PyTorch.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output, bool inplace_on_view = false);

  /// The saved value; throws PyTorch's errors if released or overwritten.
  /// A saved output gets `owner` back as its grad_fn when grad mode is on
  /// (double backward), or always with `attach_always` (what a custom
  /// Function's ctx.saved_tensors shows).
  Tensor unpack(const std::shared_ptr<Node>& owner, bool attach_always = false) const;
  void release() {
    data_ = Tensor();
    packed_.reset();
    history_.reset();
    region_.reset();
    released_ = true;
  }
  /// NOTE [Silent writes]: throws when the memory this tensor reads differs
  /// from what was saved while its version counter did not move (only for a
  /// tensor saved with the detector on). `owner` is the node that saved it.
  void check_silent(const Node& owner) const;
  /// The same check as words for explain(), "changed by mul_ (through
  /// .data) at t.py:14"; "" when nothing changed.
  std::string silent_change() const;
  bool defined() const { return data_.defined() || packed_ || released_; }
  bool released() const { return released_; }
  uint32_t saved_version() const { return version_; }
  /// The saved tensor without checks (explain(), error messages).
  const Tensor& peek() const { return data_; }
  bool is_output() const { return is_output_; }

 private:
  void pack_with(const SavedTensorHooks& hooks, const Tensor& t);
  Tensor unpack_packed(const std::shared_ptr<Node>& owner, bool attach_always) const;

  Tensor data_;
  /// NOTE [Saved tensor hooks]: with hooks, the packed object replaces data_;
  /// an input's history (grad_fn or leaf accumulator) is kept beside it so
  /// that double backward still reaches the input.
  std::shared_ptr<PackedTensor> packed_;
  std::shared_ptr<Node> history_;
  std::weak_ptr<Node> view_fn_;  // inplace_on_view: the view's node after the write
  std::shared_ptr<silent_writes::SavedRegion> region_;  // watched: the memory as saved
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool had_grad_fn_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

/// PyTorch's "Trying to backward through the graph a second time ..." text.
std::string second_backward_message();

}  // namespace gradtrack::autograd
