"""``optim.AdamW``: Adam with decoupled weight decay (default 1e-2), as PyTorch 2.13.

It is ``Adam(..., decoupled_weight_decay=True)``: each step first scales the
parameter by ``1 - lr * weight_decay`` and then applies Adam's update, so a
parameter's ``_version`` goes up by two per step (NOTE [Adam update]).
"""

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

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
