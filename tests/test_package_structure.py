"""The shape of the package itself: no import cycles between its modules, and files
named by what they hold.

The import graph is read from the sources (``ast``), so an import inside a function
or under ``if TYPE_CHECKING:`` counts as much as one at the top: a cycle through a
function-local import still means that neither module can be read, moved or tested
without the other.

A package's ``__init__`` gathers the names of its modules, so it imports them; a
module that reads a name of one of its own enclosing packages (``from .. import
tensor``, at call time) is not counted as importing that package back. Every other
import is an edge: of a module (``from .functional import x``), of a package (``from
..nn import functional`` imports both ``nn`` and ``nn.functional``).
"""

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "gradtrack"


def _modules():
    """{dotted name: (path, is a package)} of every Python file of gradtrack."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join(parts)] = (path, is_package)
    return modules


def _imported(node, module, is_package):
    """The dotted names ``node`` (an Import or ImportFrom) may load."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return [target] + [f"{target}.{alias.name}" for alias in node.names]


def import_graph():
    """{module: the modules of gradtrack it imports}, function-local imports included."""
    modules = _modules()
    graph = {}
    for name, (path, is_package) in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(target for target in _imported(node, name, is_package)
                             if target in modules and not (name + ".").startswith(target + "."))
        graph[name] = edges
    return graph


def strongly_connected(graph):
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def test_the_graph_sees_function_local_imports():
    graph = import_graph()
    # autograd/provenance.py imports viz inside explain() (subprocess loads only then)
    assert "gradtrack.autograd.viz" in graph["gradtrack.autograd.provenance"]
    assert "gradtrack.nn._arguments" in graph["gradtrack.nn.functional"]
    assert "gradtrack" not in graph["gradtrack.nn.functional"]


def test_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(graph) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back():
    cycles = strongly_connected(import_graph())
    assert not cycles, "import cycles (move what both need into a module below them):\n" + \
        "\n".join(" <-> ".join(cycle) for cycle in cycles)


def test_registry_refuses_a_name_given_twice():
    import types

    import pytest

    from gradtrack import _registry

    def area(name, **tables):
        module = types.ModuleType(name)
        vars(module).update(tables)
        return module

    def cumsum(input, dim):  # noqa: A002
        return input

    first = area("gradtrack._ops.first", FUNCTIONS=(cumsum,))
    with pytest.raises(RuntimeError, match="gradtrack.cumsum is given twice: by "
                                           "gradtrack._ops.first and by gradtrack._ops.second"):
        _registry.functions([first, area("gradtrack._ops.second", NAMES={"cumsum": cumsum})])
    with pytest.raises(RuntimeError, match="gradtrack.exp is given twice"):
        _registry.functions([first, area("gradtrack._ops.second", BOUND=("exp",)),
                             area("gradtrack._ops.third", BOUND=("exp",))])
    with pytest.raises(RuntimeError, match="gradtrack.cumsum is given twice"):
        _registry.functions([first, area("gradtrack._ops.second", ALIASES={"cumsum": "exp"})])
    with pytest.raises(RuntimeError, match="Tensor.cumsum is given twice: by a and by b"):
        _registry.methods([area("a", METHODS={"cumsum": cumsum}),
                           area("b", METHODS={"cumsum": cumsum})])
    with pytest.raises(RuntimeError, match=r"replace the C\+\+ Tensor's \['exp'\]"):
        _registry.methods([area("a", METHODS={"exp": cumsum})])


def test_registry_sources_give_every_public_name():
    import gradtrack
    from gradtrack import _registry

    names, aliases = _registry.functions(_registry._modules())
    given = set(names) | set(aliases)
    public = {n for n, v in vars(gradtrack).items()
              if not n.startswith("_") and type(v).__name__ != "module"}
    assert public - given == set()
    assert set(_registry.methods(_registry._modules())) <= set(vars(gradtrack.Tensor))


def test_files_are_named_by_what_they_hold():
    # A name that says when a file arrived (ops2.py, formulas_extra.cpp, out_more.py)
    # says nothing of what it holds, and the next arrival makes it wrong. Every
    # hand-written part of the repository, not only the package.
    # (avx2, avx512 and 2x2 name instruction sets and shapes, chi2 a distribution (torch's
    # module name), not arrivals; "round" alone names the op, followed by a digit a phase)
    by_age = re.compile(r"extra|more|round[_-]?[0-9]|(?<![0-9x])(?<!avx)(?<!chi)2\.(py|cpp|h)$",
                        re.IGNORECASE)
    root = PACKAGE.parents[1]
    named = [str(path.relative_to(root))
             for part in ("csrc", "python", "tests", "benchmarks", "tools", "examples", "docs")
             for path in (root / part).rglob("*")
             if "__pycache__" not in path.parts and by_age.search(path.name)]
    assert named == [], f"named by age, not by what they hold: {named}"


HAND_WRITTEN = ("csrc", "python", "tests", "benchmarks", "tools", "examples", "docs", ".ci")
SOURCE_SUFFIXES = {".py", ".cpp", ".h", ".md", ".txt", ".toml", ".yml", ".cfg", ""}


def _hand_written_files():
    root = PACKAGE.parents[1]
    for part in HAND_WRITTEN:
        for path in (root / part).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in SOURCE_SUFFIXES \
                    and "results" not in path.parts:
                yield path
    for name in ("README.md", "CONTRIBUTING.md", "CMakeLists.txt", "pyproject.toml"):
        yield root / name


def test_no_hand_written_source_file_is_over_800_lines():
    # The generated stubs (tools/gen_stubs.py) are the exception.
    long = [f"{path.name}: {n}" for path in _hand_written_files()
            if path.suffix != ".pyi" and (n := len(path.read_text(errors="replace").splitlines())) > 800]
    assert long == []


def test_the_repository_cites_no_tracker_entries_or_rounds():
    # A reader of the repository has neither the tracker nor the history of rounds of
    # work: a NOTE says why, a commit says when.
    cite = re.compile("|".join([r"\bissue[s]? ?#?[0-9]+", r"\bround[- ][0-9]\b", r"\bround-two\b"]),
                      re.IGNORECASE)
    found = [f"{path.name}:{i}" for path in _hand_written_files()
             for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
             if cite.search(line)]
    assert found == []
