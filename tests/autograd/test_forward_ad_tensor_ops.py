"""Forward-mode AD of tensor ops beyond the op table: diagonal, trace, diag_embed,
nan_to_num, median, lerp, norm and vector_norm of several orders, addmv, cross and a
split of a stack, each tangent compared with torch 2.13's and with finite differences;
and floor_divide, which has no forward AD, refused in torch's words.
"""

import pytest

import gradtrack

from forward_ad_checks import check_tangent, rng_arrays
from helpers import raised


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
    x, y, tx, ty = rng_arrays(len(name) + 11, (2, 3, 4), (2, 3, 4), (2, 3, 4), (2, 3, 4))
    check_tangent(torch, MISC[name], [x, y], [tx, ty], fd=name not in ("nan_to_num",))


def test_floor_divide_has_no_forward_ad_in_torchs_words(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.ones(3), lib.ones(3))
            return [raised(lambda: x // 0.3, lib), raised(lambda: x.clone().floor_divide_(0.3), lib)]

    assert run(gradtrack) == run(torch)
