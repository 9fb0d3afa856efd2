"""The style checks run with the tests, so CI (the README's test command) keeps them.

Python: ruff's pycodestyle and pyflakes sets, configured in pyproject.toml.
C++: clang-format with .clang-format (the version pinned in the test extra: another
version formats some lines differently), and formulas that read a node's attributes by
name, not by numbered slot.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    result = subprocess.run([ruff, "check", "--output-format", "concise", str(ROOT)],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_clang_format_finds_nothing():
    exe = shutil.which("clang-format") or str(Path(sys.executable).with_name("clang-format"))
    files = sorted(str(p) for p in (ROOT / "csrc").rglob("*") if p.suffix in (".h", ".cpp"))
    result = subprocess.run([exe, "--dry-run", "--Werror", *files], capture_output=True, text=True,
                            timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-4000:]


# The numbered slots a node's attributes once lived in (NOTE [Named attributes] in
# csrc/autograd/attrs.h): a formula reads `c.attrs<DimAttrs>().dim`, never `at.i0`.
_ATTRIBUTE_SLOT = re.compile(r"\.(s0|s1|has_s0|has_s1|ints0|ints1|ints2|i0|i1|i2|flag|f0|f1|f2)\b")


def test_formulas_read_named_attributes():
    hits = []
    for path in sorted((ROOT / "csrc").rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _ATTRIBUTE_SLOT.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "\n".join(hits)
