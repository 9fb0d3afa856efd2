"""``optim.Adam``: PyTorch 2.13's Adam (with amsgrad, maximize, L2 or decoupled decay).

NOTE [Adam update]
Per parameter with a gradient, as torch's single-tensor path (foreach=False)::

    step += 1
    g = -grad if maximize else grad
    if weight_decay != 0:
        if decoupled_weight_decay: p *= 1 - lr * weight_decay
        else:                      g = g + weight_decay * p
    exp_avg.lerp_(g, 1 - beta1)
    exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * g * g
    v = max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq) if amsgrad else exp_avg_sq
    p += -(lr / (1 - beta1**step)) * exp_avg / (sqrt(v) / sqrt(1 - beta2**step) + eps)

all in one C++ pass (``_C._optim.adam_update``). Versions move as torch's ops
move them: ``p`` +1 (+2 with decoupled decay), ``step`` +1, ``exp_avg`` +1,
``exp_avg_sq`` +2, ``max_exp_avg_sq`` +1.
"""

from typing import Any

from .. import _C
from . import _differentiable
from ._adaptive import (CAPTURABLE_MESSAGE, as_float, check_adam_args, check_fused,
                        check_fused_param, check_tensor_lr, grad_of, new_step, run_step,
                        upgrade_steps, zeros_like)
from .optimizer import Optimizer

_Tensor = _C.Tensor
_adam_update = _C._optim.adam_update


class Adam(Optimizer):
    """Adam: adaptive moment estimation, with PyTorch's arguments and numbers.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w, w._version
    (tensor([ 0.9000, -1.9000], requires_grad=True), 1)
    >>> opt.state_dict()["state"][0]["step"]
    tensor(1.)
    """

    def __init__(self, params: Any, lr: Any = 1e-3, betas: Any = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        check_tensor_lr(lr, foreach, capturable)
        check_adam_args(lr, eps, betas, weight_decay)
        betas = _check_betas(betas, foreach, capturable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
        upgrade_steps(self, "fused")

    def step(self, closure: Any = None) -> Any:
        """One Adam step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, type(self).__name__ + ".step", self._step_group)

    def _init_state(self, group, p):
        state = self.state[p]
        if len(state) == 0:
            if group["fused"]:
                check_fused_param(p)
            state["step"] = new_step(group["fused"])
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        if group["differentiable"] and state["step"].requires_grad:
            raise RuntimeError("`requires_grad` is not supported for `step` in differentiable "
                               "mode")
        if group["foreach"] and isinstance(group["lr"], _Tensor) and not group["capturable"]:
            raise RuntimeError("lr as a Tensor is not supported for capturable=False and "
                               "foreach=True")
        return state

    def _step_group(self, group):
        params = [p for p in group["params"] if grad_of(p) is not None]
        states = [self._init_state(group, p) for p in params]
        if group["capturable"] and params:
            raise AssertionError(CAPTURABLE_MESSAGE)
        lr = as_float(group["lr"])
        beta1, beta2 = (as_float(b) for b in group["betas"])
        eps, weight_decay = group["eps"], group["weight_decay"]
        amsgrad, maximize = group["amsgrad"], group["maximize"]
        decoupled = group["decoupled_weight_decay"]
        label = type(self).__name__ + ".step"
        for p, state in zip(params, states):
            if group["differentiable"] and _differentiable.records_graph(p, grad_of(p)):
                _differentiable.adam(p, grad_of(p), state, lr, beta1, beta2, eps, weight_decay,
                                     amsgrad, maximize, decoupled)
                continue
            _adam_update(p, grad_of(p), state["step"], state["exp_avg"], state["exp_avg_sq"],
                         state["max_exp_avg_sq"] if amsgrad else None, lr, beta1, beta2, eps,
                         weight_decay, maximize, decoupled, label)


def _check_betas(betas, foreach, capturable):
    """PyTorch's rules for ``betas``: two floats or two 1-element tensors."""
    if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], _Tensor) and isinstance(betas[1], _Tensor))):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], _Tensor):
            if not capturable and foreach:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False "
                                 "and foreach=True")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(b.squeeze() if isinstance(b, _Tensor) and b.dim() != 0 else b for b in betas)
