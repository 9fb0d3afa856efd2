// Graph nodes: the backward half of every differentiable op.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/tensor.h"

namespace gradtrack::autograd {

class Node;

/// Where a gradient goes: input `input_nr` of node `fn` (null: nowhere).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

/// NOTE [Gradients a graph task wants]
/// autograd.grad(outputs, inputs) and backward(inputs=) deliver gradients to
/// some leaves only. As torch's task_should_compute_output, a node then
/// computes the gradient of an input only if its edge leads to a node the task
/// runs or captures: an input on no such path gets none, so a derivative torch
/// does not implement (igamma's for its first argument) is not asked for when
/// only the other argument's gradient is wanted. Null outside such a task.
const std::unordered_set<const Node*>*& wanted_nodes();

/// True if the running graph task wants the gradient that flows along `e`.
inline bool edge_wanted(const Edge& e) {
  const auto* wanted = wanted_nodes();
  return e.fn != nullptr && (wanted == nullptr || wanted->count(e.fn.get()) > 0);
}

/// Sets wanted_nodes() for its lifetime (null: every valid edge is wanted).
class WantedNodesScope {
 public:
  explicit WantedNodesScope(const std::unordered_set<const Node*>* now) : before_(wanted_nodes()) {
    wanted_nodes() = now;
  }
  ~WantedNodesScope() { wanted_nodes() = before_; }
  WantedNodesScope(const WantedNodesScope&) = delete;
  WantedNodesScope& operator=(const WantedNodesScope&) = delete;

 private:
  const std::unordered_set<const Node*>* before_;
};

/// Shape and dtype a gradient must have.
struct GradMeta {
  DimVector shape;
  ScalarType dtype = ScalarType::Float32;
};

/// Per-node lists are short (one to three entries): kept inline, a node is
/// one allocation instead of five (node creation is on every op's hot path).
using EdgeList = SmallVector<Edge, 3>;
using GradMetaList = SmallVector<GradMeta, 2>;

/// A tensor hook: gets the gradient, returns a replacement or an undefined
/// Tensor to keep it.
using TensorHook = std::function<Tensor(const Tensor&)>;
struct HookEntry {
  int64_t id;
  uint32_t output_nr;
  TensorHook fn;
  /// The Python callable `fn` keeps alive (null for C++ hooks); the garbage
  /// collector visits it (NOTE [Hooks and the garbage collector]).
  void* owner = nullptr;
};
int64_t next_hook_id();

/// Node-level hooks registered from Python: after the node ran (gradients of
/// its inputs, gradients it received), and before (gradients it received).
using NodePostHook = std::function<TensorList(const TensorList&, const TensorList&)>;
using NodePreHook = std::function<TensorList(const TensorList&)>;
template <typename F>
struct NodeHook {
  int64_t id;
  F fn;
  void* owner = nullptr;  // as HookEntry::owner
};

/// Opaque per-node debugging data filled by the Python layer (anomaly
/// tracebacks, NOTE [Write provenance]).
struct NodeDebugInfo {
  virtual ~NodeDebugInfo() = default;
};

/// NOTE [Nodes and edges]
/// A Node receives one gradient per output of its forward op (`grad_meta`)
/// and produces one per forward input, sent along `next_edges`. Nodes are
/// ordered by a creation sequence number; the engine runs the newest ready
/// node first, as PyTorch does.
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  /// Frees the chain of nodes it uniquely owns iteratively: dropping a graph
  /// 100 000 nodes deep must not recurse 100 000 destructor frames deep.
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// PyTorch's name: "MulBackward0", "gradtrack::autograd::CopySlices".
  virtual std::string name() const = 0;
  virtual TensorList apply(TensorList&& grads) = 0;
  /// Drops saved tensors after a backward without retain_graph.
  virtual void release_variables() {}
  /// Throws when a tensor it saved was changed without a version bump (NOTE
  /// [Silent writes]); the engine asks every node before backward runs.
  virtual void check_silent_writes() const {}
  virtual bool is_accumulate_grad() const { return false; }
  /// Whether the engine fills gradients that did not arrive with zeros before
  /// apply() (a custom Function can ask for undefined ones instead).
  virtual bool materialize_grads() const { return true; }

  uint64_t sequence_nr() const { return seq_; }
  void set_sequence_nr(uint64_t s) { seq_ = s; }
  EdgeList& next_edges() { return next_edges_; }
  const EdgeList& next_edges() const { return next_edges_; }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  /// Registers one more output of the forward op; returns its index.
  uint32_t add_grad_meta(const Tensor& t);
  const GradMetaList& grad_meta() const { return grad_meta_; }
  size_t num_outputs() const { return grad_meta_.size(); }

  /// Tensor hooks of non-leaf outputs, run in registration order.
  std::vector<HookEntry>& pre_hooks() { return pre_hooks_; }
  /// retain_grad() targets, one per output (weak: the node must not keep them).
  std::map<uint32_t, std::weak_ptr<TensorImpl>>& retains_grad() { return retains_grad_; }
  /// Node-level hooks registered from Python (grad_fn.register_hook/prehook).
  std::vector<NodeHook<NodePostHook>>& post_hooks() { return post_hooks_; }
  std::vector<NodeHook<NodePreHook>>& node_pre_hooks() { return node_pre_hooks_; }

  std::shared_ptr<NodeDebugInfo> debug;
  /// NOTE [Write provenance]: where the forward call was, and the backward
  /// call that freed the saved tensors (interned ids; 0 = not recorded).
  uint32_t location = 0;
  uint32_t released_at = 0;

 private:
  uint64_t seq_;
  EdgeList next_edges_;
  GradMetaList grad_meta_;
  std::vector<HookEntry> pre_hooks_;
  std::map<uint32_t, std::weak_ptr<TensorImpl>> retains_grad_;
  std::vector<NodeHook<NodePostHook>> post_hooks_;
  std::vector<NodeHook<NodePreHook>> node_pre_hooks_;
};

/// The part of a node name PyTorch uses for Python type names ("CopySlices").
std::string short_name(const std::string& name);
/// The forward op a node belongs to: "MulBackward0" -> "Mul" (2.13 messages).
std::string forward_op_name(const std::string& name);

/// The module name printed in messages and type strings.
constexpr const char* kModule = "gradtrack";

/// Called (if set) when a node is created while anomaly mode or provenance
/// is on; the Python layer stores the user's stack there.
extern void (*g_node_created_hook)(Node& node);

}  // namespace gradtrack::autograd
