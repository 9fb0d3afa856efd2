"""The Tensor object's Python surface: metadata, conversions (item/tolist/numpy/
__array__), operators incl. reflected ones, __len__/__iter__, __getitem__/
__setitem__, __format__, dtype objects, Size, RNG seeding and thread settings.

Table-driven cases run one builder with gradtrack and torch and compare;
pinned values run without torch.
"""

import operator

import numpy as np
import pytest

import gradtrack

GT = gradtrack


def same_dtype(g, t):
    return str(g.dtype) == str(t.dtype).replace("torch.", "gradtrack.")


# ---- metadata --------------------------------------------------------------------------------

def test_shape_size_dim_numel():
    t = GT.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, GT.Size)
    assert t.size() == GT.Size([2, 3, 4]) and t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == 3 and t.ndim == 3 and t.ndimension() == 3
    assert t.numel() == 24 and t.nelement() == 24 and GT.numel(t) == 24
    s = GT.tensor(5.0)
    assert s.shape == () and s.dim() == 0 and s.numel() == 1
    e = GT.zeros(0, 3)
    assert e.shape == (0, 3) and e.numel() == 0
    assert t.element_size() == 4 and GT.zeros(1, dtype=GT.float64).element_size() == 8


def test_size_out_of_range_is_index_error(torch):
    messages = []
    for lib in (GT, torch):
        with pytest.raises(IndexError) as info:
            lib.zeros(2, 3).size(2)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_dtype_attribute_and_objects():
    assert GT.ones(1).dtype is GT.float32
    assert repr(GT.float32) == "gradtrack.float32" and str(GT.float64) == "gradtrack.float64"
    assert GT.float is GT.float32 and GT.double is GT.float64
    assert GT.long is GT.int64 and GT.int is GT.int32
    assert repr(GT.bool) == "gradtrack.bool" and repr(GT.uint8) == "gradtrack.uint8"
    assert repr(GT.long) == "gradtrack.int64" and repr(GT.double) == "gradtrack.float64"
    assert GT.float32.is_floating_point and not GT.int64.is_floating_point
    assert not GT.bool.is_floating_point
    assert GT.float32 != GT.float64 and GT.float32 == GT.float
    assert hash(GT.float32) == hash(GT.float)
    assert GT.float32.itemsize == 4 and GT.int64.itemsize == 8 and GT.bool.itemsize == 1


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32", "uint8", "bool"])
def test_dtype_repr_matches_torch(torch, name):
    assert repr(getattr(GT, name)) == repr(getattr(torch, name)).replace("torch", "gradtrack")
    assert getattr(GT, name).is_signed == getattr(torch, name).is_signed


def test_size_repr_and_behaviour():
    s = GT.Size([2, 3])
    assert repr(s) == "gradtrack.Size([2, 3])" and str(s) == "gradtrack.Size([2, 3])"
    assert repr(GT.Size([])) == "gradtrack.Size([])"
    assert s == (2, 3) and isinstance(s, tuple) and s.numel() == 6
    assert isinstance(s[0:1], GT.Size) and repr(s[0:1]) == "gradtrack.Size([2])"
    assert GT.zeros(s).shape == s


def test_size_matches_torch(torch):
    for dims in ([], [0], [2, 3], [1, 1, 5]):
        assert repr(GT.Size(dims)) == repr(torch.Size(dims)).replace("torch", "gradtrack")
        assert GT.Size(dims).numel() == torch.Size(dims).numel()
    assert repr(GT.zeros(2, 3).shape + (4,)) == \
        repr(torch.zeros(2, 3).shape + (4,)).replace("torch", "gradtrack")


# ---- item / tolist / numpy / __array__ -------------------------------------------------------

@pytest.mark.parametrize("make,expected,kind", [
    (lambda: GT.tensor(2.5), 2.5, float),
    (lambda: GT.tensor([7]), 7, int),
    (lambda: GT.tensor([[True]]), True, bool),
    (lambda: GT.tensor(3, dtype=GT.uint8), 3, int),
    (lambda: GT.tensor(1.5, dtype=GT.float64), 1.5, float),
    (lambda: GT.ones(2, 3)[1, 2], 1.0, float),
], ids=["float", "int_1elem", "bool_2d", "uint8", "float64", "view"])
def test_item(make, expected, kind):
    value = make().item()
    assert value == expected and type(value) is kind


def test_tolist_matches_torch(torch):
    cases = [lambda lib: lib.tensor([[1, 2], [3, 4]]), lambda lib: lib.tensor(2.5),
             lambda lib: lib.tensor([True, False]), lambda lib: lib.zeros(0, 2),
             lambda lib: lib.arange(6.0).view(2, 3).t(),
             lambda lib: lib.tensor([1, 2], dtype=lib.uint8)]
    for build in cases:
        g, t = build(GT).tolist(), build(torch).tolist()
        assert g == t and type(g) is type(t)
        if isinstance(g, list) and g and not isinstance(g[0], list):
            assert [type(v) for v in g] == [type(v) for v in t]


@pytest.mark.parametrize("dtype,np_dtype", [
    ("float32", np.float32), ("float64", np.float64), ("int64", np.int64),
    ("int32", np.int32), ("uint8", np.uint8), ("bool", np.bool_)])
def test_numpy_dtype_and_zero_copy(dtype, np_dtype):
    t = GT.zeros(2, 3, dtype=getattr(GT, dtype))
    a = t.numpy()
    assert a.dtype == np_dtype and a.shape == (2, 3)
    assert a.ctypes.data == t.data_ptr()
    a[0, 1] = 1
    assert t[0, 1].item() == 1
    t[1, 2] = 1
    assert a[1, 2] == 1


def test_numpy_of_view_keeps_strides_and_aliases():
    t = GT.arange(12.0).view(3, 4)
    v = t.t()[1:]
    a = v.numpy()
    assert a.shape == (3, 3) and a.strides == (4, 16)
    a[0, 0] = -1
    assert t[0, 1].item() == -1.0


def test_numpy_of_requires_grad_refused(torch):
    with pytest.raises(RuntimeError) as g:
        GT.ones(2, requires_grad=True).numpy()
    with pytest.raises(RuntimeError) as t:
        torch.ones(2, requires_grad=True).numpy()
    assert str(g.value) == str(t.value)


def test_array_protocol_numpy2():
    t = GT.arange(3.0)
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.ctypes.data == t.data_ptr()
    c = np.array(t, copy=True)
    assert c.ctypes.data != t.data_ptr()
    c[0] = 9
    assert t[0].item() == 0.0
    d = np.asarray(t, dtype=np.float64)
    assert d.dtype == np.float64 and d.tolist() == [0.0, 1.0, 2.0]
    assert t.__array__().dtype == np.float32
    assert t.__array__(dtype=np.int64).dtype == np.int64
    assert t.__array__(copy=None).ctypes.data == t.data_ptr()
    assert np.add(t, 1).tolist() == [1.0, 2.0, 3.0]


def test_array_protocol_matches_torch(torch):
    for build in (lambda lib: lib.arange(4).view(2, 2), lambda lib: lib.tensor(True),
                  lambda lib: lib.zeros(0, 3)):
        g, t = np.asarray(build(GT)), np.asarray(build(torch))
        assert g.dtype == t.dtype and g.shape == t.shape and (g == t).all()


def test_data_ptr_of_views():
    t = GT.zeros(3, 4)
    assert t[1].data_ptr() == t.data_ptr() + 16
    assert t[:, 2].data_ptr() == t.data_ptr() + 8
    assert t.t().data_ptr() == t.data_ptr()


def test_grad_is_the_same_object():
    x = GT.ones(3, requires_grad=True)
    (x * x).sum().backward()
    g = x.grad
    assert x.grad is x.grad and g is x.grad
    (x * x).sum().backward()
    assert x.grad is g and g.tolist() == [4.0, 4.0, 4.0]


# ---- operators -------------------------------------------------------------------------------

def _a(lib):
    return lib.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])


def _i(lib):
    return lib.tensor([[3, -2, 7], [1, 4, -5]])


def _b(lib):
    return lib.tensor([True, False, True])


OPERATORS = {
    "add": lambda lib: _a(lib) + _a(lib)[0],
    "radd_int": lambda lib: 2 + _a(lib),
    "radd_float_to_int": lambda lib: 2.5 + _i(lib),
    "sub": lambda lib: _a(lib) - 1,
    "rsub": lambda lib: 1 - _a(lib),
    "rsub_int": lambda lib: 10 - _i(lib),
    "mul": lambda lib: _a(lib) * _i(lib),
    "rmul": lambda lib: 3 * _i(lib),
    "rmul_bool": lambda lib: True * _b(lib),
    "truediv": lambda lib: _i(lib) / 2,
    "rtruediv": lambda lib: 2 / _a(lib),
    "rtruediv_int": lambda lib: 6 / _i(lib),
    "floordiv": lambda lib: _i(lib) // 3,
    "floordiv_float": lambda lib: _a(lib) // 0.75,
    "rfloordiv": lambda lib: 7 // _i(lib),
    "mod": lambda lib: _i(lib) % 3,
    "mod_float": lambda lib: _a(lib) % 1.25,
    "rmod": lambda lib: 7 % _i(lib),
    "pow": lambda lib: _a(lib) ** 2,
    "pow_tensor": lambda lib: _a(lib).abs() ** _a(lib),
    "rpow": lambda lib: 2 ** _a(lib),
    "rpow_int": lambda lib: 2 ** _i(lib).abs(),
    "matmul": lambda lib: _a(lib) @ _a(lib).t(),
    "matmul_vec": lambda lib: _a(lib) @ lib.tensor([1.0, 2.0, 3.0]),
    "neg": lambda lib: -_a(lib),
    "pos": lambda lib: +_i(lib),
    "abs": lambda lib: abs(_i(lib)),
    "invert_bool": lambda lib: ~_b(lib),
    "invert_int": lambda lib: ~_i(lib),
    "and": lambda lib: _i(lib) & 6,
    "rand": lambda lib: 6 & _i(lib),
    "or_bool": lambda lib: _b(lib) | lib.tensor([False, False, True]),
    "ror": lambda lib: 1 | _i(lib),
    "xor": lambda lib: _i(lib) ^ _i(lib)[0],
    "rxor": lambda lib: True ^ _b(lib),
    "eq": lambda lib: _a(lib) == 3.0,
    "ne": lambda lib: _i(lib) != _i(lib)[1],
    "lt": lambda lib: _a(lib) < _i(lib),
    "le": lambda lib: _i(lib) <= 1,
    "gt": lambda lib: _a(lib) > 0,
    "ge": lambda lib: _b(lib) >= lib.tensor([True, True, False]),
    "reflected_lt": lambda lib: 1 < _a(lib),
    "reflected_eq": lambda lib: 3 == _i(lib),
    "0d_python_scalar_keeps_dtype": lambda lib: lib.tensor([1, 2], dtype=lib.uint8) + 300,
    "int_tensor_plus_bool": lambda lib: _i(lib) + True,
}


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operator_matches_torch(torch, name):
    g, t = OPERATORS[name](GT), OPERATORS[name](torch)
    assert same_dtype(g, t) and tuple(g.shape) == tuple(t.shape)
    np.testing.assert_allclose(np.asarray(g.tolist(), dtype=np.float64),
                               np.asarray(t.tolist(), dtype=np.float64), rtol=1e-6)


@pytest.mark.parametrize("name,op", [
    ("iadd", operator.iadd), ("isub", operator.isub), ("imul", operator.imul),
    ("itruediv", operator.itruediv), ("ifloordiv", operator.ifloordiv),
    ("imod", operator.imod), ("ipow", operator.ipow)])
def test_inplace_operators_keep_object_and_bump(torch, name, op):
    def run(lib):
        t = lib.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
        same = op(t, 2) is t
        return same, t._version, t.tolist()
    assert run(GT) == run(torch)
    assert run(GT)[0] is True


def test_iand_ior_ixor(torch):
    for op in (operator.iand, operator.ior, operator.ixor):
        def run(lib):
            t = lib.tensor([5, 6, 7])
            r = op(t, 3)
            return r is t, t._version, t.tolist()
        assert run(GT) == run(torch)


def test_bool_and_comparisons_of_one_element():
    assert bool(GT.tensor([2.0])) is True and bool(GT.tensor(0)) is False
    assert int(GT.tensor(3.7)) == 3 and float(GT.tensor([2])) == 2.0
    assert [10, 20, 30][GT.tensor(1)] == 20
    assert operator.index(GT.tensor(2)) == 2


def test_len_and_iter():
    t = GT.arange(6).view(3, 2).clone()
    assert len(t) == 3 and len(GT.zeros(0, 4)) == 0
    rows = list(t)
    assert len(rows) == 3 and rows[1].tolist() == [2, 3]
    assert rows[1]._is_view() and rows[1]._base is t
    assert [r.item() for r in GT.tensor([1.5, 2.5])] == [1.5, 2.5]
    assert list(GT.zeros(0)) == []


def test_iter_matches_torch(torch):
    def run(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        return [type(r.grad_fn).__name__ for r in x * 1]
    assert run(GT) == run(torch)


def test_contains():
    t = GT.tensor([[1, 2], [3, 4]])
    assert 3 in t and 5 not in t and GT.tensor(4) in t


# ---- __getitem__ / __setitem__ ---------------------------------------------------------------

def _m(lib):
    return lib.arange(12.0).view(3, 4).clone()


SETITEM = {
    "int_scalar": lambda lib, x: x.__setitem__(1, 5.0),
    "int_int_scalar": lambda lib, x: x.__setitem__((2, -1), -3),
    "slice_scalar": lambda lib, x: x.__setitem__(slice(1, None), 0.5),
    "step_slice_tensor": lambda lib, x: x.__setitem__((slice(None), slice(None, None, 2)),
                                                      lib.tensor([[1.0, 2.0]])),
    "row_broadcast_tensor": lambda lib, x: x.__setitem__(slice(None), lib.tensor([9.0, 8, 7, 6])),
    "column_tensor": lambda lib, x: x.__setitem__((Ellipsis, 1), lib.tensor([1.0, 2, 3])),
    "none_index": lambda lib, x: x.__setitem__((None, 0), 4.0),
    "0d_tensor_value": lambda lib, x: x.__setitem__(0, lib.tensor(7.0)),
    "int_value_into_float": lambda lib, x: x.__setitem__(0, 3),
    "double_value_into_float": lambda lib, x: x.__setitem__(0, lib.tensor([1.0, 2, 3, 4],
                                                                          dtype=lib.float64)),
    "bool_mask_scalar": lambda lib, x: x.__setitem__(x > 5, 0.0),
    "bool_mask_tensor": lambda lib, x: x.__setitem__(x > 8, lib.tensor([1.0, 2, 3])),
    "bool_mask_0d_tensor": lambda lib, x: x.__setitem__(x < 2, lib.tensor(-1.0)),
    "row_mask": lambda lib, x: x.__setitem__(lib.tensor([True, False, True]), -2.0),
    "row_mask_broadcast": lambda lib, x: x.__setitem__(lib.tensor([True, False, True]),
                                                       lib.tensor([1.0, 2, 3, 4])),
    "int_tensor_scalar": lambda lib, x: x.__setitem__(lib.tensor([2, 0]), 1.0),
    "int_tensor_broadcast": lambda lib, x: x.__setitem__(lib.tensor([2, 0]),
                                                         lib.tensor([1.0, 2, 3, 4])),
    "list_index": lambda lib, x: x.__setitem__([0, 2], lib.tensor([[1.0], [2.0]])),
    "two_tensors": lambda lib, x: x.__setitem__((lib.tensor([0, 2]), lib.tensor([1, 3])),
                                                lib.tensor([5.0, 6.0])),
    "slice_and_tensor": lambda lib, x: x.__setitem__((slice(1, None), lib.tensor([0, 3])), 0.0),
    "negative_tensor_index": lambda lib, x: x.__setitem__(lib.tensor([-1]), 2.0),
    "duplicate_index_last_wins": lambda lib, x: x.__setitem__(lib.tensor([1, 1]),
                                                              lib.tensor([[1.0], [1.0]])),
    "empty_mask": lambda lib, x: x.__setitem__(x > 100, 1.0),
    "ellipsis_all": lambda lib, x: x.__setitem__(Ellipsis, 0.0),
}


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_matches_torch(torch, name):
    def run(lib):
        x = _m(lib)
        SETITEM[name](lib, x)
        return x.tolist(), x._version, str(x.dtype).split(".")[-1]
    assert run(GT) == run(torch)


def test_setitem_int_tensor_casts(torch):
    def run(lib):
        x = lib.zeros(3, dtype=lib.int64)
        x[0] = 2.7
        x[1:] = lib.tensor([-1.5, 9.9])
        return x.tolist()
    assert run(GT) == run(torch) == [2, -1, 9]


GETITEM = {
    "int": lambda lib, x: x[1],
    "slices": lambda lib, x: x[1:, ::3],
    "mask": lambda lib, x: x[x > 4],
    "int_tensor": lambda lib, x: x[lib.tensor([[0], [2]]), lib.tensor([1, 3])],
    "list_of_bools": lambda lib, x: x[[True, False, True]],
    "int64_0d_tensor": lambda lib, x: x[lib.tensor(2)],
    "tuple_with_list": lambda lib, x: x[1, [0, 0, 3]],
    "none_ellipsis": lambda lib, x: x[None, ..., None],
}


@pytest.mark.parametrize("name", sorted(GETITEM))
def test_getitem_matches_torch(torch, name):
    g, t = GETITEM[name](GT, _m(GT)), GETITEM[name](torch, _m(torch))
    assert g.tolist() == t.tolist() and tuple(g.shape) == tuple(t.shape)
    assert g._is_view() == t._is_view()


def test_getitem_scalar_of_0d():
    s = GT.tensor(3.0)
    assert s[...].item() == 3.0 and s[None].shape == (1,)
    assert s[()].item() == 3.0


# ---- __format__ ------------------------------------------------------------------------------

@pytest.mark.parametrize("build,spec", [
    (lambda lib: lib.tensor(2.5), ""), (lambda lib: lib.tensor(2.5), ".2f"),
    (lambda lib: lib.tensor(3), "d"), (lambda lib: lib.tensor(3), ">5"),
    (lambda lib: lib.tensor(0.1), ".3e"), (lambda lib: lib.tensor(True), ""),
    (lambda lib: lib.tensor(1.0, dtype=lib.float64), "g"),
], ids=["plain", "2f", "int_d", "int_width", "sci", "bool", "double_g"])
def test_format_0d(torch, build, spec):
    assert format(build(GT), spec) == format(build(torch), spec)


def test_format_0d_pinned():
    assert f"{GT.tensor(2.5)}" == "2.5"
    assert format(GT.tensor(2.5), ".2f") == "2.50"
    assert f"{GT.tensor(7):03d}" == "007"


def test_format_non_0d_uses_repr(torch):
    g = format(GT.tensor([1.0, 2.0]))
    t = format(torch.tensor([1.0, 2.0]))
    assert g == t
    with pytest.raises(TypeError):
        format(GT.tensor([1.0, 2.0]), ".2f")


# ---- RNG and threads -------------------------------------------------------------------------

def test_manual_seed_reproducible():
    GT.manual_seed(1234)
    a = (GT.rand(5).tolist(), GT.randn(5).tolist(), GT.randint(0, 10, (5,)).tolist())
    GT.manual_seed(1234)
    b = (GT.rand(5).tolist(), GT.randn(5).tolist(), GT.randint(0, 10, (5,)).tolist())
    assert a == b
    GT.manual_seed(4321)
    assert GT.rand(5).tolist() != a[0]
    assert GT.initial_seed() == 4321


def test_rand_in_unit_interval():
    GT.manual_seed(0)
    x = GT.rand(100000).numpy()
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.01
    assert GT.rand(3, dtype=GT.float64).dtype is GT.float64


def test_randn_moments():
    GT.manual_seed(0)
    x = GT.randn(100000).numpy().astype(np.float64)
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1.0) < 0.02
    assert GT.randn(2, 3).shape == (2, 3)


def test_randint_bounds_and_dtype():
    GT.manual_seed(0)
    x = GT.randint(-3, 4, (10000,))
    assert x.dtype is GT.int64
    values = set(x.tolist())
    assert values == set(range(-3, 4))
    y = GT.randint(5, (100,))
    assert min(y.tolist()) >= 0 and max(y.tolist()) < 5


def test_rand_like_and_randperm():
    GT.manual_seed(0)
    r = GT.rand_like(GT.zeros(2, 3, dtype=GT.float64))
    assert r.shape == (2, 3) and r.dtype is GT.float64
    p = GT.randperm(10)
    assert sorted(p.tolist()) == list(range(10)) and p.dtype is GT.int64


def test_num_threads_round_trip():
    before = GT.get_num_threads()
    try:
        GT.set_num_threads(1)
        assert GT.get_num_threads() == 1
        assert GT.mm(GT.ones(64, 64), GT.ones(64, 64)).sum().item() == 64.0 ** 3
        GT.set_num_threads(2)
        assert GT.get_num_threads() == 2
    finally:
        GT.set_num_threads(before)
    assert before >= 1


@pytest.mark.parametrize("call", [
    "lib.full((2,), 1.5, device=dev)", "lib.arange(3, device=dev)",
    "lib.linspace(0, 1, 5, device=dev)", "lib.eye(2, device=dev)",
    "lib.randint(0, 3, (2,), device=dev).shape", "lib.randperm(3, device=dev).shape",
    "lib.zeros(2, device=dev)", "lib.tensor([1.0], device=dev)",
])
def test_factories_take_torchs_device_argument(torch, call):
    # Tutorials pass device= everywhere (e.g. linspace(..., device=device, dtype=dtype)).
    ours = eval(call, {"lib": gradtrack, "dev": gradtrack.device("cpu")})
    theirs = eval(call, {"lib": torch, "dev": torch.device("cpu")})
    assert str(ours).replace("gradtrack", "torch") == str(theirs)


@pytest.mark.parametrize("sizes", [(2.5, 2.5), (2, "a"), (True, 2), [2, 3], (-1,), (),
                                   range(3)])
def test_size_takes_what_torch_takes(torch, sizes):
    def outcome(lib):
        try:
            return ("ok", tuple(lib.Size(sizes)))
        except Exception as e:  # noqa: BLE001 - the error is the observable result
            return (type(e).__name__, str(e).replace(lib.__name__, "LIB"))
    assert outcome(gradtrack) == outcome(torch)
