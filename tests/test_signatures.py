"""Calling conventions: every public function and Tensor method that both
gradtrack and torch have takes torch's parameter names, in torch's order.

torch's names come from its argument parser: calling a C++-bound function
with an unknown keyword makes it list every overload it accepts, names
included (the same text a user sees); Python functions give theirs through
``inspect``. gradtrack's come from pybind11's signatures (``__doc__``) or
``inspect``. Known differences are listed, each with why, in ``KNOWN``.
"""

import builtins
import inspect
import re

import pytest

import gradtrack

torch = pytest.importorskip("torch")

_PROBE = "__gradtrack_probe__"

# (where, name): why gradtrack's parameters differ from torch's on purpose.
KNOWN = {
    # Neither torch's parser text nor an ATen schema gives as_tensor's names (its parser
    # takes (data, dtype=None, device=None), as gradtrack's).
    ("gradtrack", "as_tensor"): "torch gives its names nowhere readable",
    # torch's CPU build refuses .cuda() before parsing, and the ATen schema has only self;
    # its documented parameters are (device=None, non_blocking=False, memory_format=...).
    ("Tensor", "cuda"): "torch's CPU build refuses before parsing",
    # torch's Tensor.type and .to take (dtype=None, non_blocking=False, **kwargs) / several
    # overloads whose parser text names `tensor`/`other`; gradtrack's parse *args.
    ("Tensor", "to"): "parsed from *args/**kwargs, as torch's several overloads",
    # torch.tensor takes pin_memory= (documented, and accepted) but its parser text omits it.
    ("gradtrack", "tensor"): "torch's parser text omits pin_memory",
    # torch.nonzero takes as_tuple= (documented) but its parser text omits it.
    ("gradtrack", "nonzero"): "torch's parser text omits as_tuple",
}


def _split_top(text):
    """Splits ``a, b: tuple[int, int] = (1, 2), c`` at top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _parser_overloads(message):
    """Parameter-name lists from torch's 'expected one of' text."""
    lines = re.findall(r"^ \* \((.*)\)\s*$", message, re.M)
    if not lines:
        lines = re.findall(r"but expected \((.*)\)\s*$", message, re.M)
    overloads = []
    for line in lines:
        names = []
        for part in _split_top(line):
            if part == "*" or not part:
                names.append("*")
                continue
            head = part.split("=")[0].strip()
            names.append(head.split()[-1])
        overloads.append(names)
    return overloads


def _inspect_names(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
            names.append("*args" if p.kind is p.VAR_POSITIONAL else "**kwargs")
        elif p.kind is p.KEYWORD_ONLY:
            if "*" not in names:
                names.append("*")
            names.append(p.name)
        else:
            names.append(p.name)
    return [names]


def torch_overloads(fn, bound_to=None):
    """torch's parameter names for ``fn``: one list per overload ('*' marks
    keyword-only from there on)."""
    target = getattr(bound_to, fn.__name__) if bound_to is not None else fn
    if type(fn).__name__ in ("builtin_function_or_method", "method_descriptor"):
        # The parser lists its overloads once the required first argument is
        # there: try without arguments, then with a tensor first.
        for args in ((), (torch.zeros(1),)):
            try:
                target(*args, **{_PROBE: 1})
            except TypeError as e:
                found = _parser_overloads(str(e))
                if found:
                    return found
            except Exception:  # noqa: BLE001 - any other refusal: no parser text
                pass
        return _schema_overloads(fn.__name__, bound_to is not None)
    return _inspect_names(fn)


def _schema_overloads(name, method):
    """A single-signature function's parser says only "unexpected keyword": its
    names then come from the ATen schemas the parser is generated from (the
    tensor ``self`` is a function's ``input``, a method's bound self)."""
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
    except RuntimeError:
        return None
    found = []
    for schema in schemas:
        names, kw = [], False
        for a in schema.arguments:
            if a.kwarg_only and not kw:
                names.append("*")
                kw = True
            if a.name == "self":
                if not method:
                    names.append("input")
            elif a.is_out:
                # The parser takes the out tensors as one `out` (a tuple when several).
                if "out" not in names:
                    names.append("out")
            else:
                names.append(a.name)
        if "pin_memory" in names:
            names.append("requires_grad")  # the parser adds it to every factory
        found.append(names)
    return found or None


def gradtrack_overloads(fn):
    """gradtrack's parameter names for ``fn`` (pybind11 signatures or inspect)."""
    doc = getattr(fn, "__doc__", None) or ""
    if type(fn).__name__ in ("builtin_function_or_method", "instancemethod",
                             "method_descriptor"):
        found = []
        for m in re.finditer(r"^(?:\d+\. )?\w+\((.*)\) ->", doc, re.M):
            names = []
            for part in _split_top(m.group(1)):
                name = part.split(":")[0].split("=")[0].strip()
                names.append(name)
            found.append(names)
        return found or None
    return _inspect_names(fn)


def _public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def _cases():
    cases = []
    for name in sorted(_public(gradtrack) & _public(torch)):
        g, t = getattr(gradtrack, name), getattr(torch, name)
        if callable(g) and callable(t) and not isinstance(g, type) and not isinstance(t, type):
            cases.append(("gradtrack", name))
    for name in sorted(_public(gradtrack.Tensor) & _public(torch.Tensor)):
        g, t = getattr(gradtrack.Tensor, name), getattr(torch.Tensor, name)
        if callable(g) and callable(t) and not isinstance(g, property):
            cases.append(("Tensor", name))
    for name in sorted(_public(gradtrack.nn.functional) & _public(torch.nn.functional)):
        g, t = getattr(gradtrack.nn.functional, name), getattr(torch.nn.functional, name)
        if inspect.isfunction(g) and callable(t) and not isinstance(t, type):
            cases.append(("nn.functional", name))
    return cases


def _objects(where, name):
    if where == "gradtrack":
        return getattr(gradtrack, name), getattr(torch, name), None
    if where == "Tensor":
        return getattr(gradtrack.Tensor, name), getattr(torch.Tensor, name), torch.zeros(1)
    return getattr(gradtrack.nn.functional, name), getattr(torch.nn.functional, name), None


def _named(names, method):
    """The names a caller can pass by keyword, and the positional ones in order."""
    keyword, positional, kw_only = set(), [], False
    for i, n in enumerate(names):
        if n == "*":
            kw_only = True
            continue
        if n in ("*args", "**kwargs") or (method and i == 0 and n == "self"):
            if n == "*args":
                kw_only = True
            continue
        keyword.add(n)
        if not kw_only:
            positional.append(n)
    return keyword, positional


CASES = _cases()


def _comparable(where, name):
    """Whether torch gives names to compare with (KNOWN lists the deliberate exceptions)."""
    if (where, name) in KNOWN:
        return False
    _, t, instance = _objects(where, name)
    theirs = torch_overloads(t, instance)
    return theirs is not None and ["*args", "**kwargs"] not in theirs


COMPARED = [case for case in CASES if _comparable(*case)]


def test_nearly_every_shared_name_is_compared():
    # The ones left out: KNOWN, and those torch parses from *args/**kwargs or names nowhere
    # (24 at the time of writing; 31 with .half()/.bfloat16()/.char()/.short(), which torch
    # names nowhere, as .float()); 35 with set_anomaly_enabled, whose torch binding has
    # no signature text; 40 with adaptive_max_pool1d, which torch builds with
    # boolean_dispatch from *args/**kwargs, as max_pool1d, and get/set_num_interop_threads,
    # is_autocast_cache_enabled and get_autocast_cpu_dtype, likewise; 42 with max_pool3d and
    # adaptive_max_pool3d, boolean_dispatch too; 44 with fractional_max_pool2d/3d, likewise;
    # 45 with torch.lu, a Python function of *args/**kwargs; 47 with asarray and frombuffer,
    # which torch parses from *args/**kwargs too; 48 with set_flush_denormal, whose torch
    # binding has no signature text, as set_anomaly_enabled; 49 with to_dlpack, likewise;
    # 50 with Tensor.untyped_storage, likewise; 53 with Tensor.apply_, map_ and map2_,
    # likewise; 62 with the autocast state functions, set_autocast_enabled & co., whose
    # torch bindings give no signature text to the probes, as set_anomaly_enabled).
    # A jump here means the name reading broke.
    assert len(CASES) - len(COMPARED) <= 62
    assert len(COMPARED) >= 140


def test_every_bound_parameter_has_a_name():
    """No function or method takes pybind11's placeholder names (arg0, arg1...)."""
    unnamed = []
    for where, name in CASES:
        g = _objects(where, name)[0]
        for names in gradtrack_overloads(g) or []:
            if any(re.fullmatch(r"arg\d+", n) for n in names):
                unnamed.append(f"{where}.{name}{tuple(names)}")
    assert unnamed == []


@pytest.mark.parametrize("where,name", COMPARED, ids=[f"{w}.{n}" for w, n in COMPARED])
def test_parameter_names_match_torch(where, name):
    g, t, instance = _objects(where, name)
    method = where == "Tensor"
    ours = gradtrack_overloads(g)
    theirs = torch_overloads(t, instance)
    assert ours is not None, f"no signature for gradtrack's {where}.{name}"
    torch_keyword, torch_positional = set(), []
    for names in theirs:
        kw, pos = _named(names, method)
        # torch's functions name the tensor `input` where its methods' is `self`.
        torch_keyword |= kw
        torch_positional.append(pos)
    for names in ours:
        kw, pos = _named(names, method)
        assert kw <= torch_keyword, (
            f"{where}.{name}: {sorted(kw - torch_keyword)} not among torch's {sorted(torch_keyword)}")
        for i, n in enumerate(pos):
            assert builtins.any(len(p) > i and p[i] == n for p in torch_positional), (
                f"{where}.{name}: positional parameter {i} is {n!r}; torch's: {torch_positional}")
