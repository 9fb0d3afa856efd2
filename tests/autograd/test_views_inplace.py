"""In-place writes on views: CopySlices, AsStridedBackward0, regeneration of
other views, and the forbidden view + in-place combinations
compared with torch 2.13.

``lib``-parametrized tests pin the measured behaviour (gradtrack always runs; the
torch run checks the reference and is skipped without torch). ``same(scenario)``
tests run one scenario with both libraries and compare outcomes.
"""

import pytest

from helpers import name, nexts, raises, same, spell, summary


MULTI_VIEW_ERROR = (
    "Output {k} of {op} is a view and is being modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to be "
    "modified inplace. You should replace the inplace operation by an out-of-place one.")
NO_GRAD_VIEW_ERROR = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
NO_GRAD_VIEW_LAZY_ERROR = (
    "A view was created in no_grad mode and its base or another view of its base has been "
    "modified inplace with grad mode enabled. Given that this use case is ambiguous and "
    "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) "
    "or both outside (if you want the inplace to be tracked).")


# ============================================================================================
# Rule 1/2: CopySlices on the base, AsStridedBackward0 on the view, correct grads
# ============================================================================================

def test_select_view_mul_gives_copyslices(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[0]
    assert name(v.grad_fn) == "SelectBackward0"
    assert v._base is y and v._is_view()
    v.mul_(2)
    assert repr(y) == "tensor([2., 2., 3.], grad_fn=<CopySlices>)"
    assert y.grad_fn.name() == spell("torch::autograd::CopySlices", lib)
    assert name(y.grad_fn) == "CopySlices"
    assert name(v.grad_fn) == "AsStridedBackward0"
    assert nexts(y.grad_fn) == [("MulBackward0", 0), (None, 0)]
    assert nexts(v.grad_fn) == [("CopySlices", 0)]
    (y * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 10.0, 100.0]


def test_view_add_gives_copyslices_and_asstrided(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    w = y.view(4)
    assert name(w.grad_fn) == "ViewBackward0"
    w.add_(1)
    assert (name(y.grad_fn), name(w.grad_fn)) == ("CopySlices", "AsStridedBackward0")
    assert nexts(w.grad_fn) == [("CopySlices", 0)]
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_copyslices_next_functions_with_grad_operand(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor(5.0, requires_grad=True)
    y = x * 1
    y[1:].mul_(w)
    assert nexts(y.grad_fn) == [("MulBackward0", 0), ("AccumulateGrad", 0)]
    y.sum().backward()
    assert (x.grad.tolist(), w.grad.item()) == ([1.0, 5.0, 5.0], 5.0)


def test_setitem_basic_index_on_non_leaf(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[1] = 0
    assert repr(y) == "tensor([2., 0., 6.], grad_fn=<CopySlices>)"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0]


@pytest.mark.parametrize("index", ["tensor", "mask"])
def test_setitem_advanced_index_gives_index_put(lib, index):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    if index == "tensor":
        y[lib.tensor([0, 2])] = lib.tensor([7.0, 8.0])
        expected = [0.0, 2.0, 0.0]
    else:
        y[y > 3] = 0
        expected = [2.0, 0.0, 0.0]
    assert name(y.grad_fn) == "IndexPutBackward0"
    y.sum().backward()
    assert x.grad.tolist() == expected


def test_base_inplace_regenerates_existing_view(lib):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    v = y[1:3]
    assert name(v.grad_fn) == "SliceBackward0"
    y.mul_(10)
    assert repr(v) == "tensor([20., 30.], grad_fn=<AsStridedBackward0>)"
    assert nexts(v.grad_fn) == [("MulBackward0", 0)]
    v.sum().backward()
    assert x.grad.tolist() == [0.0, 10.0, 10.0, 0.0]


def test_other_view_of_same_base_is_regenerated(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    a, b = y[0:1], y[1:]
    a.mul_(5)
    assert name(b.grad_fn) == "AsStridedBackward0"
    assert nexts(b.grad_fn) == [("CopySlices", 0)]
    (b * b).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 6.0]


def test_view_of_view_points_at_root_base(lib):
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 1
    v1 = y[0]
    v2 = v1[1:]
    assert v2._base is y
    v2.mul_(3)
    assert repr(y) == "tensor([[1., 6.],\n        [3., 4.]], grad_fn=<CopySlices>)"
    assert (name(v1.grad_fn), name(v2.grad_fn)) == ("AsStridedBackward0", "AsStridedBackward0")
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0], [1.0, 1.0]]


def test_transposed_view_fill(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = x * 1
    y.t()[0].fill_(5)
    assert repr(y) == "tensor([[5., 1., 1.],\n        [5., 1., 1.]], grad_fn=<CopySlices>)"
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]


# ============================================================================================
# Plain buffers becoming non-leaves
# ============================================================================================

def test_copy_grad_source_into_view_of_plain_buffer(lib):
    a = lib.ones(3, requires_grad=True)
    b = lib.zeros(3, 2)
    bv = b[:, 0]
    bv.copy_(a)
    assert (b.requires_grad, name(b.grad_fn), b.is_leaf) == (True, "CopySlices", False)
    assert name(bv.grad_fn) == "AsStridedBackward0"
    (b * 2).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_copy_into_plain_tensor_gives_copybackwards(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c = lib.zeros(3)
    c.copy_(a)
    assert (c.requires_grad, name(c.grad_fn), c.is_leaf) == (True, "CopyBackwards", False)
    assert c.grad_fn.name() == spell("torch::autograd::CopyBackwards", lib)
    (c * c).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]


def test_setitem_grad_value_into_plain_buffer(lib):
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    c3 = lib.zeros(3)
    c3[0] = a[1]
    assert name(c3.grad_fn) == "CopySlices"
    buf = lib.zeros(2)
    buf[0] = a.sum()
    buf[1] = (a * a).sum()
    assert name(buf.grad_fn) == "CopySlices"
    buf.sum().backward()
    assert a.grad.tolist() == [3.0, 5.0, 7.0]


def test_accumulate_into_preallocated_buffer():
    def scenario(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        buf = L.zeros(3, 2)
        h = x
        for i in range(3):
            h = (h @ w).tanh()
            buf[i] = h
        buf.add_(x)
        (buf ** 2).sum().backward()
        return buf, x.grad, w.grad, buf.is_leaf

    same(scenario)


# ============================================================================================
# Metadata in-place ops on non-leaves
# ============================================================================================

def test_metadata_inplace_on_non_leaf_and_view(lib):
    x = lib.ones(2, 3, requires_grad=True)
    y = x * 1
    y.t_()
    assert name(y.grad_fn) == "TBackward1"
    z = x * 1
    v = z[0]
    v.unsqueeze_(0)
    assert name(v.grad_fn) == "UnsqueezeBackward1"
    assert tuple(v.shape) == (1, 3)


def test_metadata_inplace_grads_match_torch():
    def scenario(L):
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = x * 1
        y.t_()
        y.unsqueeze_(1)
        y.squeeze_()
        v = (x * 2)[1]
        v.unsqueeze_(0)
        (y * L.tensor([[1.0, 2.0]])).sum().backward(retain_graph=True)
        (v * v).sum().backward()
        return y, v, x.grad

    same(scenario)


def test_as_strided_inplace_grads_and_versions_match_torch():
    def scenario(L):
        x = L.arange(8.0, requires_grad=True)
        y = x * 1
        y.as_strided_((2, 3), (1, 2), 1)  # overlapping-free windows over y's storage
        v = (x * 2)[:6]
        v.as_strided_((3, 2), (2, 1))
        w = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        (y * w).sum().backward(retain_graph=True)
        (v * v).sum().backward()
        return y, v, x.grad, y._version, v._version, name(y.grad_fn), name(v.grad_fn)

    same(scenario)


def test_as_strided_inplace_refusals_leave_the_tensor_as_it_was(lib):
    t = lib.arange(6.0)
    for args, message in [(((7,), (1,)), "out of bounds for storage of size 24"),
                          (((2,), (1,), -1), "invalid storage offset -1"),
                          (((2, 3), (1,)), "mismatch in length of strides and shape"),
                          (((2,), (-1,)), "Negative strides are not supported")]:
        with pytest.raises(RuntimeError, match=message):
            t.as_strided_(*args)
        assert t.shape == (6,) and t.stride() == (1,) and t._version == 0
    leaf = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        leaf.as_strided_((3,), (1,))


# ============================================================================================
# Grad correctness: many view + in-place scenarios against torch
# ============================================================================================

def s_select_column_mul(L, x):
    y = x * 1
    y[:, 1].mul_(3)
    return (y * y).sum()


def s_slice_add_grad_operand(L, x):
    y = x.exp()
    y[0, 1:].add_(x[1, :2] * 2)
    return y.sum()


def s_view_chain(L, x):
    y = x * 2
    v = y.view(6)[1:5].view(2, 2)
    v.mul_(v.detach() + 1)
    return (y ** 2).sum()


def s_transpose_sub(L, x):
    y = x + 0
    y.t()[1:].sub_(1.5)
    return (y * x).sum()


def s_setitem_scalar_then_use(L, x):
    y = x.sigmoid() * 1
    y[1, 2] = 0.25
    y[0] = y[1] * 3
    return y.sum()


def s_index_put_then_view(L, x):
    y = x * 1
    y[L.tensor([0, 1]), L.tensor([2, 0])] = L.tensor([5.0, 6.0])
    y[0].mul_(2)
    return (y * y).sum()


def s_mask_fill_then_slice(L, x):
    y = x * 3
    y.masked_fill_(x > 0.7, 0.0)
    y[:, :2].div_(2)
    return y.sum()


def s_view_modified_then_base_modified(L, x):
    y = x * 1
    v = y[1]
    v.mul_(2)
    y.mul_(y.detach())
    return (v.sum() + y.sum())


def s_base_modified_view_used(L, x):
    y = x * 1
    v = y[:, 0]
    y.add_(x)
    return (v * 10).sum()


def s_expand_source_copy(L, x):
    y = L.zeros(2, 3)
    y.copy_(x[0].expand(2, 3))
    y[1].mul_(x[1])
    return y.sum()


def s_clamp_on_view(L, x):
    y = x * 4
    y[0].clamp_(1.0, 3.0)
    return (y * y).sum()


def s_copy_slices_twice(L, x):
    y = x * 1
    y[0].copy_(x[1])
    y[1].copy_(x[0] * 2)
    return (y ** 3).sum()


def s_relu_on_view_of_sum(L, x):
    y = x - 0.7
    y[1:].relu_()
    return (y * L.tensor([[1.0, 2.0, 3.0]])).sum()


def s_unsqueeze_view_then_inplace(L, x):
    y = x * 1
    v = y.unsqueeze(0)
    v.mul_(2)
    return (y * y).sum()


GRAD_SCENARIOS = {f.__name__[2:]: f for f in (
    s_select_column_mul, s_slice_add_grad_operand, s_view_chain, s_transpose_sub,
    s_setitem_scalar_then_use, s_index_put_then_view, s_mask_fill_then_slice,
    s_view_modified_then_base_modified, s_base_modified_view_used, s_expand_source_copy,
    s_clamp_on_view, s_copy_slices_twice, s_relu_on_view_of_sum, s_unsqueeze_view_then_inplace)}


@pytest.mark.parametrize("case", list(GRAD_SCENARIOS))
def test_view_inplace_grads_match_torch(case):
    def scenario(L):
        x = L.tensor([[0.5, 0.6, 0.8], [0.9, 1.1, 1.3]], requires_grad=True)
        loss = GRAD_SCENARIOS[case](L, x)
        loss.backward()
        return loss, x.grad

    same(scenario)


# ============================================================================================
# Forbidden combinations
# ============================================================================================

@pytest.mark.parametrize("how,k,op", [("split", 0, "Split"), ("split", 1, "Split"),
                                      ("chunk", 0, "Split"), ("chunk", 1, "Split"),
                                      ("unbind", 0, "Unbind"), ("unbind", 2, "Unbind")])
def test_inplace_on_multi_output_view_refused(lib, how, k, op):
    x = lib.ones(4, requires_grad=True)
    y = x * 1
    parts = {"split": lambda: y.split(2), "chunk": lambda: y.chunk(2),
             "unbind": lambda: y.unbind(0)}[how]()
    raises(lib, RuntimeError, MULTI_VIEW_ERROR.format(k=k, op=op), lambda: parts[k].mul_(2))
    assert y._version == 0 and y.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_multi_output_views_names_and_allowed_uses():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        a, b = y.split(2)
        names = [type(a.grad_fn).__name__, a.grad_fn is b.grad_fn, a.output_nr, b.output_nr]
        with L.no_grad():
            a.mul_(2)  # allowed when nothing is tracked
        c = b * 3
        out = (a.sum() + c.sum())
        out.backward()
        plain = L.ones(4).split(2)[0]
        plain.add_(1)  # nothing requires grad: allowed
        return names, x.grad, plain

    same(scenario)


def test_no_grad_view_modified_in_grad_mode_refused(lib):
    x = lib.ones(4, requires_grad=True)
    y = x * 1
    with lib.no_grad():
        v = y[:2]
    raises(lib, RuntimeError, NO_GRAD_VIEW_ERROR, lambda: v.mul_(2))


def test_no_grad_view_of_leaf_modified_in_grad_mode_refused(lib):
    x = lib.ones(4, requires_grad=True)
    with lib.no_grad():
        v = x[:2]
    raises(lib, RuntimeError, NO_GRAD_VIEW_ERROR, lambda: v.mul_(2))


def test_no_grad_view_flags_match_torch():
    def scenario(L):
        x = L.ones(4, requires_grad=True)
        y = x * 1
        with L.no_grad():
            v = y[:2]
            w = x[1:]
        return v.requires_grad, v.is_leaf, v.grad_fn, w.requires_grad, w.is_leaf, v._is_view()

    same(scenario)


def test_grad_mode_view_modified_in_no_grad_is_allowed(lib):
    x = lib.ones(4, requires_grad=True)
    y = x * 1
    v = y[:2]
    with lib.no_grad():
        v.mul_(2)
    assert (name(v.grad_fn), name(y.grad_fn)) == ("AsStridedBackward0", "MulBackward0")
    assert y.tolist() == [2.0, 2.0, 1.0, 1.0]


def test_grad_mode_view_modified_in_no_grad_grads_match_torch():
    def scenario(L):
        x = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        v = y[:2]
        with L.no_grad():
            v.mul_(2)
        (v.sum() + (y * y).sum()).backward()
        return x.grad

    same(scenario)


def test_no_grad_view_of_leaf_modified_in_no_grad_lazy_error(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        v = x[0]
        v.mul_(2)
        assert v.requires_grad is True
        assert repr(v) == "tensor(2., grad_fn=<Invalid>)"
        raises(lib, RuntimeError, NO_GRAD_VIEW_LAZY_ERROR, lambda: v.grad_fn)
    assert v.requires_grad is True
    raises(lib, RuntimeError, NO_GRAD_VIEW_LAZY_ERROR, lambda: v.grad_fn)
    raises(lib, RuntimeError, NO_GRAD_VIEW_LAZY_ERROR, lambda: v.is_leaf)
    raises(lib, RuntimeError, NO_GRAD_VIEW_LAZY_ERROR, lambda: v * 2)
    assert repr(v) == "tensor(2., grad_fn=<Invalid>)"


def test_no_grad_view_base_modified_in_grad_mode_lazy_error(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    with lib.no_grad():
        w = y[:1]
    y.mul_(2)
    raises(lib, RuntimeError, NO_GRAD_VIEW_LAZY_ERROR, lambda: w.grad_fn)
    assert repr(w) == "tensor([2.], grad_fn=<Invalid>)"


def test_no_grad_view_base_modified_in_no_grad_lazy_error(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    with lib.no_grad():
        w = y[:1]
        y.mul_(2)
    raises(lib, RuntimeError, NO_GRAD_VIEW_LAZY_ERROR, lambda: w.grad_fn)


def test_no_grad_view_states_match_torch():
    def scenario(L):
        out = []
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.no_grad():
            v = x[0]
            v.mul_(2)
        for read in (lambda: v.requires_grad, lambda: v.is_leaf, lambda: v.grad_fn,
                     lambda: repr(v), lambda: v._version, lambda: v * 2):
            try:
                out.append(summary(read()))
            except RuntimeError as e:
                out.append(str(e))
        return out

    same(scenario)


def test_views_of_plain_tensors_in_no_grad_are_free():
    def scenario(L):
        t = L.zeros(4)
        with L.no_grad():
            v = t[:2]
        v.add_(1)
        w = t[2:]
        with L.no_grad():
            w.add_(2)
        return t, v, w, t._version

    same(scenario)


def test_is_view_and_base_rules():
    def scenario(L):
        x = L.ones(4)
        m = L.ones(2, 2)
        return (x[1:]._base is x, x.view(2, 2)._base is x, x[L.tensor([0, 1])]._is_view(),
                x.reshape(2, 2)._is_view(), m.t().contiguous()._is_view(), x.detach()._is_view(),
                x.data._is_view(), x._base is None, m.t().reshape(4)._is_view())

    same(scenario)


def test_retain_grad_on_no_grad_view_after_its_base_changed():
    # Found by the fuzzer: PyTorch decides "leaf" for retain_grad by the stored node, so
    # this is a no-op, while reading grad_fn (or is_leaf from Python) raises.
    def retained(L):
        t0 = L.tensor([[-1.25, 3.0, -0.5]], requires_grad=True)
        with L.no_grad():
            t1 = t0.squeeze()
            t0.detach().zero_()
        t1.retain_grad()
        return t1

    def scenario(L):
        t1 = retained(L)
        return t1.retains_grad, t1.requires_grad, t1.grad

    def then_grad_fn(L):
        return retained(L).grad_fn

    same(scenario)
    same(then_grad_fn)


def test_stale_no_grad_view_operand_raises_before_the_kernel_checks():
    # Found by the fuzzer: PyTorch reads the operands' histories before its kernel checks
    # overlap or shapes, so the no-grad-view error wins over the overlap error.
    def overlapping(L):
        t0 = L.tensor([[-0.25], [-1.75], [-1.75]], requires_grad=True)
        t1 = t0 - 2
        with L.no_grad():
            t2 = t1[:1]
        t1 /= 2
        try:
            t1 /= t2
        except RuntimeError as e:
            return str(e), t1._version, t1.tolist()

    def bad_shape(L):
        t0 = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        base = t0 * 1
        with L.no_grad():
            v = base[0]
        base.mul_(2)
        t = t0 * 1
        try:
            t[:, :1].add_(v)
        except RuntimeError as e:
            return str(e), t._version

    same(overlapping)
    same(bad_shape)
