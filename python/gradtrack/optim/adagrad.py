"""``optim.Adagrad``: PyTorch 2.13's Adagrad (lr decay, L2 decay, maximize).

NOTE [Adagrad update]
The state (``step`` and ``sum``, filled with ``initial_accumulator_value``)
exists for every parameter from construction on, as in PyTorch. Per parameter
with a gradient::

    step += 1;  clr = lr / (1 + (step - 1) * lr_decay)
    g = -grad if maximize else grad;  g = g + weight_decay * p  (if weight_decay != 0)
    sum = sum + g * g
    p += -clr * g / (sqrt(sum) + eps)

in one C++ pass. Versions: ``p`` +1, ``step`` +1, ``sum`` +1.
"""

from typing import Any

from .. import _C
from ._adaptive import (as_float, check_fused, check_fused_param,
                        check_tensor_lr, grad_of, new_step, run_step, scalar_dtype)
from . import _differentiable
from .optimizer import Optimizer

_Tensor = _C.Tensor
_adagrad_update = _C._optim.adagrad_update


class Adagrad(Optimizer):
    """Adagrad: per-element learning rates from the sum of squared gradients.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: Any = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)
        if fused:
            self._need_device_dtype_check_for_fused = True
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = self._new_state(group, p)

    def _new_state(self, group, p):
        fill = self.defaults["initial_accumulator_value"]
        return {"step": new_step(group["fused"]),
                "sum": _C._like("full", p, None, False, fill)}

    def __setstate__(self, state):
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
        for p_state in self.state.values():
            if len(p_state) != 0 and not isinstance(p_state["step"], _Tensor):
                p_state["step"] = _C.tensor(float(p_state["step"]), dtype=scalar_dtype(fused))

    def share_memory(self):
        """Moves the state sums to shared memory (``share_memory_()``), so processes that
        share the model share the accumulated squares too.

        >>> from gradtrack import nn, optim
        >>> opt = optim.Adagrad(nn.Linear(2, 1).parameters())
        >>> opt.share_memory()
        >>> opt.state[opt.param_groups[0]["params"][0]]["sum"].is_shared()
        True
        """
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def step(self, closure=None):
        """One Adagrad step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "Adagrad.step", self._step_group)

    def _step_group(self, group):
        lr = as_float(group["lr"])
        lr_decay, eps = group["lr_decay"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        state = self.state
        for p in group["params"]:
            grad = grad_of(p)
            if grad is None:
                continue
            if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                check_fused_param(p)
                self._need_device_dtype_check_for_fused = False
            p_state = state[p]
            if len(p_state) == 0:
                p_state.update(self._new_state(group, p))
            if group["differentiable"] and _differentiable.records_graph(p, grad):
                _differentiable.adagrad(p, grad, p_state, lr, lr_decay, eps, weight_decay,
                                        maximize)
                continue
            _adagrad_update(p, grad, p_state["step"], p_state["sum"], lr, lr_decay, eps,
                            weight_decay, maximize)
