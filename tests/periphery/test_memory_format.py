"""Memory formats against torch 2.13: the strides of every conversion, the
contiguity tests, what returns ``self``, the grad_fn names, the errors, and a
module converted to channels_last."""

import pytest

import gradtrack

from helpers import same

SHAPES = [(2, 3, 4, 5), (2, 3, 1, 1), (2, 1, 3, 2), (1, 3, 1, 1), (2, 3, 0, 2), (1, 1, 1, 1)]


def _fmt(lib, name):
    return getattr(lib, name)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_channels_last_strides(shape):
    def scenario(lib):
        x = lib.arange(float(np_prod(shape))).reshape(shape)
        cl = lib.channels_last
        y = x.to(memory_format=cl)
        return (y.stride(), y.is_contiguous(), y.is_contiguous(memory_format=cl),
                x.is_contiguous(memory_format=cl), x.contiguous(memory_format=cl).stride(),
                x.clone(memory_format=cl).stride(), y.clone().stride(),
                y.clone(memory_format=lib.contiguous_format).stride(),
                lib.empty_like(x, memory_format=cl).stride(),
                lib.zeros_like(y, memory_format=lib.contiguous_format).stride(),
                y.contiguous().stride(), y.tolist() == x.tolist(),
                y.to(lib.float64).stride(), x.to(lib.float64, memory_format=cl).stride())
    same(scenario)


def np_prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def test_elementwise_keeps_channels_last():
    same(lambda lib: [t.stride() for t in (lambda y: (y + 1, y * y, y.relu(), y.sum(1, keepdim=True)))(
        lib.ones(2, 3, 4, 5).to(memory_format=lib.channels_last))])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5, 6), (1, 2, 1, 3, 1)], ids=str)
def test_channels_last_3d_strides(shape):
    def scenario(lib):
        x = lib.zeros(shape)
        f = lib.channels_last_3d
        y = x.to(memory_format=f)
        return (y.stride(), y.is_contiguous(memory_format=f), x.is_contiguous(memory_format=f),
                x.is_contiguous(memory_format=lib.channels_last), y.contiguous().stride())
    same(scenario)


CASES = {
    "to_self_when_laid_out": lambda lib: (lambda y: (y.to(memory_format=lib.channels_last) is y,
                                                     y.contiguous(memory_format=lib.channels_last)
                                                     is y))(
        lib.zeros(2, 3, 4, 5).to(memory_format=lib.channels_last)),
    "contiguous_self": lambda lib: (lambda x: (x.contiguous(memory_format=lib.contiguous_format)
                                               is x, x.to(memory_format=lib.contiguous_format)
                                               is x, x.to(memory_format=lib.preserve_format)
                                               is x))(lib.zeros(2, 3, 4, 5)),
    "grad_fns": lambda lib: (lambda x: (type(x.contiguous(memory_format=lib.channels_last)
                                             .grad_fn).__name__,
                                        type(x.to(memory_format=lib.channels_last).grad_fn)
                                        .__name__,
                                        type(x.clone(memory_format=lib.channels_last).grad_fn)
                                        .__name__))(lib.ones(2, 3, 4, 5, requires_grad=True)),
    "backward": lambda lib: (lambda x: ((x.to(memory_format=lib.channels_last) * lib.arange(
        5.0)).sum().backward(), x.grad.sum().item(), x.grad.stride()))(
        lib.ones(2, 3, 4, 5, requires_grad=True)),
    "rank_2_to": lambda lib: lib.zeros(3, 4).to(memory_format=lib.channels_last),
    "rank_2_contiguous": lambda lib: lib.zeros(3, 4).contiguous(memory_format=lib.channels_last),
    "rank_4_3d": lambda lib: lib.zeros(3, 4, 2, 2).contiguous(memory_format=lib.channels_last_3d),
    "rank_2_is": lambda lib: lib.zeros(3, 4).is_contiguous(memory_format=lib.channels_last),
    "preserve_contiguous": lambda lib: lib.zeros(3, 4, 2, 2).transpose(2, 3).contiguous(
        memory_format=lib.preserve_format),
    "preserve_is_contiguous": lambda lib: (
        lib.zeros(3, 4).t().is_contiguous(memory_format=lib.preserve_format),
        lib.zeros(3, 4).is_contiguous(memory_format=lib.preserve_format)),
    "bad_format_contiguous": lambda lib: lib.zeros(2).contiguous(memory_format="x"),
    "bad_format_is_contiguous": lambda lib: lib.zeros(2).is_contiguous(memory_format=3),
    "repr": lambda lib: [repr(lib.channels_last), repr(lib.contiguous_format),
                         repr(lib.preserve_format), repr(lib.channels_last_3d),
                         lib.channels_last == lib.channels_last,
                         isinstance(lib.channels_last, lib.memory_format)],
    "sliced": lambda lib: lib.zeros(3, 4, 2, 2).to(memory_format=lib.channels_last)[:, :2]
    .is_contiguous(memory_format=lib.channels_last),
    "permuted": lambda lib: lib.zeros(2, 3, 2, 2).permute(0, 2, 3, 1).contiguous()
    .permute(0, 3, 1, 2).is_contiguous(memory_format=lib.channels_last),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_memory_format_cases_match_torch(case):
    same(CASES[case])


def test_random_like_fills_in_memory_order():
    def scenario(lib):
        lib.manual_seed(0)
        a = lib.rand_like(lib.zeros(2, 3, 4, 5), memory_format=lib.channels_last)
        b = lib.randn_like(lib.zeros(2, 3, 4, 5).to(memory_format=lib.channels_last),
                           memory_format=lib.contiguous_format)
        return a.stride(), a, b.stride(), b
    same(scenario)


def test_module_to_channels_last():
    def scenario(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4))
        weight = m[0].weight
        m = m.to(memory_format=lib.channels_last)
        return (m[0].weight.stride(), m[0].bias.stride(), m[1].weight.stride(),
                m[0].weight is weight, m.to(lib.float64)[0].weight.stride())
    same(scenario)


def test_pickled_format_is_the_same_object():
    import copy
    import pickle
    for fmt in (gradtrack.channels_last, gradtrack.channels_last_3d, gradtrack.contiguous_format,
                gradtrack.preserve_format):
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(fmt, protocol)) is fmt
        assert copy.deepcopy(fmt) is fmt
    # pickled before the class was named gradtrack.memory_format
    old = b"\x80\x04\x8c\x18gradtrack._memory_format\x94\x8c\rchannels_last\x94\x93\x94."
    assert pickle.loads(old) is gradtrack.channels_last


def test_memory_format_type_is_named_as_torch_s(torch):
    for lib in (gradtrack, torch):
        cls = type(lib.channels_last)
        assert (cls.__module__, cls.__qualname__) == (lib.__name__, "memory_format")
        assert repr(cls) == f"<class '{lib.__name__}.memory_format'>"
        assert cls is lib.memory_format


EMPTY_SHAPES = [(2, 3, 4, 5), (2, 1, 4, 1), (0, 3, 0, 5), (1, 2, 3, 4, 5), (2, 3, 4), (2, 3, 1, 1, 2)]


@pytest.mark.parametrize("fmt", ["channels_last", "channels_last_3d", "contiguous_format",
                                 "preserve_format"])
@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=str)
def test_empty_takes_memory_format_as_torch(shape, fmt):
    def scenario(lib):
        t = lib.empty(*shape, memory_format=getattr(lib, fmt))
        return (t.shape, t.stride(), t.is_contiguous(memory_format=getattr(lib, fmt))
                if fmt != "preserve_format" else None, t._base is None, t.is_leaf, t._version)
    same(scenario)


EMPTY_CASES = {
    "sequence_size": lambda lib: lib.empty((2, 3, 4, 5), memory_format=lib.channels_last)
    .stride(),
    "none": lambda lib: lib.empty(2, 3, 4, 5, memory_format=None).stride(),
    "dtype_and_grad": lambda lib: (lambda t: (str(t.dtype), t.requires_grad, t.is_leaf, t.stride()))(
        lib.empty(2, 3, 4, 5, memory_format=lib.channels_last, dtype=lib.float64,
                  requires_grad=True)),
    "int8": lambda lib: (lambda t: (str(t.dtype), t.stride()))(
        lib.empty(2, 3, 4, 5, memory_format=lib.channels_last, dtype=lib.int8)),
    "bad_type": lambda lib: lib.empty(2, 3, 4, 5, memory_format="x"),
    "bad_type_with_out": lambda lib: lib.empty(2, 3, 4, 5, memory_format=3, out=lib.empty(0)),
    "with_out": lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last,
                                      out=lib.empty(0)),
    "contiguous_with_out": lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.contiguous_format,
                                                 out=lib.empty(0)),
    "none_with_out": lambda lib: lib.empty(2, 3, 4, 5, memory_format=None,
                                           out=lib.empty(0)).stride(),
    "pin_memory": lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last,
                                        pin_memory=True),
    "negative_size": lambda lib: lib.empty(2, -3, 4, 5, memory_format=lib.channels_last),
    "grad_flows": lambda lib: (lambda t: ((t.fill_(1.0) * 2).sum().backward(), t.grad.stride()))(
        lib.empty(2, 3, 4, 5, memory_format=lib.channels_last).requires_grad_()),
    "zeros_refuses": lambda lib: lib.zeros(2, 3, 4, 5, memory_format=lib.channels_last),
    "new_empty_refuses": lambda lib: lib.ones(1).new_empty((2, 3, 4, 5),
                                                           memory_format=lib.channels_last),
}


@pytest.mark.parametrize("case", sorted(EMPTY_CASES))
def test_empty_memory_format_cases_match_torch(case):
    same(EMPTY_CASES[case])


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "rand_like",
                                  "randn_like", "full_like", "randint_like"])
def test_like_factories_take_memory_format_as_torch(name):
    def scenario(lib):
        fn = getattr(lib, name)
        extra = {"full_like": (2.0,), "randint_like": (5,)}.get(name, ())
        lib.manual_seed(0)
        nchw = lib.ones(2, 3, 2, 2)
        nhwc = nchw.to(memory_format=lib.channels_last)
        out = [fn(nhwc, *extra), fn(nhwc, *extra, memory_format=lib.contiguous_format),
               fn(nchw, *extra, memory_format=lib.channels_last),
               fn(nchw, *extra, memory_format=lib.preserve_format)]
        values = [t.stride() for t in out]
        if name not in ("empty_like",):
            values += [t.flatten().tolist() for t in out]
        return values
    same(scenario)


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(1, 1, 1, 1).contiguous(lib.channels_last),
    lambda lib: lib.zeros(1, 1, 1, 1).is_contiguous(lib.channels_last),
], ids=["contiguous", "is_contiguous"])
def test_memory_format_is_keyword_only(call):
    same(call)
