"""The style checks run with the tests, so CI (the README's test command) keeps them.

Python: ruff's pycodestyle and pyflakes sets, configured in pyproject.toml.
C++: clang-format with .clang-format (the version pinned in the test extra: another
version formats some lines differently).
"""

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
