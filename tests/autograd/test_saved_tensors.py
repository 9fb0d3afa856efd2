"""Saved tensors and the "modified by an inplace operation" error, compared with torch 2.13.

Whether an in-place write after the forward pass breaks backward depends on what
each derivative formula saved; the error text names the saved tensor's legacy type,
its sizes, the "which is output k of Op" clause and both version numbers.

``lib``-parametrized tests pin the measured text (gradtrack always runs; the torch
run checks the reference and is skipped without torch). ``same(scenario)`` tests
run one scenario with both libraries and compare outcomes.
"""

import numpy as np
import pytest

from helpers import raises, round4, same, spell


# ---- the message -----------------------------------------------------------------------------

HINT = (" Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


def modified(desc, now, expected):
    if ", which is output" in desc:
        desc += ","
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {desc} is at version {now}; expected version {expected} "
            "instead." + HINT)


# ============================================================================================
# Pass/fail patterns (x leaf, b = x*1)
# ============================================================================================

def _b(L):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return x, x * 1


def p_mul_self_then_add(L):
    x, b = _b(L)
    y = b * b
    b.add_(1)
    y.sum().backward()


def p_add_then_add(L):
    x, b = _b(L)
    y = b + 2
    b.add_(1)
    y.sum().backward()
    return x.grad


def p_sum_then_mul(L):
    x, b = _b(L)
    y = b.sum()
    b.mul_(5)
    y.backward()
    return x.grad


def p_relu_then_input_mul(L):
    x, b = _b(L)
    y = b.relu()
    b.mul_(5)
    y.sum().backward()
    return x.grad


def p_relu_output_mul(L):
    x, b = _b(L)
    c = b.relu()
    c.mul_(5)
    c.sum().backward()


def p_exp_then_input_mul(L):
    x, b = _b(L)
    y = b.exp()
    b.mul_(5)
    y.sum().backward()
    return x.grad


def p_mul_scalar_then_mul(L):
    x, b = _b(L)
    y = b * 2
    b.mul_(5)
    y.sum().backward()
    return x.grad


def p_const_operand_grad_side_modified(L):
    a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    plain = L.tensor([4.0, 5.0, 6.0])
    y = a * plain
    with L.no_grad():
        a.mul_(10)
    y.sum().backward()
    return a.grad


def p_const_operand_modified(L):
    a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    plain = L.tensor([4.0, 5.0, 6.0])
    y = a * plain
    plain.add_(1)
    y.sum().backward()


def p_leaf_saved_modified_no_grad(L):
    w = L.ones(3, requires_grad=True)
    y = (w * w).sum()
    with L.no_grad():
        w.add_(1)
    y.backward()


def p_leaf_saved_modified_data(L):
    w = L.ones(3, requires_grad=True)
    y = (w * w).sum()
    w.data.add_(1)
    y.backward()
    return w.grad


def p_add_input_modified_no_grad(L):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x + 1).sum()
    with L.no_grad():
        x.mul_(5)
    y.backward()
    return x.grad


def p_sigmoid_setitem(L):
    x = L.tensor([0.0, 1.0], requires_grad=True)
    s = x.sigmoid()
    s[0] = 0.0
    s.sum().backward()


def p_manual_sigmoid_setitem(L):
    x = L.tensor([0.0, 1.0], requires_grad=True)
    s = 1 / (1 + (-x).exp())
    s[0] = 0.0
    s.sum().backward()
    return x.grad


def p_sigmoid_then_relu_inplace(L):
    x = L.tensor([-1.0, 1.0], requires_grad=True)
    s = x.sigmoid()
    s.relu_()
    s.sum().backward()


def p_linear_then_relu_inplace(L):
    x = L.tensor([[1.0, -2.0]])
    w = L.tensor([[1.0, 0.5], [-1.0, 2.0]], requires_grad=True)
    b = L.tensor([0.1, -0.2], requires_grad=True)
    h = x @ w + b
    h.relu_()
    h.sum().backward()
    return w.grad, b.grad


PATTERNS = {
    "mul_self_then_add": (p_mul_self_then_add,
                          ("err", "[torch.FloatTensor [3]], which is output 0 of Add", 1, 0)),
    "add_then_add": (p_add_then_add, ("ok", [1.0, 1.0, 1.0])),
    "sum_then_mul": (p_sum_then_mul, ("ok", [1.0, 1.0, 1.0])),
    "relu_then_input_mul": (p_relu_then_input_mul, ("ok", [1.0, 1.0, 1.0])),
    "relu_output_mul": (p_relu_output_mul,
                        ("err", "[torch.FloatTensor [3]], which is output 0 of Relu", 1, 0)),
    "exp_then_input_mul": (p_exp_then_input_mul, ("ok", [2.7183, 7.3891, 20.0855])),
    "mul_scalar_then_mul": (p_mul_scalar_then_mul, ("ok", [2.0, 2.0, 2.0])),
    "const_operand_grad_side_modified": (p_const_operand_grad_side_modified,
                                         ("ok", [4.0, 5.0, 6.0])),
    "const_operand_modified": (p_const_operand_modified, ("err", "[torch.FloatTensor [3]]", 1, 0)),
    "leaf_saved_modified_no_grad": (p_leaf_saved_modified_no_grad,
                                    ("err", "[torch.FloatTensor [3]]", 1, 0)),
    "leaf_saved_modified_data": (p_leaf_saved_modified_data, ("ok", [4.0, 4.0, 4.0])),
    "add_input_modified_no_grad": (p_add_input_modified_no_grad, ("ok", [1.0, 1.0, 1.0])),
    "sigmoid_setitem": (p_sigmoid_setitem,
                        ("err", "[torch.FloatTensor [2]], which is output 0 of Sigmoid", 1, 0)),
    "manual_sigmoid_setitem": (p_manual_sigmoid_setitem, ("ok", [0.0, 0.1966])),
    "sigmoid_then_relu_inplace": (p_sigmoid_then_relu_inplace,
                                  ("err", "[torch.FloatTensor [2]], which is output 0 of Sigmoid",
                                   1, 0)),
    "linear_then_relu_inplace": (p_linear_then_relu_inplace,
                                 ("ok", ([[1.0, 0.0], [-2.0, 0.0]], [1.0, 0.0]))),
}


def _expected_outcome(lib, expected):
    if expected[0] == "ok":
        return expected[1]
    _, desc, now, then = expected
    return spell(modified(desc, now, then), lib)


@pytest.mark.parametrize("case", list(PATTERNS))
def test_inplace_after_use_pattern(lib, case):
    fn, expected = PATTERNS[case]
    if expected[0] == "err":
        raises(lib, RuntimeError, _expected_outcome(lib, expected), lambda: fn(lib))
    else:
        result = fn(lib)
        got = ([round4(r.tolist()) for r in result] if isinstance(result, tuple)
               else round4(result.tolist()))
        want = ([round4(e) for e in expected[1]] if isinstance(expected[1], tuple)
                else expected[1])
        assert got == (list(want) if isinstance(want, tuple) else want)


# ============================================================================================
# What each op saves: modify an input (non-leaf, or leaf under no_grad) or the output
# after the forward, then backward; the outcome must match torch.
# ============================================================================================

def _values(shape, offset):
    n = int(np.prod(shape)) if shape else 1
    vals = (0.5 + ((np.arange(n) + offset) % 7) / 10.0).reshape(shape)
    return vals.tolist()


OPS = {
    "mul": (lambda L, a, b: a * b, [(2, 3), (2, 3)]),
    "mul_broadcast": (lambda L, a, b: a * b, [(2, 3), (3,)]),
    "mul_scalar": (lambda L, a: a * 2, [(2, 3)]),
    "add": (lambda L, a, b: a + b, [(2, 3), (2, 3)]),
    "add_alpha": (lambda L, a, b: L.add(a, b, alpha=2), [(2, 3), (2, 3)]),
    "sub": (lambda L, a, b: a - b, [(2, 3), (2, 3)]),
    "rsub_scalar": (lambda L, a: 1 - a, [(2, 3)]),
    "div": (lambda L, a, b: a / b, [(2, 3), (2, 3)]),
    "div_scalar": (lambda L, a: a / 2, [(2, 3)]),
    "rdiv_scalar": (lambda L, a: 2 / a, [(2, 3)]),
    "pow_scalar": (lambda L, a: a ** 2, [(2, 3)]),
    "pow_half": (lambda L, a: a ** 0.5, [(2, 3)]),
    "square": (lambda L, a: a.square(), [(2, 3)]),
    "pow_tensor": (lambda L, a, b: a ** b, [(2, 3), (2, 3)]),
    "rpow": (lambda L, a: 2 ** a, [(2, 3)]),
    "exp": (lambda L, a: a.exp(), [(2, 3)]),
    "expm1": (lambda L, a: a.expm1(), [(2, 3)]),
    "log": (lambda L, a: a.log(), [(2, 3)]),
    "log1p": (lambda L, a: a.log1p(), [(2, 3)]),
    "sqrt": (lambda L, a: a.sqrt(), [(2, 3)]),
    "rsqrt": (lambda L, a: a.rsqrt(), [(2, 3)]),
    "reciprocal": (lambda L, a: a.reciprocal(), [(2, 3)]),
    "sigmoid": (lambda L, a: a.sigmoid(), [(2, 3)]),
    "tanh": (lambda L, a: a.tanh(), [(2, 3)]),
    "relu": (lambda L, a: a.relu(), [(2, 3)]),
    "sin": (lambda L, a: a.sin(), [(2, 3)]),
    "cos": (lambda L, a: a.cos(), [(2, 3)]),
    "abs": (lambda L, a: a.abs(), [(2, 3)]),
    "clamp": (lambda L, a: a.clamp(0.6, 1.0), [(2, 3)]),
    "clamp_min": (lambda L, a: a.clamp(min=0.7), [(2, 3)]),
    "neg": (lambda L, a: -a, [(2, 3)]),
    "t": (lambda L, a: a.t(), [(2, 3)]),
    "clone": (lambda L, a: a.clone(), [(2, 3)]),
    "view": (lambda L, a: a.view(6), [(2, 3)]),
    "select": (lambda L, a: a[0], [(2, 3)]),
    "slice": (lambda L, a: a[:, 1:], [(2, 3)]),
    "index": (lambda L, a: a[L.tensor([0, 0])], [(2, 3)]),
    "sum": (lambda L, a: a.sum(), [(2, 3)]),
    "sum_dim": (lambda L, a: a.sum(0), [(2, 3)]),
    "mean": (lambda L, a: a.mean(), [(2, 3)]),
    "mean_dim": (lambda L, a: a.mean(0), [(2, 3)]),
    "prod": (lambda L, a: a.prod(), [(2, 3)]),
    "max": (lambda L, a: a.max(), [(2, 3)]),
    "max_dim": (lambda L, a: a.max(0)[0], [(2, 3)]),
    "amax": (lambda L, a: a.amax(0), [(2, 3)]),
    "maximum": (lambda L, a, b: L.maximum(a, b), [(2, 3), (2, 3)]),
    "mm": (lambda L, a, b: a @ b, [(2, 3), (3, 4)]),
    "mv": (lambda L, a, b: a @ b, [(2, 3), (3,)]),
    "dot": (lambda L, a, b: a @ b, [(3,), (3,)]),
    "bmm": (lambda L, a, b: a @ b, [(2, 2, 3), (2, 3, 2)]),
    "addmm": (lambda L, a, b, c: L.addmm(c, a, b), [(2, 3), (3, 4), (4,)]),
    "softmax": (lambda L, a: a.softmax(-1), [(2, 3)]),
    "log_softmax": (lambda L, a: a.log_softmax(-1), [(2, 3)]),
    "where": (lambda L, a, b: L.where(a > 0.8, a, b), [(2, 3), (2, 3)]),
    "cat": (lambda L, a, b: L.cat([a, b]), [(2, 3), (2, 3)]),
    "stack": (lambda L, a, b: L.stack([a, b]), [(2, 3), (2, 3)]),
    "gather": (lambda L, a: a.gather(1, L.tensor([[0], [2]])), [(2, 3)]),
    "index_select": (lambda L, a: a.index_select(1, L.tensor([2, 0])), [(2, 3)]),
    "masked_fill": (lambda L, a: a.masked_fill(a > 0.8, 0.0), [(2, 3)]),
    "expand": (lambda L, a: a.expand(2, 3), [(3,)]),
    "transpose": (lambda L, a: a.transpose(0, 1), [(2, 3)]),
    "permute": (lambda L, a: a.permute(1, 0), [(2, 3)]),
    "unsqueeze": (lambda L, a: a.unsqueeze(0), [(2, 3)]),
    "double": (lambda L, a: a.double(), [(2, 3)]),
}

MODES = ["output"] + [f"{kind}{k}" for kind in ("nonleaf", "leaf") for k in range(3)]


def _op_cases():
    for name, (_, shapes) in OPS.items():
        for mode in MODES:
            if mode == "output" or int(mode[-1]) < len(shapes):
                yield pytest.param(name, mode, id=f"{name}-{mode}")


@pytest.mark.parametrize("op,mode", list(_op_cases()))
def test_what_each_op_saves(op, mode):
    fn, shapes = OPS[op]

    def scenario(L):
        leaves = [L.tensor(_values(s, i), requires_grad=True) for i, s in enumerate(shapes)]
        ins = [leaf * 1 for leaf in leaves] if mode.startswith("nonleaf") else list(leaves)
        out = fn(L, *ins)
        if mode == "output":
            out.mul_(2)
        elif mode.startswith("nonleaf"):
            ins[int(mode[-1])].mul_(2)
        else:
            with L.no_grad():
                leaves[int(mode[-1])].mul_(2)
        out.sum().backward()
        return [leaf.grad for leaf in leaves]

    same(scenario)


# ============================================================================================
# The exact error text: type name per dtype, sizes, clause, versions
# ============================================================================================

def e_mul_input_add(L, dtype=None, shape=(2, 3), bumps=1):
    a = L.ones(shape, dtype=dtype or L.float32, requires_grad=True)
    b = a * 1
    c = b * b
    for _ in range(bumps):
        b.add_(1)
    c.sum().backward()


def e_exp_output(L, dtype=None, shape=(2, 3)):
    a = L.ones(shape, dtype=dtype or L.float32, requires_grad=True)
    b = a.exp()
    b.add_(1)
    b.sum().backward()


def e_sigmoid_output(L):
    a = L.ones(2, 3, requires_grad=True)
    b = a.sigmoid()
    b.mul_(2)
    b.sum().backward()


def e_leaf_detach(L):
    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2
    x.detach().mul_(2)
    y.sum().backward()


def e_leaf_float64_no_grad(L):
    x = L.ones(3, dtype=L.float64, requires_grad=True)
    y = (x * x).sum()
    with L.no_grad():
        x.add_(1)
    y.backward()


def e_matmul_weight(L):
    inp = L.ones(3, 4, requires_grad=True)
    w = L.ones(4, 2, requires_grad=True)
    y = inp @ w
    with L.no_grad():
        w.mul_(2)
    y.sum().backward()


def e_gather_index(L):
    x = L.ones(2, 3, requires_grad=True)
    idx = L.tensor([[0], [1]])
    y = x.gather(1, idx)
    idx.add_(0)
    y.sum().backward()


def e_where_condition(L):
    x = L.ones(2, 3, requires_grad=True)
    c = x > 0
    y = L.where(c, x, L.zeros(2, 3))
    c.fill_(True)
    y.sum().backward()


def e_mul_uint8(L):
    x = L.ones(4, requires_grad=True)
    m = L.ones(4, dtype=L.uint8)
    y = x * m
    m.add_(1)
    y.sum().backward()


def e_mul_int32(L):
    x = L.ones(4, requires_grad=True)
    m = L.ones(4, dtype=L.int32)
    y = x * m
    m.add_(1)
    y.sum().backward()


def e_mul_int64(L):
    x = L.ones(4, requires_grad=True)
    m = L.ones(4, dtype=L.int64)
    y = x * m
    m.add_(1)
    y.sum().backward()


def e_undo(L):
    x, b = _b(L)
    y = b * b
    b.add_(1)
    b.sub_(1)
    y.sum().backward()


def e_mul_after_mul_(L):
    x, b = _b(L)
    w = L.tensor([2.0, 2.0, 2.0], requires_grad=True)
    y = b * b
    b.mul_(w)
    y.sum().backward()


def e_mul_self_inplace(L):
    x, b = _b(L)
    y = b.sin()
    b.mul_(b)
    y.sum().backward()


def e_copyslices(L):
    x, b = _b(L)
    y = b * b
    b[0].add_(1)
    y.sum().backward()


def e_setitem_copyslices(L):
    x, b = _b(L)
    y = b.log()
    b[1:] = 0.5
    y.sum().backward()


def e_asstrided(L):
    x = L.ones(2, 3, requires_grad=True)
    y = x * 1
    r = y[0].log()
    y[1].mul_(2)
    r.sum().backward()


def e_exp_twice(L):
    x, b = _b(L)
    b.exp_()
    b.exp_()
    b.sum().backward()


def e_sigmoid_inplace_then_add(L):
    x, b = _b(L)
    b.sigmoid_()
    b.add_(1)
    b.sum().backward()


def e_index_put_input(L):
    x, b = _b(L)
    y = b * b
    b[L.tensor([0])] = 5.0
    y.sum().backward()


def e_output_of(make):
    def scenario(L):
        x, b = _b(L)
        y = make(b)
        y.mul_(2)
        y.sum().backward()
    return scenario


def _input_after(L, inplace):
    x, b = _b(L)
    y = b * b
    inplace(b)
    y.sum().backward()


def e_mul_by_itself(L, other):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.mul_(other(y))
    y.sum().backward()


ERROR_CASES = {
    # The operand of mul_ is saved before the write bumps the shared counter.
    "mul_inplace_by_itself": (lambda L: e_mul_by_itself(L, lambda y: y),
                              "[torch.FloatTensor [2]], which is output 0 of Mul", 1, 0),
    "mul_inplace_by_own_detach": (lambda L: e_mul_by_itself(L, lambda y: y.detach()),
                                  "[torch.FloatTensor [2]]", 1, 0),
    # The forward name drops "Backward" and a 0 suffix only: PowBackward1 -> "Pow1" (measured
    # on torch 2.13; "strips Backward<digits>" would be too broad).
    "pow_tensor_output_pow1": (e_output_of(lambda b: b ** b),
                               "[torch.FloatTensor [3]], which is output 0 of Pow1", 1, 0),
    "rpow_output_pow2": (e_output_of(lambda b: 2 ** b),
                         "[torch.FloatTensor [3]], which is output 0 of Pow2", 1, 0),
    "input_after_clamp_clamp1": (lambda L: _input_after(L, lambda b: b.clamp_(0, 5)),
                                 "[torch.FloatTensor [3]], which is output 0 of Clamp1", 1, 0),
    "input_after_t_t1": (lambda L: _input_after(L, lambda b: b.t_()),
                         "[torch.FloatTensor [3]], which is output 0 of T1", 1, 0),
    "max_output_max1": (e_output_of(lambda b: b.max()),
                        "[torch.FloatTensor []], which is output 0 of Max1", 1, 0),
    "float32_input_add": (e_mul_input_add, "[torch.FloatTensor [2, 3]], which is output 0 of Add",
                          1, 0),
    "float64_input_add": (lambda L: e_mul_input_add(L, L.float64),
                          "[torch.DoubleTensor [2, 3]], which is output 0 of Add", 1, 0),
    "0dim_input_add": (lambda L: e_mul_input_add(L, shape=()),
                       "[torch.FloatTensor []], which is output 0 of Add", 1, 0),
    "empty_input_add": (lambda L: e_mul_input_add(L, shape=(0, 3)),
                        "[torch.FloatTensor [0, 3]], which is output 0 of Add", 1, 0),
    "4d_three_bumps": (lambda L: e_mul_input_add(L, shape=(1, 2, 3, 4), bumps=3),
                       "[torch.FloatTensor [1, 2, 3, 4]], which is output 0 of Add", 3, 0),
    "exp_output": (e_exp_output, "[torch.FloatTensor [2, 3]], which is output 0 of Exp", 1, 0),
    "0dim_float64_exp_output": (lambda L: e_exp_output(L, L.float64, ()),
                                "[torch.DoubleTensor []], which is output 0 of Exp", 1, 0),
    "sigmoid_output": (e_sigmoid_output,
                       "[torch.FloatTensor [2, 3]], which is output 0 of Sigmoid", 1, 0),
    "leaf_via_detach": (e_leaf_detach, "[torch.FloatTensor [3]]", 1, 0),
    "leaf_float64_no_grad": (e_leaf_float64_no_grad, "[torch.DoubleTensor [3]]", 1, 0),
    "matmul_weight_no_grad": (e_matmul_weight, "[torch.FloatTensor [4, 2]]", 1, 0),
    "gather_index_long": (e_gather_index, "[torch.LongTensor [2, 1]]", 1, 0),
    "where_condition_bool": (e_where_condition, "[CPUBoolType [2, 3]]", 1, 0),
    "mul_uint8": (e_mul_uint8, "[torch.ByteTensor [4]]", 1, 0),
    "mul_int32": (e_mul_int32, "[torch.IntTensor [4]]", 1, 0),
    "mul_int64": (e_mul_int64, "[torch.LongTensor [4]]", 1, 0),
    "undo_names_sub": (e_undo, "[torch.FloatTensor [3]], which is output 0 of Sub", 2, 0),
    "mul_after_mul_": (e_mul_after_mul_, "[torch.FloatTensor [3]], which is output 0 of Mul",
                       1, 0),
    "mul_self_inplace": (e_mul_self_inplace, "[torch.FloatTensor [3]], which is output 0 of Mul",
                         1, 0),
    "copyslices_view_write": (e_copyslices,
                              "[torch.FloatTensor [3]], which is output 0 of "
                              "torch::autograd::CopySlices", 1, 0),
    "copyslices_setitem": (e_setitem_copyslices,
                           "[torch.FloatTensor [3]], which is output 0 of "
                           "torch::autograd::CopySlices", 1, 0),
    "index_put_input": (e_index_put_input,
                        "[torch.FloatTensor [3]], which is output 0 of IndexPut", 1, 0),
    "asstrided_saved_view": (e_asstrided, "[torch.FloatTensor [3]], which is output 0 of AsStrided",
                             1, 0),
    "exp_inplace_twice": (e_exp_twice, "[torch.FloatTensor [3]], which is output 0 of Exp", 2, 1),
    "sigmoid_inplace_then_add": (e_sigmoid_inplace_then_add,
                                 "[torch.FloatTensor [3]], which is output 0 of Sigmoid", 2, 1),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_modified_error_text(lib, case):
    fn, desc, now, then = ERROR_CASES[case]
    raises(lib, RuntimeError, modified(desc, now, then), lambda: fn(lib))


def test_in_place_op_saving_a_clone_backprops(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.mul_(2)
    y.pow_(2)
    y.sum().backward()
    assert x.grad.tolist() == [8.0, 16.0, 24.0]


@pytest.mark.parametrize("first", ["sin_", "pow_", "mul_w", "div_w", "tanh_", "sqrt_", "clamp_"])
def test_in_place_ops_with_later_in_place_match_torch(first):
    def scenario(L):
        x = L.tensor([0.5, 1.0, 2.0], requires_grad=True)
        w = L.tensor([3.0, 2.0, 1.0], requires_grad=True)
        y = x * 1
        {"sin_": lambda: y.sin_(), "pow_": lambda: y.pow_(2), "mul_w": lambda: y.mul_(w),
         "div_w": lambda: y.div_(w), "tanh_": lambda: y.tanh_(), "sqrt_": lambda: y.sqrt_(),
         "clamp_": lambda: y.clamp_(0.6, 1.5)}[first]()
        y.mul_(3)
        y.add_(1)
        (y * y).sum().backward()
        return x.grad, w.grad

    same(scenario)


DETACHED_INPLACE = ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                    ".detach_().This is not supported, please use out-of-place `.detach()` "
                    "instead")


def test_detach_inplace_of_saved_non_leaf(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    y = b * b
    b.detach_()
    raises(lib, RuntimeError, DETACHED_INPLACE, lambda: y.sum().backward())


def test_error_names_current_grad_fn_after_several_inplace_ops():
    def scenario(L):
        out = []
        for ops in (("add_", "mul_"), ("mul_", "sub_", "div_"), ("exp_",), ("setitem",)):
            x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
            b = x * 1
            y = (b * b).sum()
            for op in ops:
                if op == "setitem":
                    b[1] = 7.0
                else:
                    getattr(b, op)(2) if op != "exp_" else b.exp_()
            try:
                y.backward()
                out.append("ok")
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(scenario)


def test_saved_output_not_affected_by_base_change():
    def scenario(L):
        x = L.ones(2, 3, requires_grad=True)
        y = x * 1
        r = y[0].exp()
        y[1].mul_(2)
        r.sum().backward()
        return x.grad

    same(scenario)


# ---- index tensors -----------------------------------------------------------------------------

# A boolean mask is turned into positions before the write, but torch's node saves the mask
# itself: writing to it after the forward pass refuses the backward, as a write to a saved
# integer index does.
INDEX_WRITES = {
    "getitem_mask": lambda lib: _index_write(lib, lambda x, m: x[m] * 1, True),
    "setitem_mask_tensor": lambda lib: _index_write(
        lib, lambda x, m: _set(x * 1, m, lib.tensor([2.0, 3.0])), True),
    "setitem_mask_number": lambda lib: _index_write(lib, lambda x, m: _set(x * 1, m, 2.0), True),
    "index_put_mask": lambda lib: _index_write(
        lib, lambda x, m: x.index_put((m,), lib.tensor(5.0)), True),
    "getitem_positions": lambda lib: _index_write(lib, lambda x, i: x[i] * 1, False),
    "setitem_positions": lambda lib: _index_write(
        lib, lambda x, i: _set(x * 1, i, lib.tensor([2.0, 3.0])), False),
    "mask_left_alone": lambda lib: _index_write(lib, lambda x, m: x[m] * 1, True, write=False),
}


def _set(z, index, value):
    z[index] = value
    return z


def _index_write(lib, op, mask, write=True):
    x = lib.ones(3, requires_grad=True)
    index = lib.tensor([True, False, True]) if mask else lib.tensor([0, 2])
    out = op(x, index)
    if write:
        index.fill_(1 if not mask else True)
    out.sum().backward()
    return x.grad


@pytest.mark.parametrize("case", INDEX_WRITES)
def test_a_write_to_a_saved_index_refuses_backward(case):
    same(INDEX_WRITES[case])
