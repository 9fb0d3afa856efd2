"""Forward-mode AD of tensor ops beyond the op table: diagonal, trace, diag_embed,
nan_to_num, median, lerp, norm and vector_norm of several orders, addmv, cross and a
split of a stack, each tangent compared with torch 2.13's and with finite differences;
and floor_divide, which has no forward AD, refused in torch's words.
"""

import numpy as np
import pytest

import gradtrack


def _np(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def _err(fn, lib):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e).replace(lib.__name__, "LIB")
    return None


def _rng_arrays(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _tangent(lib, fn, primals, tangents):
    """The output's tangent of fn(*duals) (tangent None: a plain input)."""
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        xs = [fw.make_dual(lib.tensor(p), lib.tensor(t)) if t is not None else lib.tensor(p)
              for p, t in zip(primals, tangents)]
        return _np(fw.unpack_dual(fn(lib, *xs)).tangent)


def _fd(fn, primals, tangents, eps=1e-6):
    def at(sign):
        xs = [gradtrack.tensor(p + sign * eps * t if t is not None else p)
              for p, t in zip(primals, tangents)]
        return fn(gradtrack, *xs).numpy()
    return (at(1) - at(-1)) / (2 * eps)


def _check(torch, fn, primals, tangents, fd=True):
    ours = _tangent(gradtrack, fn, primals, tangents)
    theirs = _tangent(torch, fn, primals, tangents)
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
    if fd:
        np.testing.assert_allclose(ours, _fd(fn, primals, tangents), rtol=1e-4, atol=1e-6)


MISC = {
    "diagonal": lambda lib, x, y: x.diagonal(1, 1, 2) * y.diagonal(1, 1, 2),
    "diagonal_2d": lambda lib, x, y: lib.diagonal(x[0], -1),
    "trace": lambda lib, x, y: (x[0] * y[1]).trace(),
    "diag_embed": lambda lib, x, y: lib.diag_embed(x * y, 1),
    "nan_to_num": lambda lib, x, y: (x / (y > 0)).nan_to_num(posinf=2.0, neginf=-3.0),
    "median_all": lambda lib, x, y: (x * y).median(),
    "lerp_scalar": lambda lib, x, y: x.lerp(y, 0.3),
    "lerp_tensor": lambda lib, x, y: x.lerp(y, y.sigmoid()),
    "norm": lambda lib, x, y: x.norm(),
    "vector_norm_3": lambda lib, x, y: lib.linalg.vector_norm(x * y, 3, dim=1),
    "vector_norm_1": lambda lib, x, y: lib.linalg.vector_norm(x, 1, dim=(0, 2), keepdim=True),
    "vector_norm_inf": lambda lib, x, y: lib.linalg.vector_norm(x, float("inf"), dim=2),
    "vector_norm_0": lambda lib, x, y: lib.linalg.vector_norm(x, 0),
    "addmv": lambda lib, x, y: lib.addmv(x[0, :, 0], x[1], y[0, 0], beta=0.5, alpha=2.0),
    "cross": lambda lib, x, y: lib.linalg.cross(x[..., :3], y[..., 1:]),
    "stack_split": lambda lib, x, y: lib.stack([x, y]).split([1, 2], 2)[1],
}


@pytest.mark.parametrize("name", sorted(MISC))
def test_misc_op_tangents(torch, name):
    x, y, tx, ty = _rng_arrays(len(name) + 11, (2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4))
    _check(torch, MISC[name], [x, y], [tx, ty], fd=name not in ("nan_to_num",))


def test_floor_divide_has_no_forward_ad_in_torchs_words(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.ones(3), lib.ones(3))
            return [_err(lambda: x // 0.3, lib), _err(lambda: x.clone().floor_divide_(0.3), lib)]

    assert run(gradtrack) == run(torch)
