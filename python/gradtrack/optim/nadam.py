"""``optim.NAdam``: PyTorch 2.13's NAdam (Adam with Nesterov momentum).

NOTE [NAdam update]
Per parameter with a gradient (torch's single-tensor path)::

    step += 1
    g = -grad if maximize else grad; decay as Adam (L2, or decoupled: p *= 1 - lr * wd)
    mu      = beta1 * (1 - 0.5 * 0.96**(step * momentum_decay))
    mu_next = beta1 * (1 - 0.5 * 0.96**((step + 1) * momentum_decay))
    mu_product *= mu                       (a 0-dim state tensor, rounded to its dtype)
    exp_avg.lerp_(g, 1 - beta1);  exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
    denom = sqrt(exp_avg_sq / (1 - beta2**step)) + eps
    p += (-lr * (1 - mu) / (1 - mu_product)) * g / denom
    p += (-lr * mu_next / (1 - mu_product * mu_next)) * exp_avg / denom

in one C++ pass. Versions: ``p`` +2 (+3 with decoupled decay), ``step``,
``mu_product`` and ``exp_avg`` +1, ``exp_avg_sq`` +2.
"""

from typing import Any

from .. import _C
from . import _differentiable
from ._adaptive import (as_float, check_adam_args, check_tensor_lr,
                        fill_group_defaults, grad_of, new_step, run_step, scalar_dtype,
                        zeros_like)
from .optimizer import Optimizer

_Tensor = _C.Tensor
_nadam_update = _C._optim.nadam_update
_CAPTURABLE_MESSAGE = ("If capturable=True, params, mu_products and state_steps must be on "
                       "supported devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")


class NAdam(Optimizer):
    """NAdam: Adam with Nesterov momentum and a momentum-decay schedule.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> sorted(opt.state[w])
    ['exp_avg', 'exp_avg_sq', 'mu_product', 'step']
    """

    def __init__(self, params: Any, lr: Any = 2e-3, betas: Any = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        check_adam_args(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_group_defaults(self, {"maximize": False, "foreach": None, "capturable": False,
                                   "differentiable": False, "decoupled_weight_decay": False})
        for p_state in self.state.values():
            if len(p_state) != 0 and not isinstance(p_state.get("mu_product", 0), _Tensor):
                p_state["mu_product"] = _C.tensor(float(p_state["mu_product"]),
                                                  dtype=scalar_dtype())

    def step(self, closure=None):
        """One NAdam step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "NAdam.step", self._step_group)

    def _init_state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_step()
            state["mu_product"] = _C.tensor(1.0, dtype=scalar_dtype())
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        return state

    def _step_group(self, group):
        params = [p for p in group["params"] if grad_of(p) is not None]
        states = [self._init_state(p) for p in params]
        if group["capturable"] and params:
            raise AssertionError(_CAPTURABLE_MESSAGE)
        lr = as_float(group["lr"])
        beta1, beta2 = group["betas"]
        eps, weight_decay, maximize = group["eps"], group["weight_decay"], group["maximize"]
        momentum_decay = group["momentum_decay"]
        decoupled = group["decoupled_weight_decay"]
        for p, state in zip(params, states):
            if group["differentiable"] and _differentiable.records_graph(p, grad_of(p)):
                _differentiable.nadam(p, grad_of(p), state, lr, beta1, beta2, eps, weight_decay,
                                      momentum_decay, maximize, decoupled)
                continue
            _nadam_update(p, grad_of(p), state["step"], state["mu_product"], state["exp_avg"],
                          state["exp_avg_sq"], lr, beta1, beta2, eps, weight_decay,
                          momentum_decay, maximize, decoupled)
