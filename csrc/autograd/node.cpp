#include "autograd/node.h"

#include <atomic>

namespace gradtrack::autograd {

namespace {
thread_local uint64_t t_next_seq = 0;
std::atomic<int64_t> g_next_hook{0};
}  // namespace

void (*g_node_created_hook)(Node& node) = nullptr;

Node::Node() : seq_(t_next_seq++) {}

Node::~Node() {
  // The outermost destructor on this thread drains a stack of nodes whose last
  // reference was one of our edges; nested destructors (run while it drains)
  // only push onto it, so the depth of the C++ stack stays constant. The stack
  // lives as long as the thread (never freed, so no destructor order at thread
  // exit matters) and keeps its capacity: freeing a small graph allocates nothing.
  struct Pending {
    std::vector<std::shared_ptr<Node>>* stack;
    bool draining;
  };
  // One thread_local (each access is a call in a shared library), trivially
  // initialised so that access needs no guard.
  thread_local Pending t = {nullptr, false};
  bool unique_edge = false;
  for (auto& e : next_edges_) unique_edge |= e.fn && e.fn.use_count() == 1;
  if (!unique_edge) return;  // nothing of ours dies with us
  Pending& p = t;
  if (!p.stack) p.stack = new std::vector<std::shared_ptr<Node>>();
  for (auto& e : next_edges_) {
    if (e.fn && e.fn.use_count() == 1) p.stack->push_back(std::move(e.fn));
  }
  if (p.draining) return;
  p.draining = true;
  while (!p.stack->empty()) {
    std::shared_ptr<Node> n = std::move(p.stack->back());
    p.stack->pop_back();
    n.reset();
  }
  p.draining = false;
}

uint32_t Node::add_grad_meta(const Tensor& t) {
  grad_meta_.push_back({t.sizes(), t.dtype()});
  return static_cast<uint32_t>(grad_meta_.size() - 1);
}

int64_t next_hook_id() { return g_next_hook.fetch_add(1) + 1; }

std::string short_name(const std::string& name) {
  auto pos = name.rfind("::");
  return pos == std::string::npos ? name : name.substr(pos + 2);
}

std::string forward_op_name(const std::string& name) {
  // "PowBackward0" -> "Pow", "PowBackward1" -> "Pow1" (2.13 keeps a non-zero
  // overload number); names without "Backward<digits>" are kept whole.
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  static const std::string kSuffix = "Backward";
  if (end < name.size() && end >= kSuffix.size() &&
      name.compare(end - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    std::string digits = name.substr(end);
    return name.substr(0, end - kSuffix.size()) + (digits == "0" ? "" : digits);
  }
  // A custom Function's node is "<Class>Backward", without a number.
  if (name.size() > kSuffix.size() &&
      name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
    return name.substr(0, name.size() - kSuffix.size());
  return name;
}

}  // namespace gradtrack::autograd
