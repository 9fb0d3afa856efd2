"""``optim.Adafactor``: PyTorch 2.13's Adafactor (factored second moments).

NOTE [Adafactor update]
For a matrix (or a batch of them) the second moment is kept as a row factor
and a column factor (the running means of the squared gradient along the
last and the second-to-last dim), and estimated as their product divided by
the mean of the row factor; a vector keeps it whole. Per step ``t``::

    beta2 mix = t ** beta2_decay;  rho = min(lr, 1 / sqrt(t))
    alpha = max(eps2, RMS(p)) * rho
    p *= 1 - lr * weight_decay
    update = g / sqrt(max(v_estimate, eps1 ** 2))
    p -= alpha / max(1, RMS(update) / d) * update

in PyTorch's order of operations (``eps1`` defaults to the dtype's epsilon).
"""

from typing import Any

from .. import _C
from ._adaptive import as_float, grad_of, run_step, upgrade_steps, zeros_like
from .optimizer import Optimizer

_Tensor = _C.Tensor


class Adafactor(Optimizer):
    """Adafactor: Adam-like steps whose second moments of a matrix are stored as
    a row and a column factor (memory linear in the sides).

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    >>> opt = optim.Adafactor([w])
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> sorted(opt.state[w]), opt.state[w]["row_var"].shape
    (['col_var', 'row_var', 'step'], gradtrack.Size([2, 1]))
    """

    def __init__(self, params: Any, lr: Any = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        if isinstance(lr, _Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
        upgrade_steps(self)

    def step(self, closure=None):
        """One Adafactor step for every parameter with a gradient; returns ``closure()``'s loss."""
        return run_step(self, closure, "Adafactor.step", self._step_group)

    def _new_state(self, p, grad):
        from .. import get_default_dtype
        state = self.state[p]
        if len(state) == 0:
            dtype = _C.float64 if get_default_dtype() is _C.float64 else _C.float32
            state["step"] = _C.tensor(0.0, dtype=dtype)
            if grad.dim() > 1:
                row_shape = list(grad.shape)
                row_shape[-1] = 1
                state["row_var"] = grad.new_zeros(row_shape)
                col_shape = list(grad.shape)
                col_shape[-2] = 1
                state["col_var"] = grad.new_zeros(col_shape)
            else:
                state["variance"] = zeros_like(grad)
        return state

    def _step_group(self, group):
        from .. import finfo
        params = []
        for p in group["params"]:
            grad = grad_of(p)
            if grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            params.append((p, grad, self._new_state(p, grad)))
        eps1, eps2 = group["eps"]
        lr, d = as_float(group["lr"]), group["d"]
        beta2_decay, weight_decay = group["beta2_decay"], group["weight_decay"]
        for p, grad, state in params:
            if group["maximize"]:
                grad = -grad
            if eps1 is None:
                eps1 = finfo(p.dtype).eps
            step_t = state["step"]
            step_t += 1
            step_float = step_t.item()
            one_minus_beta2_t = step_float ** beta2_decay
            rho_t = min(lr, 1 / step_float ** 0.5)
            alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho_t
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_mean = grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1))
                row_var.lerp_(row_mean, one_minus_beta2_t)
                col_mean = grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2))
                col_var.lerp_(col_mean, one_minus_beta2_t)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
            p.add_(update, alpha=-alpha / denom)
