// Saved-tensor hooks: user callbacks that replace how a saved tensor is kept.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/tensor.h"

namespace gradtrack::autograd {

/// What a pack hook returned; unpack() calls the matching unpack hook on it.
/// The binding owns its language's objects and releases them safely.
class PackedTensor {
 public:
  virtual ~PackedTensor() = default;
  virtual Tensor unpack() const = 0;
};

/// One (pack, unpack) pair, as the binding supplies it.
class SavedTensorHooks {
 public:
  virtual ~SavedTensorHooks() = default;
  /// Called once when a tensor is saved (grad mode off, as PyTorch).
  virtual std::unique_ptr<PackedTensor> pack(const Tensor& t) const = 0;
};

/// NOTE [Saved tensor hooks]
/// A thread-local stack of hook pairs (torch.autograd.graph.saved_tensors_hooks
/// pushes on enter, pops on exit). SavedTensor asks for the innermost pair when
/// it saves; with one it keeps only the packed object and never the tensor,
/// and unpacking calls the unpack hook each time (no version check, as PyTorch:
/// versions cannot be tracked through the hooks). Disabling (with a message)
/// makes pushing raise that message; pairs already pushed stay in effect.
namespace saved_hooks {
void push(std::shared_ptr<const SavedTensorHooks> hooks);
void pop();
/// The innermost pair, or null (the common, fast case).
const SavedTensorHooks* top();
/// The message pushing raises with; nullopt: pushing allowed.
const std::optional<std::string>& disabled_message();
void set_disabled_message(std::optional<std::string> message);
}  // namespace saved_hooks

}  // namespace gradtrack::autograd
