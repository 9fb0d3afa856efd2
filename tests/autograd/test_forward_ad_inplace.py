"""Forward-mode AD through in-place ops on dual tensors: the tangent is updated in place
(the same tensor, its ``_version`` as torch's), on views and on plain tensors a dual is
written into, and an output's in-place op leaves its inputs' tangents alone; compared
with torch 2.13. Writes into gapped views: test_forward_ad_gapped_views.py.
"""

import numpy as np
import pytest

import gradtrack

from forward_ad_checks import np_of


def _f(lib):
    return lib.nn.functional


INPLACE = {
    "mul_number": lambda lib, d, e: d.mul_(2),
    "mul_dual": lambda lib, d, e: d.mul_(e),
    "add_alpha": lambda lib, d, e: d.add_(e, alpha=3),
    "div_": lambda lib, d, e: d.div_(e.abs() + 1),
    "exp_": lambda lib, d, e: d.exp_(),
    "sin_then_pow": lambda lib, d, e: d.sin_().pow_(2),
    "clamp_": lambda lib, d, e: d.clamp_(-0.5, 0.5),
    "clamp_tensor_": lambda lib, d, e: d.clamp_(min=e),
    "copy_": lambda lib, d, e: d.copy_(e),
    "fill_": lambda lib, d, e: d.fill_(2.0),
    "zero_": lambda lib, d, e: d.zero_(),
    "normal_": lambda lib, d, e: d.normal_(),
    "masked_fill_": lambda lib, d, e: d.masked_fill_(d > 0, 1.0),
    "index_put_": lambda lib, d, e: d.index_put_((lib.tensor([0, 2]),), e[:2], accumulate=True),
    "setitem": lambda lib, d, e: d.__setitem__(1, e[0]) or d,
    "scatter_add_": lambda lib, d, e: d.scatter_add_(0, lib.tensor([[1, 0, 2, 0]]), e[:1]),
    "tril_": lambda lib, d, e: d.tril_(),
    "relu_": lambda lib, d, e: d.relu_(),
    "leaky_relu_": lambda lib, d, e: _f(lib).leaky_relu_(d, 0.2),
    "elu_inplace": lambda lib, d, e: _f(lib).elu(d, inplace=True),
    "view_mul_": lambda lib, d, e: (d[1:].mul_(e[:2]), d)[1],
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_updates_tangent_in_place(torch, name):
    def run(lib):
        fw = lib.autograd.forward_ad
        x, y = lib.tensor(_X), lib.tensor(_Y)
        tx, ty = lib.tensor(_TX), lib.tensor(_TY)
        with fw.dual_level():
            d = fw.make_dual(x.clone(), tx)
            e = fw.make_dual(y.clone(), ty)
            v_tangent = tx._version
            out = INPLACE[name](lib, d, e)
            tan = fw.unpack_dual(d).tangent
            rand = name == "normal_"
            return (out is d, d._version, np_of(None if rand else d), np_of(tan),
                    tan is tx, tx._version - v_tangent)

    ours, theirs = run(gradtrack), run(torch)
    assert ours[:2] == theirs[:2] and ours[4:] == theirs[4:]
    for a, b in zip(ours[2:4], theirs[2:4]):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


_X = np.array([[0.5, -1.2, 2.0, 0.1], [0.3, 1.5, -0.7, -0.2], [1.1, -0.4, 0.8, 0.9]])
_Y = np.array([[1.5, 0.4, -2.0, 0.3], [0.9, -0.6, 1.1, 0.2], [-0.3, 0.7, 0.2, -1.0]])
_TX = np.array([[1.0, 0.5, -1.0, 0.2], [2.0, 0.0, 0.3, -0.1], [0.4, 0.6, -0.8, 1.2]])
_TY = np.array([[-0.4, 1.0, 0.2, 0.5], [0.5, 1.5, -1.0, 0.3], [0.7, -0.2, 0.1, 0.9]])


def test_inplace_on_views_and_plain_tensors(torch):
    def run(lib):
        fw = lib.autograd.forward_ad
        out = []
        with fw.dual_level():
            x = fw.make_dual(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 1.0, 2.0]))
            x = x.exp()
            base = lib.zeros(2, 3)
            base[0].add_(x)  # a view of a base without a tangent
            out += [np_of(fw.unpack_dual(base).tangent), base._version]
            c = lib.zeros(3)
            c.copy_(x)
            out.append(np_of(fw.unpack_dual(c).tangent))
            v = x[1:]
            v.mul_(3)  # the base's tangent sees it
            out += [np_of(fw.unpack_dual(x).tangent), x._version]
            z = lib.ones(3, dtype=lib.float64)
            z.add_(x)
            t = fw.unpack_dual(z).tangent
            out += [np_of(t), str(t.dtype).split(".")[-1]]
            w = lib.ones(3)
            w.index_put_((lib.tensor([0, 0, 2]),), x, accumulate=True)
            out.append(np_of(fw.unpack_dual(w).tangent))
        return out

    ours, theirs = run(gradtrack), run(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(b, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        else:
            assert a == b


def test_inplace_on_an_output_leaves_the_inputs_tangent_alone(torch):
    # x + c hands back x's tangent from the formula; the output must own a
    # copy, or y.mul_(2) would double x's tangent too. Ops returning x itself
    # (contiguous, reshape, to, float) do share it, as in torch.
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 1.0]))
            c = lib.tensor([3.0, 4.0])
            outs = [x + c, x - c, c + x, x.add(c, alpha=2), x.contiguous(), x.reshape(2),
                    x.to(x.dtype), x.float(), lib.where(x > 5, c, x), x.clamp(min=-10), x.relu()]
            for y in outs:
                y.mul_(2)
            return np_of(fw.unpack_dual(x).tangent).tolist(), [
                np_of(fw.unpack_dual(y).tangent).tolist() for y in outs]

    assert run(gradtrack) == run(torch)


# A dual written into one view of a plain tensor gives the base a tangent; every other
# view of that base, made before the write or after, reads the same view of it (it read
# None here, so a jvp through them was silently 0).
SIBLING_VIEWS = {
    "slice_of_slice": lambda lib, base, s: (base[1:], base[1:][:2].copy_(s)),
    "as_strided_chain": lambda lib, base, s: (
        w := base.as_strided((2, 3), (3, 1), 0).as_strided((6,), (1,), 0),
        w.as_strided((2,), (1,), 1).copy_(s)),
    "view_then_slice": lambda lib, base, s: (base.view(2, 3), base.view(6)[1:3].copy_(s)),
    "made_after": lambda lib, base, s: (base[1:3].copy_(s), base.view(3, 2)[0]),
}


@pytest.mark.parametrize("name", sorted(SIBLING_VIEWS))
def test_views_of_a_base_share_its_tangent(torch, name):
    def run(lib):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            s = fw.make_dual(lib.ones(2), lib.tensor([5.0, 7.0]))
            base = lib.arange(6.0).clone()
            views = SIBLING_VIEWS[name](lib, base, s)
            return [np_of(fw.unpack_dual(t).tangent) for t in (base, *views)]

    ours, theirs = run(gradtrack), run(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_array_equal(a, b)
