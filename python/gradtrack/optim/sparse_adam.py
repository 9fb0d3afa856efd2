"""``optim.SparseAdam``: Adam for sparse gradients.

gradtrack has no sparse tensors, so every gradient it computes is dense and
``step()`` refuses it with PyTorch's message, which names the optimizer to
use instead (:class:`~gradtrack.optim.Adam`). The constructor checks its
arguments as PyTorch does.
"""

from typing import Any

from .. import _C
from ._adaptive import grad_of
from .optimizer import Optimizer

_Tensor = _C.Tensor
_is_grad_enabled = _C.is_grad_enabled
_set_grad_enabled = _C._set_grad_enabled


class SparseAdam(Optimizer):
    """Adam over sparse gradients (gradtrack's gradients are dense: ``step``
    refuses them and names :class:`~gradtrack.optim.Adam`).

    >>> import gradtrack
    >>> from gradtrack import optim
    >>> w = gradtrack.zeros(2, requires_grad=True)
    >>> opt = optim.SparseAdam([w], lr=0.1)
    >>> w.sum().backward()
    >>> opt.step()
    Traceback (most recent call last):
    ...
    RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead
    """

    def __init__(self, params: Any, lr: Any = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, maximize: bool = False) -> None:
        if isinstance(lr, _Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        complex_params = [[index, d_index] for index, group in enumerate(self.param_groups)
                          for d_index, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def step(self, closure=None):
        """Runs ``closure()``, then refuses the (dense) gradients of the parameters."""
        loss = None
        if closure is not None:
            previous = _is_grad_enabled()
            _set_grad_enabled(True)
            try:
                loss = closure()
            finally:
                _set_grad_enabled(previous)
        for group in self.param_groups:
            for p in group["params"]:
                if grad_of(p) is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
        return loss
