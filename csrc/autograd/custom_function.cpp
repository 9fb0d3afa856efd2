#include "autograd/custom_function.h"

#include "autograd/grad_mode.h"
#include "autograd/variable.h"

namespace gradtrack::autograd {

CustomFunctionNode::~CustomFunctionNode() {
  // The callback may own objects of the binding's language: it goes before
  // the saved tensors and edges (whose release needs nothing special).
  if (callback_) callback_->node_destroyed(*this);
  callback_.reset();
}

TensorList CustomFunctionNode::apply(TensorList&& grads) {
  return callback_->call(std::move(grads));
}

void CustomFunctionNode::release_variables() {
  for (SavedTensor& s : saved_) s.release();
}

void CustomFunctionNode::save(const Tensor& t, bool is_output) {
  // A saved None is kept as an empty slot: once the graph is freed, reading
  // it raises like the others (PyTorch checks the tuple, not each tensor).
  saved_.emplace_back(t, is_output);
}

TensorList CustomFunctionNode::unpack_saved() {
  TensorList out;
  out.reserve(saved_.size());
  auto self = shared_from_this();
  for (const SavedTensor& s : saved_) out.push_back(s.unpack(self, /*attach_always=*/true));
  return out;
}

namespace {

// A view of `t` sharing its storage and counter: what the user gets for an
// input returned unchanged. PyTorch forbids writing it in place (the view
// logic would bypass the custom backward).
Tensor view_of_input(const Tensor& t) {
  Tensor v = alias_with_geometry(t, t.sizes(), t.strides(), t->offset());
  make_view(v, t, CreationMeta::InCustomFunction);
  return v;
}

void check_dirty_leaf(const Tensor& t) {
  if (is_leaf(t) && requires_grad(t))
    throw Error("a leaf Variable that requires grad has been used in an in-place operation.");
}

// PyTorch's rules for an output that gets no gradient: it keeps no history.
Tensor wrap_non_differentiable(const FunctionOutput& o) {
  const Tensor& t = o.value;
  if (!requires_grad(t)) return o.is_input && !o.dirty ? view_of_input(t) : t;
  if (o.dirty) {
    check_dirty_leaf(t);
    detach_inplace(t);
    return t;
  }
  if (!o.is_input) {
    detach_inplace(t);
    return t;
  }
  return detach(t);
}

}  // namespace

TensorList wrap_function_outputs(const std::shared_ptr<CustomFunctionNode>& node,
                                 std::vector<FunctionOutput>& outputs) {
  // NOTE [Custom function outputs]: the forward ran under no_grad, so an
  // in-place write in it bumped the version once; marking the tensor dirty
  // bumps it once more (a later check of a tensor saved before the call must
  // fail), before the leaf check can raise, as in PyTorch.
  for (const FunctionOutput& o : outputs)
    if (o.dirty) o.value->bump_version();
  TensorList result;
  result.reserve(outputs.size());
  for (const FunctionOutput& o : outputs) {
    const Tensor& t = o.value;
    const bool differentiable = node && !o.non_differentiable && is_floating(t.dtype());
    if (!differentiable) {
      if (node) node->add_grad_meta(t);  // the backward still sees a (zero) gradient
      result.push_back(wrap_non_differentiable(o));
    } else if (o.dirty) {
      check_dirty_leaf(t);
      check_view_rebase(t, /*indirect=*/false);
      rebase_history(t, node);
      result.push_back(t);
    } else if (o.is_input) {
      Tensor v = view_of_input(t);
      set_history(v, node);
      result.push_back(v);
    } else {
      AutogradMeta* m = meta(t);
      // A view made inside forward must not be written in place later either.
      if (m && m->view && m->view->differentiable)
        m->view->creation_meta = CreationMeta::InCustomFunction;
      set_history(t, node);
      result.push_back(t);
    }
  }
  return result;
}

}  // namespace gradtrack::autograd
