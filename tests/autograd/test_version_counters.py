"""Version counters (``_version``), compared with torch 2.13: every in-place op bumps by
exactly one (no-op values too, a failed op not), what does not bump (requires_grad_,
detach_, .grad and .data assignment, NumPy writes), which tensors share a counter
(detach, views, the base) and which do not (.data, copies), and the manual SGD idioms.

Two kinds of tests:
* ``lib``-parametrized tests assert the literal text measured in
  PyTorch 2.13, once with gradtrack and once with torch (the torch run
  checks the reference; it is skipped without torch, the gradtrack run is not);
* ``same(scenario)`` tests run one scenario written against ``lib`` with both
  libraries and compare the outcomes (``torch`` spelled ``gradtrack``).
"""

import pytest

from helpers import raises, same


# torch's message for an in-place op on a leaf that requires grad (test_inplace_rules.py).
LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."


# ============================================================================================
# §4 version counters
# ============================================================================================

def _version_steps(L):
    """Each entry: (label, in-place step). Applied cumulatively to one tensor."""
    def setitem(index, value):
        return lambda x: x.__setitem__(index, value)

    def iop(op):
        def run(x):
            y = x
            if op == "+":
                y += 1
            elif op == "-":
                y -= 1
            elif op == "*":
                y *= 2
            else:
                y /= 2
            assert y is x
        return run

    return [
        ("add_", lambda x: x.add_(1)), ("mul_", lambda x: x.mul_(2)),
        ("fill_", lambda x: x.fill_(3)), ("zero_", lambda x: x.zero_()),
        ("copy_", lambda x: x.copy_(L.ones(4))), ("x[0]=1", setitem(0, 1.0)),
        ("x[0:2]=5", setitem(slice(0, 2), 5.0)),
        ("x[[0,1]]=2", setitem(L.tensor([0, 1]), 2.0)),
        ("x[mask]=0", setitem(L.tensor([True, False, True, False]), 0.0)),
        ("+=", iop("+")), ("-=", iop("-")), ("*=", iop("*")), ("/=", iop("/")),
        ("clamp_", lambda x: x.clamp_(0, 1)), ("sin_", lambda x: x.sin_()),
        ("normal_", lambda x: x.normal_()), ("uniform_", lambda x: x.uniform_()),
        ("masked_fill_", lambda x: x.masked_fill_(L.tensor([True, False, False, False]), 1.0)),
        ("index_put_", lambda x: x.index_put_((L.tensor([1]),), L.tensor([3.0]))),
        ("exp_", lambda x: x.exp_()), ("sub_", lambda x: x.sub_(1)),
        ("div_", lambda x: x.div_(2)), ("pow_", lambda x: x.pow_(2)),
        ("unsqueeze_", lambda x: x.unsqueeze_(0)), ("squeeze_", lambda x: x.squeeze_()),
        ("t_", lambda x: x.t_()),
    ]


def test_every_inplace_op_bumps_version_by_exactly_one(lib):
    x = lib.zeros(4)
    got = []
    for label, step in _version_steps(lib):
        step(x)
        got.append((label, x._version))
    assert got == [(label, i + 1) for i, (label, _) in enumerate(_version_steps(lib))]
    assert x.shape == (4,)


def test_version_sequence_matches_torch():
    def scenario(L):
        x = L.zeros(4)
        out = [x._version]
        for _, step in _version_steps(L):
            step(x)
            out.append(x._version)
        x.requires_grad_()
        out.append(x._version)
        x.requires_grad_(False)
        x.detach_()
        out.append(x._version)
        return out

    same(scenario)


def test_noop_valued_inplace_ops_still_bump(lib):
    y = lib.tensor([1.0, 2.0])
    y.mul_(y)
    a = lib.ones(2)
    a.add_(0)
    m = lib.ones(2)
    m.mul_(1)
    e = lib.zeros(0)
    e.add_(1)
    assert (y._version, a._version, m._version, e._version) == (1, 1, 1, 1)


def test_requires_grad_and_detach_inplace_do_not_bump(lib):
    x = lib.ones(3)
    x.add_(1)
    x.requires_grad_()
    x.requires_grad_(False)
    x.detach_()
    assert x._version == 1


def test_failed_inplace_op_does_not_bump(lib):
    a = lib.zeros(3)
    raises(lib, RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]",
           lambda: a.add_(lib.ones(2, 3)))
    n = lib.zeros(3, dtype=lib.int64)
    raises(lib, RuntimeError, "result type Float can't be cast to the desired output type Long",
           lambda: n.add_(0.5))
    assert (a._version, n._version) == (0, 0)


def test_grad_and_data_assignment_do_not_bump(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.grad = lib.ones(2)
    x.grad.zero_()
    x.data = lib.zeros(2)
    assert x._version == 0
    assert x.grad._version == 1


def test_numpy_writes_do_not_bump(lib):
    n = lib.ones(3)
    a = n.numpy()
    a += 1
    assert (n.tolist(), n._version) == ([2.0, 2.0, 2.0], 0)
    f = lib.from_numpy(n.numpy())
    f.add_(1)
    assert (n.tolist(), n._version, f._version) == ([3.0, 3.0, 3.0], 0, 1)


def test_detach_shares_version_counter(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    d.add_(1)
    assert (x._version, d._version) == (1, 1)
    d2 = x.detach()
    assert d2._version == 1


def test_data_does_not_share_version_counter(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    dt = x.data
    dt.add_(1)
    assert (x._version, dt._version) == (0, 1)
    assert x.data is not x.data


def test_fresh_data_version_after_bumps():
    def scenario(L):
        x = L.ones(2)
        x.add_(1)
        x.add_(1)
        return x._version, x.data._version

    same(scenario)


VIEW_MAKERS = {
    "view": lambda b: b.view(6), "slice": lambda b: b[0:1], "select": lambda b: b[1],
    "t": lambda b: b.t(), "expand": lambda b: b[0:1].expand(4, 3),
    "reshape_view": lambda b: b.reshape(3, 2), "unsqueeze": lambda b: b.unsqueeze(0),
    "view_as": lambda b: b.view_as(b), "as_strided": lambda b: b.as_strided((2,), (1,)),
    "transpose": lambda b: b.transpose(0, 1), "permute": lambda b: b.permute(1, 0),
    "narrow": lambda b: b.narrow(1, 0, 2), "squeeze": lambda b: b.unsqueeze(0).squeeze(0),
    "flatten": lambda b: b.flatten(), "detach_of_view": lambda b: b[0].detach(),
}


@pytest.mark.parametrize("kind", list(VIEW_MAKERS))
def test_views_share_the_base_version_counter(lib, kind):
    base = lib.zeros(2, 3)
    v = VIEW_MAKERS[kind](base)
    base.add_(1)
    assert v._version == 1
    if kind != "expand":
        v.add_(1)  # writing through the view bumps the base
        assert (base._version, v._version) == (2, 2)


def test_one_counter_for_base_and_all_views(lib):
    base = lib.zeros(4)
    a, b = base[0:2], base[2:]
    a.mul_(2)
    assert (base._version, a._version, b._version) == (1, 1, 1)


COPY_MAKERS = {
    "clone": lambda b: b.clone(), "reshape_copy": lambda b: b.t().reshape(6),
    "contiguous_copy": lambda b: b.t().contiguous(), "double": lambda b: b.double(),
    "arith": lambda b: b + 0,
}


@pytest.mark.parametrize("kind", list(COPY_MAKERS))
def test_copies_have_independent_counters(lib, kind):
    base = lib.zeros(2, 3)
    c = COPY_MAKERS[kind](base)
    base.add_(1)
    assert c._version == 0
    c.add_(1)
    assert base._version == 1


def test_data_setter_keeps_own_counter(lib):
    x = lib.ones(3)
    y = lib.zeros(3)
    x.add_(1)
    x.data = y
    y.add_(5)
    assert (x.tolist(), x._version, y._version) == ([5.0, 5.0, 5.0], 1, 1)
    x.add_(1)
    assert (x._version, y._version, y.tolist()) == (2, 1, [6.0, 6.0, 6.0])


def test_modes_do_not_stop_bumping(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        x.add_(1)
    t = lib.ones(2)
    with lib.inference_mode():
        t.add_(1)
    assert (x._version, t._version) == (1, 1)


def test_manual_sgd_idioms(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    w.grad = lib.tensor([2.0, 4.0])
    w.detach().sub_(w.grad, alpha=0.1)
    assert repr(w) == "tensor([0.8000, 1.6000], requires_grad=True)"
    assert (w._version, w.is_leaf) == (1, True)
    with lib.no_grad():
        w -= 0.1 * w.grad
    assert (w._version, w.is_leaf) == (2, True)
    w.data.sub_(w.grad, alpha=0.1)
    assert w._version == 2
    raises(lib, RuntimeError, LEAF_ERROR, lambda: w.sub_(w.grad, alpha=0.1))
    w2 = w - 0.1 * w.grad
    assert (w2.is_leaf, type(w2.grad_fn).__name__) == (False, "SubBackward0")


def test_iadd_on_non_leaf_keeps_object_and_replaces_grad_fn(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    before = id(y)
    y += 1
    assert id(y) == before
    assert (type(y.grad_fn).__name__, y._version) == ("AddBackward0", 1)
