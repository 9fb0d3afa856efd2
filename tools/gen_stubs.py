"""Regenerates the type stubs of the C++ extension: python/gradtrack/_C/*.pyi.

    pip install pybind11-stubgen
    python tools/gen_stubs.py          # rewrite the committed stubs
    python tools/gen_stubs.py --check  # exit 1 when they differ from what would be written

pybind11-stubgen reads the bound signatures (pybind11 writes them into each docstring).
Three things it cannot get right by itself are fixed here:

* ``Tensor``, ``dtype`` and ``Generator`` are bound with ``__module__ == "gradtrack"``
  (so reprs and pickles name ``gradtrack.Tensor``); stubgen would then only import them
  from ``gradtrack`` and never write their classes. They are renamed to their real
  module for the run.
* About 150 Tensor methods are Python functions attached at import
  (``gradtrack/_tensor.py``, ``_ops/*.py``, ``random.py``): stubgen writes them
  without types, and aliases of C++ methods (``absolute = abs``) as ``*args, **kwargs``.
  They are rewritten here from ``inspect.signature`` (or from the aliased C++
  signature), with the return type from RETURNS below or the method family.
* A few raw C++ values leak into signatures (``<object object at 0x...>`` defaults,
  ``...`` return types); they become ``...`` and ``typing.Any``.

tests/typing/test_stubs.py fails when a name of ``_C`` (or a Tensor attribute) has no stub.
"""

import argparse
import ast
import inspect
import pathlib
import re
import sys
import tempfile
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "gradtrack"

# Return types of the Python-layer Tensor methods that do not return a Tensor.
RETURNS = {
    "__repr__": "str", "__str__": "str", "__format__": "str", "__contains__": "bool",
    "is_inference": "bool", "allclose": "bool", "__setitem__": "None", "retain_grad": "None",
    "backward": "None",
    "is_contiguous": "bool", "is_shared": "bool",
    "__iter__": "collections.abc.Iterator[Tensor]", "split": "tuple[Tensor, ...]",
    "__dlpack_device__": "tuple[int, int]",
    "register_hook": "gradtrack.utils.hooks.RemovableHandle",
    "register_post_accumulate_grad_hook": "gradtrack.utils.hooks.RemovableHandle",
    # a tensor or a (values, indices) named tuple, a str or a tensor, an object
    "max": "typing.Any", "min": "typing.Any", "sort": "typing.Any", "topk": "typing.Any",
    "kthvalue": "typing.Any", "median": "typing.Any", "mode": "typing.Any",
    "nanmedian": "typing.Any", "cummax": "tuple[Tensor, Tensor]",
    "cummin": "tuple[Tensor, Tensor]", "aminmax": "tuple[Tensor, Tensor]",
    "histogram": "tuple[Tensor, Tensor]",
    "unique": "typing.Any", "type": "typing.Any", "__array__": "typing.Any",
    "__reduce_ex__": "typing.Any", "__dlpack__": "typing.Any",
    "get_device": "int",
    **{n: "tuple[Tensor, ...]" for n in ("unsafe_chunk", "unsafe_split",
                                         "unsafe_split_with_sizes")},
}
# Properties: their value type (getter and, when there is one, setter).
PROPERTIES = {
    "shape": "gradtrack.Size", "dtype": "dtype", "device": "gradtrack.device",
    "grad": "Tensor | None", "_grad": "Tensor | None", "data": "Tensor",
    "grad_fn": "Node | None", "_base": "Tensor | None", "T": "Tensor", "mT": "Tensor",
    "requires_grad": "bool", "is_leaf": "bool", "retains_grad": "bool", "is_cuda": "bool",
    "_version": "int", "ndim": "int", "itemsize": "int", "nbytes": "int", "output_nr": "int",
}
# C++ methods bound as returning `object` whose value has a narrower type (torch's stubs too).
CPP_RETURNS = {"item": "builtins.int | builtins.float | builtins.bool", "__int__": "builtins.int"}
# Operators bound as returning `object` (they may return NotImplemented) give tensors.
OPERATORS = {f"__{n}__" for n in (
    "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod pow rpow "
    "matmul rmatmul and rand or ror xor rxor lshift rshift lt le gt ge eq ne getitem "
    "neg pos abs invert").split()}
SIMPLE = (type(None), bool, int, float, str)


def _patch_modules(C):
    """Names each pybind class by the module that really holds it, for stubgen."""
    modules = [C] + [m for m in vars(C).values() if isinstance(m, types.ModuleType)]
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == "gradtrack":
                value.__module__ = module.__name__


def _run_stubgen(out_dir):
    import pybind11_stubgen
    argv = sys.argv
    sys.argv = ["pybind11-stubgen", "gradtrack._C", "-o", str(out_dir), "--ignore-all-errors"]
    try:
        pybind11_stubgen.main()
    finally:
        sys.argv = argv


def _fix_text(text):
    text = re.sub(r"<[a-zA-Z_.]+ object at 0x[0-9a-f]+>", "...", text)
    text = re.sub(r"self: numpy\.dtype\[typing\.Any\]", "self", text)
    text = re.sub(r"-> \.\.\.:", "-> typing.Any:", text)
    return text


def _default(value):
    if isinstance(value, SIMPLE) or (isinstance(value, tuple) and all(isinstance(v, SIMPLE) for v in value)):
        return repr(value)
    return "..."


def _signature_def(name, fn, returns, method):
    """A stub def with ``fn``'s parameters (typed Any: the Python layer is not annotated
    everywhere), its docstring and the given return type."""
    params = list(inspect.signature(fn).parameters.values())
    parts, star = [], False
    for i, p in enumerate(params):
        pname = "self" if method and i == 0 and p.kind is not p.VAR_POSITIONAL else p.name
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{pname}: typing.Any")
            star = True
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{pname}: typing.Any")
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = pname if pname == "self" else f"{pname}: typing.Any"
        if p.default is not p.empty:
            text += f" = {_default(p.default)}"
        parts.append(text)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
            parts.append("/")
    doc = inspect.getdoc(fn)
    body = f"\n    {ast.unparse(ast.Constant(doc))}" if doc else " ..."
    return ast.parse(f"def {name}({', '.join(parts)}) -> {returns}:{body}").body[0]


def _python_def(name, fn):
    """A stub def for a Python function attached as a Tensor method."""
    return _signature_def(name, fn, RETURNS.get(name, "Tensor"), method=True)


def _alias_def(name, doc):
    """A stub def for a C++ method bound under a second name (its docstring holds the signature)."""
    line = doc.strip().splitlines()[0]
    line = re.sub(r"^\w+\(self: [\w.]+", f"{name}(self", _fix_text(line))
    line = line.replace(": object", ": typing.Any").replace("-> object", "-> typing.Any")
    return ast.parse(f"def {line}: ...").body[0]


def _property(name, fset, node):
    bound = getattr(node, "returns", None)
    value = PROPERTIES.get(name) or (ast.unparse(bound) if bound is not None else "typing.Any")
    text = f"@property\ndef {name}(self) -> {value}: ...\n"
    if fset is not None:
        text += f"@{name}.setter\ndef {name}(self, value: {value}) -> None: ...\n"
    return ast.parse(text).body


def _tensor_class(cls, Tensor):
    body, done = [], set()
    for node in cls.body:
        name = getattr(node, "name", None)
        if isinstance(node, ast.Assign):
            name = node.targets[0].id
        runtime = vars(Tensor).get(name)
        if isinstance(runtime, property):
            if name not in done:  # stubgen writes a getter and a setter node: one property
                body.extend(_property(name, runtime.fset, node))
            done.add(name)
        elif isinstance(runtime, types.FunctionType):
            body.append(_python_def(name, runtime))
        elif isinstance(node, ast.FunctionDef) and getattr(runtime, "__name__", name) != name:
            body.append(_alias_def(name, runtime.__doc__))
        elif isinstance(node, ast.FunctionDef) and name in CPP_RETURNS:
            node.returns = ast.parse(CPP_RETURNS[name], mode="eval").body
            body.append(node)
        elif isinstance(node, ast.FunctionDef) and name in OPERATORS:
            if ast.unparse(node.returns) == "typing.Any":
                node.returns = ast.Name("Tensor")
            body.append(node)
        else:
            body.append(node)
    cls.body = body
    return cls


# Return types of gradtrack's unannotated top-level functions that do not return a Tensor.
FUNCTION_RETURNS = {
    "allclose": "builtins.bool", "is_tensor": "builtins.bool", "is_floating_point": "builtins.bool",
    "numel": "builtins.int", "initial_seed": "builtins.int", "seed": "builtins.int",
    "manual_seed": "Generator", "get_default_dtype": "dtype", "get_default_device": "device",
    "save": "None", "set_default_device": "None", "set_default_dtype": "None",
    "set_printoptions": "None", "set_rng_state": "None", "split": "tuple[Tensor, ...]",
    "std_mean": "tuple[Tensor, Tensor]", "var_mean": "tuple[Tensor, Tensor]",
    "embedding_bag": "tuple[Tensor, Tensor, Tensor, Tensor]",
    **{n: "typing.Any" for n in "load max min sort topk kthvalue median mode unique".split()},
    "nanmedian": "typing.Any",
    **{n: "tuple[Tensor, Tensor]" for n in ("cummax", "cummin", "aminmax", "histogram")},
    **{n: "tuple[Tensor, ...]" for n in ("unbind_copy", "split_copy", "split_with_sizes_copy",
                                         "unsafe_chunk", "unsafe_split",
                                         "unsafe_split_with_sizes", "gradient")},
    **{n: "builtins.bool" for n in ("is_storage", "is_inference", "compiled_with_cxx11_abi",
                                    "is_warn_always_enabled")},
    "typename": "builtins.str", "get_device": "builtins.int", "set_warn_always": "None",
    "vmap": "typing.Any",
}
# In these stubs `bool`, `int` and `float` may name dtypes (gradtrack.bool is torch.bool).
SHADOWED = {"bool", "int", "float"}


class _Builtins(ast.NodeTransformer):
    """Spells the builtin types in annotations ``builtins.X``, past the dtype names."""

    def _fix(self, node):
        for sub in ast.walk(node) if node is not None else ():
            for field, value in ast.iter_fields(sub):
                if isinstance(value, ast.Name) and value.id in SHADOWED:
                    setattr(sub, field, ast.Attribute(ast.Name("builtins"), value.id))
                elif isinstance(value, list):
                    value[:] = [ast.Attribute(ast.Name("builtins"), v.id)
                                if isinstance(v, ast.Name) and v.id in SHADOWED else v for v in value]
        if isinstance(node, ast.Name) and node.id in SHADOWED:
            return ast.Attribute(ast.Name("builtins"), node.id)
        return node

    def visit_arg(self, node):
        node.annotation = self._fix(node.annotation)
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.returns = self._fix(node.returns)
        return node

    def visit_AnnAssign(self, node):
        node.annotation = self._fix(node.annotation)
        return node


# --strict wants every generic parametrized and every parameter typed. pybind11 writes
# py::tuple / py::list / py::dict / std::function<...> without their item types, and
# py::args / py::kwargs untyped; where the items are known they are named here.
TUPLE_RETURNS = {
    "chunk": "tuple[Tensor, ...]", "unbind": "tuple[Tensor, ...]", "split": "tuple[Tensor, ...]",
    "saved_tensors": "tuple[Tensor, ...]",
    "next_functions": "tuple[tuple[Node | None, builtins.int], ...]",
    # (values, indices)
    "sort": "tuple[Tensor, Tensor]", "topk": "tuple[Tensor, Tensor]",
    "kthvalue": "tuple[Tensor, Tensor]", "mode": "tuple[Tensor, Tensor]",
    "max_pool2d_with_indices": "tuple[Tensor, Tensor]",
    "adaptive_max_pool2d": "tuple[Tensor, Tensor]",
    "unpack_dual": "tuple[Tensor, Tensor | None]",  # (primal, tangent or None)
}
BARE_GENERICS = {
    "tuple": "tuple[typing.Any, ...]", "list": "list[typing.Any]",
    "dict": "dict[typing.Any, typing.Any]", "set": "set[typing.Any]",
    "collections.abc.Callable": "collections.abc.Callable[..., typing.Any]",
    "typing.Callable": "collections.abc.Callable[..., typing.Any]",
}
# Python functions attached to the bound Node class (autograd/graph.py): their return types.
NODE_RETURNS = {"register_hook": "gradtrack.utils.hooks.RemovableHandle",
                "register_prehook": "gradtrack.utils.hooks.RemovableHandle"}


def _literal_type(node):
    """The type of a literal module constant (``ops: dict = {...}``), or None."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None

    def kind(v):
        if isinstance(v, (bool, int, float, str)):
            return type(v).__name__
        if isinstance(v, tuple):
            return f"tuple[{', '.join(kind(x) for x in v)}]" if v else "tuple[()]"
        if isinstance(v, dict) and v:
            keys, values = {kind(k) for k in v}, {kind(x) for x in v.values()}
            if len(keys) == 1 and len(values) == 1:
                return f"dict[{keys.pop()}, {values.pop()}]"
        return "typing.Any"
    return kind(value)


class _Strict(ast.NodeTransformer):
    """Makes a stub pass ``mypy --strict``: parametrized generics, typed ``*args``."""

    def _generic(self, node):
        if node is None:
            return None
        parents = {id(child): parent for parent in ast.walk(node)
                   for child in ast.iter_child_nodes(parent)}

        class Fill(ast.NodeTransformer):
            def _fill(self, sub):
                parent = parents.get(id(sub))
                bare = not (isinstance(parent, ast.Subscript) and parent.value is sub)
                full = BARE_GENERICS.get(ast.unparse(sub)) if bare else None
                return ast.parse(full, mode="eval").body if full else sub

            def visit_Name(self, sub):
                return self._fill(sub)

            def visit_Attribute(self, sub):
                return self._fill(sub)

        return Fill().visit(node)

    def visit_arg(self, node):
        node.annotation = self._generic(node.annotation)
        return node

    def visit_FunctionDef(self, node):
        args = node.args
        for arg in (args.vararg, args.kwarg):
            if arg is not None and arg.annotation is None:
                arg.annotation = ast.parse("typing.Any", mode="eval").body
        self.generic_visit(node)
        if node.returns is not None and ast.unparse(node.returns) == "tuple" and node.name in TUPLE_RETURNS:
            node.returns = ast.parse(TUPLE_RETURNS[node.name], mode="eval").body
        node.returns = self._generic(node.returns)
        return node

    def visit_AnnAssign(self, node):
        literal = _literal_type(node.value) if node.value is not None else None
        if ast.unparse(node.annotation) in BARE_GENERICS and literal is not None:
            node.annotation = ast.parse(literal, mode="eval").body
        node.annotation = self._generic(node.annotation)
        return node


def _node_class(cls, Node):
    """Types the Python functions attached to Node (stubgen writes them untyped)."""
    for i, node in enumerate(cls.body):
        runtime = vars(Node).get(getattr(node, "name", None))
        if isinstance(node, ast.FunctionDef) and isinstance(runtime, types.FunctionType):
            cls.body[i] = _signature_def(node.name, runtime, NODE_RETURNS.get(node.name, "typing.Any"),
                                         method=True)
    return cls


def _where(value, name):
    """The module that holds ``value`` under ``name`` (or another name), if any. A public
    function says ``gradtrack`` as its module (where pickle finds it): its code's module
    is where it is defined."""
    module_name = getattr(value, "__module__", None) or ""
    if module_name == "gradtrack" and isinstance(value, types.FunctionType):
        module_name = value.__globals__.get("__name__", "")
    elif module_name == "gradtrack" and isinstance(value, type):
        # a class named gradtrack.<name> (as torch's are): the private module defining it
        module_name = next((m for m, mod in sorted(sys.modules.items())
                            if m.startswith("gradtrack.") and mod is not None
                            and vars(mod).get(name) is value), "")
    module = sys.modules.get(module_name)
    if module is None or module.__name__ == "gradtrack":
        return None, None
    if getattr(module, name, None) is value:
        return module.__name__, name
    for other, v in vars(module).items():
        if v is value:
            return module.__name__, other
    return None, None


def _package_stub(gradtrack):
    """gradtrack/__init__.pyi: the namespace the registry builds at import (_registry.py: the
    op list, dtype names, wrapped functions), spelled out for type checkers and editors."""
    lines = ["import builtins", "import typing", "import gradtrack._legacy",
             "from gradtrack._C import Tensor as Tensor, dtype as dtype", "", "__version__: str"]
    defs = []
    for name, value in sorted(vars(gradtrack).items()):
        if name.startswith("_") or name in ("Tensor", "dtype"):
            continue
        if isinstance(value, types.ModuleType):
            if value.__name__ == f"gradtrack.{name}":
                lines.append(f"from gradtrack import {name} as {name}")
            continue
        if isinstance(value, gradtrack.dtype):
            defs.append(f"{name}: dtype")
            continue
        module, real = _where(value, name)
        typed = not isinstance(value, types.FunctionType) or "return" in getattr(value, "__annotations__", {})
        if module is not None and typed and (callable(value) or isinstance(value, type)):
            lines.append(f"from {module} import {real} as {name}")
        elif isinstance(value, types.FunctionType):
            returns = FUNCTION_RETURNS.get(name, "Tensor")
            defs.append(ast.unparse(_signature_def(name, value, returns, method=False)))
        elif value is None:  # newaxis: typing spells None's type None
            defs.append(f"{name}: None")
        else:
            cls = type(value)
            if cls.__module__ == "gradtrack":  # the class is in this namespace too
                defs.append(f"{name}: {cls.__qualname__}")
                continue
            defs.append(f"{name}: {cls.__module__}.{cls.__qualname__}")
            if f"import {cls.__module__}" not in lines:
                lines.insert(2, f"import {cls.__module__}")
    tree = _Builtins().visit(ast.parse("\n".join(lines + [""] + defs)))
    return ast.unparse(tree) + "\n"


def generate(out_dir):
    """The stubs of gradtrack and gradtrack._C (stubgen writes into out_dir): {path: text}."""
    import importlib

    import gradtrack
    # the submodules that load on first use (gradtrack._lazy): the stub names them all
    for name in gradtrack._lazy.SUBMODULES:
        importlib.import_module(f"gradtrack.{name}")
    _patch_modules(gradtrack._C)
    _run_stubgen(out_dir)
    files = {}
    for path in sorted((pathlib.Path(out_dir) / "gradtrack" / "_C").glob("*.pyi")):
        text = _fix_text(path.read_text())
        if path.name == "__init__.pyi":
            tree = ast.parse(text)
            for node in tree.body:
                if isinstance(node, ast.ClassDef) and node.name == "Tensor":
                    _tensor_class(node, gradtrack.Tensor)
                if isinstance(node, ast.ClassDef) and node.name == "Node":
                    _node_class(node, gradtrack._C.Node)
            text = ast.unparse(_Builtins().visit(_Strict().visit(tree))) + "\n"
            # the types the Tensor class refers to that live in the Python layer
            text = text.replace("import typing\n", "import builtins\nimport typing\nimport gradtrack\n"
                                "import gradtrack.utils.hooks\n", 1)
            # torch's stubs too: Tensor == x gives a tensor, not the bool object.__eq__ promises
            text = re.sub(r"(def __(eq|ne)__\(.*\) -> Tensor:)", r"\1  # type: ignore[override]", text)
        else:
            text = ast.unparse(_Strict().visit(ast.parse(text))) + "\n"
        if "typing." in text and not re.search(r"^import typing$", text, re.M):
            # the strict pass writes typing.Any for bare containers; import what it names
            text = text.replace("from __future__ import annotations\n",
                                "from __future__ import annotations\nimport typing\n", 1)
        if path.name != "__init__.pyi" and re.search(r"\bTensor\b", text):
            # stubgen cannot resolve the bare `Tensor` these bindings' signatures name
            # (a module of tensor-and-bool signatures has no `import typing` to follow)
            anchor = "import typing\n" if "import typing\n" in text else "annotations\n"
            text = text.replace(anchor, anchor + "from gradtrack._C import Tensor\n", 1)
        files["_C/" + path.name] = text
    files["__init__.pyi"] = _package_stub(gradtrack)
    header = "# Generated by tools/gen_stubs.py; edit that, not this file.\n"
    return {name: header + text for name, text in files.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare with the committed stubs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(tmp)
    # attached docstrings carry indented blank lines: no trailing whitespace in the stubs
    files = {n: "\n".join(line.rstrip() for line in t.split("\n")) for n, t in files.items()}
    if args.check:
        stale = [n for n, t in files.items() if not (OUT / n).exists() or (OUT / n).read_text() != t]
        print("stubs up to date" if not stale else f"stale stubs: {', '.join(stale)}")
        return 1 if stale else 0
    for name, text in files.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(files)} stubs under {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
