"""unique(dim=), unique_consecutive, einsum with '...', linalg.svd/svdvals
and the spectral and nuclear matrix norms against torch 2.13: values,
gradients, grad_fn names and messages.
"""

import numpy as np
import pytest

import gradtrack
from helpers import name, nexts


def _outcome(lib, fn):
    try:
        r = fn(lib)
        rs = r if isinstance(r, tuple) else (r,)
        return ("ok", [(str(x.tolist()), str(x.dtype).split(".")[-1]) for x in rs])
    except Exception as e:  # the error is the observable result
        return (type(e).__name__, str(e).replace("gradtrack", "torch"))


_X = [[1, 2], [0, 5], [1, 2], [0, 1]]
_NAN = float("nan")
UNIQUE = {
    "dim0": lambda L: L.unique(L.tensor(_X), dim=0),
    "dim0_all": lambda L: L.unique(L.tensor(_X), dim=0, return_inverse=True, return_counts=True),
    "dim1_all": lambda L: L.unique(L.tensor(_X), dim=1, return_inverse=True, return_counts=True),
    "dim_neg": lambda L: L.unique(L.tensor(_X), dim=-1),
    "dim_range": lambda L: L.unique(L.tensor(_X), dim=2),
    "unsorted": lambda L: L.unique(L.tensor(_X), sorted=False, dim=0),
    "3d": lambda L: L.unique(L.tensor([[[1, 2], [3, 4]], [[1, 2], [0, 4]], [[1, 2], [3, 4]]]),
                             dim=0, return_inverse=True, return_counts=True),
    "3d_mid": lambda L: L.unique(L.tensor([[[1, 2], [1, 2]], [[3, 4], [3, 4]]]), dim=1,
                                 return_inverse=True, return_counts=True),
    "float_rows": lambda L: L.unique(L.tensor([[2.5, 1.], [-1., 3.], [2.5, 1.]]), dim=0,
                                     return_counts=True),
    "nan_rows": lambda L: L.unique(L.tensor([[1., _NAN], [1., _NAN]]), dim=0),
    "empty_dim": lambda L: L.unique(L.zeros(0, 3), dim=0, return_inverse=True,
                                    return_counts=True),
    "empty_other": lambda L: L.unique(L.zeros(2, 0), dim=0),
    "empty_selected": lambda L: L.unique(L.zeros(2, 0), dim=1, return_inverse=True,
                                         return_counts=True),
    "zero_dim": lambda L: L.unique(L.tensor(3.), dim=0),
    "method": lambda L: L.tensor(_X).unique(dim=0, return_inverse=True),
    "consecutive": lambda L: L.unique_consecutive(L.tensor([1, 1, 2, 2, 3, 1, 1, 2])),
    "consecutive_all": lambda L: L.unique_consecutive(L.tensor([1, 1, 2, 2, 3, 1, 1, 2]),
                                                      return_inverse=True, return_counts=True),
    "consecutive_2d": lambda L: L.unique_consecutive(L.tensor([[1, 1], [1, 1], [2, 2]]),
                                                     return_inverse=True, return_counts=True),
    "consecutive_dim0": lambda L: L.unique_consecutive(L.tensor([[1, 1], [1, 1], [2, 2]]), dim=0,
                                                       return_inverse=True, return_counts=True),
    "consecutive_dim1": lambda L: L.unique_consecutive(L.tensor([[1, 1], [1, 1], [2, 2]]), dim=1,
                                                       return_inverse=True, return_counts=True),
    "consecutive_empty": lambda L: L.unique_consecutive(L.tensor([]), return_inverse=True,
                                                        return_counts=True),
    "consecutive_nan": lambda L: L.unique_consecutive(L.tensor([1., _NAN, _NAN])),
    "consecutive_method": lambda L: L.tensor([3, 3, 1]).unique_consecutive(return_counts=True),
}


@pytest.mark.parametrize("case", sorted(UNIQUE))
def test_unique_with_dim_and_unique_consecutive_match_torch(torch, case):
    assert _outcome(gradtrack, UNIQUE[case]) == _outcome(torch, UNIQUE[case])


EINSUM = [
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...->...", [(3, 2, 4)]),
    ("...i,...i->...", [(2, 3), (3,)]),
    ("b...d,bd->b...", [(2, 3, 4, 5), (2, 5)]),
    ("...", [(2, 3)]),
    ("ij...,jk...->ik...", [(2, 3, 1), (3, 4, 5)]),
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
    ("ii...->i...", [(3, 3, 2)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM)
def test_einsum_ellipsis_and_broadcasting_match_torch(torch, eq, shapes):
    rng = np.random.RandomState(0)
    arrays = [rng.randn(*s) for s in shapes]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    gs = [gradtrack.tensor(a, requires_grad=True) for a in arrays]
    ty, gy = torch.einsum(eq, *ts), gradtrack.einsum(eq, *gs)
    assert tuple(gy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = rng.randn(*ty.shape)
    (ty * torch.tensor(w)).sum().backward()
    (gy * gradtrack.tensor(w)).sum().backward()
    for t, g in zip(ts, gs):
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


# Equations whose last node in gradtrack used to differ from torch's (a product
# or diagonal where torch ends with its view / permute / sum).
EINSUM_NODES = ["bii,bj->bj", "iji,j->j", "bii,bjj->b", "ii->i", "ij->ij", "i", "ijk->kj",
                "ijk->k", "ii,jj->ij", "ij,kl->ijkl", "i,j->ji", "ij,ik->", "bii,bj",
                "ij,jk,kl->il", "ij,ij->ij", "ii,i->i"]


@pytest.mark.parametrize("eq", EINSUM_NODES)
def test_einsum_last_node_and_gradients_match_torch(torch, eq):
    size = {"b": 2, "i": 3, "j": 4, "k": 5, "l": 2}
    rng = np.random.RandomState(1)
    arrays = [rng.randn(*[size[c] for c in t]) for t in eq.split("->")[0].split(",")]
    results = []
    for lib in (torch, gradtrack):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = lib.einsum(eq, *ts)
        w = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
        grads = lib.autograd.grad((y * w).sum(), ts)
        results.append((type(y.grad_fn).__name__, y.detach().numpy(), [g.numpy() for g in grads]))
    (t_name, t_y, t_g), (g_name, g_y, g_g) = results
    assert g_name == t_name
    np.testing.assert_allclose(g_y, t_y, rtol=1e-10, atol=1e-12)
    for a, b in zip(g_g, t_g):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_einsum_ellipsis_errors_match_torch(torch):
    for eq, shapes in (("...ij->...", [(3,)]), ("ij,jk", [(2, 3)])):
        def run(L, eq=eq, shapes=shapes):
            return L.einsum(eq, *[L.ones(s) for s in shapes])
        assert _outcome(gradtrack, run) == _outcome(torch, run)


# ---- svd and matrix norms --------------------------------------------------------------------

SHAPES = [(3, 3), (4, 2), (2, 5), (2, 3, 4), (3, 1)]


@pytest.mark.parametrize("shape", SHAPES)
def test_svd_reconstructs_and_matches_torch_singular_values(torch, shape):
    a = np.random.RandomState(0).randn(*shape)
    u, s, vh = gradtrack.linalg.svd(gradtrack.tensor(a), full_matrices=False)
    np.testing.assert_allclose((u.numpy() * s.numpy()[..., None, :]) @ vh.numpy(), a, atol=1e-12)
    k = min(shape[-2:])
    np.testing.assert_allclose(np.swapaxes(u.numpy(), -1, -2) @ u.numpy(),
                               np.broadcast_to(np.eye(k), u.shape[:-2] + (k, k)), atol=1e-12)
    ts = torch.linalg.svdvals(torch.tensor(a))
    np.testing.assert_allclose(s.numpy(), ts.numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gradtrack.linalg.svdvals(gradtrack.tensor(a, dtype=gradtrack.float32)
                                                        ).numpy(), ts.numpy(), rtol=1e-5)


def test_svd_of_rank_deficient_matrix_keeps_u_orthonormal():
    u, s, vh = gradtrack.linalg.svd(gradtrack.ones(3, 3, dtype=gradtrack.float64))
    np.testing.assert_allclose(s.numpy(), [3, 0, 0], atol=1e-12)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(3), atol=1e-12)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ vh.numpy(), np.ones((3, 3)), atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_svd_gradients_of_sign_invariant_functions_match_torch(torch, shape):
    """U and Vh are unique up to signs of their columns/rows, so the loss
    uses only S, U**2 and Vh**2 (distinct singular values)."""
    rng = np.random.RandomState(1)
    a = rng.randn(*shape)
    grads, names = [], []
    for lib in (torch, gradtrack):
        x = lib.tensor(a, requires_grad=True)
        u, s, vh = lib.linalg.svd(x, full_matrices=False)
        wu = lib.tensor(np.random.RandomState(2).randn(*u.shape))
        wv = lib.tensor(np.random.RandomState(3).randn(*vh.shape))
        loss = (s * s).sum() + (u * u * wu).sum() + (vh * vh * wv).sum()
        loss.backward()
        grads.append(x.grad.numpy())
        names.append(name(s.grad_fn))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-7, atol=1e-9)
    assert names[1] == names[0]


@pytest.mark.parametrize("ord", ["nuc", 2, -2, "fro", 1, -1, float("inf"), -float("inf")])
@pytest.mark.parametrize("shape,dim", [((3, 4), (-2, -1)), ((2, 3, 4), (0, 2)),
                                       ((2, 3, 4), (2, 1))])
def test_matrix_norm_matches_torch(torch, ord, shape, dim):
    a = np.random.RandomState(0).randn(*shape)
    for keepdim in (False, True):
        t = torch.tensor(a, requires_grad=True)
        g = gradtrack.tensor(a, requires_grad=True)
        ty = torch.linalg.matrix_norm(t, ord=ord, dim=dim, keepdim=keepdim)
        gy = gradtrack.linalg.matrix_norm(g, ord=ord, dim=dim, keepdim=keepdim)
        np.testing.assert_allclose(gy.detach().numpy(), ty.detach().numpy(), rtol=1e-10)
        if ord not in (-1, -2, -float("inf")):  # gradtrack has no AminBackward0 node yet
            assert name(gy.grad_fn) == name(ty.grad_fn)
            assert [n for n, _ in nexts(gy.grad_fn)] == [n for n, _ in nexts(ty.grad_fn)]
        w = np.random.RandomState(4).randn(*ty.shape)
        (ty * torch.tensor(w)).sum().backward()
        (gy * gradtrack.tensor(w)).sum().backward()
        np.testing.assert_allclose(g.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_norm_gradcheck_for_spectral_and_nuclear_norms():
    x = gradtrack.randn(3, 4, dtype=gradtrack.float64, requires_grad=True)
    for ord in ("nuc", 2, -2):
        assert gradtrack.autograd.gradcheck(lambda a, o=ord: gradtrack.linalg.norm(a, ord=o), (x,))


NORM_ERRORS = {
    "svd_1d": lambda L: L.linalg.svd(L.ones(3)),
    "svd_long": lambda L: L.linalg.svd(L.ones(3, 3).long()),
    "svdvals_1d": lambda L: L.linalg.svdvals(L.ones(3)),
    "mn_1d": lambda L: L.linalg.matrix_norm(L.ones(3), ord=2),
    "mn_order": lambda L: L.linalg.matrix_norm(L.ones(3, 3), ord=3),
    "mn_order_str": lambda L: L.linalg.matrix_norm(L.ones(3, 3), ord="foo"),
    "mn_same_dims": lambda L: L.linalg.matrix_norm(L.ones(3, 3), ord=2, dim=(0, 0)),
    "mn_long": lambda L: L.linalg.matrix_norm(L.ones(3, 3).long(), ord="nuc"),
    "norm_nuc_int_dim": lambda L: L.linalg.norm(L.ones(3, 3), ord="nuc", dim=0),
    "norm_3d": lambda L: L.linalg.norm(L.ones(3, 3, 3), ord=2),
    "norm_1d_nuc": lambda L: L.linalg.norm(L.ones(3), ord="nuc"),
    "norm_2": lambda L: L.linalg.norm(L.tensor([[3., 0.], [0., -2.]]), ord=2),
    "norm_vec": lambda L: L.linalg.norm(L.tensor([3., 4.]), ord=1),
}


@pytest.mark.parametrize("case", sorted(NORM_ERRORS))
def test_svd_and_norm_checks_match_torch(torch, case):
    assert _outcome(gradtrack, NORM_ERRORS[case]) == _outcome(torch, NORM_ERRORS[case])


def test_svd_result_is_named_as_torch(torch):
    r = gradtrack.linalg.svd(gradtrack.eye(2))
    assert repr(r) == repr(torch.linalg.svd(torch.eye(2))).replace("torch", "gradtrack")
    assert r.U is r[0] and r.S is r[1] and r.Vh is r[2]
