"""``optim.RAdam``: PyTorch 2.13's RAdam (Adam with a rectified adaptive learning rate).

NOTE [RAdam update]
Per parameter with a gradient (torch's single-tensor path)::

    step += 1
    g = -grad if maximize else grad; decay as Adam (L2, or decoupled: p *= 1 - lr * wd)
    exp_avg.lerp_(g, 1 - beta1);  exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * beta2**step / (1 - beta2**step)
    update = exp_avg / (1 - beta1**step) * lr
    if rho_t > 5: update = update * (1 / (sqrt(exp_avg_sq) + eps) * sqrt(1 - beta2**step)) * rect
    p -= update

with ``rect = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``,
in one C++ pass. Versions: ``p`` +1 (+2 with decoupled decay), ``step`` and
``exp_avg`` +1, ``exp_avg_sq`` +2.
"""

from typing import Any

from .. import _C
from . import _differentiable
from ._adaptive import (check_adam_args, check_tensor_lr,
                        fill_group_defaults, grad_of, group_params, new_state, run_step)
from .optimizer import Optimizer

_radam_update = _C._optim.radam_update


class RAdam(Optimizer):
    """RAdam: Adam whose adaptive step is switched on once its variance is tractable.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.8000, -1.6000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: Any = 1e-3, betas: Any = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        check_adam_args(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_group_defaults(self, {"foreach": None, "maximize": False, "differentiable": False,
                                   "decoupled_weight_decay": False, "capturable": False})

    def step(self, closure=None):
        """One RAdam step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "RAdam.step", self._step_group)

    def _step_group(self, group):
        params, states, lr = group_params(group, lambda p: new_state(self, p, "exp_avg", "exp_avg_sq"))
        beta1, beta2 = group["betas"]
        eps, weight_decay, maximize = group["eps"], group["weight_decay"], group["maximize"]
        decoupled = group["decoupled_weight_decay"]
        for p, state in zip(params, states):
            if group["differentiable"] and _differentiable.records_graph(p, grad_of(p)):
                _differentiable.radam(p, grad_of(p), state, lr, beta1, beta2, eps, weight_decay,
                                      maximize, decoupled)
                continue
            _radam_update(p, grad_of(p), state["step"], state["exp_avg"], state["exp_avg_sq"],
                          lr, beta1, beta2, eps, weight_decay, maximize, decoupled)
