#include "autograd/engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/functions.h"
#include "autograd/fusion.h"
#include "autograd/grad_mode.h"
#include "autograd/profiling.h"
#include "autograd/profiling_fit.h"
#include "autograd/provenance.h"
#include "core/allocation_count.h"
#include "core/silent_writes.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "ops/ops.h"

namespace gradtrack::autograd {

void (*g_anomaly_warn)(const Node& node) = nullptr;
void (*g_check_interrupt)() = nullptr;

namespace {

// NOTE [Engine]
// Iterative (graphs 100 000 nodes deep must work), single-threaded:
//  1. count, for every node reachable from the roots, how many edges point at it;
//  2. with a capture list, mark the nodes that lead to a captured edge and run
//     only those;
//  3. a node is ready when all its incoming edges delivered; ready nodes run
//     newest first (largest sequence number), leaves as soon as ready;
//  4. incoming gradients for the same input are summed in a per-node buffer.

// `cur + g` written into g, for a small gradient g that nothing else can see
// and a `cur` that is one value expanded (a reduction's gradient passed on by
// add): the sum PyTorch computes out of place, with the same float additions,
// in the buffer that would be dropped (never memory a numpy array shares, as
// a custom Function's gradient may). Returns false where it does not apply.
bool add_expanded_into(const Tensor& cur, const Tensor& g) {
  const ScalarType dt = g.dtype();
  if ((dt != ScalarType::Float32 && dt != ScalarType::Float64) || cur.dtype() != dt ||
      g.ptr().use_count() != 1 || g->storage().use_count() != 1 || g->storage()->is_external() ||
      is_view(g) || g->version() != 0 || g.sizes() != cur.sizes() || g.numel() == 0 ||
      g.numel() > kGrainSize || !g.is_contiguous() || !g.is_aligned() || !cur.is_aligned())
    return false;
  for (int64_t st : cur.strides())
    if (st != 0) return false;
  const int64_t n = g.numel();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const T c = *cur.data<T>();
    T* p = g.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = c + p[i];
  };
  dt == ScalarType::Float32 ? run(float(0)) : run(double(0));
  return true;
}

void accumulate(TensorList& buffer, size_t slot, Tensor g) {
  if (buffer.size() <= slot) buffer.resize(slot + 1);
  Tensor& cur = buffer[slot];
  if (!cur.defined()) {
    cur = std::move(g);
    return;
  }
  const bool no_grad = !GradMode::is_enabled();
  if (no_grad && cur.ptr().use_count() == 1 && cur->storage().use_count() == 1 &&
      cur.sizes() == g.sizes() && cur.dtype() == g.dtype() && is_non_overlapping_and_dense(cur)) {
    // Only when nothing else sees its memory (not a view's), as PyTorch.
    kernels::binary(kernels::BinaryOp::Add, cur, cur, g, Scalar(1));
    cur->bump_version();  // an in-place add, as PyTorch's input buffer does
  } else if (no_grad && add_expanded_into(cur, g)) {
    cur = std::move(g);  // looks like the new tensor `cur + g` would: version 0, contiguous
  } else {
    cur = ops::add(cur, g);
  }
}

// Tensor hooks of the node's outputs, then retain_grad targets (PyTorch's
// tensor pre-hooks): they run whenever the node is reached, even when it is
// not executed.
void run_tensor_pre_hooks(Node& node, TensorList& grads) {
  if (!node.pre_hooks().empty()) {
    std::vector<HookEntry> hooks = node.pre_hooks();
    for (const HookEntry& h : hooks) {
      if (h.output_nr >= grads.size() || !grads[h.output_nr].defined()) continue;
      Tensor r = h.fn(grads[h.output_nr]);
      if (r.defined()) grads[h.output_nr] = r;
    }
  }
  for (auto& kv : node.retains_grad()) {
    auto impl = kv.second.lock();
    if (!impl || kv.first >= grads.size() || !grads[kv.first].defined()) continue;
    Tensor t(impl);
    AutogradMeta& m = materialize_meta(t);
    const Tensor& g = grads[kv.first];
    if (!m.grad.defined()) {
      m.grad = GradMode::is_enabled() ? ops::clone(g) : detach(ops::clone(g));
    } else {
      m.grad = ops::add(m.grad, g);
    }
  }
}

// Hooks registered on the node itself (grad_fn.register_prehook): only when it runs.
void run_node_pre_hooks(Node& node, TensorList& grads) {
  if (node.node_pre_hooks().empty()) return;
  auto hooks = node.node_pre_hooks();
  for (auto& h : hooks) {
    TensorList r = h.fn(grads);
    if (!r.empty()) grads = r;
  }
}

void fill_missing(Node& node, TensorList& grads) {
  grads.resize(node.num_outputs());
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined())
      grads[i] = ops::zeros(node.grad_meta()[i].shape, node.grad_meta()[i].dtype);
  }
}

// NOTE [Absent gradients]
// Nodes whose formulas take each incoming gradient as given or absent (PyTorch's
// undefined gradients; their rows say takes_absent_grads): zero-filled ones would
// send zeros on from ConvolutionBackwardBackward0 (a weight's .grad zeros where
// PyTorch leaves None), and var_mean/std_mean with dof <= 0 would add 0 * inf =
// NaN to the mean's gradient.
bool takes_absent_grads(const Node& node) {
  const auto* f = dynamic_cast<const FormulaNode*>(&node);
  return f && f->row().takes_absent_grads;
}

void check_nan(const Node& node, const TensorList& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].defined() || !is_floating(out[i].dtype())) continue;
    Tensor n = ops::any(ops::isnan(out[i]), std::nullopt, false);
    if (*n.data<bool>()) {
      throw Error(
          str_cat("Function '", node.name(), "' returned nan values in its ", i, "th output."));
    }
  }
}

// NOTE [Gradient shapes]
// A gradient must fit the input it is sent to, as that tensor was when the
// graph was recorded (the receiving node's grad_meta): PyTorch's
// validate_outputs. It differs only when something reshaped a tensor in place
// without recording it (`squeeze_()` under no_grad, a node hook's result); a
// gradient that the recorded shape broadcasts to is summed down to it, any
// other is an error, and a gradient of another dtype is converted. `who` is
// the producer named in the message (null for the gradients backward starts
// from).
template <typename Edges>
void fit_gradients(const Edges& edges, TensorList& out, const Node* who) {
  for (size_t i = 0; i < edges.size() && i < out.size(); ++i) {
    const Edge& e = edges[i];
    Tensor& g = out[i];
    if (!e.fn || !g.defined() || e.input_nr >= e.fn->num_outputs()) continue;
    const GradMeta& meta = e.fn->grad_meta()[e.input_nr];
    if (g.sizes() != meta.shape) {
      if (!is_expandable_to(meta.shape, g.sizes())) {
        throw Error(str_cat(who ? "Function " + who->name() + " returned an " : "",
                            "invalid gradient at index ", i, " - got ", shape_str(g.sizes()),
                            " but expected shape compatible with ", shape_str(meta.shape)));
      }
      g = ops::sum_to(g, meta.shape);
    }
    if (g.dtype() != meta.dtype) g = ops::to_dtype(g, meta.dtype);
  }
}

// Takes the gradients by value: once the node returns, a gradient it passed
// through (add, sub, views) is referenced only by its output, so the input
// buffer can add into it in place, as PyTorch's does.
TensorList call_node(Node& node, TensorList grads) {
  try {
    TensorList out = node.apply(std::move(grads));
    if (AnomalyMode::is_enabled() && AnomalyMode::check_nan()) check_nan(node, out);
    return out;
  } catch (...) {
    if (AnomalyMode::is_enabled() && g_anomaly_warn) g_anomaly_warn(node);
    throw;
  }
}

// call_node and fit_gradients while a profile is open: torch's two events per node, the
// engine's `autograd::engine::evaluate_function: <name>` (which includes fitting the
// gradients to their inputs: the aten::sum of a broadcast bias) and inside it the node
// itself, which carries the shapes of the gradients it received ([] for an absent one).
template <typename Fit>
TensorList profiled_call(Node& node, TensorList grads, Fit fit) {
  const int64_t outer = profiling::now_ns();
  const int64_t memory = allocation_count::bytes();
  std::vector<std::vector<int64_t>> shapes;
  if (profiling::recording_shapes()) {
    shapes.reserve(grads.size());
    for (const Tensor& g : grads) {
      shapes.emplace_back(g.defined() ? std::vector<int64_t>(g.sizes().begin(), g.sizes().end())
                                      : std::vector<int64_t>{});
    }
  }
  const int64_t inner = profiling::now_ns();
  // NOTE [Fitting gradients in the engine's event]: fit() sums what the node leaves
  struct Fits {
    bool before = std::exchange(profiling::t_engine_fits, true);
    ~Fits() { profiling::t_engine_fits = before; }
  };
  TensorList out;
  {
    Fits fits;
    out = call_node(node, std::move(grads));
  }
  const int64_t end = profiling::now_ns();
  const int64_t allocated = allocation_count::bytes() - memory;
  fit(out);
  const int64_t outer_end = profiling::now_ns();
  profiling::record(node.name(), inner, end, std::move(shapes), allocated);
  profiling::record("autograd::engine::evaluate_function: " + node.name(), outer, outer_end, {},
                    allocation_count::bytes() - memory);
  return out;
}

// Marks the nodes that must run to deliver the captured gradients: every node
// with an edge into a captured node or into a marked one. The captured nodes
// themselves run only with `run_targets` (backward(inputs=...), which
// accumulates into them); autograd.grad only reads what arrives at them.
std::unordered_set<Node*> needed_nodes(Node* root, const std::vector<Edge>& capture,
                                       bool run_targets) {
  std::unordered_set<Node*> targets, needed, seen;
  for (const Edge& e : capture)
    if (e.fn) targets.insert(e.fn.get());
  // Post-order over an explicit stack.
  std::vector<std::pair<Node*, size_t>> stack{{root, 0}};
  seen.insert(root);
  while (!stack.empty()) {
    auto& [node, i] = stack.back();
    if (i < node->next_edges().size()) {
      Node* next = node->next_edges()[i++].fn.get();
      if (next && seen.insert(next).second) stack.push_back({next, 0});
      continue;
    }
    bool need = run_targets && targets.count(node) > 0;
    for (const Edge& e : node->next_edges()) {
      Node* next = e.fn.get();
      need = need || (next && (needed.count(next) || targets.count(next)));
    }
    if (need) needed.insert(node);
    stack.pop_back();
  }
  return needed;
}

}  // namespace

namespace {

// Node -> its number in a GraphTask: open addressing over one flat array. A
// std::unordered_map allocates a cell per node, which for the small graphs of
// everyday code (a handful of nodes, one backward per step) costs more than
// running the nodes.
class NodeIndex {
 public:
  NodeIndex() : slots_(kInitial) {}
  /// The number of `n`, inserting `value` first if `n` is new.
  std::pair<int, bool> emplace(Node* n, int value) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    Slot& s = probe(n);
    if (s.node) return {s.value, false};
    s = {n, value};
    ++used_;
    return {value, true};
  }
  int at(Node* n) const { return probe(n).value; }

 private:
  struct Slot {
    Node* node = nullptr;
    int value = 0;
  };
  static constexpr size_t kInitial = 16;  // a power of two
  static size_t hash(const Node* n) {
    // Nodes are heap blocks: the low bits are alignment; mix the rest.
    auto x = reinterpret_cast<uintptr_t>(n) >> 4;
    return static_cast<size_t>(x * 0x9E3779B97F4A7C15ull >> 16);
  }
  Slot& probe(const Node* n) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash(n) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.node == n || !s.node) return const_cast<Slot&>(s);
    }
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.node) probe(s.node) = s;
  }
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

// Every node reachable from the root, numbered, with its incoming-edge count.
struct GraphTask {
  std::vector<Node*> nodes;
  std::vector<int> deps;
  std::vector<TensorList> buffers;
  NodeIndex index;

  int add(Node* n) {
    auto [i, inserted] = index.emplace(n, static_cast<int>(nodes.size()));
    if (inserted) {
      nodes.push_back(n);
      deps.push_back(0);
    }
    return i;
  }

  explicit GraphTask(Node* root) {
    nodes.reserve(8);
    deps.reserve(8);
    add(root);
    // Iterative DFS: graphs can be 100 000 nodes deep.
    std::vector<Node*> stack{root};
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next_edges()) {
        if (!e.fn) continue;
        size_t before = nodes.size();
        int i = add(e.fn.get());
        deps[static_cast<size_t>(i)]++;
        if (nodes.size() != before) stack.push_back(e.fn.get());
      }
    }
    buffers.resize(nodes.size());
  }
};

}  // namespace

const std::unordered_set<const Node*>*& wanted_nodes() {
  thread_local const std::unordered_set<const Node*>* wanted = nullptr;
  return wanted;
}

TensorList run_backward(const std::vector<Edge>& roots, const TensorList& grads,
                        const BackwardOptions& options, const std::vector<Edge>& capture) {
  std::shared_ptr<Node> root;
  TensorList root_grads, fitted = grads;
  fit_gradients(roots, fitted, nullptr);
  if (roots.size() == 1) {
    root = roots[0].fn;
    root_grads.resize(root->num_outputs());
    root_grads[roots[0].input_nr] = fitted[0];
  } else {
    root = std::make_shared<GraphRoot>(roots, fitted);
    root_grads = fitted;  // GraphRoot ignores its input; it only has to be non-empty
  }
  GraphTask task(root.get());
  const bool capturing = !capture.empty();
  std::unordered_set<Node*> needed;
  if (capturing) needed = needed_nodes(root.get(), capture, options.accumulate_grad);
  // NOTE [Gradients a graph task wants] (node.h): the nodes that run, and the captured ones.
  std::unordered_set<const Node*> wanted(needed.begin(), needed.end());
  for (const Edge& e : capture)
    if (e.fn) wanted.insert(e.fn.get());
  WantedNodesScope wanted_scope(capturing ? &wanted : nullptr);
  // NOTE [Silent writes]: a tensor saved with the detector on and changed since
  // without a version bump refuses the whole backward before any node runs,
  // so no .grad changes on any leaf.
  if (silent_writes::live_watches() > 0) {
    for (Node* n : task.nodes)
      if (!capturing || needed.count(n)) n->check_silent_writes();
  }
  std::unordered_map<Node*, std::vector<size_t>> captures;  // node -> indices into capture
  for (size_t i = 0; i < capture.size(); ++i)
    if (capture[i].fn) captures[capture[i].fn.get()].push_back(i);
  TensorList captured(capture.size());

  const uint32_t called_at = current_location();
  // After a node ran: its saved tensors go, unless the graph is kept.
  auto done = [&](Node& n) {
    if (!options.keep_graph) {
      n.release_variables();
      n.released_at = called_at;
    }
  };
  AutoGradMode mode(options.create_graph);
  // Ready nodes, newest first, ordered by sequence number alone as PyTorch's
  // ReadyQueue. Sequence numbers are unique per thread except for leaves
  // (they share the maximum); which leaf runs first is then the heap's choice
  // for the same pushes in the same order, as in torch (it decides which
  // accumulations happen before a failing one, and the order of leaf hooks).
  using Item = std::pair<uint64_t, int>;
  auto by_sequence = [](const Item& a, const Item& b) { return a.first < b.first; };
  std::vector<Item> heap;
  heap.reserve(8);
  std::priority_queue<Item, std::vector<Item>, decltype(by_sequence)> ready(by_sequence,
                                                                            std::move(heap));
  task.buffers[0] = std::move(root_grads);
  ready.push({root->sequence_nr(), 0});

  // The node that can run in one pass with `node` (NOTE [Fused relu
  // backward]): only if nothing could see the gradient passed between them,
  // and the partner is the node that would run next anyway.
  auto fusable_partner = [&](Node& node, const TensorList& grads) -> FormulaNode* {
    if (GradMode::is_enabled() || AnomalyMode::is_enabled() || profiling::active() ||
        !node.post_hooks().empty())
      return nullptr;
    FormulaNode* next = relu_mul_partner(node, grads);
    if (!next || !next->pre_hooks().empty() || !next->retains_grad().empty() ||
        !next->node_pre_hooks().empty() || !next->post_hooks().empty() || captures.count(next) ||
        (capturing && !needed.count(next)))
      return nullptr;
    // The gradient from `node` will be its only one: nothing arrived before it
    // (in its buffer) and nothing will after.
    const auto at = static_cast<size_t>(task.index.at(next));
    if (task.deps[at] != 1) return nullptr;
    for (const Tensor& g : task.buffers[at])
      if (g.defined()) return nullptr;
    return ready.empty() || ready.top().first < next->sequence_nr() ? next : nullptr;
  };

  while (!ready.empty()) {
    const int idx = ready.top().second;
    ready.pop();
    Node* node = task.nodes[static_cast<size_t>(idx)];
    if (g_check_interrupt) g_check_interrupt();
    TensorList grads = std::move(task.buffers[static_cast<size_t>(idx)]);
    const bool run = !capturing || needed.count(node) > 0;
    // A captured gradient is what arrived at the node: before the tensor hooks
    // when the node runs (they apply on the way in), after them when it does
    // not (PyTorch's order). A leaf's hooks live on its AccumulateGrad.
    auto capture_into = [&](bool hooked) {
      // backward(inputs=) only needs the marks: holding the gradient here would
      // stop AccumulateGrad from stealing it.
      if (options.accumulate_grad) return;
      auto cap = captures.find(node);
      if (cap == captures.end()) return;
      // A leaf's hooks run once, however often the leaf is listed.
      Tensor leaf_hooked;
      for (size_t c : cap->second) {
        uint32_t slot = capture[c].input_nr;
        if (slot >= grads.size()) continue;
        captured[c] = grads[slot];
        if (hooked && node->is_accumulate_grad() && captured[c].defined()) {
          if (!leaf_hooked.defined())
            leaf_hooked = static_cast<AccumulateGrad*>(node)->run_hooks(captured[c]);
          captured[c] = leaf_hooked;
        }
      }
    };
    if (run && !captures.empty()) capture_into(false);
    run_tensor_pre_hooks(*node, grads);
    if (!run) {
      if (!captures.empty()) capture_into(true);
      continue;
    }
    run_node_pre_hooks(*node, grads);
    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    TensorList out, incoming;
    if (!node->post_hooks().empty()) incoming = grads;
    FormulaNode* partner = nullptr;
    if (any) {
      // A node that received no gradient at all still releases its inputs'
      // dependency counts below, but does not run.
      // One output with its gradient: nothing to fill either way (the common
      // case skips the virtual call and the dynamic_cast).
      const bool complete = node->num_outputs() == 1 && grads.size() == 1;
      if (!complete && (!node->materialize_grads() || takes_absent_grads(*node))) {
        grads.resize(node->num_outputs());
      } else if (!complete && (grads.size() < node->num_outputs() || node->num_outputs() > 1)) {
        fill_missing(*node, grads);
      }
      partner = fusable_partner(*node, grads);
    }
    if (partner) {
      // NOTE [Fused relu backward]: the partner runs now, in one pass with
      // this node; its gradients go out below and it never enters the queue.
      out = run_relu_mul(static_cast<FormulaNode&>(*node), *partner, grads[0], done);
      fit_gradients(partner->next_edges(), out, partner);
      task.deps[static_cast<size_t>(task.index.at(partner))] = 0;
      node = partner;
    } else {
      if (any) {
        auto fit = [&](TensorList& o) { fit_gradients(node->next_edges(), o, node); };
        if (profiling::active()) {
          out = profiled_call(*node, std::move(grads), fit);
        } else {
          out = call_node(*node, std::move(grads));
          fit(out);
        }
      }
      done(*node);
    }
    if (!node->post_hooks().empty()) {
      auto hooks = node->post_hooks();
      for (auto& post : hooks) {
        TensorList r = post.fn(out, incoming);
        if (!r.empty()) out = r;
      }
    }
    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.fn) continue;
      const int next = task.index.at(e.fn.get());
      // A capturing run sends gradients only to nodes it runs or captures:
      // PyTorch's nodes do not compute the others (should_compute_output), so
      // hooks and retain_grad there see nothing.
      const bool wanted = !capturing || needed.count(e.fn.get()) || captures.count(e.fn.get());
      if (wanted && i < out.size() && out[i].defined())
        accumulate(task.buffers[static_cast<size_t>(next)], e.input_nr, std::move(out[i]));
      if (--task.deps[static_cast<size_t>(next)] == 0) ready.push({e.fn->sequence_nr(), next});
    }
  }
  return captured;
}

}  // namespace gradtrack::autograd
