"""Where the warnings of the functions CPU autocast runs in float32 (losses, grid_sample,
the deprecated linalg spellings) point, against torch 2.13: at the caller's line when
torch's do, inside the library when torch's do, never at the autocast decorator
(NOTE [Warnings see through runs_in_float32])."""

import subprocess
import sys
import textwrap
import warnings

import pytest

import gradtrack

from helpers import same


def _inputs(lib):
    lib.manual_seed(0)
    x = lib.randn(3, 4).log_softmax(1)
    y = lib.softmax(lib.randn(3, 4), 1)
    cls = lib.tensor([0, 3, 1])
    return x, y, lib.rand(3, 4), cls


CASES = {
    "kl_div_mean": lambda F, lib, x, y, p, c: F.kl_div(x, y),
    "kl_div_legacy": lambda F, lib, x, y, p, c: F.kl_div(x, y, size_average=False),
    "kl_div_elementwise_mean": lambda F, lib, x, y, p, c: F.kl_div(x, y,
                                                                  reduction="elementwise_mean"),
    "mse_size": lambda F, lib, x, y, p, c: F.mse_loss(x, y[:1]),
    "mse_legacy": lambda F, lib, x, y, p, c: F.mse_loss(x, y, size_average=False),
    "mse_elementwise_mean": lambda F, lib, x, y, p, c: F.mse_loss(x, y,
                                                                 reduction="elementwise_mean"),
    "l1_size": lambda F, lib, x, y, p, c: F.l1_loss(x, y[:1]),
    "l1_legacy": lambda F, lib, x, y, p, c: F.l1_loss(x, y, reduce=False),
    "smooth_l1_size": lambda F, lib, x, y, p, c: F.smooth_l1_loss(x, y[:1]),
    "huber_size": lambda F, lib, x, y, p, c: F.huber_loss(x, y[:1]),
    "bce_legacy": lambda F, lib, x, y, p, c: F.binary_cross_entropy(p, y, size_average=False),
    "nll_legacy": lambda F, lib, x, y, p, c: F.nll_loss(x, c, size_average=False),
    "cross_entropy_elementwise_mean": lambda F, lib, x, y, p, c: F.cross_entropy(
        x, c, reduction="elementwise_mean"),
    "poisson_legacy": lambda F, lib, x, y, p, c: F.poisson_nll_loss(p, y, size_average=False),
    "margin_ranking_legacy": lambda F, lib, x, y, p, c: F.margin_ranking_loss(
        p, y, y, size_average=False),
    "grid_sample_align_corners": lambda F, lib, x, y, p, c: F.grid_sample(
        lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2)),
    "qr": lambda F, lib, x, y, p, c: lib.qr(lib.eye(2)),
    "cholesky": lambda F, lib, x, y, p, c: lib.cholesky(lib.eye(2)),
    "ctc_elementwise_mean": lambda F, lib, x, y, p, c: F.ctc_loss(
        lib.zeros(5, 1, 3).log_softmax(2), lib.tensor([[1, 2]]), (5,), (2,),
        reduction="elementwise_mean"),
    "mse_loss_module_legacy": lambda F, lib, x, y, p, c: lib.nn.MSELoss(size_average=False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_warning_points_where_torch_s_does(case):
    def scenario(lib):
        F = lib.nn.functional
        args = _inputs(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            CASES[case](F, lib, *args)
        # at this file's lambda, or inside the library; never at the autocast wrapper
        return [(w.category.__name__, str(w.message).replace("torch", "gradtrack")[:40],
                 w.filename == __file__,
                 w.filename.endswith("_autocast.py")) for w in caught]
    same(scenario)


def test_default_filter_shows_a_warning_once_per_calling_line(tmp_path):
    # torch's warning names the caller's line, so two call sites warn twice under the
    # "default" filter; naming the decorator's line made it once.
    script = tmp_path / "two_sites.py"
    script.write_text(textwrap.dedent("""
        import warnings
        warnings.simplefilter("default")
        import torch
        import torch.nn.functional as F
        x = torch.randn(3, 4).log_softmax(1)
        y = torch.softmax(torch.randn(3, 4), 1)
        F.kl_div(x, y)
        F.kl_div(x, y, log_target=True)
        for _ in range(3):
            F.mse_loss(x, y[:1])
    """))
    runs = []
    for args in (["-m", "gradtrack.as_torch", str(script)], [str(script)]):
        if args[0] != "-m":
            pytest.importorskip("torch")
        out = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        runs.append([line.split(": ")[0] for line in out.stderr.splitlines()
                     if "Warning: " in line])
    assert runs[0] == runs[1] == [f"{script}:8", f"{script}:9", f"{script}:11"]


def test_warn_level_skips_only_the_decorator():
    from gradtrack._autocast import runs_in_float32, warn_level

    @runs_in_float32
    def wrapped():
        return warn_level(2), warn_level(3)

    def plain():
        return warn_level(2)

    assert wrapped() == (3, 4)
    assert plain() == 2

    @runs_in_float32
    def warns():
        warnings.warn("here", stacklevel=warn_level(2))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warns()
    assert caught[0].filename == __file__
    assert gradtrack.nn.functional.kl_div is not None
