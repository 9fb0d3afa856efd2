"""``optim.RMSprop``: PyTorch 2.13's RMSprop (centered, momentum, maximize, L2 decay).

NOTE [RMSprop update]
Per parameter with a gradient (torch's single-tensor path)::

    step += 1
    g = -grad if maximize else grad;  g = g + weight_decay * p  (if weight_decay != 0)
    square_avg = square_avg * alpha + (1 - alpha) * g * g
    avg = sqrt(square_avg - grad_avg**2) if centered (grad_avg.lerp_(g, 1 - alpha) first)
          else sqrt(square_avg);  avg = avg + eps
    momentum > 0: buf = buf * momentum + g / avg;  p += -lr * buf
    else:         p += -lr * g / avg

in one C++ pass. Versions: ``p`` +1, ``step`` +1, ``square_avg`` +2,
``momentum_buffer`` +2, ``grad_avg`` +1.
"""

from typing import Any

from .. import _C
from ._adaptive import (CAPTURABLE_MESSAGE, as_float, check_tensor_lr,
                        fill_group_defaults, grad_of, new_step, run_step, zeros_like)
from . import _differentiable
from .optimizer import Optimizer

_rmsprop_update = _C._optim.rmsprop_update


class RMSprop(Optimizer):
    """RMSprop: divides the gradient by a running root mean square of it.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(self, params: Any, lr: Any = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_group_defaults(self, {"momentum": 0, "centered": False, "foreach": None,
                                   "maximize": False, "differentiable": False,
                                   "capturable": False})

    def step(self, closure=None):
        """One RMSprop step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "RMSprop.step", self._step_group)

    def _init_state(self, group, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = new_step()
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        return state

    def _step_group(self, group):
        params = [p for p in group["params"] if grad_of(p) is not None]
        states = [self._init_state(group, p) for p in params]
        if group["capturable"] and params:
            raise AssertionError(CAPTURABLE_MESSAGE)
        lr = as_float(group["lr"])
        alpha, eps, weight_decay = group["alpha"], group["eps"], group["weight_decay"]
        momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
        for p, state in zip(params, states):
            if group["differentiable"] and _differentiable.records_graph(p, grad_of(p)):
                _differentiable.rmsprop(p, grad_of(p), state, lr, alpha, eps, weight_decay,
                                        momentum, centered, maximize)
                continue
            _rmsprop_update(p, grad_of(p), state["step"], state["square_avg"],
                            state.get("momentum_buffer") if momentum > 0 else None,
                            state["grad_avg"] if centered else None, lr, alpha, eps,
                            weight_decay, momentum, maximize)
