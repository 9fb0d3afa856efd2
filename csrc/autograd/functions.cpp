#include "autograd/functions.h"
#include "autograd/grad_mode.h"

#include "autograd/provenance.h"
#include "autograd/saved_tensor.h"
#include "kernels/kernels.h"
#include "ops/ops.h"

namespace gradtrack::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  // Leaves run as soon as their gradient is complete.
  set_sequence_nr(UINT64_MAX);
  add_grad_meta(variable_);
}

Tensor AccumulateGrad::run_hooks(Tensor g) const {
  AutogradMeta* m = meta(variable_);
  if (!m || m->hooks.empty()) return g;
  for (const HookEntry& h : std::vector<HookEntry>(m->hooks)) {
    Tensor r = h.fn(g);
    if (r.defined()) g = r;
  }
  return g;
}

namespace {

// PyTorch's rule for keeping an incoming gradient as .grad: a dense leaf's
// strides where the size is not 1 (and no zero stride where it is), else
// plain contiguity.
bool obeys_layout_contract(const Tensor& g, const Tensor& variable) {
  if (!is_non_overlapping_and_dense(variable)) return g.is_contiguous();
  for (size_t d = 0; d < g.sizes().size(); ++d) {
    if (g.sizes()[d] != 1 ? g.strides()[d] != variable.strides()[d] : g.strides()[d] == 0)
      return false;
  }
  return true;
}

// A new .grad: a dense leaf's strides (PyTorch's layout contract), else contiguous.
Tensor grad_buffer(const Tensor& variable) {
  if (!is_non_overlapping_and_dense(variable)) return empty(variable.sizes(), variable.dtype());
  return empty_strided(variable.sizes(), variable.strides(), variable.dtype());
}

}  // namespace

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor g = run_hooks(std::move(grads[0]));
  AutogradMeta& m = materialize_meta(variable_);
  // A hook may have called requires_grad_(False) on the leaf during this
  // backward: PyTorch then leaves .grad alone (the post-accumulate hooks still
  // run, and see the untouched .grad).
  if (!g.defined()) return {};
  if (requires_grad(variable_)) accumulate(m, std::move(g));
  if (!m.post_accumulate_hooks.empty()) {
    auto hooks = m.post_accumulate_hooks;
    for (const auto& hook : hooks) hook.fn(variable_);
  }
  return {};
}

void AccumulateGrad::accumulate(AutogradMeta& m, Tensor g) {
  if (!m.grad.defined()) {
    // Keep the incoming buffer when nobody else can see it (PyTorch steals it
    // the same way); otherwise the first .grad is a fresh copy.
    // .grad follows the layout contract: a contiguous leaf gets a contiguous
    // gradient (a transposed one would make every optimizer op slow).
    // (Same number of dims, not the same sizes: a leaf whose .data was replaced
    // by another shape steals the old-shaped gradient in PyTorch too.)
    bool sole_owner = g.ptr().use_count() == 1 && !requires_grad(g) && g.dim() == variable_.dim() &&
                      obeys_layout_contract(g, variable_);
    if (!GradMode::is_enabled() && sole_owner) {
      // Stolen as PyTorch does, through detach(): never a view.
      m.grad = is_view(g) ? alias_with_geometry(g, g.sizes(), g.strides(), g->offset()) : g;
    } else if (GradMode::is_enabled() || g.sizes() != variable_.sizes()) {
      // A new buffer filled with copy_, as PyTorch's: .grad keeps g's history
      // under create_graph (CopyBackwards), and a leaf reshaped in place since
      // the graph was recorded gets the gradient broadcast to its new shape
      // (NOTE [Gradient shapes]).
      m.grad = ops::inplace_copy(grad_buffer(variable_), g);
    } else {
      m.grad = grad_buffer(variable_);
      kernels::copy(m.grad, g);
      m.grad->bump_version();  // PyTorch fills its copy with copy_: .grad starts at version 1
    }
  } else if (!GradMode::is_enabled()) {
    ops::inplace_binary(ops::InplaceOp::Add, m.grad, g);
  } else {
    m.grad = ops::add(m.grad, g);
  }
}

CopySlices::CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
    : base_sizes_(base.sizes()),
      base_strides_(base.strides()),
      view_sizes_(view.sizes()),
      view_strides_(view.strides()),
      base_offset_(base->offset()),
      view_offset_(view->offset()),
      dtype_(base.dtype()),
      fn_(std::move(fn)) {
  // grad_meta is added by set_history when this node becomes base's grad_fn.
  add_next_edge(gradient_edge(base));
  for (size_t i = 1; i < fn_->next_edges().size(); ++i) add_next_edge(fn_->next_edges()[i]);
}

TensorList CopySlices::apply(TensorList&& grads) {
  if (released_) {
    throw Error(second_backward_message(), Provenance::enabled() ? freed_graph_note(*this) : "");
  }
  // The base's gradient in a buffer laid out like the base, so that the view's
  // geometry (relative to the base's offset) addresses the view's slice.
  int64_t extent = 0;
  for (size_t i = 0; i < base_sizes_.size(); ++i) {
    if (base_sizes_[i] == 0) {
      extent = 0;
      break;
    }
    extent += (base_sizes_[i] - 1) * base_strides_[i];
  }
  Tensor buffer = ops::zeros({numel_of(base_sizes_) == 0 ? 0 : extent + 1}, dtype_);
  Tensor result = alias_with_geometry(buffer, base_sizes_, base_strides_, 0);
  // The view's geometry is the one it had when the in-place op ran, and
  // `.data` may have given the view a size or offset that no longer fits in
  // its base: as_strided checks it against the buffer (PyTorch's setStorage
  // error, raised here as PyTorch raises it) before anything goes through it.
  Tensor grad_slice = [&] {
    AutoGradMode off(false);
    return ops::as_strided(result, view_sizes_, view_strides_, view_offset_ - base_offset_);
  }();
  // Under create_graph the writes are differentiable ops, as PyTorch's, so the
  // base's gradient keeps its graph (CopyBackwards, then CopySlices for the
  // slice). Either way the result is written twice and its version shows it.
  const bool graph = GradMode::is_enabled();
  if (graph) {
    ops::inplace_copy(result, grads[0]);
    grad_slice = ops::as_strided(result, view_sizes_, view_strides_, view_offset_ - base_offset_);
  } else {
    kernels::copy(result, grads[0]);
    result->bump_version();
  }
  // The in-place op's node computes every gradient it has: its first edge is the
  // view's, outside the graph task, yet its result is the slice written above
  // (NOTE [Gradients a graph task wants] in node.h).
  TensorList res = [&] {
    WantedNodesScope all(nullptr);
    return fn_->apply({ops::clone(grad_slice)});
  }();
  const bool none = res.empty() || !res[0].defined();
  if (graph) {
    none ? ops::inplace_zero(grad_slice) : ops::inplace_copy(grad_slice, res[0]);
  } else {
    none ? kernels::fill(grad_slice, Scalar(0)) : kernels::copy(grad_slice, res[0]);
    result->bump_version();
  }
  TensorList out;
  out.push_back(result);
  for (size_t i = 1; i < res.size(); ++i) out.push_back(res[i]);
  out.resize(next_edges().size());
  return out;
}

GraphRoot::GraphRoot(const std::vector<Edge>& roots, TensorList grads) : grads_(std::move(grads)) {
  set_sequence_nr(UINT64_MAX);
  for (const Edge& e : roots) add_next_edge(e);
}

std::shared_ptr<Node> make_as_strided_node(const Tensor& view, const Tensor& base) {
  auto node = std::make_shared<FormulaNode>(formula_row(OpKind::AsStrided));
  node->add_next_edge(gradient_edge(base));
  node->inputs.push_back({base.sizes(), base.dtype()});
  AsStridedAttrs& a = node->attrs.set<AsStridedAttrs>();
  a.size = view.sizes();
  a.stride = view.strides();
  a.storage_offset = view->offset();
  a.base_stride = base.strides();
  a.base_offset = base->offset();
  node->add_grad_meta(view);
  return node;
}

}  // namespace gradtrack::autograd
