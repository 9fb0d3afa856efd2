"""``python -m gradtrack.as_torch`` and ``pytest -p gradtrack.as_torch``: unchanged torch
code runs on gradtrack, real torch is never loaded, and a part of torch gradtrack lacks
stops the script with a ModuleNotFoundError naming it. Each case starts a process."""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    from torch.nn.modules.activation import MultiheadAttention
    torch.backends.cuda.matmul.allow_tf32 = True
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    X, y = torch.randn(32, 4), torch.randn(32, 1)
    for xb, yb in DataLoader(TensorDataset(X, y), batch_size=16):
        with torch.autocast(device, enabled=False):
            loss = F.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(round(loss.item(), 4))
    print(sys.argv[1:])
    print(sorted(name for name, m in sys.modules.items()
                 if name.startswith("torch") and "site-packages/torch" in str(getattr(m, "__file__", ""))))
""")


def _run(args, cwd, timeout=120):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def test_script_prints_torch_s_output(tmp_path):
    pytest.importorskip("torch")
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    served = _run(["-m", "gradtrack.as_torch", str(script), "--epochs", "1"], tmp_path)
    real = _run([str(script), "--epochs", "1"], tmp_path)
    assert served.returncode == 0, served.stderr
    lines, real_lines = served.stdout.splitlines(), real.stdout.splitlines()
    assert lines[:-1] == real_lines[:-1]  # the losses and argv
    assert lines[-1] == "[]"  # no module of real torch was loaded
    assert real_lines[-1] != "[]"


def test_module_mode_and_missing_submodule(tmp_path):
    (tmp_path / "uses_fx.py").write_text("import torch\nprint(torch.ones(2).sum().item())\n"
                                         "import torch.fx\n")
    out = _run(["-m", "gradtrack.as_torch", "-m", "uses_fx"], tmp_path)
    assert out.stdout == "2.0\n"
    assert ("ModuleNotFoundError: No module named 'torch.fx' (gradtrack.as_torch serves torch "
            "from gradtrack, which has no 'gradtrack.fx')") in out.stderr


def test_pytest_plugin_runs_a_torch_test_suite(tmp_path):
    (tmp_path / "conftest.py").write_text("import torch\n")
    (tmp_path / "test_model.py").write_text(textwrap.dedent("""
        import torch

        def test_served():
            assert torch.__name__ == "gradtrack"
            x = torch.ones(2, requires_grad=True)
            (x * 3).sum().backward()
            assert x.grad.tolist() == [3.0, 3.0]
    """))
    out = _run(["-m", "pytest", "-q", "-p", "gradtrack.as_torch", "-p", "no:cacheprovider",
                str(tmp_path)], tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout


def test_refuses_when_real_torch_is_loaded(tmp_path):
    pytest.importorskip("torch")
    code = "import torch, gradtrack.as_torch as a\ntry:\n    a.install()\nexcept RuntimeError as e:\n    print(e)"
    out = _run(["-c", code], tmp_path)
    assert out.stdout.startswith("gradtrack.as_torch: real torch is already imported")


def test_served_modules_keep_their_own_spec_so_relative_imports_do_not_warn(tmp_path):
    # A relative import run at call time inside a served module compares __package__
    # with __spec__.parent: the import system gave the module torch's spec, and the
    # mismatch warned (ImportWarning) until the alias gave it its own back.
    (tmp_path / "ckpt.py").write_text(textwrap.dedent("""
        import warnings
        warnings.simplefilter("error", ImportWarning)
        import torch
        import torch.utils.checkpoint
        from torch.utils.checkpoint import checkpoint_sequential
        seq = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU())
        x = torch.ones(2, 3, requires_grad=True)
        print(tuple(checkpoint_sequential(seq, 2, x, use_reentrant=False).shape))
        m = torch.utils.checkpoint
        print(m.__name__, m.__spec__.name, m.__package__ == m.__spec__.parent)
    """))
    out = _run(["-W", "always", "-m", "gradtrack.as_torch", str(tmp_path / "ckpt.py")], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "ImportWarning" not in out.stderr
    assert out.stdout.splitlines() == [
        "(2, 3)", "gradtrack.utils.checkpoint gradtrack.utils.checkpoint True"]
