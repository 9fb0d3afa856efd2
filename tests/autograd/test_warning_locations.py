"""Where warnings raised by the library point, as torch's do: the user's backward() line
for a full backward hook without inputs, the library's call into the engine for anomaly
mode (whose forward traceback holds only the program's frames, also under
``python -m gradtrack.as_torch``), and a line of the library for the deprecated
``nn.utils.weight_norm`` (so the default filter shows it once per process)."""

import pytest

from helpers import run_as_script_in_both

pytestmark = pytest.mark.timeout(120)


_WHERE = """
    import os, warnings
    import torch
    LIB = os.path.dirname(torch.__file__)
    def where(w):
        inside = w.filename.startswith(LIB)
        return ("library" if inside else os.path.basename(w.filename) + f":{w.lineno}")
"""


def test_full_backward_hook_warning_names_the_backward_line(torch, tmp_path):
    (expected, _), (got, _) = run_as_script_in_both(_WHERE + """
    m = torch.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    def step():
        out = m(torch.randn(1, 2))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out.sum().backward()
            torch.autograd.backward(m(torch.randn(1, 2)).sum())
        print([(where(w), str(w.message)[:40]) for w in caught])
    step()
    """, tmp_path)
    assert got == expected


def test_anomaly_warning_names_the_engine_call_and_the_programs_frames(torch, tmp_path):
    (expected, _), (got, _) = run_as_script_in_both(_WHERE + """
    x = torch.zeros(2, requires_grad=True)
    with torch.autograd.detect_anomaly():
        z = x / x
        for run in (lambda: z.sum().backward(retain_graph=True),
                    lambda: torch.autograd.backward(z.sum(), retain_graph=True),
                    lambda: torch.autograd.grad(z.sum(), x)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    run()
                except RuntimeError as e:
                    print("ERR", e)
            for w in caught:
                if "Error detected" in str(w.message):
                    stack = [line for line in str(w.message).splitlines()[1:]
                             if line.startswith("  File")]
                    print(where(w), [line.split(", in ")[-1] for line in stack])
    """, tmp_path)
    assert got == expected
    assert "library" in got


def test_weight_norm_deprecation_shows_once_per_process(torch, tmp_path):
    (_, expected), (_, got) = run_as_script_in_both("""
    import torch.nn as nn
    from torch.nn.utils import weight_norm
    for i in range(2):
        weight_norm(nn.Linear(3, 2))
    weight_norm(nn.Linear(3, 2))
    """, tmp_path)
    message = "is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`."
    assert got.count(message) == expected.count(message) == 1
    assert "prog.py" not in got.splitlines()[0] and "prog.py" not in expected.splitlines()[0]
