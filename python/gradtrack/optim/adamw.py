"""``optim.AdamW``: Adam with decoupled weight decay (default 1e-2), as PyTorch 2.13.

It is ``Adam(..., decoupled_weight_decay=True)``: each step first scales the
parameter by ``1 - lr * weight_decay`` and then applies Adam's update, so a
parameter's ``_version`` goes up by two per step (NOTE [Adam update]).
"""

from typing import Any

from .adam import Adam


class AdamW(Adam):
    """Adam with decoupled weight decay.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w, w._version
    (tensor([ 0.8500, -1.8000], requires_grad=True), 2)
    """

    def __init__(self, params: Any, lr: Any = 1e-3, betas: Any = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
