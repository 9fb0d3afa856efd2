// The autograd state of a tensor and the functions that read and change it.
#pragma once

#include <memory>
#include <vector>

#include "autograd/node.h"

namespace gradtrack::autograd {

/// How a view came to be; decides whether writing through it is allowed
/// (as PyTorch 2.13).
enum class CreationMeta : uint8_t {
  Default,
  NoGradMode,
  InferenceMode,
  MultiOutputNode,
  InCustomFunction  // made inside a custom Function, or an input it returned unchanged
};

/// NOTE [Views and their base]
/// Every view remembers the root tensor it aliases (`base`; a view of a view
/// points at the root). Floating-point views are "differentiable": when the
/// base or any of its views is written in place, the base's history gets a
/// CopySlices node and the view's grad_fn is regenerated lazily, as an
/// AsStridedBackward0 of the base, the next time it is read (detected by the
/// shared version counter having moved past `attr_version`).
struct ViewInfo {
  Tensor base;
  bool differentiable = false;
  CreationMeta creation_meta = CreationMeta::Default;
  uint32_t attr_version = 0;
};

struct AutogradMeta : AutogradMetaInterface {
  bool requires_grad = false;  // the leaf flag; non-leaves require grad via grad_fn
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<Node> grad_accumulator;
  bool retains_grad = false;
  bool saw_grad_fn = false;      // ever had a grad_fn (detach_ detection in SavedTensor)
  std::vector<HookEntry> hooks;  // hooks of a leaf, run by AccumulateGrad
  std::vector<NodeHook<std::function<void(const Tensor&)>>> post_accumulate_hooks;
  std::unique_ptr<ViewInfo> view;
  /// Forward-mode AD: the tangent at the current dual level (forward_ad.h).
  Tensor fw_grad;
};

/// The tensor's metadata, or null if it never had any.
inline AutogradMeta* meta(const Tensor& t) {
  return static_cast<AutogradMeta*>(t->autograd_meta());
}
AutogradMeta& materialize_meta(const Tensor& t);

/// The tensor's grad_fn; regenerates a stale view's node (may throw the
/// no_grad / multi-output view errors).
const std::shared_ptr<Node>& grad_fn(const Tensor& t);
uint32_t output_nr(const Tensor& t);
bool requires_grad(const Tensor& t);
inline bool is_leaf(const Tensor& t) { return grad_fn(t) == nullptr; }
/// Fast check used by every op: true if recording may be needed for `t`.
inline bool maybe_requires_grad(const Tensor& t) {
  const AutogradMeta* m = meta(t);
  return m != nullptr && (m->requires_grad || m->grad_fn || m->view);
}

/// Where the gradient for `t` flows: its grad_fn, or its leaf accumulator.
Edge gradient_edge(const Tensor& t);
std::shared_ptr<Node> grad_accumulator(const Tensor& t);
/// Makes `fn` the producer of `out` (as output number `fn.num_outputs()`).
void set_history(const Tensor& out, const std::shared_ptr<Node>& fn);
/// Leaf-only: sets the requires_grad flag (callers apply PyTorch's rules).
void set_requires_grad(const Tensor& t, bool value);

/// Marks `view` as a view of `base` (base's root if base is itself a view).
void make_view(const Tensor& view, const Tensor& base, CreationMeta meta);
bool is_view(const Tensor& t);
/// The root base, or an undefined tensor.
Tensor view_base(const Tensor& t);

/// Throws PyTorch's error if `t` is a view that must not be modified in place
/// (made under no_grad / inference mode, or by a multi-output op). `indirect`
/// picks the wording for a write through the base or another view.
void check_view_rebase(const Tensor& t, bool indirect);
/// After an in-place op recorded `fn` for `self`, makes it self's history;
/// for a view this builds CopySlices on the base.
void rebase_history(const Tensor& self, std::shared_ptr<Node> fn);

/// detach(): same storage and counter, no history, not a view.
Tensor detach(const Tensor& t);
/// view(dtype): detach() read as another dtype (PyTorch's checks on sizes,
/// strides and offset when the element size changes).
Tensor view_dtype(const Tensor& t, ScalarType dtype);
/// detach_(): in place; throws on views.
void detach_inplace(const Tensor& t);

}  // namespace gradtrack::autograd
