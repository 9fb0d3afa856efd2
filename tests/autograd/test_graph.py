"""grad_fn names and graph structure, compared with torch 2.13.

Every op of the measured list that gradtrack has gets its node name checked, and
the whole graph below it (``next_functions`` down to AccumulateGrad / None) is
compared with torch's.
"""

import re

import pytest

from helpers import name, nexts, same, spell, summary


def graph(node, depth=6):
    """The graph below ``node`` as nested (name, [(child, input_nr), ...])."""
    if node is None:
        return None
    if depth == 0:
        return name(node)
    return (name(node), [(graph(n, depth - 1), i) for n, i in node.next_functions])


# ============================================================================================
# grad_fn names (x is float [2, 3] requiring grad)
# ============================================================================================

def _x(L):
    return L.tensor([[0.5, 1.5, 2.5], [3.5, 1.25, 0.75]], requires_grad=True)


NAMES = {
    "x+1": (lambda L, x: x + 1, "AddBackward0"),
    "x+x": (lambda L, x: x + x, "AddBackward0"),
    "1+x": (lambda L, x: 1 + x, "AddBackward0"),
    "add_alpha": (lambda L, x: L.add(x, x, alpha=2), "AddBackward0"),
    "x-1": (lambda L, x: x - 1, "SubBackward0"),
    "x-x": (lambda L, x: x - x, "SubBackward0"),
    "1-x": (lambda L, x: 1 - x, "RsubBackward1"),
    "rsub": (lambda L, x: L.rsub(x, 1), "RsubBackward1"),
    "x*2": (lambda L, x: x * 2, "MulBackward0"),
    "x*x": (lambda L, x: x * x, "MulBackward0"),
    "2/x": (lambda L, x: 2 / x, "MulBackward0"),
    "x/2": (lambda L, x: x / 2, "DivBackward0"),
    "x/x": (lambda L, x: x / x, "DivBackward0"),
    "x**2": (lambda L, x: x ** 2, "PowBackward0"),
    "x**0.5": (lambda L, x: x ** 0.5, "PowBackward0"),
    "square": (lambda L, x: x.square(), "PowBackward0"),
    "x**x": (lambda L, x: x ** x, "PowBackward1"),
    "2**x": (lambda L, x: 2 ** x, "PowBackward2"),
    "sum": (lambda L, x: x.sum(), "SumBackward0"),
    "sum0": (lambda L, x: x.sum(0), "SumBackward1"),
    "sum_keepdim": (lambda L, x: x.sum(dim=1, keepdim=True), "SumBackward1"),
    "mean": (lambda L, x: x.mean(), "MeanBackward0"),
    "mean0": (lambda L, x: x.mean(0), "MeanBackward1"),
    "matmul_2d": (lambda L, x: x @ x.detach().t(), "MmBackward0"),
    "mm": (lambda L, x: L.mm(x, x.detach().t()), "MmBackward0"),
    "matmul_fn": (lambda L, x: L.matmul(x, x.detach().t()), "MmBackward0"),
    "mv": (lambda L, x: L.mv(x, x.detach()[0]), "MvBackward0"),
    "dot": (lambda L, x: L.dot(x[0], x[1]), "DotBackward0"),
    "bmm": (lambda L, x: L.bmm(x.unsqueeze(0), x.detach().t().unsqueeze(0)), "BmmBackward0"),
    "matmul_3d": (lambda L, x: x.unsqueeze(0) @ x.detach().t(), "UnsafeViewBackward0"),
    "addmm": (lambda L, x: L.addmm(x.detach()[0, :2], x, x.detach().t()), "AddmmBackward0"),
    "relu": (lambda L, x: x.relu(), "ReluBackward0"),
    "relu_fn": (lambda L, x: L.relu(x), "ReluBackward0"),
    "sigmoid": (lambda L, x: x.sigmoid(), "SigmoidBackward0"),
    "tanh": (lambda L, x: x.tanh(), "TanhBackward0"),
    "exp": (lambda L, x: x.exp(), "ExpBackward0"),
    "log": (lambda L, x: x.log(), "LogBackward0"),
    "sqrt": (lambda L, x: x.sqrt(), "SqrtBackward0"),
    "view": (lambda L, x: x.view(6), "ViewBackward0"),
    "reshape": (lambda L, x: x.reshape(3, 2), "ViewBackward0"),
    "flatten": (lambda L, x: x.flatten(), "ViewBackward0"),
    "t": (lambda L, x: x.t(), "TBackward0"),
    "transpose": (lambda L, x: x.transpose(0, 1), "TransposeBackward0"),
    ".T": (lambda L, x: x.T, "PermuteBackward0"),
    "permute": (lambda L, x: x.permute(1, 0), "PermuteBackward0"),
    "x[0]": (lambda L, x: x[0], "SelectBackward0"),
    "x[:,0]": (lambda L, x: x[:, 0], "SelectBackward0"),
    "x[...,0]": (lambda L, x: x[..., 0], "SelectBackward0"),
    "x[0:1]": (lambda L, x: x[0:1], "SliceBackward0"),
    "x[:,1:]": (lambda L, x: x[:, 1:], "SliceBackward0"),
    "x[[0,1]]": (lambda L, x: x[[0, 1]], "IndexBackward0"),
    "x[x>2]": (lambda L, x: x[x > 2], "IndexBackward0"),
    "x[None]": (lambda L, x: x[None], "UnsqueezeBackward0"),
    "expand": (lambda L, x: x[0:1].expand(4, 3), "ExpandBackward0"),
    "expand_as": (lambda L, x: x[0:1].expand_as(x), "ExpandBackward0"),
    "clone": (lambda L, x: x.clone(), "CloneBackward0"),
    "t_contiguous": (lambda L, x: x.t().contiguous(), "CloneBackward0"),
    "neg": (lambda L, x: -x, "NegBackward0"),
    "abs": (lambda L, x: x.abs(), "AbsBackward0"),
    "unsqueeze": (lambda L, x: x.unsqueeze(0), "UnsqueezeBackward0"),
    "squeeze0": (lambda L, x: x[None].squeeze(0), "SqueezeBackward1"),
    "log_softmax": (lambda L, x: x.log_softmax(-1), "LogSoftmaxBackward0"),
    "softmax": (lambda L, x: x.softmax(-1), "SoftmaxBackward0"),
    "max": (lambda L, x: x.max(), "MaxBackward1"),
    "max0": (lambda L, x: x.max(0)[0], "MaxBackward0"),
    "min": (lambda L, x: x.min(), "MinBackward1"),
    "cat": (lambda L, x: L.cat([x, x]), "CatBackward0"),
    "stack": (lambda L, x: L.stack([x, x]), "StackBackward0"),
    "double": (lambda L, x: x.double(), "ToCopyBackward0"),
    "to_float64": (lambda L, x: x.to(L.float64), "ToCopyBackward0"),
    "clamp": (lambda L, x: x.clamp(0.6, 1.0), "ClampBackward1"),
    "clamp_min": (lambda L, x: x.clamp(min=0.6), "ClampBackward1"),
    "where": (lambda L, x: L.where(x > 1, x, x * 0), "WhereBackward0"),
    "prod": (lambda L, x: x.prod(), "ProdBackward0"),
    "maximum": (lambda L, x: L.maximum(x, x.detach()), "MaximumBackward0"),
    "gather": (lambda L, x: x.gather(1, L.tensor([[0], [2]])), "GatherBackward0"),
    "split": (lambda L, x: x.split(2, dim=1)[0], "SplitBackward0"),
    "add_ on non-leaf": (lambda L, x: (x * 1).add_(1), "AddBackward0"),
    "mul_ on non-leaf": (lambda L, x: (x * 1).mul_(2), "MulBackward0"),
    "pow_ on non-leaf": (lambda L, x: (x * 1).pow_(2), "PowBackward0"),
}


@pytest.mark.parametrize("op", list(NAMES))
def test_grad_fn_name(lib, op):
    fn, expected = NAMES[op]
    y = fn(lib, _x(lib))
    assert name(y.grad_fn) == expected
    assert y.grad_fn.name() == expected


def test_float_of_float32_is_same_object(lib):
    x = _x(lib)
    assert x.float() is x and x.float().grad_fn is None


def test_max_dim_indices_have_no_grad_fn(lib):
    values, indices = _x(lib).max(0)
    assert (name(values.grad_fn), indices.grad_fn, indices.requires_grad) == ("MaxBackward0",
                                                                             None, False)


def test_split_outputs_share_one_node(lib):
    a, b = (_x(lib) * 1).split(2, dim=1)
    assert a.grad_fn is b.grad_fn
    assert (a.output_nr, b.output_nr) == (0, 1)


# Ops gradtrack has beyond the measured list: their names must still be torch's.
MORE_OPS = {
    "sin": lambda L, x: x.sin(), "cos": lambda L, x: x.cos(), "log1p": lambda L, x: x.log1p(),
    "expm1": lambda L, x: x.expm1(), "rsqrt": lambda L, x: x.rsqrt(),
    "reciprocal": lambda L, x: x.reciprocal(), "sign": lambda L, x: x.sign(),
    "floor": lambda L, x: x.floor(), "ceil": lambda L, x: x.ceil(),
    "round": lambda L, x: x.round(), "trunc": lambda L, x: x.trunc(),
    "minimum": lambda L, x: L.minimum(x, x.detach()), "amax": lambda L, x: x.amax(1),
    "index_select": lambda L, x: x.index_select(1, L.tensor([2, 0])),
    "masked_fill": lambda L, x: x.masked_fill(x > 1, 0.0),
    "narrow": lambda L, x: x.narrow(1, 0, 2), "select": lambda L, x: x.select(1, 2),
    "chunk": lambda L, x: x.chunk(3, 1)[1], "unbind": lambda L, x: x.unbind(1)[2],
    "as_strided": lambda L, x: x.as_strided((2,), (1,)), "outer": lambda L, x: L.outer(x[0], x[1]),
    "remainder": lambda L, x: x.remainder(2), "swapaxes": lambda L, x: x.swapaxes(0, 1),
    "mT": lambda L, x: x.mT, "view_as": lambda L, x: x.view_as(x),
    "reshape_as": lambda L, x: x.reshape_as(x), "type_as": lambda L, x: x.type_as(x.double()),
    "log_softmax_fn": lambda L, x: L.log_softmax(x, 0), "softmax_fn": lambda L, x: L.softmax(x, 0),
    "scatter_add": lambda L, x: L.scatter_add(x, 1, L.tensor([[0], [1]]), x[:, :1]),
    "sum_dims": lambda L, x: x.sum((0, 1)), "mean_keepdim": lambda L, x: x.mean(1, True),
    "min0": lambda L, x: x.min(0)[0], "neg_fn": lambda L, x: L.neg(x),
    "sub_alpha": lambda L, x: L.sub(x, x, alpha=3),
    "div_floor": lambda L, x: x.div(2, rounding_mode="floor"),
    "pow_fn": lambda L, x: L.pow(x, 3), "exp_fn": lambda L, x: L.exp(x),
    "x[1,2]": lambda L, x: x[1, 2], "x[::2]": lambda L, x: x[:, ::2],
    "x[idx,idx]": lambda L, x: x[L.tensor([0, 1]), L.tensor([2, 2])],
    "contiguous_noop": lambda L, x: (x * 1).contiguous(),
    "reshape_copy": lambda L, x: x.t().reshape(6),
}


@pytest.mark.parametrize("op", list(MORE_OPS))
def test_more_op_graphs_match_torch(op):
    same(lambda L: graph(MORE_OPS[op](L, _x(L)).grad_fn))


@pytest.mark.parametrize("op", list(NAMES))
def test_graph_structure_matches_torch(op):
    same(lambda L: graph(NAMES[op][0](L, _x(L)).grad_fn))


# ============================================================================================
# Structure
# ============================================================================================

def test_measured_structure(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    c = lib.tensor([5.0, 6.0])
    y = (a * b + c).sum()
    assert nexts(y.grad_fn) == [("AddBackward0", 0)]
    add = y.grad_fn.next_functions[0][0]
    assert nexts(add) == [("MulBackward0", 0), (None, 0)]
    mul = add.next_functions[0][0]
    assert nexts(mul) == [("AccumulateGrad", 0), ("AccumulateGrad", 0)]
    acc_a, acc_b = mul.next_functions[0][0], mul.next_functions[1][0]
    assert acc_a.variable is a and acc_b.variable is b
    assert acc_a.next_functions == ()
    assert acc_a.name() == spell("torch::autograd::AccumulateGrad", lib)


@pytest.mark.parametrize("op,expected", [
    ("x+1", [("AccumulateGrad", 0), (None, 0)]), ("x*2", [("AccumulateGrad", 0), (None, 0)]),
    ("x/2", [("AccumulateGrad", 0), (None, 0)]), ("x-1", [("AccumulateGrad", 0), (None, 0)]),
    ("sum", [("AccumulateGrad", 0)]), ("exp", [("AccumulateGrad", 0)]),
    ("x**2", [("AccumulateGrad", 0)]), ("1-x", [("AccumulateGrad", 0)]),
    ("x[:,0]", [("AccumulateGrad", 0)]), ("x[:,1:]", [("AccumulateGrad", 0)]),
])
def test_next_functions_literal(lib, op, expected):
    y = NAMES[op][0](lib, _x(lib))
    assert nexts(y.grad_fn) == expected


def test_accumulate_grad_node_is_cached(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    assert y.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[1][0]
    z = a.exp()
    assert z.grad_fn.next_functions[0][0] is y.grad_fn.next_functions[0][0]
    assert y.grad_fn is y.grad_fn


def test_linear_like_graph(lib):
    x = lib.tensor([[1.0, 2.0]])
    w = lib.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
    bias = lib.tensor([0.1, 0.2, 0.3], requires_grad=True)
    y = lib.addmm(bias, x, w.t())
    assert nexts(y.grad_fn) == [("AccumulateGrad", 0), (None, 0), ("TBackward0", 0)]
    t_node = y.grad_fn.next_functions[2][0]
    assert nexts(t_node) == [("AccumulateGrad", 0)]
    assert t_node.next_functions[0][0].variable is w


def test_linear_like_graph_via_matmul_matches_torch():
    def scenario(L):
        x = L.tensor([[1.0, 2.0]])
        w = L.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
        bias = L.tensor([0.1, 0.2, 0.3], requires_grad=True)
        h = x @ w.t() + bias
        h3 = x.unsqueeze(0) @ w.t() + bias
        return graph(h.grad_fn), graph(h3.grad_fn)

    same(scenario)


def test_inplace_node_graphs_match_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        y.add_(w)
        y.mul_(2)
        g1 = graph(y.grad_fn)
        z = x * 1
        z[0] = w[1]
        z[1:].mul_(w[:2])
        c = L.zeros(3)
        c.copy_(x)
        return g1, graph(z.grad_fn), graph(c.grad_fn)

    same(scenario)


def test_node_repr_and_name(lib):
    x = _x(lib)
    node = (x ** 2).grad_fn
    assert re.fullmatch(r"<PowBackward0 object at 0x[0-9a-f]+>", repr(node))
    assert str(node) == repr(node)
    assert node.name() == "PowBackward0"
    assert type(node).__name__ == "PowBackward0"
    assert repr(x ** 2).endswith("grad_fn=<PowBackward0>)")


def test_cpp_only_node_repr_and_name(lib):
    y = _x(lib) * 1
    y[0].mul_(2)
    assert re.fullmatch(r"<CopySlices object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert y.grad_fn.name() == spell("torch::autograd::CopySlices", lib)
    acc = (_x(lib) * 2).grad_fn.next_functions[0][0]
    assert re.fullmatch(r"<AccumulateGrad object at 0x[0-9a-f]+>", repr(acc))
    assert type(acc).__name__ == "AccumulateGrad"


def test_node_metadata_is_a_persistent_dict(lib):
    node = (_x(lib) * 2).grad_fn
    assert node.metadata == {}
    node.metadata["tag"] = 1
    assert node.metadata == {"tag": 1}


def test_nodes_are_graph_node_instances(lib):
    y = _x(lib) * 2
    assert isinstance(y.grad_fn, lib.autograd.graph.Node)
    assert isinstance(y.grad_fn.next_functions[0][0], lib.autograd.graph.Node)


def test_node_hook_arguments():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([0.5, 4.0], requires_grad=True)
        y = x * w
        seen = []

        def pre(grad_outputs):
            seen.append(("pre", [summary(g) for g in grad_outputs]))
            return (grad_outputs[0] * 10,)

        def post(grad_inputs, grad_outputs):
            seen.append(("post", [summary(g) for g in grad_inputs],
                         [summary(g) for g in grad_outputs]))

        y.grad_fn.register_prehook(pre)
        y.grad_fn.register_hook(post)
        y.sum().backward()
        return seen, x.grad, w.grad

    same(scenario)


def _ones(L, *shape, dtype=None):
    return L.ones(*shape, dtype=dtype or L.float32)


# What a node hook may return: PyTorch checks the count, the container, each entry's type,
# dtype (first) and shape against the gradient it replaces, and names the hook.
@pytest.mark.parametrize("kind, result", [
    ("post", lambda L: (_ones(L, 3),)),
    ("post", lambda L: (_ones(L, 3), _ones(L, 3), _ones(L, 3))),
    ("post", lambda L: (None, _ones(L, 3))),
    ("post", lambda L: (_ones(L, 2), _ones(L, 3))),
    ("post", lambda L: (_ones(L, 1, 3), _ones(L, 3))),
    ("post", lambda L: (_ones(L, 3, dtype=L.float64), _ones(L, 3))),
    ("post", lambda L: (_ones(L, 2, dtype=L.float64), _ones(L, 3))),
    ("post", lambda L: [_ones(L, 3), _ones(L, 3)]),
    ("post", lambda L: (1, _ones(L, 3))),
    ("post", lambda L: 5),
    ("pre", lambda L: (_ones(L, 3), _ones(L, 3))),
    ("pre", lambda L: (_ones(L, 2),)),
    ("pre", lambda L: (_ones(L, 1, 3),)),
    ("pre", lambda L: (_ones(L, 3, dtype=L.float64),)),
    ("pre", lambda L: (None,)),
    ("pre", lambda L: (2,)),
    ("pre", lambda L: _ones(L, 3)),
], ids=["post_too_few", "post_too_many", "post_none_entry", "post_size", "post_broadcastable",
        "post_dtype", "post_dtype_and_size", "post_list", "post_int_entry", "post_int", "pre_count",
        "pre_size", "pre_broadcastable", "pre_dtype", "pre_none_entry", "pre_int_entry",
        "pre_bare_tensor"])
def test_node_hook_results_are_checked(kind, result):
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = L.tensor([1.0, 1.0, 1.0], requires_grad=True)
        y = x * w

        def hook(*grads):
            return result(L)

        if kind == "post":
            y.grad_fn.register_hook(hook)
        else:
            y.grad_fn.register_prehook(hook)
        y.sum().backward()
        return x.grad, w.grad

    same(scenario)


def test_node_hook_cannot_fill_a_gradient_that_is_not_computed():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * L.ones(3)
        y.grad_fn.register_hook(lambda gi, go: (gi[0], L.ones(3)))
        y.sum().backward()

    same(scenario)


@pytest.mark.parametrize("hook", ["named", "partial"])
def test_tensor_hook_checks_dtype_before_size_and_names_the_hook(hook):
    import functools

    def scenario(L):
        def named(g):
            return L.ones(2, dtype=L.float64)

        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.register_hook(named if hook == "named" else functools.partial(named))
        y.sum().backward()

    same(scenario)


def test_leaf_hooks_run_in_torchs_order():
    def scenario(L):
        seen = []
        leaves = [L.tensor([float(i)], requires_grad=True) for i in range(4)]
        for i, leaf in enumerate(leaves):
            leaf.register_hook(lambda g, i=i: seen.append(i))
        (leaves[0] * leaves[1] + leaves[2] * leaves[3] + leaves[1]).sum().backward()
        return seen

    same(scenario)


def test_node_hook_handles_remove(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    seen = []
    h1 = y.grad_fn.register_prehook(lambda go: seen.append("pre"))
    h2 = y.grad_fn.register_hook(lambda gi, go: seen.append("post"))
    y.sum().backward(retain_graph=True)
    h1.remove()
    h2.remove()
    y.sum().backward()
    assert seen == ["pre", "post"]
    assert x.grad.tolist() == [4.0, 8.0]


def test_graph_of_leaf_and_no_grad_results(lib):
    x = _x(lib)
    assert x.grad_fn is None
    with lib.no_grad():
        assert (x * 2).grad_fn is None
    assert (x.detach() * 2).grad_fn is None


@pytest.mark.parametrize("kwargs", [{}, {"dim": -1, "keepdim": True}, {"dim": 1}, {"dim": (0, 1)}])
def test_mean_gradient_graph_divides_by_a_scalar(kwargs):
    # Found by the fuzzer: PyTorch's mean backward divides through the Scalar overload.
    def scenario(L):
        t0 = L.tensor([[0.25, -2.5, -1.25], [1.0, 2.0, 3.0]], dtype=L.float64, requires_grad=True)
        t1 = t0.mean(**kwargs)
        (g,) = L.autograd.grad((t1 * t1).sum(), [t0], create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), [t0])
        return name(g.grad_fn), nexts(g.grad_fn), g.tolist(), gg.tolist()

    same(scenario)


@pytest.mark.parametrize("shape", [(2, 2), (2, 0), (3,)])
def test_index_gradient_graph_is_index_put_impl(shape):
    # Found by the fuzzer: PyTorch's index backward writes into zeros with
    # _index_put_impl_, so the gradient's node is IndexPutImplBackward0.
    def scenario(L):
        t0 = L.ones(*shape, requires_grad=True)
        t3 = t0[[0, -1]]
        (g,) = L.autograd.grad((t3 * t3).sum(), [t0], create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), [t0])
        return name(g.grad_fn), nexts(g.grad_fn), g._version, g.tolist(), gg.tolist()

    same(scenario)


@pytest.mark.parametrize("op", ["sub", "sub_alpha", "sub_alpha_float", "rsub", "rsub_alpha",
                                "one_minus", "rsub_scalar_alpha", "add_alpha", "sub_inplace",
                                "addmm"])
def test_negated_and_scaled_gradients_graph_like_torch(op):
    # Found by the fuzzer: the negated side is neg(g) (NegBackward0) and alpha/beta
    # scale through the Scalar overload (MulBackward1), as PyTorch's maybe_multiply.
    def chain(fn):
        names = []
        while fn is not None:
            names.append(name(fn))
            fn = next((f for f, _ in fn.next_functions if f is not None), None)
        return names

    def scenario(L):
        a = L.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
        b = L.tensor([[3.0, -4.0], [2.0, 0.25]], requires_grad=True)
        y = {"sub": lambda: a - b, "sub_alpha": lambda: L.sub(a, b, alpha=3),
             "sub_alpha_float": lambda: L.sub(a, b, alpha=0.5), "rsub": lambda: L.rsub(a, b),
             "rsub_alpha": lambda: L.rsub(a, b, alpha=2), "one_minus": lambda: 1 - a,
             "rsub_scalar_alpha": lambda: L.rsub(a, 2.0, alpha=3),
             "add_alpha": lambda: L.add(a, b, alpha=2.5),
             "sub_inplace": lambda: (a * 1).sub_(b, alpha=2),
             "addmm": lambda: L.addmm(a, a, b, beta=2, alpha=3)}[op]()
        grads = L.autograd.grad((y * y).sum(), [a, b], create_graph=True, allow_unused=True)
        return [None if g is None else (chain(g.grad_fn), g.tolist()) for g in grads]

    same(scenario)


@pytest.mark.parametrize("case", ["expand_after_base_write", "overlapping_view", "overlapping_input",
                                  "both_overlap", "plain", "size_one_dims", "empty_view",
                                  "transposed"])
def test_as_strided_gradient_keeps_its_graph(case):
    # Found by the fuzzer: an overlapping as_strided backward under create_graph returned a
    # gradient without history (requires_grad False); PyTorch builds it with index_add_/div_.
    def scenario(L):
        x = L.tensor([[-1.75, 0.5, -1.0], [-2.25, 2.25, -3.0]], dtype=L.float64, requires_grad=True)
        if case == "expand_after_base_write":
            y = x.expand(2, -1, -1)
            with L.no_grad():
                x[:, 1:] += 1
        elif case == "overlapping_view":
            y = x.as_strided((3, 3), (1, 1))
        elif case == "overlapping_input":
            y = x[0].expand(3, 3).as_strided((2, 2), (3, 1), 1)
        elif case == "both_overlap":
            y = x[0].expand(3, 3).as_strided((4, 2), (1, 1))
        elif case == "size_one_dims":
            y = x.as_strided((1, 3, 1), (1, 1, 1), 2)
        elif case == "empty_view":
            y = x.as_strided((0, 2), (1, 1))
        elif case == "transposed":
            y = x.t()
            with L.no_grad():
                x.mul_(2)
        else:
            y = x.as_strided((2, 2), (1, 2), 1)
        (g,) = L.autograd.grad((y * y * y).sum(), [x], create_graph=True, allow_unused=True)
        if not g.requires_grad:
            return g.tolist(), g._version, g._is_view()
        (gg,) = L.autograd.grad((g * g).sum(), [x])
        chain = []
        fn = g.grad_fn
        for _ in range(3):
            if fn is None:
                break
            chain.append((name(fn), nexts(fn)))
            fn = next((f for f, _ in fn.next_functions if f is not None), None)
        return g.requires_grad, chain, g.tolist(), gg.tolist(), g._version

    same(scenario)


@pytest.mark.parametrize("case", ["mm_col_mat2", "mm_col_both", "addmm_linear", "row_major",
                                  "one_column"])
def test_matmul_gradient_keeps_a_column_major_layout(case):
    # Found by the fuzzer (seed 113): PyTorch's mm backward returns a column-major input's
    # gradient as the transpose of a product (a view), which then reaches .grad without a copy.
    def scenario(L):
        x = L.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], requires_grad=True)
        w = L.tensor([[0.5, 1.5, -1.0], [2.0, -0.5, 1.0], [1.0, 1.0, 2.0],
                      [-1.0, 0.0, 0.5]], requires_grad=True)
        bias = L.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
        if case == "mm_col_mat2":
            out = x @ w.t()
        elif case == "mm_col_both":
            out = x.t().t() @ w.t()
            out = w.t().t() @ x.t()
        elif case == "addmm_linear":
            out = L.addmm(bias, x, w.t(), alpha=2)
        elif case == "row_major":
            out = x @ w.t().contiguous()
        else:
            v = L.tensor([[1.0, -2.0, 0.5]], requires_grad=True)
            out = v @ v.t()
        leaves = [x, w, bias] if case != "one_column" else [v]
        grads = L.autograd.grad((out * out).sum(), leaves, create_graph=True, allow_unused=True)
        seen = [None if g is None else (g.tolist(), g.stride(), g._is_view(), name(g.grad_fn))
                for g in grads]
        (out * out).sum().backward()
        return seen, [(t.grad.stride(), t.grad._version) for t in leaves]

    same(scenario)


def test_index_put_and_index_select_gradients_like_torch():
    # Found by the fuzzer (seed 122): an out-of-place index_put result (in setitem's
    # backward) is fresh, version 0, with IndexPutBackward0 straight on its inputs;
    # index_select's backward index_add_s into zeros (IndexAddBackward0, version 1).
    def scenario(L):
        out = []
        t0 = L.tensor([[[-2.0, -2.75, 1.0]], [[-2.0, 1.0, 1.25]]], requires_grad=True)
        for create_graph in (False, True):
            t1 = t0 * 1
            t1[L.tensor([0])] = 0
            (g,) = L.autograd.grad((t1 * t1).sum(), [t0], create_graph=create_graph)
            out.append((g._version, g.tolist(), name(g.grad_fn),
                        nexts(g.grad_fn) if g.grad_fn else None))
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = x.index_select(1, L.tensor([0, 2, 0]))
        (g,) = L.autograd.grad((y * y).sum(), [x], create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), [x])
        out.append((g._version, name(g.grad_fn), nexts(g.grad_fn), g.tolist(), gg.tolist()))
        return out

    same(scenario)


def test_node_with_no_gradient_edges_still_checks_its_saved_result():
    # Found by the fuzzer (seed 125): tanh of a no-grad view of a leaf has a node with no
    # edge to follow; PyTorch still unpacks its saved result, so writing it in place raises.
    def scenario(L):
        t0 = L.tensor([-1.0, -2.0, -1.25, -1.0], requires_grad=True)
        with L.no_grad():
            t1 = t0.permute(0)
        t3 = t1.tanh()
        t3 -= 2
        (t3 * t3).sum().backward()

    same(scenario)


@pytest.mark.parametrize("exponent", [1, 1.0, 2, 0])
def test_pow_gradient_is_a_fresh_tensor(exponent):
    # Found by the fuzzer (seed 128): x ** 1 passed its incoming gradient through, a view
    # of the expanded sum gradient; PyTorch computes grad * 1 * x ** 0, a new tensor.
    def scenario(L):
        x = L.tensor([[-1.5, 0.0, 2.75], [3.0, -0.0, float("inf")]], requires_grad=True)
        (g,) = L.autograd.grad((x ** exponent).sum(), [x], retain_graph=True)
        return g.tolist(), g._is_view(), g.stride(), g._version

    same(scenario)


def test_dot_gradient_graph_multiplies_grad_first():
    # Found by the fuzzer (seed 144): PyTorch's dot backward is grad * other.
    def scenario(L):
        t0 = L.tensor([-1.0, 0.25, -1.0], requires_grad=True)
        t1 = t0 * t0
        t2 = L.matmul(t0, t1)
        ga, gb = L.autograd.grad(t2, [t0, t1], create_graph=True)
        return [(name(g.grad_fn), nexts(g.grad_fn), g.tolist()) for g in (ga, gb)]

    same(scenario)
