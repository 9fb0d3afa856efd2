"""Autograd rules of in-place ops, compared with torch 2.13.

§3 in-place on leaves that require grad and on their views (refused), under no_grad,
inference_mode and through .data (allowed); §13 in-place broadcasting (only the other
operand broadcasts), type promotion (the result must cast to self), writes into
overlapping memory and rebinding with ``+=``.

Two kinds of tests:
* ``lib``-parametrized tests assert the literal text measured in
  PyTorch 2.13, once with gradtrack and once with torch (the torch run
  checks the reference; it is skipped without torch, the gradtrack run is not);
* ``same(scenario)`` tests run one scenario written against ``lib`` with both
  libraries and compare the outcomes (``torch`` spelled ``gradtrack``).
"""

import warnings

import pytest

from helpers import raises, same


# ============================================================================================
# §3 in-place on leaves that require grad
# ============================================================================================

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_ERROR = ("a view of a leaf Variable that requires grad is being used in an in-place "
                   "operation.")


def _iadd(x):
    x += 1


def _setitem0(x):
    x[0] = 5


LEAF_OPS = {
    "add_": lambda x: x.add_(1), "mul_": lambda x: x.mul_(2), "zero_": lambda x: x.zero_(),
    "fill_": lambda x: x.fill_(1), "copy_": lambda x: x.copy_(x.detach() * 0 + 7),
    "iadd": _iadd, "sin_": lambda x: x.sin_(), "clamp_": lambda x: x.clamp_(0, 1),
    "t_1d": lambda x: x.t_(), "unsqueeze_": lambda x: x.unsqueeze_(0),
    "squeeze_": lambda x: x.squeeze_(), "sub_": lambda x: x.sub_(1), "div_": lambda x: x.div_(2),
    "pow_": lambda x: x.pow_(2), "exp_": lambda x: x.exp_(), "relu_": lambda x: x.relu_(),
    "sigmoid_": lambda x: x.sigmoid_(), "tanh_": lambda x: x.tanh_(),
    "normal_": lambda x: x.normal_(), "uniform_": lambda x: x.uniform_(),
    "masked_fill_": lambda x: x.masked_fill_(x.detach() > 1, 0.0),
    "index_put_": lambda x: x.index_put_((x.new_tensor([0]).long(),), x.new_tensor([9.0])),
}


@pytest.mark.parametrize("op", list(LEAF_OPS))
def test_inplace_on_leaf_requiring_grad_is_refused(lib, op):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    raises(lib, RuntimeError, LEAF_ERROR, lambda: LEAF_OPS[op](x))
    assert x.tolist() == [1.0, 2.0, 3.0]
    assert (x._version, x.shape, x.is_leaf, x.grad_fn) == (0, (3,), True, None)


VIEW_OPS = {
    "setitem": _setitem0,
    "select_add_": lambda x: x[0].add_(1),
    "view_add_": lambda x: x.view(3).add_(1),
    "slice_mul_": lambda x: x[:2].mul_(2),
    "t_view_fill_": lambda x: x.unsqueeze(0).t()[0].fill_(1),
    "slice_setitem": lambda x: x[1:].__setitem__(0, 3.0),
}


@pytest.mark.parametrize("op", list(VIEW_OPS))
def test_inplace_on_view_of_leaf_requiring_grad_is_refused(lib, op):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    raises(lib, RuntimeError, VIEW_LEAF_ERROR, lambda: VIEW_OPS[op](x))
    assert x.tolist() == [1.0, 2.0, 3.0] and x._version == 0


def test_inplace_on_leaf_under_no_grad_is_allowed(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.no_grad():
        r = x.add_(1)
    assert r is x
    assert repr(x) == "tensor([2., 3., 4.], requires_grad=True)"
    with lib.no_grad():
        x.add_(1)
        x[0] = 5.0
        x[1:].mul_(2)
    assert repr(x) == "tensor([ 5.,  8., 10.], requires_grad=True)"
    assert (x.is_leaf, x.grad_fn, x._version) == (True, None, 4)


def test_inplace_on_leaf_under_inference_mode_is_allowed(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with lib.inference_mode():
        x.add_(1)
    assert (x.tolist(), x.is_leaf, x.grad_fn, x.requires_grad) == ([2.0, 3.0, 4.0], True, None,
                                                                    True)


def test_inplace_through_data_is_allowed(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.data.add_(1)
    assert repr(x) == "tensor([2., 3., 4.], requires_grad=True)"
    assert (x.is_leaf, x._version) == (True, 0)


def test_inplace_on_leaf_not_requiring_grad_is_free(lib):
    t = lib.ones(3)
    t.add_(1)
    t[0] = 5
    t.mul_(lib.tensor([1.0, 2.0, 3.0]))
    assert (t.tolist(), t._version, t.is_leaf, t.requires_grad) == ([5.0, 4.0, 6.0], 3, True,
                                                                    False)


def test_inplace_with_grad_operand_turns_plain_leaf_into_non_leaf(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    buf = lib.zeros(3)
    r = buf.add_(w)
    assert r is buf
    assert (buf.requires_grad, buf.is_leaf, type(buf.grad_fn).__name__) == (True, False,
                                                                            "AddBackward0")
    (buf * buf).sum().backward()
    assert w.grad.tolist() == [2.0, 4.0, 6.0]


def test_inplace_returns_self(lib):
    t = lib.ones(2)
    assert t.add_(1) is t and t.sin_() is t and t.mul_(2) is t and t.zero_() is t


def test_no_grad_view_of_leaf_modified_in_grad_mode_reports_no_grad_view_first():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with L.no_grad():
            v = x[:2]
        v.mul_(2)

    same(scenario)


def test_refusal_checks_only_when_something_requires_grad():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = []
        for fn in (lambda: x.detach().add_(1), lambda: x.detach()[0].add_(1),
                   lambda: x.add_(x.detach())):
            try:
                fn()
                out.append(("ok", x._version))
            except RuntimeError as e:
                out.append((str(e), x._version))
        return out, x

    same(scenario)


# ============================================================================================
# §13 in-place broadcasting, type promotion, overlapping writes, rebinding
# ============================================================================================

def _iadd_b(a, b):
    a += b


BROADCAST_ERRORS = {
    "iadd": (lambda L: _iadd_b(L.zeros(3), L.ones(2, 3)), [3]),
    "add_": (lambda L: L.zeros(3).add_(L.ones(2, 3)), [3]),
    "mul_": (lambda L: L.zeros(3).mul_(L.ones(2, 3)), [3]),
    "copy_": (lambda L: L.zeros(3).copy_(L.ones(2, 3)), [3]),
    "ones13": (lambda L: L.ones(1, 3).add_(L.ones(2, 3)), [1, 3]),
}


@pytest.mark.parametrize("case", list(BROADCAST_ERRORS))
def test_inplace_cannot_broadcast_self(lib, case):
    fn, shape = BROADCAST_ERRORS[case]
    raises(lib, RuntimeError, f"output with shape {shape} doesn't match the broadcast shape [2, 3]",
           lambda: fn(lib))


def test_inplace_may_broadcast_other(lib):
    a = lib.zeros(2, 3)
    a.add_(lib.tensor([1.0, 2.0, 3.0]))
    a.copy_(lib.tensor([4.0, 5.0, 6.0]))
    assert (a.tolist(), a._version) == ([[4.0, 5.0, 6.0], [4.0, 5.0, 6.0]], 2)


CAST_ERRORS = {
    "long_add_float_tensor": lambda L: L.zeros(2, dtype=L.int64).add_(L.ones(2)),
    "long_add_half": lambda L: L.zeros(2, dtype=L.int64).add_(0.5),
    "long_mul_float": lambda L: L.zeros(2, dtype=L.int64).mul_(1.5),
    "long_iadd_float": lambda L: _iadd_b(L.zeros(2, dtype=L.int64), 0.5),
    "long_div_": lambda L: L.zeros(2, dtype=L.int64).div_(2),
    "long_sqrt_": lambda L: L.zeros(2, dtype=L.int64).sqrt_(),
    "long_exp_": lambda L: L.zeros(2, dtype=L.int64).exp_(),
}


@pytest.mark.parametrize("case", list(CAST_ERRORS))
def test_inplace_result_type_must_cast_to_self(lib, case):
    raises(lib, RuntimeError, "result type Float can't be cast to the desired output type Long",
           lambda: CAST_ERRORS[case](lib))


def test_bool_add_int_refused(lib):
    raises(lib, RuntimeError, "result type Long can't be cast to the desired output type Bool",
           lambda: lib.tensor([True, False]).add_(1))


def test_allowed_inplace_promotions(lib):
    i = lib.ones(2, dtype=lib.int32)
    i.add_(lib.ones(2, dtype=lib.int64))
    f = lib.ones(2)
    f.add_(lib.ones(2, dtype=lib.float64))
    f.add_(lib.ones(2, dtype=lib.int64))
    n = lib.tensor([5, 7])
    n.div_(2, rounding_mode="floor")
    assert (i.dtype, i.tolist()) == (lib.int32, [2, 2])
    assert (f.dtype, f.tolist()) == (lib.float32, [3.0, 3.0])
    assert (n.dtype, n.tolist()) == (lib.int64, [2, 3])


def test_copy_and_setitem_always_cast(lib):
    n = lib.zeros(2, dtype=lib.int64)
    n.copy_(lib.tensor([1.7, 2.2]))
    t = lib.zeros(2, dtype=lib.int64)
    t[0] = 2.7
    b = lib.zeros(2, dtype=lib.bool)
    b.copy_(lib.tensor([0.0, 3.0]))
    assert (n.tolist(), t.tolist(), b.tolist()) == ([1, 2], [2, 0], [False, True])


OVERLAP_ERROR = ("unsupported operation: more than one element of the written-to tensor refers "
                 "to a single memory location. Please clone() the tensor before performing the "
                 "operation.")


@pytest.mark.parametrize("op", ["add_", "copy_", "mul_"])
def test_inplace_into_expanded_tensor_refused(lib, op):
    e = lib.zeros(1, 3).expand(2, 3)
    fn = {"add_": lambda: e.add_(1), "copy_": lambda: e.copy_(lib.ones(2, 3)),
          "mul_": lambda: e.mul_(2)}[op]
    raises(lib, RuntimeError, OVERLAP_ERROR, fn)
    assert e._version == 0


def test_fill_on_expanded_tensor_allowed(lib):
    base = lib.zeros(1, 3)
    base.expand(2, 3).fill_(4)
    assert base.tolist() == [[4.0, 4.0, 4.0]]


def test_rebinding_makes_a_non_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    raises(lib, RuntimeError, LEAF_ERROR, lambda: _iadd_b(x, 1))
    x = x + 1
    assert (x.is_leaf, type(x.grad_fn).__name__) == (False, "AddBackward0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x.sum().backward()
        assert x.grad is None


def test_inplace_promotion_and_broadcast_outcomes_match_torch():
    def scenario(L):
        out = []
        cases = [
            lambda: L.ones(2, dtype=L.uint8).add_(L.ones(2, dtype=L.int64)),
            lambda: L.ones(2, dtype=L.int64).add_(True),
            lambda: L.ones(2, dtype=L.float64).mul_(L.ones(2)),
            lambda: L.ones(2, 1).add_(L.ones(2, 3)),
            lambda: L.ones(2, 3).add_(L.ones(2, 1)),
            lambda: L.ones(3).add_(L.ones(1)),
            lambda: L.ones(2, dtype=L.int32).mul_(2.5),
            lambda: L.ones(2, dtype=L.bool).mul_(L.ones(2, dtype=L.bool)),
            lambda: L.ones(2).masked_fill_(L.tensor([True, False]), 2.5),
            lambda: L.ones(2, dtype=L.int64).clamp_(0.5, 3),
        ]
        for make in cases:
            try:
                r = make()
                out.append((str(r.dtype), r.tolist(), r._version))
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(scenario)
