#include "autograd/fusion.h"

#include <atomic>
#include <typeinfo>

#include "core/shape.h"
#include "kernels/kernels.h"

namespace gradtrack::autograd {

// NOTE [Fused relu backward]
// In the backward of (x * w).relu(), ReluBackward0 writes threshold_backward(g, y)
// to a new tensor that MulBackward0 reads once and drops: a full pass over
// memory that only exists to hand a gradient from one node to the next. When
// nothing else can see that gradient, the engine runs the two nodes as one
// pass, out = (y <= 0 ? 0 : g) * other: the two formulas' expressions in their
// own order, so every value is the same to the bit.
//
// "Nothing else can see it" is checked by the engine (engine.cpp): no graph is
// being built (create_graph) and anomaly mode is off; the relu node has no
// post-hooks; the mul node receives gradients from the relu node only, has no
// hooks of any kind and no retain_grad, is not an autograd.grad input, and is
// the node the engine would run next anyway. Here: both nodes come from the
// table (Relu, and Mul of two tensors), neither was released, and the tensors
// are float, of one dtype and shape, and laid out so that the separate runs
// would have produced contiguous gradients too. Anything else runs the nodes
// apart, as before.

namespace {

std::atomic<uint64_t> g_fused_pairs{0};
std::atomic<bool> g_enabled{true};

FormulaNode* formula_node(Node* n, OpKind kind) {
  // FormulaNode has no subclasses: comparing the dynamic type is the same
  // test as a dynamic_cast, and cheaper on every node the engine runs.
  auto* f = n && typeid(*n) == typeid(FormulaNode) ? static_cast<FormulaNode*>(n) : nullptr;
  return f && f->row().kind == kind && f->runnable() ? f : nullptr;
}

}  // namespace

FormulaNode* relu_mul_partner(Node& node, const TensorList& grads) {
  if (!g_enabled.load(std::memory_order_relaxed)) return nullptr;
  FormulaNode* relu = formula_node(&node, OpKind::Relu);
  if (!relu || relu->next_edges().size() != 1 || grads.size() != 1 ||
      relu->saved.size() <= relu->inputs.size())
    return nullptr;
  FormulaNode* mul = formula_node(relu->next_edges()[0].fn.get(), OpKind::Mul);
  if (!mul || mul->inputs.size() != 2 || mul->next_edges().size() != 2) return nullptr;
  const Tensor& g = grads[0];
  const Tensor& y = relu->saved[relu->inputs.size()].peek();
  if (!g.defined() || !y.defined()) return nullptr;
  const ScalarType dt = g.dtype();
  if (dt != ScalarType::Float32 && dt != ScalarType::Float64) return nullptr;
  if (y.dtype() != dt || y.sizes() != g.sizes() || !y.is_contiguous()) return nullptr;
  // Shapes as recorded: relu's gradient goes to mul unchanged (NOTE [Gradient
  // shapes]), which a tensor reshaped in place since would not allow.
  const GradMeta& into_mul = mul->grad_meta()[relu->next_edges()[0].input_nr];
  if (relu->inputs[0].shape != y.sizes() || into_mul.shape != y.sizes() || into_mul.dtype != dt)
    return nullptr;
  // The separate runs' layouts: threshold_backward's result follows y, then g
  // (a gradient expanded from a sum, or transposed, leaves it contiguous), and
  // the product of two contiguous tensors is contiguous.
  if (!g.is_contiguous() &&
      dense_strides_following(y.sizes(), {&y, &g}) != contiguous_strides(y.sizes()))
    return nullptr;
  bool any = false;
  for (size_t i = 0; i < 2; ++i) {
    if (!mul->next_edges()[i].valid()) continue;
    const Tensor& other = mul->saved[1 - i].peek();
    if (!other.defined() || other.dtype() != dt || other.sizes() != y.sizes() ||
        !other.is_contiguous() || mul->inputs[i].shape != y.sizes() || mul->inputs[i].dtype != dt)
      return nullptr;
    any = true;
  }
  return any ? mul : nullptr;
}

TensorList run_relu_mul(FormulaNode& relu, FormulaNode& mul, const Tensor& g,
                        const std::function<void(Node&)>& done) {
  const Tensor y = relu.unpack_saved()[relu.inputs.size()];
  done(relu);
  const TensorList saved = mul.unpack_saved();
  TensorList out(2);
  for (size_t i = 0; i < 2; ++i) {
    if (!mul.next_edges()[i].valid()) continue;
    out[i] = empty(y.sizes(), y.dtype());
    kernels::relu_mul_backward(out[i], g, y, saved[1 - i]);
  }
  out = mul.finish(std::move(out));
  done(mul);
  g_fused_pairs.fetch_add(1, std::memory_order_relaxed);
  return out;
}

uint64_t fused_pairs() { return g_fused_pairs.load(std::memory_order_relaxed); }
bool set_fusion_enabled(bool on) { return g_enabled.exchange(on); }

}  // namespace gradtrack::autograd
