// Forward-mode AD: tangents carried by tensors, pushed through each op by the
// jvp formula of its row in the formula table.
#pragma once

#include <atomic>
#include <initializer_list>
#include <vector>

#include "autograd/formulas.h"

namespace gradtrack::autograd::forward_ad {

/// NOTE [Forward-mode AD]
/// One dual level at a time (PyTorch supports no nesting either). While it is
/// open, a tensor may carry a tangent (AutogradMeta::fw_grad); every op that
/// records through ops::record() gives its output the tangent its row's jvp
/// formula computes, whatever the grad mode (forward AD ignores it, as
/// PyTorch's). The jvp runs with propagation off: its primals still carry
/// tangents, and the tangent of a tangent is not wanted. A tangent has its
/// primal's strides, so a view's tangent is the same view of the input's
/// tangent (they share memory, as in PyTorch); a gapped primal that is not
/// an alias of its base's tangent (make_dual of a narrow) gets a dense one,
/// and view_jvp gathers its views' elements instead. Leaving the level drops every
/// tangent. Paths that cannot propagate (in-place ops, cat, split, custom
/// Functions) raise rather than silently lose a tangent.
extern std::atomic<int64_t> g_level;  // -1: no level
inline bool active() { return g_level.load(std::memory_order_relaxed) >= 0; }

int64_t enter_level();
void exit_level(int64_t level);

/// The tangent of `t` (undefined: none).
Tensor tangent(const Tensor& t);
/// Sets (or, with an undefined tangent, clears) the tangent of `t`.
void set_tangent(const Tensor& t, const Tensor& tangent);
/// Whether propagation is on and any input has a tangent (every op asks).
bool any_tangent(std::initializer_list<const Tensor*> inputs);
bool any_tangent(const std::vector<Tensor>& inputs);

/// Gives `out` the tangent from `kind`'s jvp; PyTorch's NotImplementedError
/// when the row has none.
void propagate(OpKind kind, std::initializer_list<const Tensor*> inputs, const Tensor& out,
               const Attrs& attrs, const std::vector<const Tensor*>& extras);
/// Views made outside record() (split, unbind): each gets its view of a's tangent.
void propagate_views(const Tensor& a, const std::vector<Tensor>& outs);
/// cat: the tangents (zeros where none) concatenated.
void propagate_cat(const std::vector<Tensor>& inputs, int64_t dim, const Tensor& out);
/// In-place ops (NOTE [Forward AD through in-place ops]): raises PyTorch's
/// error (naming `label`, e.g. "mul_") before the write when `kind` has no jvp.
void check_inplace(OpKind kind, const char* label);
/// After the write: `self`'s tangent becomes the jvp, written into its
/// existing tangent (as PyTorch's self_t.copy_) or given to it (a view of a
/// base without one gives the base a zero tangent first). `old_self` is self's
/// value before the write.
void propagate_inplace(OpKind kind, std::initializer_list<const Tensor*> inputs, const Tensor& self,
                       const Tensor& old_self, const Attrs& attrs,
                       const std::vector<const Tensor*>& extras);
/// PyTorch's error for an op without forward AD (`name` in PyTorch's spelling).
[[noreturn]] void not_implemented(const std::string& name);

/// Turns propagation off in its scope (jvp formulas, unpack_dual).
class NoPropagation {
 public:
  NoPropagation();
  ~NoPropagation();
  NoPropagation(const NoPropagation&) = delete;
  NoPropagation& operator=(const NoPropagation&) = delete;

 private:
  bool prev_;
};

/// Turns propagation off (true) or on; returns the previous state (custom
/// Functions run forward and jvp without it, as PyTorch's).
bool set_propagation_off(bool off);
bool propagation_off();

/// make_dual: a view of `primal` carrying `tangent`.
Tensor make_dual(const Tensor& primal, const Tensor& tangent, int64_t level);
/// unpack_dual's primal: a view of `t` without the tangent.
Tensor primal_view(const Tensor& t);

}  // namespace gradtrack::autograd::forward_ad
