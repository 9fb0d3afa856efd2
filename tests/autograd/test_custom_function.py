"""Custom autograd Functions: each scenario runs on gradtrack and on torch 2.13
and must give the same values, gradients, _version, grad_fn names and errors."""

import warnings

import numpy as np
import pytest

import gradtrack


def _name(lib):
    return lib.__name__


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e)
    return None


_DOCS_URL = "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function"


def _norm(value, lib):
    """Makes a scenario's observations comparable across the two libraries
    (module names replaced; torch's documentation link kept in both)."""
    if isinstance(value, (lib.Tensor,)):
        # Rounded: the two libraries' kernels may differ in the last bit.
        values = np.round(value.detach().numpy().astype(np.float64), 5).tolist()
        return ("tensor", values, str(value.dtype).split(".")[-1])
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        return (value[0], value[1].replace(_DOCS_URL, "URL").replace(_name(lib), "LIB"))
    if isinstance(value, (list, tuple)):
        return [_norm(v, lib) for v in value]
    if isinstance(value, dict):
        return {k: _norm(v, lib) for k, v in value.items()}
    if isinstance(value, str):
        return value.replace(_name(lib), "LIB")
    return value


def _same(scenario, torch):
    got = _norm(scenario(gradtrack), gradtrack)
    want = _norm(scenario(torch), torch)
    assert got == want


def _node_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# ---- step 1: forward(ctx, ...) + backward(ctx, ...) ----

def _mul_k(lib):
    class MulK(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, flag=False):
            ctx.k = k
            ctx.needs = ctx.needs_input_grad
            ctx.save_for_backward(x)
            return x * k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.k + 0 * x, None, None

    return MulK


def test_basic_forward_backward_and_grad_fn(torch):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = _mul_k(lib).apply(x, 3.0)
        out = {"y": y, "name": _node_name(y), "node_name": y.grad_fn.name(),
               "needs": y.grad_fn.needs, "leaf": y.is_leaf, "version": y._version,
               "next": [type(f).__name__ for f, _ in y.grad_fn.next_functions],
               "same_ctx": y.grad_fn is y.grad_fn}
        y.sum().backward()
        out["grad"] = x.grad
        out["second"] = _err(lambda: y.sum().backward())
        out["saved_after_free"] = _err(lambda: y.grad_fn.saved_tensors)
        return out

    _same(scenario, torch)


def test_kwargs_count_as_inputs(torch):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        MulK = _mul_k(lib)
        out = {}
        y = MulK.apply(x, 2.0, flag=True)
        out["needs"] = y.grad_fn.needs
        y.sum().backward()
        out["grad"] = x.grad

        class K(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=1, flag=False):
                return x * k

            @staticmethod
            def backward(ctx, grad):
                return grad, None

        out["missing"] = _err(lambda: K.apply(x, flag=True))
        out["count"] = _err(lambda: K.apply(x, 2.0, flag=True).sum().backward())
        return out

    _same(scenario, torch)


def test_no_grad_and_no_input_requiring_grad_record_nothing(torch):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        MulK = _mul_k(lib)
        with lib.no_grad():
            a = MulK.apply(x, 2.0)
        b = MulK.apply(lib.ones(2), 2.0)
        return [a.grad_fn is None, a.requires_grad, b.grad_fn is None, b.requires_grad, a, b]

    _same(scenario, torch)


def test_several_outputs_and_non_tensor_outputs(torch):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        seen = []

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3, 5

            @staticmethod
            def backward(ctx, g1, g2, g3):
                seen.extend([g1, g2, g3])
                return g1 * 2 + g2 * 3

        a, b, c = Two.apply(x)
        out = {"c": c, "shared": a.grad_fn is b.grad_fn, "name": _node_name(b)}
        a.sum().backward()
        out["seen"] = seen
        out["grad"] = x.grad
        return out

    _same(scenario, torch)


def _returning(lib, result_fn, n_inputs=1):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, *rest):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return result_fn(lib, grad)

    return F


@pytest.mark.parametrize("case", ["too_few", "too_many", "extra_nones", "list", "float",
                                  "non_tensor_input", "wrong_shape", "wrong_dtype"])
def test_backward_results_are_checked(torch, case):
    results = {
        "too_few": (lambda lib, g: g, 2),
        "too_many": (lambda lib, g: (g, g), 1),
        "extra_nones": (lambda lib, g: (g, None, None), 1),
        "list": (lambda lib, g: [g], 1),
        "float": (lambda lib, g: 1.0, 1),
        "non_tensor_input": (lambda lib, g: (g, g), "int"),
        "wrong_shape": (lambda lib, g: lib.ones(3), 1),
        "wrong_dtype": (lambda lib, g: g.double(), 1),
    }
    fn, n = results[case]

    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        F = _returning(lib, fn)
        args = (x,) if n == 1 else (x, 3) if n == "int" else (x, x)
        err = _err(lambda: F.apply(*args).sum().backward())
        return [err, x.grad]

    _same(scenario, torch)


def test_saved_tensors_version_check_and_retain_graph(torch):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        MulK = _mul_k(lib)
        b = x * 1
        y = MulK.apply(b, 2.0)
        b.add_(1)
        out = {"modified": _err(lambda: y.sum().backward())}

        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y, None)
                return y

            @staticmethod
            def backward(ctx, grad):
                y, none = ctx.saved_tensors
                return grad * y

        y = Exp.apply(x)
        saved = y.grad_fn.saved_tensors
        out["saved"] = [saved[0], _node_name(saved[0]), saved[1]]
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        out["grad"] = x.grad
        out["third"] = _err(lambda: y.sum().backward())
        y = Exp.apply(x)
        with lib.no_grad():
            y.mul_(2)
        out["output_modified"] = _err(lambda: y.sum().backward())
        return out

    _same(scenario, torch)


def test_backward_without_saved_tensors_runs_twice(torch):
    def scenario(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        F = _returning(lib, lambda lib, g: g * 3)
        y = F.apply(x)
        y.sum().backward()
        y.sum().backward()
        return x.grad

    _same(scenario, torch)


def test_save_for_backward_rejects_non_tensors(torch):
    def scenario(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad

        return _err(lambda: Bad.apply(lib.ones(2, requires_grad=True)))

    _same(scenario, torch)


def test_custom_function_in_a_larger_graph(torch):
    def scenario(lib):
        x = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
        w = lib.tensor([[0.5], [-1.0]], requires_grad=True)
        MulK = _mul_k(lib)
        h = MulK.apply(x.mm(w).tanh(), 2.0)
        loss = (h * h).sum()
        loss.backward()
        return [x.grad, w.grad, [type(f).__name__ for f, _ in h.grad_fn.next_functions]]

    _same(scenario, torch)


# ---- step 2: setup_context ----

def test_setup_context_style(torch):
    def scenario(lib):
        seen = []

        class New(lib.autograd.Function):
            @staticmethod
            def forward(x, k=2.0, flag=False):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen.append([len(inputs), inputs[1:], ctx.needs_input_grad])
                ctx.k = inputs[1]
                ctx.save_for_backward(output)

            @staticmethod
            def backward(ctx, grad):
                (out,) = ctx.saved_tensors
                return grad * ctx.k, None, None

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = New.apply(x, flag=True)
        y.sum().backward()

        class WithCtx(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, grad):
                return grad

        return [seen, x.grad, _node_name(y), _err(lambda: WithCtx.apply(x))]

    _same(scenario, torch)


# ---- step 3 ----

def test_mark_non_differentiable_and_integer_outputs(torch):
    def scenario(lib):
        seen = []

        class ND(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a, b = x * 2, x * 3
                ctx.mark_non_differentiable(b)
                return a, b, lib.tensor([1, 2])

            @staticmethod
            def backward(ctx, g1, g2, g3):
                seen.extend([g1, g2, g3])
                return g1 * 2

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b, c = ND.apply(x)
        a.sum().backward()
        return [b.requires_grad, b.grad_fn is None, c.requires_grad, seen, x.grad]

    _same(scenario, torch)


def test_set_materialize_grads_false_passes_none(torch):
    def scenario(lib):
        seen = []

        class NM(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.extend([g1, g2])
                return None if g1 is None else g1 * 2

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b = NM.apply(x)
        b.sum().backward()
        return [seen, x.grad]

    _same(scenario, torch)


def test_double_backward_through_custom_function(torch):
    def scenario(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(x, y)
                return x * x + y

            @staticmethod
            def backward(ctx, grad):
                x, y = ctx.saved_tensors
                return grad * (2 * x + y)

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (gx,) = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
        name = _node_name(gx)
        gx.sum().backward()
        return [gx, name, x.grad]

    _same(scenario, torch)


def test_once_differentiable(torch):
    def scenario(lib):
        once = lib.autograd.function.once_differentiable
        modes = []

        class OD(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            @once_differentiable_of(once)
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                modes.append(lib.is_grad_enabled())
                return 2 * x * grad

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (gx,) = lib.autograd.grad(OD.apply(x).sum(), x, create_graph=True)
        out = [gx, gx.requires_grad, modes]
        y = OD.apply(x)
        seed = lib.ones(2, requires_grad=True)
        (gx,) = lib.autograd.grad(y, x, seed, create_graph=True)
        out += [_node_name(gx), gx.grad_fn.name(), gx._is_view(),
                [type(f).__name__ for f, _ in gx.grad_fn.next_functions],
                _err(lambda: gx.sum().backward())]
        return out

    _same(scenario, torch)


def once_differentiable_of(once):
    return once


# ---- step 4: mark_dirty, inputs returned unchanged ----

def _double_inplace(lib):
    class Dbl(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return Dbl


def test_mark_dirty(torch):
    def scenario(lib):
        Dbl = _double_inplace(lib)
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        out = {"leaf_err": _err(lambda: Dbl.apply(leaf)), "leaf": leaf,
               "leaf_version": leaf._version}
        a = leaf.detach() * 1
        a.requires_grad_(False)
        b = leaf * 1
        o = Dbl.apply(b)
        out.update(same=o is b, name=_node_name(b), version=b._version)
        o.sum().backward()
        out["grad"] = leaf.grad
        leaf.grad = None
        base = leaf.clone()
        v = base[:1]
        o = Dbl.apply(v)
        out.update(view_same=o is v, view_name=_node_name(v), base_name=_node_name(base),
                   view_version=v._version)
        base.sum().backward()
        out["view_grad"] = leaf.grad
        t = lib.ones(2)
        Dbl.apply(t)
        out["no_grad_version"] = t._version

        class NotReturned(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad

        out["not_returned"] = _err(lambda: NotReturned.apply(leaf * 1))
        return out

    _same(scenario, torch)


def test_input_returned_unchanged_is_a_view(torch):
    def scenario(lib):
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 3

        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        a = leaf * 1
        o = Id.apply(a)
        out = [o is a, o._base is a, o._is_view(), _node_name(o), o._version]
        o.sum().backward()
        out.append(leaf.grad)
        o = Id.apply(leaf * 1)
        out.append(_err(lambda: o.mul_(2)))
        plain = Id.apply(lib.ones(2))
        out += [plain._is_view(), plain.grad_fn is None]
        return out

    _same(scenario, torch)


# ---- step 5: errors ----

def test_errors_of_misdefined_functions(torch):
    def scenario(lib):
        Function = lib.autograd.Function
        x = lib.ones(2, requires_grad=True)

        class NoBackward(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        class NoForward(Function):
            pass

        class NonStatic(Function):
            def forward(self, ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        MulK = _mul_k(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            inst = MulK()
        return [_err(lambda: NoBackward.apply(x).sum().backward()),
                _err(lambda: NoForward.apply(x)),
                _err(lambda: NonStatic.apply(x)),
                _err(lambda: inst(x, 2.0)),
                [(w.category.__name__, str(w.message).replace("test_custom_function.", ""))
                 for w in caught]]

    _same(scenario, torch)


def test_python_error_in_backward_propagates(torch):
    def scenario(lib):
        def boom(lib, g):
            raise ValueError("boom")

        F = _returning(lib, boom)
        return _err(lambda: F.apply(lib.ones(2, requires_grad=True)).sum().backward())

    _same(scenario, torch)


def test_node_releases_ctx_promptly():
    # The node holds ctx; ctx only points back weakly, so dropping the output
    # frees both without the garbage collector.
    import gc
    import weakref

    F = _mul_k(gradtrack)
    x = gradtrack.ones(2, requires_grad=True)
    y = F.apply(x, 2.0)
    ref = weakref.ref(y.grad_fn)
    gc.disable()
    try:
        del y
        assert ref() is None
    finally:
        gc.enable()


def test_values_match_numpy():
    x = gradtrack.tensor([1.0, 2.0], requires_grad=True)
    y = _mul_k(gradtrack).apply(x, 4.0)
    np.testing.assert_allclose(y.detach().numpy(), [4.0, 8.0])


# ---- views made in forward, vjp + backward, apply's kwargs, dead outputs ------------------

def _scenario_errors(lib):
    out = []

    class Both(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    x = lib.ones(2, requires_grad=True)
    out.append(_err(lambda: Both.apply(x).sum().backward()))

    class Kw(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, scale=2.0, shift=0.0):
            return a * scale + shift

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    out.append(_err(lambda: Kw.apply(x, bogus=1)))
    out.append(_err(lambda: Kw.apply(x, 3.0, scale=1)))
    out.append(_err(lambda: Kw.apply(x, shift=1.0)))
    out.append(Kw.apply(x, 3.0, shift=1.0))
    return out


def test_both_vjp_and_kwarg_errors(torch):
    assert _norm(_scenario_errors(gradtrack), gradtrack) == _norm(_scenario_errors(torch), torch)


def _scenario_views_in_forward(lib):
    out = []

    class ViewOfIntermediate(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return (a * 1).view(2, 1)[0]

        @staticmethod
        def backward(ctx, g):
            return g.expand(2) * 0 + 1

    class ViewOfInput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a[0:1]

        @staticmethod
        def backward(ctx, g):
            return lib.cat([g, g])

    for cls in (ViewOfIntermediate, ViewOfInput):
        x = lib.ones(2, requires_grad=True)
        y = cls.apply(x)
        out.append((type(y.grad_fn).__name__, y._base is x, y._version))
        out.append(_err(lambda: y.mul_(2)))
        y.sum().backward()
        out.append(x.grad)
    return out


def test_views_created_inside_forward(torch):
    assert (_norm(_scenario_views_in_forward(gradtrack), gradtrack)
            == _norm(_scenario_views_in_forward(torch), torch))


def test_grad_fn_outlives_its_outputs(torch):
    import gc

    def run(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = lib.ones(2, requires_grad=True)
        y = Twice.apply(x)
        g = y.grad_fn
        del y
        gc.collect()
        nf = g.next_functions
        handles = [g.register_hook(lambda gi, go: None), g.register_prehook(lambda go: None)]
        for h in handles:
            h.remove()
        return [len(nf), type(nf[0][0]).__name__, nf[0][1], nf[0][0].variable is x, g.name(),
                g.metadata, [type(h).__name__ for h in handles]]

    assert run(gradtrack) == run(torch)


@pytest.mark.parametrize("extra_number", [False, True])
def test_backward_returning_a_non_tensor_gradient_raises_as_torch(torch, extra_number):
    # Both paths of the check: every forward input a tensor, and one a number.
    def run(lib):
        Bad = _returning(lib, lambda lib, g: (3.0, None) if extra_number else 3.0)
        x = lib.ones(2, requires_grad=True)
        y = Bad.apply(x, 5) if extra_number else Bad.apply(x)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        return str(info.value)

    assert run(gradtrack) == run(torch) == "expected Variable or None (got float)"


# A Function that writes a view in place and marks it dirty: the base's history becomes
# CopySlices around the Function's node, and the view's own node is made again from it,
# so a backward through the view runs the Function's backward (it skipped it, giving the
# gradient of the write not having happened, with no error).
def _through_view(lib, write, weights):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[1:]
    write(lib, v)
    (v * lib.tensor(weights)).sum().backward()
    return [x.grad, v._version, type(v.grad_fn).__name__, y.grad_fn.name()]


def _through_base(lib, write):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    write(lib, y[1:])
    (y * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
    return [x.grad]


DIRTY_VIEW_WRITES = {
    "function_mark_dirty": lambda lib, v: _double_inplace(lib).apply(v),
    "round_decimals": lambda lib, v: v.round_(decimals=2),
    "read_node_first": lambda lib, v: (v.grad_fn, _double_inplace(lib).apply(v)),
}


@pytest.mark.parametrize("write", DIRTY_VIEW_WRITES)
def test_backward_through_a_dirty_view(torch, write):
    _same(lambda lib: _through_view(lib, DIRTY_VIEW_WRITES[write], [10.0, 100.0]), torch)


@pytest.mark.parametrize("write", DIRTY_VIEW_WRITES)
def test_backward_through_the_base_of_a_dirty_view(torch, write):
    _same(lambda lib: _through_base(lib, DIRTY_VIEW_WRITES[write]), torch)


def test_a_dirty_view_s_node_reaches_the_function():
    got = _through_view(gradtrack, DIRTY_VIEW_WRITES["function_mark_dirty"], [10.0, 100.0])
    assert got[0].tolist() == [0.0, 20.0, 200.0]
