"""``optim.Adamax``: PyTorch 2.13's Adamax (Adam with an infinity norm).

NOTE [Adamax update]
Per parameter with a gradient (torch's single-tensor path)::

    step += 1
    g = -grad if maximize else grad;  g = g + weight_decay * p  (if weight_decay != 0)
    exp_avg.lerp_(g, 1 - beta1)
    exp_inf = max(exp_inf * beta2, |g| + eps)
    p += -(lr / (1 - beta1**step)) * exp_avg / exp_inf

in one C++ pass. Versions: ``p`` +1, ``step`` +1, ``exp_avg`` +1, ``exp_inf`` +2.
"""

from typing import Any

from .. import _C
from . import _differentiable
from ._adaptive import (check_adam_args, check_tensor_lr,
                        fill_group_defaults, grad_of, group_params, new_state, run_step)
from .optimizer import Optimizer

_adamax_update = _C._optim.adamax_update


class Adamax(Optimizer):
    """Adamax: Adam whose second moment is a decaying maximum of ``|grad|``.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: Any = 2e-3, betas: Any = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_tensor_lr(lr)
        check_adam_args(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_group_defaults(self, {"foreach": None, "maximize": False, "differentiable": False,
                                   "capturable": False})

    def step(self, closure=None):
        """One Adamax step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "Adamax.step", self._step_group)

    def _step_group(self, group):
        params, states, lr = group_params(group, lambda p: new_state(self, p, "exp_avg", "exp_inf"))
        beta1, beta2 = group["betas"]
        eps, weight_decay, maximize = group["eps"], group["weight_decay"], group["maximize"]
        for p, state in zip(params, states):
            if group["differentiable"] and _differentiable.records_graph(p, grad_of(p)):
                _differentiable.adamax(p, grad_of(p), state, lr, beta1, beta2, eps, weight_decay,
                                       maximize)
                continue
            _adamax_update(p, grad_of(p), state["step"], state["exp_avg"], state["exp_inf"], lr,
                           beta1, beta2, eps, weight_decay, maximize)
