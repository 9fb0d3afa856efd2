"""Smoke test of an installed gradtrack wheel: run by .ci/wheel in a fresh virtual
environment where no compiler is on PATH. Exits non-zero on the first failure."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WALKTHROUGH = ROOT / "tests" / "data" / "seed_walkthrough.py"
EXPECTED = ROOT / "tests" / "data" / "seed_walkthrough.expected"


def run(*args):
    """Runs ``python args`` outside the source tree; returns its stdout."""
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                              timeout=300)
    if done.returncode != 0:
        sys.exit(f"python {' '.join(map(str, args))} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def main():
    compilers = [c for c in ("cc", "gcc", "c++", "g++", "clang") if shutil.which(c)]
    assert not compilers, f"a compiler is on PATH: {compilers}"
    assert os.environ.get("CC") == "false" and os.environ.get("CXX") == "false"

    # The extension finds OpenBLAS (in scipy-openblas32) through its RPATH, which auditwheel
    # must keep: load it alone, before gradtrack's import could load OpenBLAS another way.
    run("-c", "import ctypes, glob, importlib.util, os; "
        "d = os.path.dirname(importlib.util.find_spec('gradtrack').origin); "
        "ctypes.CDLL(glob.glob(os.path.join(d, '_C.*.so'))[0])")

    import gradtrack
    package = Path(gradtrack.__file__).resolve().parent
    assert "site-packages" in package.parts, f"gradtrack imported from {package}, not the wheel"
    # PEP 561 marker and the extension's stubs ship in the wheel.
    assert (package / "py.typed").is_file() and (package / "_C" / "__init__.pyi").is_file()

    x = gradtrack.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x @ x).sum().backward()  # the matmul goes through the linked OpenBLAS
    assert x.grad.tolist() == [[7.0, 11.0], [9.0, 13.0]], x.grad

    info = run("-m", "gradtrack")
    for needle in (f"gradtrack {gradtrack.__version__}", "BLAS: OpenBLAS", "get_num_threads()"):
        assert needle in info, f"python -m gradtrack lacks {needle!r}:\n{info}"

    walkthrough = re.sub(r"\bgradtrack\b", "<mod>", run(str(WALKTHROUGH), "gradtrack"))
    assert walkthrough == EXPECTED.read_text(), "the seed walkthrough's output differs from torch's"
    print(f"wheel smoke test passed: gradtrack {gradtrack.__version__} from {package}")


if __name__ == "__main__":
    main()
