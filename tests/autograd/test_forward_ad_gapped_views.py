"""Forward AD through in-place writes into gapped views (a narrow of a wider
tensor), the pattern of pad(mode='circular').

The jvp path used to lay scratch buffers and tangents out with the view's
strides in a numel-sized allocation, so the copy ran past its end: heap
corruption that surfaced later (in gc or malloc). The subprocess test runs the
patterns under glibc's malloc checks, which turn such a write into an abort;
the others compare the tangents with torch 2.13's.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np

import gradtrack

_LOOPS = textwrap.dedent("""
    import gc
    import gradtrack as torch
    import gradtrack.autograd.forward_ad as fwAD
    import gradtrack.nn.functional as F

    def dual(*shape):
        return fwAD.make_dual(torch.randn(*shape, dtype=torch.float64),
                              torch.randn(*shape, dtype=torch.float64))

    for _ in range(20):
        with fwAD.dual_level():
            F.pad(dual(2, 3, 4), (1, 2), mode="circular")
        gc.collect()
    for _ in range(20):
        with fwAD.dual_level():
            out = torch.empty(2, 3, 7, dtype=torch.float64)
            out.narrow(2, 1, 4).copy_(dual(2, 3, 4))
            x = dual(2, 3, 9)
            x.narrow(2, 2, 5).relu_()
            x.narrow(2, 2, 5).mul_(2.0)
            y = fwAD.make_dual(torch.randn(2, 3, 9, dtype=torch.float64).narrow(2, 1, 4),
                               torch.randn(2, 3, 4, dtype=torch.float64))
            y[..., 1:3].sum()
        gc.collect()
    print("clean")
""")


def test_slice_writes_do_not_corrupt_the_heap():
    env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.check=3:glibc.malloc.perturb=165:"
               "glibc.malloc.tcache_count=0")
    proc = subprocess.run([sys.executable, "-c", _LOOPS], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "clean"


def _tangents(lib, build):
    fw = lib.autograd.forward_ad
    rng = np.random.default_rng(7)
    p, t = rng.standard_normal((2, 3, 7)), rng.standard_normal((2, 3, 7))
    with fw.dual_level():
        outs = build(lib, fw, lib.tensor(p), lib.tensor(t))
        result = []
        for o in outs:
            primal, tangent = fw.unpack_dual(o)
            result.append((np.array(primal.detach().numpy()),
                           None if tangent is None else np.array(tangent.detach().numpy())))
        return result


def _check(torch, build):
    ours, theirs = _tangents(gradtrack, build), _tangents(torch, build)
    assert len(ours) == len(theirs)
    for (p, t), (tp, tt) in zip(ours, theirs):
        np.testing.assert_allclose(p, tp)
        assert (t is None) == (tt is None)
        if tt is not None:
            np.testing.assert_allclose(t, tt)


def test_copy_of_dual_into_slices_of_fresh_tensor(torch):
    def build(lib, fw, p, t):
        x = fw.make_dual(p, t)
        out = lib.zeros(2, 3, 9, dtype=lib.float64)
        out.narrow(2, 1, 7).copy_(x)  # the base gets a zero tangent, the view a view of it
        out.narrow(2, 0, 1).copy_(out.narrow(2, 7, 1))
        v = out.narrow(2, 2, 3)
        v.mul_(2.0)
        return [out, v, out[:, 1]]
    _check(torch, build)


def test_inplace_on_gapped_view_of_dual(torch):
    def build(lib, fw, p, t):
        x = fw.make_dual(p.clone(), t)
        v = x.narrow(2, 1, 4)
        v.mul_(v)
        v.relu_()
        return [x, v]
    _check(torch, build)


def test_views_of_dual_made_from_gapped_primal(torch):
    def build(lib, fw, p, t):
        d = fw.make_dual(p.narrow(2, 1, 4), t.narrow(2, 1, 4))
        return [d, d[..., 1:3], d.transpose(0, 2)[1], d.select(1, 2)]
    _check(torch, build)


def test_circular_pad_tangent(torch):
    def build(lib, fw, p, t):
        x = fw.make_dual(p, t)
        f = lib.nn.functional
        return [f.pad(x, (1, 2), mode="circular"), f.pad(x[:, :, 1:], (2, 1, 1, 0),
                                                          mode="circular")]
    _check(torch, build)
