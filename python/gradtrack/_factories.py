"""``layout=`` and ``pin_memory=`` on every factory, as torch's CPU build
takes them: ``gradtrack.strided`` is the one layout, and ``pin_memory=True``
raises torch's error (a CPU-only torch 2.13 has no pinned-memory allocator:
measured, it raises the RuntimeError below from every factory).
"""

import ast
import functools
import inspect

from . import _C

_PIN = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
        "allocator is available on this system.")
_ACCEL = "Cannot access accelerator device when none is available."


class layout:  # noqa: N801 - torch's name
    """A tensor memory layout; gradtrack has one, ``gradtrack.strided``.

    >>> import gradtrack
    >>> gradtrack.zeros(2).layout
    gradtrack.strided
    """

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"gradtrack.{self._name}"

    def __reduce__(self):
        return self._name


strided = layout("strided")


def check(name, layout_arg, pin_memory):
    """torch's refusals of a factory's ``layout`` and ``pin_memory``."""
    if layout_arg is not None:
        if not isinstance(layout_arg, layout):
            raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not "
                            f"{type(layout_arg).__name__}")
        if layout_arg is not strided:
            raise NotImplementedError(f"gradtrack: {name}() supports only layout=gradtrack.strided")
    if pin_memory:
        raise RuntimeError(_PIN)


def _builtin_parameters(fn):
    """The parameters a pybind11 function lists in its first docstring line."""
    line = (fn.__doc__ or "").split("\n")[0]
    text = line[line.index("(") + 1:line.rindex(") ->")]
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    params, kind = [], inspect.Parameter.POSITIONAL_OR_KEYWORD
    for part in filter(None, parts):
        if part == "*":
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        if part.startswith("*"):
            params.append(inspect.Parameter(part.lstrip("*"), inspect.Parameter.VAR_POSITIONAL))
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        pname = part.split(":")[0].split("=")[0].strip()
        default = inspect.Parameter.empty
        if "=" in part:
            try:
                default = ast.literal_eval(part.rsplit("=", 1)[1].strip())
            except (ValueError, SyntaxError):
                default = None
        params.append(inspect.Parameter(pname, kind, default=default))
    return params


def with_layout(fn, name, layout_too=True):
    """``fn`` taking (and checking) ``layout=`` and ``pin_memory=`` too
    (only ``pin_memory=`` when not layout_too: ``tensor()``)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = _builtin_parameters(fn)
    names = {p.name for p in params}
    passes_layout = "layout" in names
    checks_device = name == "randint_like"  # the one factory whose own code does not

    if layout_too:
        @functools.wraps(fn)
        def factory(*args, layout=None, pin_memory=False, **kwargs):
            check(name, layout, pin_memory)
            if checks_device:
                _C._extra.check_device(kwargs.get("device"))
            if passes_layout:
                kwargs["layout"] = layout
            return fn(*args, **kwargs)
    else:
        @functools.wraps(fn)
        def factory(*args, pin_memory=False, **kwargs):
            check(name, None, pin_memory)
            return fn(*args, **kwargs)

    added = (("layout", None), ("pin_memory", False)) if layout_too else (("pin_memory", False),)
    extra = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
             for n, d in added if n not in names]
    kw_at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    factory.__signature__ = inspect.Signature(params[:kw_at] + extra + params[kw_at:])
    del factory.__wrapped__
    return factory


FACTORIES = ("zeros", "ones", "empty", "full", "arange", "eye", "linspace", "rand", "randn",
             "randint", "randperm", "zeros_like", "ones_like", "empty_like", "full_like",
             "rand_like", "randn_like", "randint_like")
NEW_METHODS = ("new_empty", "new_full", "new_ones", "new_zeros")


def _with_device(fn):
    """Tensor.new_*: torch's ``device=`` (CPU only) beside layout/pin_memory."""
    @functools.wraps(fn)
    def method(*args, device=None, **kwargs):
        _C._extra.check_device(device)
        return fn(*args, **kwargs)
    params = list(inspect.signature(fn).parameters.values())
    kw_at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params.insert(kw_at, inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None))
    method.__signature__ = inspect.Signature(params)
    del method.__wrapped__
    return method


def _is_pinned(self, device=None):
    """Always False: gradtrack has no pinned memory (torch's CPU build neither)."""
    return False


def _pin_memory(self, device=None):
    """Raises as torch's CPU-only build does: no accelerator to pin for."""
    raise RuntimeError(_ACCEL)


def install(namespace, tensor_cls):
    """Wraps the factories of ``namespace`` (the gradtrack module's dict) and
    the Tensor's ``new_*`` methods; adds ``Tensor.layout``, ``is_pinned`` and
    ``pin_memory``."""
    from ._out import fast_path

    for name in FACTORIES:
        if name in namespace:
            fn = namespace[name]
            namespace[name] = with_layout(fn, name)
            if name != "randint_like":  # it checks device= in the wrapper
                namespace[name] = fast_path(fn, namespace[name], ("layout", "pin_memory"))
    fn = namespace["tensor"]
    namespace["tensor"] = fast_path(fn, with_layout(fn, "tensor", layout_too=False),
                                    ("pin_memory",))
    for name in NEW_METHODS:
        setattr(tensor_cls, name, with_layout(_with_device(getattr(tensor_cls, name)), name))
    tensor_cls.layout = property(lambda self: strided, doc="The memory layout: gradtrack.strided.")
    tensor_cls.is_pinned = _is_pinned
    tensor_cls.pin_memory = _pin_memory
    namespace["layout"] = layout
    namespace["strided"] = strided
