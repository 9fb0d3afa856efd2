#include "autograd/variable.h"

#include "autograd/functions.h"
#include "autograd/grad_mode.h"

namespace gradtrack::autograd {

AutogradMeta& materialize_meta(const Tensor& t) {
  if (!t->autograd_meta()) t->set_autograd_meta(std::make_unique<AutogradMeta>());
  return *meta(t);
}

namespace {

const std::shared_ptr<Node> kNoNode;

// Moves retain_grad's registration from the old grad_fn to the new one.
void move_retain_grad(const Tensor& t, AutogradMeta& m, const std::shared_ptr<Node>& old_fn) {
  if (!m.retains_grad) return;
  if (old_fn) old_fn->retains_grad().erase(m.output_nr);
  if (m.grad_fn) m.grad_fn->retains_grad()[m.output_nr] = t.ptr();
}

}  // namespace

namespace {

// The view's node made again from its base's history as it is now (an
// AsStridedBackward0 of the base's node), stamped with the current version.
void regenerate_view_node(const Tensor& t, AutogradMeta& m) {
  auto old_fn = m.grad_fn;
  m.grad_fn = make_as_strided_node(t, m.view->base);
  m.output_nr = 0;
  m.saw_grad_fn = true;
  m.view->attr_version = t->version();
  move_retain_grad(t, m, old_fn);
}

}  // namespace

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return kNoNode;
  if (m->view && m->view->differentiable) {
    ViewInfo& v = *m->view;
    if (!m->grad_fn && !requires_grad(v.base)) return m->grad_fn;
    if (v.attr_version != t->version()) {
      // The base or another view was written in place: regenerate lazily.
      check_view_rebase(t, /*indirect=*/true);
      regenerate_view_node(t, *m);
    }
  }
  return m->grad_fn;
}

uint32_t output_nr(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return m ? m->output_nr : 0;
}

bool requires_grad(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return false;
  if (m->requires_grad || m->grad_fn) return true;
  // A differentiable view requires grad whenever its base does, even one made
  // under no_grad (which is why writing it in place later is refused).
  return m->view && m->view->differentiable && requires_grad(m->view->base);
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta& m = materialize_meta(t);
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m.grad_accumulator = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  const auto& fn = grad_fn(t);
  if (fn) return {fn, output_nr(t)};
  AutogradMeta* m = meta(t);
  if (m && m->requires_grad) return {grad_accumulator(t), 0};
  return {};
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& fn) {
  AutogradMeta& m = materialize_meta(out);
  auto old_fn = m.grad_fn;
  m.output_nr = fn->add_grad_meta(out);
  m.grad_fn = fn;
  m.saw_grad_fn = true;
  m.requires_grad = false;
  if (m.view) m.view->attr_version = out->version();
  move_retain_grad(out, m, old_fn);
}

void set_requires_grad(const Tensor& t, bool value) {
  if (!value && !meta(t)) return;
  materialize_meta(t).requires_grad = value;
}

void make_view(const Tensor& view, const Tensor& base, CreationMeta creation) {
  auto info = std::make_unique<ViewInfo>();
  AutogradMeta* bm = meta(base);
  if (bm && bm->view) {
    info->base = bm->view->base;
    // A plain view of a special view keeps its parent's restriction; a special
    // one has its own, unless the parent's is inference mode (PyTorch's
    // propagate_creation_meta).
    const CreationMeta parent = bm->view->creation_meta;
    if (parent != CreationMeta::Default &&
        (creation == CreationMeta::Default || parent == CreationMeta::InferenceMode)) {
      creation = parent;
    }
  } else {
    info->base = base;
  }
  info->differentiable = is_floating(view.dtype());
  info->creation_meta = creation;
  info->attr_version = view->version();
  materialize_meta(view).view = std::move(info);
}

bool is_view(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return m && m->view;
}

Tensor view_base(const Tensor& t) {
  AutogradMeta* m = meta(t);
  return m && m->view ? m->view->base : Tensor();
}

void check_view_rebase(const Tensor& t, bool indirect) {
  AutogradMeta* m = meta(t);
  if (!m || !m->view || !m->view->differentiable) return;
  const ViewInfo& v = *m->view;
  if (v.creation_meta == CreationMeta::Default) return;
  // PyTorch's handle_view_on_rebase: a sentence about the view (whether it
  // has a node decides how it is named), then one about its kind.
  const std::string action =
      indirect ? " its base or another view of its base has been" : " is being";
  // A view with a node is named by it: the op that made this view (Select,
  // Slice for a view of a split output), as PyTorch's.
  const std::string named =
      m->grad_fn ? str_cat("Output ", m->output_nr, " of ", forward_op_name(m->grad_fn->name()))
                 : std::string();
  std::string msg;
  const bool named_view = v.creation_meta == CreationMeta::MultiOutputNode ||
                          v.creation_meta == CreationMeta::InCustomFunction;
  if (!named_view || !m->grad_fn) {
    const std::string prefix =
        m->grad_fn ? named + " is a view of a view which was" : std::string("A view was");
    msg = v.creation_meta == CreationMeta::InferenceMode
              ? str_cat(prefix, " created in inference mode and", action,
                        " modified inplace in normal mode.")
              : str_cat(prefix, " created in no_grad mode and", action,
                        " modified inplace with grad mode enabled.");
  } else {
    msg = str_cat(named, " is a view and", action, " modified inplace.");
  }
  const char* clarify =
      " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
      "your code by moving both the view and the inplace either both inside the ";
  switch (v.creation_meta) {
    case CreationMeta::MultiOutputNode:
      msg +=
          " This view is the output of a function that returns multiple views. Such functions "
          "do not allow the output views to be modified inplace. You should replace the "
          "inplace operation by an out-of-place one.";
      break;
    case CreationMeta::NoGradMode:
      msg += str_cat(clarify,
                     "no_grad block (if you don't want the inplace to be tracked) or both "
                     "outside (if you want the inplace to be tracked).");
      break;
    case CreationMeta::InferenceMode:
      msg += str_cat(clarify,
                     "inference_mode block (if you don't want the inplace to be tracked) "
                     "or both outside (if you want the inplace to be tracked).");
      break;
    case CreationMeta::InCustomFunction:
      msg +=
          " This view was created inside a custom Function (or because an input was returned "
          "as-is) and the autograd logic to handle view+inplace would override the custom "
          "backward associated with the custom Function, leading to incorrect gradients. This "
          "behavior is forbidden. You can fix this by cloning the output of the custom "
          "Function.";
      break;
    case CreationMeta::Default: break;
  }
  throw Error(msg);
}

void rebase_history(const Tensor& self, std::shared_ptr<Node> fn) {
  AutogradMeta& m = materialize_meta(self);
  if (m.view && m.view->differentiable) {
    Tensor base = m.view->base;
    fn->add_grad_meta(self);
    auto copy_slices = std::make_shared<CopySlices>(base, self, std::move(fn));
    set_history(base, copy_slices);
    // Made again now, whatever its version stamp: a read of the view's node since
    // the write (a custom Function's leaf check of a dirty view) stamped it with
    // the new version while the base still had its old history, and it would
    // have kept a node that skips this write's backward.
    regenerate_view_node(self, m);
    return;
  }
  set_history(self, fn);
}

Tensor detach(const Tensor& t) {
  Tensor out = alias_with_geometry(t, t.sizes(), t.strides(), t->offset());
  out->set_alias_kind(TensorImpl::AliasKind::Detach);
  return out;
}

// PyTorch's view(dtype): detach() with the bytes read as another dtype. A
// different element size rescales the last dim, the other strides and the
// offset, which must divide evenly.
Tensor view_dtype(const Tensor& t, ScalarType dtype) {
  const int64_t from = static_cast<int64_t>(itemsize(t.dtype()));
  const int64_t to = static_cast<int64_t>(itemsize(dtype));
  DimVector sizes = t.sizes(), strides = t.strides();
  int64_t offset = t->offset();
  if (from != to) {
    const std::string what = str_cat(" to view ", scalar_type_name(t.dtype()), " as ",
                                     scalar_type_name(dtype), " (different element sizes)");
    const int64_t last = t.dim() - 1;
    GT_CHECK(last >= 0, "self.dim() cannot be 0", what);
    GT_CHECK(strides[last] == 1, "self.stride(-1) must be 1", what, ", but got ", strides[last]);
    if (from > to) {
      const int64_t ratio = from / to;
      sizes[last] *= ratio;
      for (int64_t d = 0; d < last; ++d) strides[d] *= ratio;
      offset *= ratio;
    } else {
      const int64_t ratio = to / from;
      GT_CHECK(sizes[last] % ratio == 0, "self.size(-1) must be divisible by ", ratio, what,
               ", but got ", sizes[last]);
      GT_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio, what,
               ", but got ", offset);
      for (int64_t d = 0; d < last; ++d) {
        GT_CHECK(strides[d] % ratio == 0, "self.stride(", d, ") must be divisible by ", ratio, what,
                 ", but got ", strides[d]);
      }
      sizes[last] /= ratio;
      for (int64_t d = 0; d < last; ++d) strides[d] /= ratio;
      offset /= ratio;
    }
  }
  Tensor out(std::make_shared<TensorImpl>(t->storage(), std::move(sizes), std::move(strides),
                                          offset, dtype, t->version_counter()));
  out->set_alias_kind(TensorImpl::AliasKind::ViewDtype);
  return out;
}

void detach_inplace(const Tensor& t) {
  AutogradMeta* m = meta(t);
  if (!m) return;
  if (m->view) {
    throw Error(
        "Can't detach views in-place. Use detach() instead. If you are using "
        "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
        "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
        "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
        "gradtrack/optim/optimizer.py as the solution.");
  }
  // retains_grad stays set, and the old node keeps its weak reference, as in
  // PyTorch (a backward through that node still fills .grad).
  m->grad_fn.reset();
  m->output_nr = 0;
  m->requires_grad = false;
}

}  // namespace gradtrack::autograd
