"""Autograd rules (leaves, requires_grad, in-place refusals, version counters), compared with
torch 2.13.

§1 requires_grad rules, §2 leaves / .grad / retain_grad / accumulation / the
.grad setter, §3 in-place on leaves and views of leaves, §4 version counters.

Two kinds of tests:
* ``lib``-parametrized tests assert the literal text measured in
  PyTorch 2.13, once with gradtrack and once with torch (the torch run
  checks the reference; it is skipped without torch, the gradtrack run is not);
* ``same(scenario)`` tests run one scenario written against ``lib`` with both
  libraries and compare the outcomes (``torch`` spelled ``gradtrack``).
"""

import warnings

import pytest

import gradtrack

from helpers import raises, same, TRIGGERED


# ============================================================================================
# §1 requires_grad rules
# ============================================================================================

FACTORY_ERROR = "Only Tensors of floating point and complex dtype can require gradients"
METHOD_ERROR = "only Tensors of floating point dtype can require gradients"
SETTER_ERROR = "only Tensors of floating point and complex dtype can require gradients"
FLAGS_ERROR = "you can only change requires_grad flags of leaf variables."
FLAGS_HINT = (" If you want to use a computed variable in a subgraph that doesn't require "
              "differentiation use var_no_grad = var.detach().")

INT_FACTORIES = {
    "tensor": lambda L: L.tensor([1, 2, 3], requires_grad=True),
    "zeros": lambda L: L.zeros(3, dtype=L.int64, requires_grad=True),
    "ones": lambda L: L.ones(3, dtype=L.int32, requires_grad=True),
    "arange": lambda L: L.arange(3, requires_grad=True),
    "empty": lambda L: L.empty(3, dtype=L.int64, requires_grad=True),
    "full": lambda L: L.full((3,), 1, dtype=L.int64, requires_grad=True),
    "randint": lambda L: L.randint(0, 3, (3,), requires_grad=True),
    "tensor_bool": lambda L: L.tensor([True], requires_grad=True),
    "tensor_uint8": lambda L: L.tensor([1], dtype=L.uint8, requires_grad=True),
}


@pytest.mark.parametrize("factory", list(INT_FACTORIES), ids=list(INT_FACTORIES))
def test_factory_refuses_requires_grad_for_integer_dtype(lib, factory):
    raises(lib, RuntimeError, FACTORY_ERROR, lambda: INT_FACTORIES[factory](lib))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_requires_grad_method_refuses_non_float_with_method_text(lib, dtype):
    t = lib.zeros(2, dtype=getattr(lib, dtype))
    raises(lib, RuntimeError, METHOD_ERROR, lambda: t.requires_grad_())
    raises(lib, RuntimeError, METHOD_ERROR, lambda: t.requires_grad_(True))
    assert t.requires_grad is False


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_requires_grad_setter_refuses_non_float_with_setter_text(lib, dtype):
    t = lib.zeros(2, dtype=getattr(lib, dtype))

    def assign():
        t.requires_grad = True

    raises(lib, RuntimeError, SETTER_ERROR, assign)
    assert t.requires_grad is False


def test_requires_grad_false_on_integer_tensor_is_fine(lib):
    t = lib.tensor([1])
    assert t.requires_grad_(False) is t
    t.requires_grad = False
    assert t.requires_grad is False


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floating_dtypes_may_require_grad(lib, dtype):
    a = lib.tensor([1.0, 2.0], dtype=getattr(lib, dtype), requires_grad=True)
    b = lib.zeros(2, dtype=getattr(lib, dtype)).requires_grad_()
    c = lib.zeros(2, dtype=getattr(lib, dtype))
    c.requires_grad = True
    assert (a.requires_grad, b.requires_grad, c.requires_grad) == (True, True, True)
    assert a.is_leaf and b.is_leaf and c.is_leaf


def test_non_leaf_requires_grad_true_is_silent_noop(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert y.requires_grad_() is y
    assert y.requires_grad_(True) is y
    assert repr(y) == "tensor([2., 4.], grad_fn=<MulBackward0>)"


def test_non_leaf_requires_grad_false_method_has_hint(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    raises(lib, RuntimeError, FLAGS_ERROR + FLAGS_HINT, lambda: y.requires_grad_(False))


def test_non_leaf_requires_grad_setter_false_has_hint(lib):
    y = lib.tensor([1.0, 2.0], requires_grad=True) * 2

    def assign():
        y.requires_grad = False

    raises(lib, RuntimeError, FLAGS_ERROR + FLAGS_HINT, assign)


def test_non_leaf_requires_grad_setter_true_refused_without_hint(lib):
    y = lib.tensor([1.0, 2.0], requires_grad=True) * 2

    def assign():
        y.requires_grad = True

    raises(lib, RuntimeError, FLAGS_ERROR, assign)
    assert y.requires_grad and not y.is_leaf


def test_leaf_requires_grad_can_be_switched_both_ways(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.requires_grad_(False)
    assert (x.requires_grad, x.is_leaf, x.grad_fn) == (False, True, None)
    x.requires_grad = True
    assert (x.requires_grad, x.is_leaf) == (True, True)
    x.requires_grad = False
    assert x.requires_grad is False


@pytest.mark.parametrize("op", ["long", "argmax", "gt", "eq", "int", "bool"])
def test_non_differentiable_results_have_no_grad_fn(op):
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        r = {"long": lambda: (x * 2).long(), "argmax": lambda: x.argmax(), "gt": lambda: x > 1,
             "eq": lambda: x == 2, "int": lambda: x.int(), "bool": lambda: x.bool()}[op]()
        return r.requires_grad, r.grad_fn, r.is_leaf, r

    same(scenario)


def test_non_differentiable_results_literal():
    x = gradtrack.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for r in ((x * 2).long(), x.argmax(), x > 1):
        assert (r.requires_grad, r.grad_fn, r.is_leaf) == (False, None, True)


# ============================================================================================
# §2 leaves, .grad, retain_grad, accumulation
# ============================================================================================

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information.")


def test_which_tensors_are_leaves(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        n = x * 2
    cases = {
        "plain": lib.ones(2), "user_rg": x, "no_grad_result": n, "detach": (x * 2).detach(),
        "data": (x * 2).data, "computed": x * 2, "sum": x.sum(),
    }
    got = {k: (t.is_leaf, t.requires_grad, t.grad_fn is None) for k, t in cases.items()}
    assert got == {
        "plain": (True, False, True), "user_rg": (True, True, True),
        "no_grad_result": (True, False, True), "detach": (True, False, True),
        "data": (True, False, True), "computed": (False, True, False),
        "sum": (False, True, False),
    }


def test_clone_and_double_are_non_leaves_float_is_same_object(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    assert type(x.clone().grad_fn).__name__ == "CloneBackward0"
    assert type(x.double().grad_fn).__name__ == "ToCopyBackward0"
    assert type(x.to(lib.float64).grad_fn).__name__ == "ToCopyBackward0"
    f = x.float()
    assert f is x and f.is_leaf


def test_backward_fills_grad_of_leaves_only():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        (y * y).sum().backward()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return x.grad, y.grad

    same(scenario)


def test_non_leaf_grad_read_warns_with_exact_text(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert y.grad is None
    assert [c.category for c in caught] == [UserWarning]
    assert TRIGGERED.sub("", str(caught[0].message)) == NON_LEAF_GRAD_WARNING
    assert caught[0].filename == __file__  # attributed to the line that read .grad


def test_non_leaf_grad_warning_once_per_line_under_default_filter(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            y.grad
        y.grad
    assert len(caught) == 2


def test_no_warning_for_leaf_retained_or_assigned_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = x * 3
    z.grad = lib.ones(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.grad is None
        assert y.grad is None
        assert z.grad.tolist() == [1.0, 1.0]
        assert lib.ones(2).grad is None
    assert caught == []


def test_retain_grad_values(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad is True
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 8.0, 12.0]
    assert x.grad.tolist() == [8.0, 16.0, 24.0]


def test_retain_grad_on_leaf_is_noop_and_on_plain_tensor_errors(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.retain_grad()
    assert x.retains_grad is False
    raises(lib, RuntimeError, "can't retain_grad on Tensor that has requires_grad=False",
           lambda: lib.ones(2).retain_grad())


def test_gradients_accumulate_in_the_same_object(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    seen = []
    first = None
    for _ in range(3):
        (x * x).sum().backward()
        seen.append(x.grad.tolist())
        first = first if first is not None else x.grad
    assert seen == [[2.0, 4.0, 6.0], [4.0, 8.0, 12.0], [6.0, 12.0, 18.0]]
    assert x.grad is first


def test_backward_adds_into_hand_set_grad_object(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    g = lib.zeros(3)
    x.grad = g
    (x * x).sum().backward()
    assert x.grad is g
    assert g.tolist() == [2.0, 4.0, 6.0]


def test_backward_does_not_bump_leaf_version_but_bumps_grad_version():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        v1 = (x._version, x.grad._version)
        (x * x).sum().backward()
        return v1, (x._version, x.grad._version)

    same(scenario)


def test_create_graph_accumulation_gives_new_object_and_warns():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (x * x).sum().backward(create_graph=True)
            first = x.grad
            (x * x).sum().backward(create_graph=True)
        return (first, x.grad, x.grad is first,
                [(c.category.__name__, str(c.message)) for c in caught])

    same(scenario)


def test_create_graph_warning_text():
    # PyTorch warns once per process (TORCH_WARN_ONCE); reset gradtrack's flag
    # so this test does not depend on which test ran first.
    gradtrack.autograd._warned_create_graph = False
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (x * x).sum().backward(create_graph=True)
        (x * x).sum().backward(create_graph=True)
    assert [str(c.message) for c in caught] == [
        "Using backward() with create_graph=True will create a reference cycle between the "
        "parameter and its gradient which can cause a memory leak. We recommend using "
        "autograd.grad when creating the graph to avoid this. If you have to use this function, "
        "make sure to reset the .grad fields of your parameters to None after use to break the "
        "cycle and avoid the leak."]


GRAD_DTYPE_TAIL = (
    "' to a tensor with grad_dtype 'Float'. The gradient must match the tensor's grad_dtype "
    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a "
    "specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
    "dtypes of a tensor and its gradient may break downstream systems that assume they match.")

GRAD_SETTER_CASES = {
    "size2": (lambda L: L.zeros(2), RuntimeError,
              "attempting to assign a gradient of size '[2]' to a tensor of size '[3]'. Please "
              "ensure that the gradient and the tensor are the same size"),
    "size0d": (lambda L: L.tensor(1.0), RuntimeError,
               "attempting to assign a gradient of size '[]' to a tensor of size '[3]'. Please "
               "ensure that the gradient and the tensor are the same size"),
    "double": (lambda L: L.zeros(3, dtype=L.float64), RuntimeError,
               "attempting to assign a gradient with dtype 'double" + GRAD_DTYPE_TAIL),
    "long": (lambda L: L.zeros(3, dtype=L.int64), RuntimeError,
             "attempting to assign a gradient with dtype 'long int" + GRAD_DTYPE_TAIL),
    "list": (lambda L: [1, 2, 3], TypeError,
             "assigned grad expected to be a Tensor or None but got grad of type list"),
}


@pytest.mark.parametrize("case", list(GRAD_SETTER_CASES))
def test_grad_setter_checks(lib, case):
    make, exc, text = GRAD_SETTER_CASES[case]
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    value = make(lib)

    def assign():
        x.grad = value

    raises(lib, exc, text, assign)
    assert x.grad is None and x._version == 0


def test_grad_setter_refuses_self(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def assign():
        x.grad = x

    raises(lib, RuntimeError, "can't assign Variable as its own grad", assign)


def test_grad_setter_accepts_none_grad_requiring_tensor_and_del(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.grad = lib.ones(3, requires_grad=True)
    assert x.grad.requires_grad
    x.grad = None
    assert x.grad is None
    x.grad = lib.ones(3)
    del x.grad
    assert x.grad is None
    assert x._version == 0


def test_grad_setter_other_mismatches_match_torch():
    def scenario(L):
        out = []
        for make in (lambda: L.zeros(3, dtype=L.int32), lambda: L.zeros(3, dtype=L.bool),
                     lambda: L.zeros(3, dtype=L.uint8), lambda: L.zeros(1, 3),
                     lambda: L.zeros(3, dtype=L.float64).view(3, 1)):
            x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
            try:
                x.grad = make()
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(scenario)


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
