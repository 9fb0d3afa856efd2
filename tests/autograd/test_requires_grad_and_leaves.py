"""Autograd rules of requires_grad and of leaves, compared with torch 2.13.

§1 requires_grad rules (which dtypes, leaves and non-leaves, the method's and the
setter's texts, non-differentiable results); §2 leaves, .grad, retain_grad,
accumulation and the .grad setter. In-place rules: test_inplace_rules.py; version
counters: test_version_counters.py.

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


def test_create_graph_accumulation_gives_new_object():
    # (its once-per-process warning: test_create_graph_warning_text; which test of a
    # worker sees torch's first cannot be reset, so it is not compared here)
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x * x).sum().backward(create_graph=True)
            first = x.grad
            (x * x).sum().backward(create_graph=True)
        return first, x.grad, x.grad is first

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
