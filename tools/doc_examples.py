"""Fill in and cross-check the outputs of docstring examples.

``python -m tools.doc_examples FILE...`` runs every ``>>>`` example of each
docstring in the files (one fresh namespace per docstring, ``gradtrack`` already
imported, as ``gradtrack/_docs`` adds that import to the docstrings it attaches).
An example written without an expected output gets the output gradtrack prints
written under it; every example is also run with torch (``gradtrack`` spelled
``torch``) and any output that differs from torch's is reported, so a docstring
never shows something torch would not print. Needs torch (the test extra).
"""

import contextlib
import io
import re
import sys
import traceback

PROMPT = re.compile(r"^(\s*)>>> (.*)$")
MORE = re.compile(r"^\s*\.\.\.(?: (.*))?$")


def _run(source, namespace):
    """What the interactive prompt prints for ``source`` (or its exception)."""
    buffer = io.StringIO()
    try:
        code = compile(source, "<doc>", "single")
        with contextlib.redirect_stdout(buffer):
            exec(code, namespace)  # noqa: S102 - the point of this tool
    except Exception as exc:  # noqa: BLE001 - reported as a doctest shows it
        head = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return buffer.getvalue() + f"Traceback (most recent call last):\n    ...\n{head}\n"
    return buffer.getvalue()


def _fresh(torch_side):
    namespace = {}
    exec("import torch" if torch_side else "import gradtrack", namespace)  # noqa: S102
    return namespace


def process(path):
    """Fill missing outputs in ``path``; return the messages about torch mismatches."""
    import gradtrack
    import torch

    gradtrack.manual_seed(0)
    torch.manual_seed(0)
    lines = open(path).read().split("\n")
    out, problems = [], []
    ours = theirs = None
    i = 0
    while i < len(lines):
        line = lines[i]
        match = PROMPT.match(line)
        if not match:
            if '"""' in line:
                ours, theirs = _fresh(False), _fresh(True)
                gradtrack.manual_seed(0)
                torch.manual_seed(0)
            out.append(line)
            i += 1
            continue
        indent, parts = match.group(1), [match.group(2)]
        out.append(line)
        i += 1
        while i < len(lines) and MORE.match(lines[i]) and not PROMPT.match(lines[i]):
            parts.append(MORE.match(lines[i]).group(1) or "")
            out.append(lines[i])
            i += 1
        source = "\n".join(parts) + ("\n" if len(parts) > 1 else "")
        if "doctest: +SKIP" in source:
            continue  # needs what a docstring run does not have (several MPI ranks)
        got = _run(source, ours)
        want = _run(source.replace("gradtrack", "torch"), theirs)
        if got.replace("gradtrack", "torch") != want:
            problems.append(f"{path}:{i}: {source!r}\n  gradtrack: {got!r}\n  torch:     {want!r}")
        nxt = lines[i] if i < len(lines) else ""
        has_output = nxt.strip() and not PROMPT.match(nxt) and '"""' not in nxt.strip()[:3]
        if not has_output and got:
            if "\\" in got:
                problems.append(f"{path}:{i}: output has a backslash; write it by hand")
            for text in got.rstrip("\n").split("\n"):
                out.append(indent + (text if text.strip() else "<BLANKLINE>"))
    with open(path, "w") as f:
        f.write("\n".join(out))
    return problems


if __name__ == "__main__":
    found = []
    for name in sys.argv[1:]:
        found += process(name)
    print("\n".join(found) or "all examples print what torch prints")
    sys.exit(1 if found else 0)
