"""``optim.SGD``: stochastic gradient descent, with PyTorch 2.13's update rule.

NOTE [SGD update]
For each parameter ``p`` whose ``grad`` is not None (as torch 2.13 does)::

    g = -grad if maximize else grad
    if weight_decay != 0: g = g + weight_decay * p
    if momentum != 0:
        buf = clone(g)                                  first step: no dampening
        buf = momentum * buf + (1 - dampening) * g      later steps, in place
        g = g + momentum * buf if nesterov else buf
    p -= lr * g

By default this runs as the tensor ops above, exactly PyTorch's single-tensor
path: same rounding, ``p._version`` +1 per step, the buffer at ``_version`` 0
after the first step and +2 (``mul_`` then ``add_``) after each later one.
With ``fused=True`` one C++ call per parameter (``_C._optim.sgd_update``) does the
update in one pass; it also bumps ``p._version`` once, but the buffer only
once per step. The fused kernel is not the default because, as built now, it
is slower than the three vectorized ops (measured on a 128x784 weight with
momentum: 112 us against 59 us on 1 thread, 7.6 ms against 32 us on 2).
"""

from typing import Any

from .. import _C
from .optimizer import Optimizer

_Tensor = _C.Tensor
_grad_get = _Tensor._grad.fget
_sgd_update = _C._optim.sgd_update
_is_grad_enabled = _C.is_grad_enabled
_set_grad_enabled = _C._set_grad_enabled


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum, Nesterov, weight decay).

    ``step()`` runs under no_grad; each updated parameter's ``_version`` goes
    up by one and it stays a leaf. A parameter whose ``grad`` is None is
    skipped and gets no state.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     (w * w).sum().backward()
    ...     opt.step()
    >>> w, w._version
    (tensor([ 0.4600, -0.9200], requires_grad=True), 2)
    """

    def __init__(self, params: Any, lr: Any = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, _Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure: Any = None) -> Any:
        """Updates every parameter that has a gradient; returns ``closure()``'s loss if given."""
        loss = None
        if closure is not None:
            previous = _is_grad_enabled()
            _set_grad_enabled(True)
            try:
                loss = closure()
            finally:
                _set_grad_enabled(previous)
        previous = _is_grad_enabled()
        # differentiable=True records the update in the graph, as in PyTorch.
        _set_grad_enabled(bool(self.defaults["differentiable"]))
        # Writes made here are reported as "SGD.step" by provenance notes.
        label = _C._inplace.swap_write_label("SGD.step")
        try:
            for group in self.param_groups:
                if group["fused"]:
                    self._step_group_fused(group)
                else:
                    self._step_group(group)
        finally:
            _C._inplace.swap_write_label(label)
            _set_grad_enabled(previous)
        return loss

    def _step_group(self, group):
        lr = group["lr"]
        if isinstance(lr, _Tensor):  # a tensor lr is read as a number, as PyTorch does
            lr = lr.item()
        momentum = group["momentum"]
        dampening = group["dampening"]
        weight_decay = group["weight_decay"]
        nesterov = group["nesterov"]
        maximize = group["maximize"]
        state = self.state
        for p in group["params"]:
            grad = _grad_get(p)
            if grad is None:
                continue
            g = grad.neg() if maximize else grad
            if weight_decay != 0:
                g = g.add(p, alpha=weight_decay)
            if momentum != 0:
                param_state = state[p]
                buf = param_state.get("momentum_buffer")
                if buf is None:
                    buf = _fresh_copy(g)
                    param_state["momentum_buffer"] = buf
                else:
                    buf.mul_(momentum).add_(g, alpha=1 - dampening)
                g = g.add(buf, alpha=momentum) if nesterov else buf
            p.add_(g, alpha=-lr)

    def _step_group_fused(self, group):
        lr = float(group["lr"])
        momentum = float(group["momentum"])
        dampening = float(group["dampening"])
        weight_decay = float(group["weight_decay"])
        nesterov = group["nesterov"]
        maximize = group["maximize"]
        state = self.state
        for p in group["params"]:
            grad = _grad_get(p)
            if grad is None:
                continue
            buf, first = None, False
            if momentum != 0:
                param_state = state[p]
                buf = param_state.get("momentum_buffer")
                if buf is None:
                    buf, first = _C._like("empty", p, None, False, None), True
                    param_state["momentum_buffer"] = buf
            _sgd_update(p, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize,
                        first)


def _fresh_copy(g):
    """``g.detach().clone()``, but always contiguous.

    PyTorch's buffer is contiguous because its weight grads are (the gradient
    layout contract). gradtrack's Linear weight grads can come out transposed,
    and a transposed buffer makes every later step's mul_/add_ walk memory
    with a large stride (measured 4x slower on a 128x784 weight).
    """
    g = g.detach()
    return g.clone() if g.is_contiguous() else g.contiguous()
