"""Python wrappers that add keywords to a function (``out=``, ``layout=``,
``pin_memory=``, ``device=``): the fast path that skips the wrapper when none of its
keywords is given, and the signature the wrapper shows, built on first read.

Every wrapper of ``_out.py`` and of the factories (``_ops/creation.py``), and the
Tensor methods made from functions (``_ops/__init__.py``), is made with these: a
plain call then runs the function itself through vectorcall, with no Python frame
(NOTE [The out= fast path] in csrc/python/bind_fast_path.cpp), and ``import
gradtrack`` builds no signature (NOTE [Lazy signatures], same file).
"""

from . import _C


def lazy_signature(wrapper, make):
    """``wrapper``, whose ``__signature__`` ``make()`` builds on first read once
    ``wrapper`` is inside a :func:`fast_path` (NOTE [Lazy signatures] in
    csrc/python/bind_fast_path.cpp): building them all made a tenth of
    ``import gradtrack``."""
    wrapper.__dict__.pop("__wrapped__", None)
    wrapper._gt_signature = make
    return wrapper


def fast_path(fn, wrapper, triggers, owner=""):
    """``wrapper``, except that a call given none of the keywords ``triggers``
    calls ``fn`` directly, with no Python frame (NOTE [The out= fast path] in
    csrc/python/bind_fast_path.cpp). ``wrapper`` must do just that itself when
    none of them is given; a ``fn`` that is already a fast path is unwrapped so
    that a plain call skips every layer. It will live at
    ``gradtrack.<owner>.<name>`` (``owner`` "" for the module itself, "Tensor"
    for a method): its name there is how it pickles."""
    wrapper.__module__ = "gradtrack"
    wrapper.__qualname__ = f"{owner}.{wrapper.__name__}" if owner else wrapper.__name__

    inner = getattr(fn, "_gt_fast", None)
    if inner is not None:
        triggers = tuple(fn._gt_triggers) + tuple(triggers)
        fn = inner
    return _C._fast_path(fn, wrapper, tuple(triggers))


def _builtin_parts(fn):
    """The parameter texts (``"dim: int = 0"``) a pybind11 function lists in
    its first docstring line."""
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
    return [part for part in parts if part]


def _part_name(part):
    return part.split(":")[0].split("=")[0].strip().lstrip("*")


def _builtin_parameters(fn):
    """The parameters a pybind11 function lists in its first docstring line."""
    import ast
    import inspect

    params, kind = [], inspect.Parameter.POSITIONAL_OR_KEYWORD
    for part in _builtin_parts(fn):
        if part == "*":
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        if part.startswith("*"):
            params.append(inspect.Parameter(part.lstrip("*"), inspect.Parameter.VAR_POSITIONAL))
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        default = inspect.Parameter.empty
        if "=" in part:
            try:
                default = ast.literal_eval(part.rsplit("=", 1)[1].strip())
            except (ValueError, SyntaxError):
                default = None
        params.append(inspect.Parameter(_part_name(part), kind, default=default))
    return params


def param_names(fn):
    """The names of ``fn``'s parameters, without building its signature (as
    ``import gradtrack`` needs them: NOTE [Lazy signatures])."""
    make = getattr(fn, "_gt_signature", None)
    sig = make() if make is not None else getattr(fn, "__dict__", {}).get("__signature__")
    if sig is not None:
        return set(sig.parameters)
    code = getattr(fn, "__code__", None)
    if code is not None:
        count = code.co_argcount + code.co_kwonlyargcount
        count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
        return set(code.co_varnames[:count])
    try:
        return {_part_name(part) for part in _builtin_parts(fn) if part != "*"}
    except ValueError:  # no "name(...) ->" line: an overload set or a plain builtin
        return set()


def parameters(fn):
    """``fn``'s parameters: its lazy signature's, inspect's, or those of the
    pybind11 docstring's first line (``(*args, **kwargs)`` for an overload set)."""
    make = getattr(fn, "_gt_signature", None)
    if make is not None:
        return list(make().parameters.values())
    import inspect

    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        pass
    if "(*args, **kwargs)" in (fn.__doc__ or "").split("\n")[0]:
        return [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)]
    return _builtin_parameters(fn)


def insert_keywords(params, added):
    """``params`` with keyword-only parameters ``added`` ((name, default) pairs)
    before any ``**kwargs``, leaving out the names it has."""
    import inspect

    names = {p.name for p in params}
    extra = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
             for n, d in added if n not in names]
    kw_at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    return inspect.Signature(params[:kw_at] + extra + params[kw_at:])
