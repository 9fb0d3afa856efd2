"""``.data`` vs ``.detach()`` vs ``.detach_()`` and the ``x.data = t`` setter,
(.data versus .detach()), compared with torch 2.13.

``lib``-parametrized tests pin the measured behaviour (gradtrack always runs; the
torch run checks the reference and is skipped without torch). ``same(scenario)``
tests run one scenario with both libraries and compare outcomes.
"""

import pytest

from helpers import raises, same, spell


HINT = (" Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
DETACH_VIEW_ERROR = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")


# ============================================================================================
# .detach() and .data: both alias, only detach() shares the version counter
# ============================================================================================

def test_detach_and_data_attributes(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for t in (x.detach(), x.data):
        assert (t.requires_grad, t.is_leaf, t.grad_fn, t is x) == (False, True, None, False)
        assert t.data_ptr() == x.data_ptr()


def test_detach_and_data_of_non_leaf(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    for t in (y.detach(), y.data):
        assert (t.requires_grad, t.is_leaf, t.grad_fn, t.tolist()) == (False, True, None,
                                                                      [2.0, 4.0, 6.0])
        assert t.data_ptr() == y.data_ptr()


def test_version_counters_of_detach_and_data(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d, dt = x.detach(), x.data
    d.add_(1)
    assert (x._version, d._version, dt._version) == (1, 1, 0)
    dt.add_(1)
    assert (x._version, d._version, dt._version) == (1, 1, 1)
    assert repr(x) == "tensor([3., 4., 5.], requires_grad=True)"
    assert x.data is not x.data


def test_data_modification_gives_silently_wrong_grad(lib):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Y = X ** 2
    X.data *= 2
    Y.sum().backward()
    assert repr(X) == "tensor([2., 4., 6.], requires_grad=True)"
    assert X.grad.tolist() == [4.0, 8.0, 12.0]
    assert X._version == 0


def test_detach_modification_is_detected(lib):
    X = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    Y = X ** 2
    X.detach().mul_(2)
    raises(lib, RuntimeError,
           "one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead." + HINT,
           lambda: Y.sum().backward())


def test_no_grad_copy_into_saved_leaf_is_detected():
    def scenario(L):
        x = L.ones(3, requires_grad=True)
        y = x * x
        with L.no_grad():
            x.copy_(L.full((3,), 5.0))
        y.sum().backward()

    same(scenario)


def test_detach_view_tracking(lib):
    a = lib.ones(3, requires_grad=True)
    assert (a * 2)[0:2].detach()._is_view() is False
    assert (a * 2).detach()._is_view() is False
    dv = a.detach()[0:2]
    assert dv._is_view() is True
    assert (a * 2)[0:2].detach()._base is None


def test_detached_tensor_can_become_new_trainable_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    d = (x * 3).detach().requires_grad_()
    assert (d.requires_grad, d.is_leaf) == (True, True)
    (d * d).sum().backward()
    assert d.grad.tolist() == [6.0, 12.0] and x.grad is None


# ============================================================================================
# .detach_()
# ============================================================================================

def test_detach_inplace_makes_a_leaf(lib):
    a = lib.ones(3, requires_grad=True)
    b = a * 2
    assert (b.is_leaf, b.requires_grad) == (False, True)
    r = b.detach_()
    assert r is b
    assert (b.is_leaf, b.requires_grad, b.grad_fn, b._version) == (True, False, None, 0)
    assert repr(b) == "tensor([2., 2., 2.])"
    b.requires_grad_()
    assert (b.is_leaf, b.requires_grad) == (True, True)
    (b * b).sum().backward()
    assert b.grad.tolist() == [4.0, 4.0, 4.0] and a.grad is None


def test_detach_inplace_on_leaf_requiring_grad():
    def scenario(L):
        x = L.ones(2, requires_grad=True)
        x.detach_()
        return x.requires_grad, x.is_leaf, x.grad_fn, x._version

    same(scenario)


def _views(L):
    a = L.ones(3, requires_grad=True)
    with L.no_grad():
        nv = a[0:2]
    return {
        "slice_of_non_leaf": lambda: (a * 2)[0:2],
        "view_of_non_leaf": lambda: (a * 2).view(3),
        "view_of_plain": lambda: L.ones(3)[0:2],
        "view_made_in_no_grad": lambda: nv,
        "select_of_leaf": lambda: a[0],
        "t_of_plain": lambda: L.ones(2, 2).t(),
    }


@pytest.mark.parametrize("kind", ["slice_of_non_leaf", "view_of_non_leaf", "view_of_plain",
                                  "view_made_in_no_grad", "select_of_leaf", "t_of_plain"])
def test_detach_inplace_refused_on_any_view(lib, kind):
    v = _views(lib)[kind]()
    raises(lib, RuntimeError, DETACH_VIEW_ERROR, lambda: v.detach_())


def test_detach_inplace_on_view_inside_no_grad_also_refused(lib):
    a = lib.ones(3)
    with lib.no_grad():
        v = a[1:]
        raises(lib, RuntimeError, DETACH_VIEW_ERROR, lambda: v.detach_())


def test_detach_inplace_output_of_saved_output():
    def scenario(L):
        p = L.ones(3, requires_grad=True)
        q = p.exp()
        r = q * 2
        q.detach_()
        r.sum().backward()
        return p.grad, q.requires_grad, q.is_leaf

    same(scenario)


# ============================================================================================
# x.data = other (set_data)
# ============================================================================================

def test_data_setter_same_shape(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.data = lib.tensor([9.0, 8.0, 7.0])
    assert repr(x) == "tensor([9., 8., 7.], requires_grad=True)"
    assert (x._version, x.is_leaf) == (0, True)


def test_data_setter_shape_change(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.data = lib.zeros(2, 2)
    assert repr(x) == "tensor([[0., 0.],\n        [0., 0.]], requires_grad=True)"
    assert tuple(x.shape) == (2, 2)


def test_data_setter_float_dtype_change(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.data = lib.zeros(3, dtype=lib.float64)
    assert spell(repr(x), lib) == spell(
        "tensor([0., 0., 0.], dtype=torch.float64, requires_grad=True)", lib)
    assert x.dtype == lib.float64


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_data_setter_non_float_refused_when_requires_grad(lib, dtype):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def assign():
        x.data = lib.zeros(2, dtype=getattr(lib, dtype))

    raises(lib, RuntimeError,
           "data set to a tensor that requires gradients must be floating point or complex dtype",
           assign)
    assert x.tolist() == [1.0, 2.0, 3.0] and x.requires_grad


def test_data_setter_non_float_allowed_without_grad():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0])
        x.data = L.tensor([4, 5])
        return x, x._version

    same(scenario)


def test_data_setter_non_tensor_is_type_error(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def assign():
        x.data = [1, 2]

    raises(lib, TypeError, "Variable data has to be a tensor, but got list", assign)


def test_data_setter_on_non_leaf():
    def scenario(L):
        y = L.ones(3, requires_grad=True) * 2
        y.data = L.zeros(5)
        return y, y.is_leaf, y._version

    same(scenario)


def test_data_setter_hazard_saved_input_sees_new_values(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * x
    x.data = lib.full((3,), 5.0)
    y.sum().backward()
    assert x.grad.tolist() == [10.0, 10.0, 10.0]


def test_data_setter_shape_change_breaks_stale_grad_accumulation(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    x.data = lib.ones(2)
    raises(lib, RuntimeError,
           "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
           "dimension 0", lambda: (x * x).sum().backward())


def test_data_setter_shape_change_stale_grad_matches_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * x).sum().backward()
        x.data = L.ones(2)
        try:
            (x * x).sum().backward()
        except RuntimeError as e:
            return str(e), x.grad
        return "ok", x.grad

    same(scenario)


def test_data_setter_does_not_bump_or_share(lib):
    x = lib.ones(3, requires_grad=True)
    other = lib.zeros(3)
    other.add_(1)
    x.data = other
    assert (x._version, other._version) == (0, 1)
    other.add_(1)
    assert (x._version, x.tolist()) == (0, [2.0, 2.0, 2.0])
    with lib.no_grad():
        x.add_(1)
    assert (x._version, other._version, other.tolist()) == (1, 2, [3.0, 3.0, 3.0])


def test_data_getter_after_setter_aliases_new_storage(lib):
    x = lib.ones(3, requires_grad=True)
    other = lib.zeros(3)
    x.data = other
    assert x.data.data_ptr() == other.data_ptr()
    x.data.add_(4)
    assert other.tolist() == [4.0, 4.0, 4.0]


def test_data_of_view_and_view_of_data():
    def scenario(L):
        x = L.ones(2, 3, requires_grad=True)
        y = x * 1
        v = y[0]
        return (v.data._is_view(), y.data[0]._is_view(), v.data.requires_grad,
                v.detach()._is_view())

    same(scenario)
