// The engine's special nodes: AccumulateGrad (leaves), CopySlices (in-place
// writes through views), GraphRoot (several roots at once).
#pragma once

#include "autograd/formulas.h"

namespace gradtrack::autograd {

/// Adds incoming gradients into a leaf's .grad (PyTorch's accumulation rules).
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return str_cat(kModule, "::autograd::AccumulateGrad"); }
  TensorList apply(TensorList&& grads) override;
  bool is_accumulate_grad() const override { return true; }
  const Tensor& variable() const { return variable_; }
  /// The leaf's tensor hooks applied to `g` (also used by autograd.grad,
  /// which captures a leaf's gradient without accumulating it).
  Tensor run_hooks(Tensor g) const;

 private:
  void accumulate(AutogradMeta& m, Tensor g);
  Tensor variable_;
};

/// NOTE [CopySlices]
/// An in-place op on a view of B rewires B's history: B's new grad_fn is a
/// CopySlices that takes B's gradient, hands the slice belonging to the view
/// to the in-place op's own node (`fn`), writes that node's result for the
/// view's old value back into the slice, and routes fn's other gradients to
/// fn's other inputs. The view itself becomes an AsStridedBackward0 of B.
class CopySlices : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return str_cat(kModule, "::autograd::CopySlices"); }
  TensorList apply(TensorList&& grads) override;
  /// Like PyTorch's, a freed CopySlices refuses a second backward even when
  /// its op saved nothing.
  void release_variables() override {
    fn_->release_variables();
    released_ = true;
  }
  const std::shared_ptr<Node>& fn() const { return fn_; }
  void check_silent_writes() const override { fn_->check_silent_writes(); }

 private:
  bool released_ = false;
  DimVector base_sizes_, base_strides_, view_sizes_, view_strides_;
  int64_t base_offset_, view_offset_;
  ScalarType dtype_;
  std::shared_ptr<Node> fn_;
};

/// Fans the user's root gradients out to several roots.
class GraphRoot : public Node {
 public:
  GraphRoot(const std::vector<Edge>& roots, TensorList grads);
  std::string name() const override { return str_cat(kModule, "::autograd::GraphRoot"); }
  TensorList apply(TensorList&&) override { return grads_; }

 private:
  TensorList grads_;
};

/// Builds the AsStridedBackward0 node that ties a view to its base.
std::shared_ptr<Node> make_as_strided_node(const Tensor& view, const Tensor& base);

}  // namespace gradtrack::autograd
