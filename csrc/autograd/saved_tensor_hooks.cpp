#include "autograd/saved_tensor_hooks.h"

#include <vector>

#include "core/error.h"

namespace gradtrack::autograd::saved_hooks {

namespace {

struct State {
  std::vector<std::shared_ptr<const SavedTensorHooks>> stack;
  std::optional<std::string> disabled;
};

State& state() {
  thread_local State s;
  return s;
}

}  // namespace

void push(std::shared_ptr<const SavedTensorHooks> hooks) {
  State& s = state();
  if (s.disabled) throw Error(*s.disabled);
  s.stack.push_back(std::move(hooks));
}

void pop() {
  State& s = state();
  if (!s.stack.empty()) s.stack.pop_back();
}

const SavedTensorHooks* top() {
  State& s = state();
  return s.stack.empty() ? nullptr : s.stack.back().get();
}

const std::optional<std::string>& disabled_message() { return state().disabled; }

void set_disabled_message(std::optional<std::string> message) {
  state().disabled = std::move(message);
}

}  // namespace gradtrack::autograd::saved_hooks
