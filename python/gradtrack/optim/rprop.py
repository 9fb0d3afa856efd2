"""``optim.Rprop``: PyTorch 2.13's resilient backpropagation.

NOTE [Rprop update]
Per element, with ``g`` the gradient (negated under ``maximize``) and ``prev``
the gradient kept from the last step: where ``g * prev > 0`` the step size
grows by ``etaplus``, where it is ``< 0`` it shrinks by ``etaminus`` and ``g``
counts as 0 for this step, elsewhere it stays; the step size is clamped to
``step_sizes``, then ``p -= sign(g) * step_size`` and ``prev = g``.
"""

from typing import Any

from .. import _C
from . import _differentiable
from ._adaptive import (CAPTURABLE_MESSAGE, as_float, check_tensor_lr, fill_group_defaults,
                        grad_of, new_step, run_step, zeros_like)
from .optimizer import Optimizer

_Tensor = _C.Tensor


class Rprop(Optimizer):
    """The resilient backpropagation algorithm: a per-element step size that
    follows the sign of the gradient, not its size.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: Any = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_group_defaults(self, {"foreach": None, "maximize": False, "differentiable": False,
                                   "capturable": False})

    def step(self, closure=None):
        """One Rprop step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "Rprop.step", self._step_group)

    def _step_group(self, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p in group["params"]:
            grad = grad_of(p)
            if grad is None:
                continue
            state = self.state[p]
            if len(state) == 0:
                state["step"] = new_step()
                state["prev"] = zeros_like(p)
                state["step_size"] = _C._like("full", grad, None, False, as_float(group["lr"]))
            if group["capturable"]:
                raise AssertionError(CAPTURABLE_MESSAGE)
            if group["differentiable"] and _differentiable.records_graph(p, grad):
                _differentiable.rprop(p, grad, state, etaminus, etaplus, step_size_min,
                                      step_size_max, group["maximize"])
                continue
            if group["maximize"]:
                grad = -grad
            prev, step_size = state["prev"], state["step_size"]
            state["step"] += 1
            sign = grad.mul(prev).sign()
            sign = sign.masked_fill(sign.gt(0), etaplus)
            sign = sign.masked_fill(sign.lt(0), etaminus)
            sign = sign.masked_fill(sign.eq(0), 1)
            step_size.mul_(sign).clamp_(step_size_min, step_size_max)
            grad = grad.masked_fill(sign.eq(etaminus), 0)
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
