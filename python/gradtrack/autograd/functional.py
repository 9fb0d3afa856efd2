"""Higher-level autograd: vjp, jvp, jacobian, hessian, vhp and hvp of a function.

Each takes ``func`` and its ``inputs`` (a Tensor or a tuple of Tensors) and
returns results shaped as PyTorch's: a Tensor where the function took (or
returned) a Tensor, tuples where it used tuples.

>>> import gradtrack
>>> from gradtrack.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, gradtrack.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""

import gradtrack

from .. import _C
from . import forward_ad
from .grad_mode import enable_grad, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_Tensor = _C.Tensor
_STRATEGIES = ("forward-mode", "reverse-mode")


def _as_tuple(value, arg_name, fn_name):
    """(was a tuple, tuple of Tensors); raises PyTorch's TypeError for a non-Tensor."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, _Tensor):
            where = (f"the value at index {i} has type {type(item)}" if is_tuple
                     else f"the given {arg_name} has type {type(item)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}.")
    return is_tuple, items


def _unpack(result, was_tuple):
    """Undoes the tuple wrapping: ``was_tuple`` is a bool or (outer, inner) for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(r[0] for r in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _prepare(tensors, create_graph, need_graph):
    # With create_graph the caller's graph must stay connected (a view keeps
    # it); otherwise the function runs on fresh leaves.
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph):
    if isinstance(tensors[0], _Tensor):
        return tensors if create_graph else tuple(t.detach() for t in tensors)
    return tuple(_finish(t, create_graph) for t in tensors)


def _validate_v(v, other, other_is_tuple):
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.size()} but got "
                               f"{a.size()}.")


_STRICT_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is thrice differentiable and that the hessian depends on the "
                "inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when running "
                "in strict mode."),
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad; all None when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return gradtrack.autograd.grad([o for o, _ in kept], inputs, [g for _, g in kept],
                                   allow_unused=True, create_graph=create_graph,
                                   retain_graph=retain_graph)


_ZERO_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is not "
             "allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the "
                   "grad_outputs when using the double backward trick to compute forward mode "
                   "gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} "
                          "in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = gradtrack.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _prepare_v(v, reference, reference_is_tuple, fn_name, create_graph, none_message):
    if v is None:
        if len(reference) != 1 or reference[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _validate_v(v, reference, reference_is_tuple)
    return v


_V_NONE_OUTPUT = ("The vector v can only be None if the user-provided function returns a single "
                  "Tensor with a single element.")
_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
                 "single Tensor with a single element.")
_FN_OUTPUTS = "outputs of the user-provided function"


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), v^T J)``.

    >>> import gradtrack
    >>> from gradtrack.autograd.functional import vjp
    >>> vjp(lambda x: x * 3, gradtrack.ones(2), gradtrack.tensor([1.0, 2.0]))[1]
    tensor([3., 6.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), _FN_OUTPUTS, "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, "vjp", create_graph, _V_NONE_OUTPUT)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), J v)``, by the double-backward trick as PyTorch.

    >>> import gradtrack
    >>> from gradtrack.autograd.functional import jvp
    >>> jvp(lambda x: x ** 2, gradtrack.tensor([1.0, 2.0]), gradtrack.ones(2))[1]
    tensor([2., 4.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "jvp", create_graph, _V_NONE_INPUT)
        outputs_tuple, outputs = _as_tuple(func(*inputs), _FN_OUTPUTS, "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # d/du of (u^T J) v is J v: differentiate the vjp with respect to u.
        dummies = tuple(gradtrack.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), outputs_tuple))


def _jacobian_rows(out, index, inputs, create_graph, strict):
    """The rows of d out / d inputs, one list per input."""
    rows = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for j in range(out.nelement()):
        grads = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {index} of the user-provided function is "
                                       f"independent of input {k}. This is not allowed in strict "
                                       "mode.")
                g = gradtrack.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                # PyTorch names the output's index here.
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {index}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            rows[k].append(g)
    return tuple(gradtrack.stack(r, dim=0).view(out.size() + inp.size())
                 for r, inp in zip(rows, inputs))


def _forward_columns(func, inputs):
    """One forward-AD pass per input element: (input index, output tangents), primals."""
    columns, primals, outputs_tuple = [], None, False
    for k, inp in enumerate(inputs):
        for j in range(inp.numel()):
            with forward_ad.dual_level():
                duals = []
                for i, x in enumerate(inputs):
                    tangent = gradtrack.zeros_like(x)
                    if i == k:
                        tangent.view(-1)[j] = 1
                    duals.append(forward_ad.make_dual(x, tangent))
                outputs_tuple, outs = _as_tuple(func(*duals), "outputs", "jacobian")
                unpacked = [forward_ad.unpack_dual(o) for o in outs]
                primals = [p.detach() for p, _ in unpacked]
                tangents = [gradtrack.zeros_like(p) if t is None else t.detach()
                            for p, t in unpacked]
            columns.append((k, tangents))
    return columns, primals, outputs_tuple


def _jacfwd(func, inputs, strict, vectorize):
    # PyTorch vmaps one forward-AD pass over the basis; here the passes run in turn.
    if strict:
        raise RuntimeError('gradtrack.autograd.functional.jacobian: `strict=True` and '
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        # PyTorch's text lacks the space in "isonly".
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    columns, primals, outputs_tuple = _forward_columns(func, inputs)
    result = []
    for oi, p in enumerate(primals):
        row = []
        for k, inp in enumerate(inputs):
            cols = [tangents[oi] for kk, tangents in columns if kk == k]
            jac = (gradtrack.stack(cols, dim=-1) if cols
                   else gradtrack.zeros(tuple(p.shape) + (0,), dtype=p.dtype))
            row.append(jac.reshape(tuple(p.shape) + tuple(inp.shape)))
        result.append(row)
    # Lists, not tuples, as PyTorch's forward-mode result.
    return _unpack(result, (outputs_tuple, inputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``; shape ``output.shape + input.shape``.

    With several inputs or outputs, ``result[i][j]`` is d output i / d input j.
    ``vectorize=True`` is accepted and computes the same values row by row.

    >>> import gradtrack
    >>> from gradtrack.autograd.functional import jacobian
    >>> jacobian(lambda x: x.sum(), gradtrack.ones(3))
    tensor([1., 1., 1.])
    """
    if strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use '
                             '"reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'gradtrack.autograd.functional.jacobian: `create_graph=True` and '
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), _FN_OUTPUTS, "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("gradtrack.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        result = tuple(_jacobian_rows(out, i, inputs, create_graph, strict)
                       for i, out in enumerate(outputs))
        result = _finish(result, create_graph)
        return _unpack(result, (outputs_tuple, inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function; ``result[i][j]`` for tuple inputs.

    >>> import gradtrack
    >>> from gradtrack.autograd.functional import hessian
    >>> hessian(lambda x: (x ** 3).sum(), gradtrack.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, _FN_OUTPUTS, "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, _Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def jac(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        j = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(j, "jacobian", strict)
        return j

    result = jacobian(jac, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _scalar_output(func, inputs, fn_name, strict):
    outputs_tuple, outputs = _as_tuple(func(*inputs), _FN_OUTPUTS, fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not isinstance(outputs[0], _Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")
    return outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), v^T H)`` for a scalar ``func``.

    >>> import gradtrack
    >>> from gradtrack.autograd.functional import vhp
    >>> vhp(lambda x: (x ** 3).sum(), gradtrack.tensor([1.0, 2.0]), gradtrack.ones(2))[1]
    tensor([ 6., 12.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "vhp", create_graph, _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Returns ``(func(inputs), H v)`` for a scalar ``func`` (double-backward trick).

    >>> import gradtrack
    >>> from gradtrack.autograd.functional import hvp
    >>> hvp(lambda x: (x ** 3).sum(), gradtrack.tensor([1.0, 2.0]), gradtrack.ones(2))[1]
    tensor([ 6., 12.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "hvp", create_graph, _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        dummies = tuple(gradtrack.zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grad(jac, inputs, dummies, create_graph=True)
        # PyTorch checks jac again here (not double_back).
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else _C.is_grad_enabled()):
        grads = _grad(double_back, dummies, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(result, create_graph), inputs_tuple))
