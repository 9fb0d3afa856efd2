"""torch 2.13's warnings of two indexing ops: ``index_reduce`` is in beta (a UserWarning
once per process, after the op's checks passed) and a uint8 ``masked_scatter`` mask is
deprecated (a UserWarning at every call, then the op refuses the mask). Both name the
caller's line. Each once-per-process case runs in a fresh interpreter."""

import subprocess
import sys
import textwrap

import pytest

from helpers import same

SCRIPT = textwrap.dedent("""
    import sys, warnings
    import {lib} as torch
    warnings.simplefilter("always")

    def run(name, f):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            try:
                r = f()
                r = r.tolist()
            except Exception as e:
                r = type(e).__name__ + ": " + str(e)
        print(name, r, [(w.category.__name__, str(w.message).split(" (Triggered")[0],
                         w.filename == __file__) for w in ws])

    x = torch.zeros(3, 2); i = torch.tensor([0, 0]); s = torch.ones(2, 2)
    run("bad_reduce", lambda: x.index_reduce(0, i, s, "sum"))
    run("bad_dtype", lambda: x.index_reduce(0, i, s.double(), "amax"))
    run("method", lambda: x.index_reduce(0, i, s, "amax"))
    run("again", lambda: x.index_reduce(0, i, s, "prod"))
    run("function", lambda: torch.index_reduce(x, 0, i, s, "mean"))
    run("in_place", lambda: x.clone().index_reduce_(0, i, s, "amin"))
""")


def _run(lib, script, tmp_path):
    path = tmp_path / f"with_{lib}.py"
    path.write_text(script.format(lib=lib))
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return out.stdout.replace("torch", "gradtrack")


def test_index_reduce_warns_once_per_process_as_torch(tmp_path):
    pytest.importorskip("torch")
    ours, theirs = _run("gradtrack", SCRIPT, tmp_path), _run("torch", SCRIPT, tmp_path)
    assert ours == theirs
    warned = [line for line in ours.splitlines() if "in beta" in line]
    assert len(warned) == 1 and warned[0].startswith("method ")
    assert ("('UserWarning', 'index_reduce() is in beta and the API may change at any time.', "
            "True)") in warned[0]


MASK_CASES = {
    "method": lambda lib, a, m: a.masked_scatter(m, lib.ones(4)),
    "in_place": lambda lib, a, m: a.clone().masked_scatter_(m, lib.ones(4)),
    "function": lambda lib, a, m: lib.masked_scatter(a, m, lib.ones(4)),
    "bool_mask": lambda lib, a, m: a.masked_scatter(m.bool(), lib.ones(4)),
    "int8_mask": lambda lib, a, m: a.masked_scatter(m.to(lib.int8), lib.ones(4)),
    "leaf_in_place": lambda lib, a, m: a.requires_grad_().masked_scatter_(m, lib.ones(4)),
}


@pytest.mark.parametrize("case", sorted(MASK_CASES))
def test_uint8_masked_scatter_warns_at_every_call_as_torch(case):
    import warnings

    def scenario(lib):
        a = lib.zeros(2, 2)
        m = lib.tensor([[1, 0], [0, 1]], dtype=lib.uint8)
        seen = []
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    result = MASK_CASES[case](lib, a, m).tolist()
                except RuntimeError as e:
                    result = str(e)
            seen.append((result, [(w.category.__name__, str(w.message), w.filename == __file__)
                                  for w in caught]))
        return seen
    same(scenario)
