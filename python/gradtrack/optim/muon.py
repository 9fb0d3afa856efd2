"""``optim.Muon``: PyTorch 2.13's Muon, momentum SGD whose update of each 2-D
parameter is orthogonalized by a Newton-Schulz iteration.

NOTE [Muon update]
Per matrix parameter with a gradient ``g``::

    buf = lerp(buf, g, 1 - momentum)
    u = lerp(g, buf, momentum) if nesterov else buf
    u = newton_schulz(u)            # in bfloat16, as PyTorch's
    p *= 1 - lr * weight_decay
    p -= adjusted_lr * u

``newton_schulz`` scales ``u`` to unit Frobenius norm and runs ``ns_steps``
iterations of ``X = a X + (b A + c A A) X`` with ``A = X X^T`` on the wide
orientation of ``u``; ``adjusted_lr`` is ``lr * sqrt(max(1, rows / cols))``
(``'original'``) or ``lr * 0.2 * sqrt(max(rows, cols))`` (``'match_rms_adamw'``).
"""

import math
from typing import Any

from .. import _C
from ._adaptive import grad_of, run_step, zeros_like
from .optimizer import Optimizer

_Tensor = _C.Tensor
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.775
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """An approximately orthogonal matrix with ``grad``'s singular vectors (bfloat16)."""
    from .. import addmm
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = addmm(gram, gram, gram, beta=b, alpha=c)
        x = addmm(x, gram_update, x, beta=a)
    return x.T if tall else x


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon: momentum steps orthogonalized by Newton-Schulz iterations; for 2-D
    parameters only.

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.zeros(2, 3, requires_grad=True)
    >>> opt = optim.Muon([w], lr=0.1)
    >>> (w - 1).pow(2).sum().backward()
    >>> opt.step()
    >>> sorted(opt.state[w])
    ['momentum_buffer']
    """

    def __init__(self, params: Any, lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, _Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def step(self, closure=None):
        """One Muon step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "Muon.step", self._step_group)

    def _step_group(self, group):
        lr = group["lr"]
        lr = lr.item() if isinstance(lr, _Tensor) else lr
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        work = []
        for p in group["params"]:
            grad = grad_of(p)
            if grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = zeros_like(grad)
            work.append((p, grad, state["momentum_buffer"]))
        for p, grad, buf in work:
            if grad.ndim != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = _zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                                 group["ns_steps"], group["eps"])
            adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], p.shape)
            p.mul_(1 - lr * weight_decay)
            p.add_(update, alpha=-adjusted_lr)
