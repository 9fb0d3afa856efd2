"""Finite-difference checks of gradients (float64 central differences)."""

import warnings
from typing import Any

from .. import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians disagree.

    >>> import gradtrack
    >>> issubclass(gradtrack.autograd.GradcheckError, RuntimeError)
    True
    """


def _tensors(inputs):
    return (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)


_DOUBLE = ("gradtrack.float64", "gradtrack.complex128")


def _check_inputs(inputs):
    """torch's warning for each input that requires grad in a low precision."""
    for i, t in enumerate(inputs):
        if isinstance(t, _C.Tensor) and t.requires_grad and \
                str(t.dtype) not in _DOUBLE:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=2)


def _as_tensor(jacobian, dtype):
    """A Jacobian computed in NumPy as the tensor torch's message prints."""
    return _C.tensor(jacobian.tolist(), dtype=dtype)


def _outputs(func, inputs):
    out = func(*inputs)
    return (out,) if isinstance(out, _C.Tensor) else tuple(out)


def _numerical_jacobian(func, inputs, i, out_index, eps):
    """d out / d inputs[i] by central differences, shape (numel(in), numel(out)).

    The input is perturbed through a NumPy view of its memory, so any layout
    works and nothing is recorded or version-bumped.
    """
    import numpy as np
    x = inputs[i]
    memory = x.detach().numpy()
    base_out = _outputs(func, inputs)[out_index]
    jac = np.zeros((x.numel(), base_out.numel()))
    for k, idx in enumerate(np.ndindex(*memory.shape)):
        orig = memory[idx]
        memory[idx] = orig + eps
        plus = _outputs(func, inputs)[out_index].detach().numpy().astype(np.float64).ravel()
        memory[idx] = orig - eps
        minus = _outputs(func, inputs)[out_index].detach().numpy().astype(np.float64).ravel()
        memory[idx] = orig
        jac[k] = (plus - minus) / (2 * eps)
    return jac


def _analytical_jacobian(func, inputs, diff_idx, out_index):
    """Rows of the Jacobian from one backward pass per output element."""
    import numpy as np
    from . import grad as autograd_grad
    out = _outputs(func, inputs)[out_index]
    jacs = [np.zeros((inputs[i].numel(), out.numel())) for i in diff_idx]
    if not out.requires_grad:
        return jacs  # a constant output: its Jacobian is zero, as PyTorch's gradcheck takes it
    for j in range(out.numel()):
        seed = _C.zeros(tuple(out.shape), dtype=out.dtype)
        seed.view(-1)[j] = 1.0
        grads = autograd_grad(out, [inputs[i] for i in diff_idx], seed, retain_graph=True,
                              allow_unused=True)
        for col, g in enumerate(grads):
            if g is not None:
                jacs[col][:, j] = g.detach().numpy().astype(np.float64).ravel()
    return jacs


def gradcheck(func: Any, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, **_ignored: Any) -> bool:
    """Compares autograd's gradients of ``func`` with finite differences.

    Inputs that require grad should be float64. Returns True, or raises
    :class:`GradcheckError` (or returns False with ``raise_exception=False``).

    >>> import gradtrack
    >>> x = gradtrack.rand(3, dtype=gradtrack.float64, requires_grad=True)
    >>> gradtrack.autograd.gradcheck(lambda t: (t * t).sin(), (x,))
    True
    """
    import numpy as np
    inputs = _tensors(inputs)
    _check_inputs(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, _C.Tensor) and t.requires_grad]
    n_out = len(_outputs(func, inputs))
    for o in range(n_out):
        analytical = _analytical_jacobian(func, inputs, diff_idx, o)
        for col, i in enumerate(diff_idx):
            numerical = _numerical_jacobian(func, inputs, i, o, eps)
            if not np.allclose(analytical[col], numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                dtype = inputs[i].dtype
                raise GradcheckError(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                                     f"numerical:{_as_tensor(numerical, dtype)}\n"
                                     f"analytical:{_as_tensor(analytical[col], dtype)}\n")
    return True


def gradgradcheck(func: Any, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, **_ignored: Any) -> bool:
    """Checks second derivatives: gradcheck of the (create_graph) gradient of ``func``.
    Without ``grad_outputs``, each output that requires grad gets a random one, uniform
    in [-1, 1) (drawn as torch draws it: the same numbers for the same seed).

    >>> import gradtrack
    >>> x = gradtrack.tensor([0.5, 1.5], dtype=gradtrack.float64, requires_grad=True)
    >>> gradtrack.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
    True
    """
    from ..testing import make_tensor
    from . import grad as autograd_grad
    inputs = _tensors(inputs)
    if grad_outputs is None:
        outs = [o for o in _outputs(func, inputs) if o.requires_grad]
        grad_outputs = tuple(
            make_tensor(tuple(o.shape), dtype=o.dtype if o.is_floating_point() or o.is_complex()
                        else _C.float64, device=o.device, low=-1, high=1, requires_grad=True,
                        noncontiguous=gen_non_contig_grad_outputs)
            for o in outs)
    else:
        grad_outputs = _tensors(grad_outputs)
    n_in = len(inputs)

    def first_grad(*args):
        xs, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, xs) if o.requires_grad]
        grads = autograd_grad(outs, [x for x in xs if x.requires_grad], gos, create_graph=True,
                              allow_unused=True)
        # An input the function does not use has no gradient: left out, as PyTorch's.
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_grad, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception)
