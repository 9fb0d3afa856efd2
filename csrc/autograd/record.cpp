// record(): the one place graph nodes are built and saved tensors chosen.
#include <algorithm>
#include <atomic>
#include <new>
#include <thread>

#include "autograd/formulas.h"
#include "autograd/profiling_fit.h"
#include "autograd/provenance.h"
#include "ops/ops.h"

namespace gradtrack::autograd {

bool should_record(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor* t : inputs) {
    if (maybe_requires_grad(*t) && requires_grad(*t)) return true;
  }
  return false;
}

namespace {

// NOTE [Node blocks]
// A FormulaNode and its shared_ptr control block take one allocation of about
// 1.3 KB: more than glibc's per-thread cache serves (1032 bytes), so each one
// went through the slow path of malloc and free, with heap consolidation, on
// every recorded op. Freed blocks are kept here (a few dozen, enough for the
// graphs that are built and dropped once per step) and reused. One lock (a
// spin lock around a few instructions, cheaper than a mutex): nodes may be
// freed on another thread than the one that made them.
class NodeBlocks {
 public:
  static void* take(size_t bytes) {
    if (bytes <= kBlock) {
      Guard guard;
      if (Free* f = head()) {
        head() = f->next;
        --count();
        return f;
      }
    }
    return ::operator new(bytes <= kBlock ? kBlock : bytes);
  }
  static void give(void* p, size_t bytes) {
    if (bytes <= kBlock) {
      Guard guard;
      if (count() < kKeep) {
        head() = new (p) Free{head()};
        ++count();
        return;
      }
    }
    ::operator delete(p);
  }
  // Every block has this size: the node plus room for its control block.
  static constexpr size_t kBlock = sizeof(FormulaNode) + 64;

 private:
  struct Free {
    Free* next;
  };
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Sanitizer builds free every block, so that a use after free is still caught.
  static constexpr size_t kKeep = 0;
#else
  static constexpr size_t kKeep = 64;
#endif
  // Trivially destructible and constant-initialised: usable while nodes are
  // freed during interpreter shutdown.
  static std::atomic_flag& flag() {
    static std::atomic_flag f = ATOMIC_FLAG_INIT;
    return f;
  }
  struct Guard {
    Guard() {
      while (flag().test_and_set(std::memory_order_acquire)) std::this_thread::yield();
    }
    ~Guard() { flag().clear(std::memory_order_release); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
  };
  static Free*& head() {
    static Free* h = nullptr;
    return h;
  }
  static size_t& count() {
    static size_t n = 0;
    return n;
  }
};

template <typename T>
struct NodeAllocator {
  using value_type = T;
  NodeAllocator() = default;
  template <typename U>
  NodeAllocator(const NodeAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) { return static_cast<T*>(NodeBlocks::take(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { NodeBlocks::give(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const NodeAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const NodeAllocator<U>&) const {
    return false;
  }
};

}  // namespace

std::shared_ptr<FormulaNode> new_node(OpKind kind, std::initializer_list<const Tensor*> inputs) {
  auto node = std::allocate_shared<FormulaNode>(NodeAllocator<FormulaNode>(), formula_row(kind));
  node->next_edges().reserve(inputs.size());
  node->inputs.reserve(inputs.size());
  for (const Tensor* t : inputs) {
    node->add_next_edge(maybe_requires_grad(*t) ? gradient_edge(*t) : Edge{});
    node->inputs.push_back({t->sizes(), t->dtype()});
  }
  if (node->row().scalar_edge) {
    node->add_next_edge(Edge{});
    node->inputs.push_back({DimVector{}, (*inputs.begin())->dtype()});
  }
  // PyTorch's NotImplemented node (floor_divide) is made without a sequence number, so it
  // runs as early as an AccumulateGrad: when backward fails there, no leaf reached later
  // (e.g. through a view made after it) has had its .grad written.
  if (node->row().not_implemented) node->set_sequence_nr(UINT64_MAX);
  if (g_node_created_hook) g_node_created_hook(*node);
  return node;
}

namespace {

// NOTE [Write provenance]: only a node that saved something can fail a
// version check or a second backward, so only those record where they were
// built; nodes of add, sum, views... skip the frame walk.
void locate(FormulaNode& node) {
  if (node.holds_saved) node.location = current_location();
}

uint8_t needs_mask(const FormulaNode& node) {
  uint8_t mask = 0;
  for (size_t i = 0; i < node.next_edges().size() && i < 8; ++i)
    if (node.next_edges()[i].valid()) mask |= uint8_t(1u << i);
  return mask;
}

void save_inputs(FormulaNode& node, std::initializer_list<const Tensor*> inputs,
                 const Tensor* old_self) {
  const FormulaRow& row = node.row();
  const uint8_t needs = needs_mask(node);
  // A tensor every formula uses is saved even when no gradient will be
  // computed (PyTorch guards only partial uses with should_compute_output), so
  // a node whose inputs have no edges still checks it (NOTE [Saved tensors]).
  const uint8_t every = static_cast<uint8_t>((1u << std::min<size_t>(node.inputs.size(), 3)) - 1);
  const size_t n = inputs.size();
  // PyTorch's node saves `other` before `self` for some ops (the order of first use
  // in its formulas): only visible to saved-tensor pack hooks, which see it.
  const bool reversed = saved_hooks::top() && row.saves_last_input_first;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = reversed ? n - 1 - k : k;
    const Tensor* t = inputs.begin()[i];
    const uint8_t used_by = i < 3 ? row.input_needed_by[i] : 0;
    if (used_by && ((used_by & needs) || (used_by & every) == every)) {
      const Tensor& value = (i == 0 && old_self) ? *old_self : *t;
      node.saved[i] = SavedTensor(value, false);
      node.holds_saved = true;
    }
  }
}

void save_extras(FormulaNode& node, size_t first, const std::vector<const Tensor*>& extras) {
  size_t j = first;
  for (const Tensor* e : extras) {
    node.saved[j++] = SavedTensor(*e, false);
    node.holds_saved = true;
  }
  node.num_extras = extras.size();
}

}  // namespace

void finish_node(const std::shared_ptr<FormulaNode>& node,
                 std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs,
                 const std::vector<const Tensor*>& extras) {
  const FormulaRow& row = node->row();
  const size_t n_in = node->inputs.size();
  node->saved.resize(n_in + (row.saves_result ? 1 : 0) + extras.size());
  save_inputs(*node, inputs, nullptr);
  for (const Tensor* o : outputs) set_history(*o, node);
  if (row.saves_result) {
    node->saved[n_in] = SavedTensor(**outputs.begin(), true);
    node->holds_saved = true;
  }
  save_extras(*node, n_in + (row.saves_result ? 1 : 0), extras);
  if (row.saves_scalar) node->holds_saved = true;
  locate(*node);
}

void finish_node_saving_outputs(const std::shared_ptr<FormulaNode>& node,
                                std::initializer_list<const Tensor*> inputs,
                                std::initializer_list<const Tensor*> outputs) {
  finish_node(node, inputs, outputs);
  size_t j = node->saved.size();
  node->saved.resize(j + outputs.size());
  for (const Tensor* o : outputs) node->saved[j++] = SavedTensor(*o, true);
  node->num_extras = outputs.size();
  node->holds_saved = true;
  locate(*node);
}

bool inplace_needs_old_self(OpKind kind, std::initializer_list<const Tensor*> inputs) {
  const FormulaRow& row = formula_row(kind);
  if (row.input_needed_by[0] == 0) return false;
  uint8_t needs = 0;
  size_t i = 0;
  for (const Tensor* t : inputs) {
    if (requires_grad(*t)) needs |= uint8_t(1u << i);
    ++i;
  }
  return (row.input_needed_by[0] & needs) != 0;
}

void save_inplace_inputs(const std::shared_ptr<FormulaNode>& node,
                         std::initializer_list<const Tensor*> inputs, const Tensor& old_self) {
  const FormulaRow& row = node->row();
  node->saved.resize(node->inputs.size() + (row.saves_result ? 1 : 0));
  save_inputs(*node, inputs, old_self.defined() ? &old_self : nullptr);
}

void finish_inplace_node(const std::shared_ptr<FormulaNode>& node, const Tensor& self,
                         const std::vector<const Tensor*>& extras) {
  const FormulaRow& row = node->row();
  const size_t n_in = node->inputs.size();
  node->saved.resize(n_in + (row.saves_result ? 1 : 0) + extras.size());
  rebase_history(self, node);
  if (row.saves_result) {
    const AutogradMeta* m = meta(self);
    node->saved[n_in] = SavedTensor(self, true, m && m->view && m->view->differentiable);
    node->holds_saved = true;
  }
  save_extras(*node, n_in + (row.saves_result ? 1 : 0), extras);
  if (row.saves_scalar) node->holds_saved = true;
  locate(*node);
}

TensorList FormulaNode::apply(TensorList&& grads) {
  if (!runnable()) {
    throw Error(second_backward_message(), Provenance::enabled() ? freed_graph_note(*this) : "");
  }
  // Saved tensors are checked first, as PyTorch's nodes unpack them before
  // asking which outputs to compute: a node whose inputs all lack a gradient
  // edge (ops on a no-grad view of a leaf) computes nothing, but an in-place
  // write to the result it saved still raises.
  TensorList unpacked = unpack_saved();
  if (needs_mask(*this) == 0 && !next_edges().empty()) return TensorList(inputs.size());
  const BackwardCtx ctx{row_.kind, attrs, inputs, unpacked, num_extras, &next_edges()};
  return finish(row_.fn(ctx, grads));
}

TensorList FormulaNode::unpack_saved() {
  TensorList unpacked(saved.size());
  auto self = shared_from_this();
  // Saved inputs are checked in PyTorch's order (its generated nodes unpack
  // them sorted by argument name), so that when several were modified the
  // error names the same tensor: `other`, `mat2`, `exponent` before `self`.
  const size_t n_in = inputs.size();
  const bool reversed = row_.unpacks_last_input_first;
  for (size_t k = 0; k < saved.size(); ++k) {
    const size_t i = (reversed && k < n_in) ? n_in - 1 - k : k;
    if (saved[i].defined()) unpacked[i] = saved[i].unpack(self);
  }
  return unpacked;
}

TensorList FormulaNode::finish(TensorList out) const {
  out.resize(inputs.size());
  // Undo broadcasting and type promotion: the one place that does.
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].defined() || !next_edges()[i].valid()) {
      out[i] = Tensor();
      continue;
    }
    // A gradient that does not fit is left for the engine to report (NOTE
    // [Gradient shapes]).
    if (out[i].sizes() != inputs[i].shape && is_expandable_to(inputs[i].shape, out[i].sizes()) &&
        !profiling::engine_fits())  // NOTE [Fitting gradients in the engine's event]
      out[i] = ops::sum_to(out[i], inputs[i].shape);
    if (out[i].dtype() != inputs[i].dtype) out[i] = ops::to_dtype(out[i], inputs[i].dtype);
  }
  return out;
}

void FormulaNode::release_variables() {
  for (SavedTensor& s : saved) {
    if (s.defined()) s.release();
  }
  released_ = true;
}

}  // namespace gradtrack::autograd
