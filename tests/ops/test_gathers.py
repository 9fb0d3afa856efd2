"""gather, index_select and advanced indexing: values against numpy (and torch where
installed) on inputs large enough to be split over threads, every dim, transposed and
offset views, every dtype family; and the reduced floats (float16, bfloat16) read and
written through non-contiguous views, which once came back from the wrong elements."""

import numpy as np
import pytest

import gradtrack

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int8", "bool"]


def _np(t):
    return np.asarray(t.float().tolist() if t.dtype == gradtrack.bfloat16 else t.numpy())


def _tensor(a, dtype):
    return gradtrack.tensor(a).to(getattr(gradtrack, dtype))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("view", ["contiguous", "transposed", "offset"])
def test_gather_matches_take_along_axis(dim, view):
    rng = np.random.default_rng(dim + 7)
    a = rng.standard_normal((40, 60, 70))
    t = gradtrack.tensor(a)
    if view == "transposed":
        a, t = a.transpose(2, 1, 0), t.permute(2, 1, 0)
    elif view == "offset":
        a, t = a[3:, 5:, 1:], t[3:, 5:, 1:]
    shape = list(a.shape)
    shape[dim] += 9  # the index may be longer than self along dim
    index = rng.integers(0, a.shape[dim], shape)
    got = gradtrack.gather(t, dim, gradtrack.tensor(index)).numpy()
    assert np.array_equal(got, np.take_along_axis(a, index, axis=dim))


def test_gather_index_smaller_than_self_and_transposed():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 1000))
    index = rng.integers(0, 1000, (700, 250))  # transposed below: 250 x 700
    t_index = gradtrack.tensor(index).T
    got = gradtrack.gather(gradtrack.tensor(a), 1, t_index).numpy()
    assert np.array_equal(got, np.take_along_axis(a[:250], index.T, axis=1))


def test_gather_out_of_range_names_the_index():
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 1 with size 7"):
        gradtrack.gather(gradtrack.zeros(6, 7), 1, gradtrack.tensor([[0], [7]]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_select_matches_numpy(dtype, dim):
    rng = np.random.default_rng(dim)
    a = (rng.standard_normal((30, 20, 50)) * 4).round()
    index = rng.integers(0, a.shape[dim], 37)
    expected = np.take(_np(_tensor(a, dtype)), index, axis=dim)
    for t in (_tensor(a, dtype), _tensor(a, dtype).transpose(0, 2).contiguous().transpose(0, 2)):
        got = gradtrack.index_select(t, dim, gradtrack.tensor(index))
        assert got.dtype == t.dtype and np.array_equal(_np(got), expected)


def test_index_select_large_rows_over_threads():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2000, 3000)).astype(np.float32)
    for dim in (0, 1):
        index = rng.integers(0, a.shape[dim], 1500)
        got = gradtrack.index_select(gradtrack.tensor(a), dim, gradtrack.tensor(index)).numpy()
        assert np.array_equal(got, np.take(a, index, axis=dim))


def test_index_select_gradient_and_errors_as_torch():
    torch = pytest.importorskip("torch")
    grads, errors = [], []
    for lib in (gradtrack, torch):
        x = lib.arange(20.0).reshape(4, 5).requires_grad_()
        lib.index_select(x, 1, lib.tensor([0, 3, 3])).sum().backward()
        grads.append(x.grad.tolist())
        for dim, idx in ((0, [5]), (1, [-1])):
            with pytest.raises((IndexError, RuntimeError)) as e:
                lib.index_select(lib.zeros(3, 4), dim, lib.tensor(idx))
            errors.append((e.type.__name__, str(e.value)))
    assert grads[0] == grads[1]
    assert errors[:2] == errors[2:]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_floats_indexed_through_views(dtype):
    torch = pytest.importorskip("torch")
    a = np.arange(60.0).reshape(6, 10)
    results = []
    for lib in (gradtrack, torch):
        t = lib.tensor(a).to(getattr(lib, dtype))
        view = t.t()[2:]  # transposed, with an offset
        idx = lib.tensor([3, 0, 3])
        read = [view[idx], view[:, idx], lib.index_select(view, 0, idx)]
        written = t.clone()
        w = written.t()[2:]
        w[idx] = lib.tensor(-1.0).to(getattr(lib, dtype))
        w.index_put_((lib.tensor([1]), lib.tensor([4])), lib.tensor(5.0).to(getattr(lib, dtype)),
                     accumulate=True)
        results.append([r.float().tolist() for r in read] + [written.float().tolist()])
    assert results[0] == results[1]


@pytest.mark.parametrize("form", ["function", "method"])
@pytest.mark.parametrize("sparse_grad", [False, None, 1])
def test_gather_takes_torch_s_sparse_grad_keyword(form, sparse_grad):
    from helpers import same

    def scenario(lib):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        index = lib.tensor([[0, 2], [1, 1], [3, 0]])
        y = (lib.gather(x, 1, index, sparse_grad=sparse_grad) if form == "function"
             else x.gather(1, index, sparse_grad=sparse_grad))
        y.sum().backward()
        return y, x.grad
    same(scenario)


def test_gather_with_sparse_grad_and_no_gradient_to_make():
    from helpers import same
    same(lambda lib: lib.gather(lib.arange(12.0).reshape(3, 4), 1, lib.tensor([[0], [3], [1]]),
                                sparse_grad=True))
    same(lambda lib: lib.gather(lib.arange(4.0), 0, lib.tensor([2, 0]), sparse_grad=True,
                                out=lib.empty(2)))
    same(lambda lib: lib.arange(4.0).gather(0, lib.tensor([2, 0]), sparse_grad=True,
                                            out=lib.empty(2)))


@pytest.mark.parametrize("form", ["function", "method"])
def test_gather_sparse_gradient_is_refused(form):
    # torch's gradient would be a sparse COO tensor, which gradtrack does not have
    x = gradtrack.ones(3, 4, requires_grad=True)
    index = gradtrack.tensor([[0], [1], [2]])
    with pytest.raises(NotImplementedError, match="sparse_grad=True"):
        if form == "function":
            gradtrack.gather(x, 1, index, sparse_grad=True)
        else:
            x.gather(1, index, sparse_grad=True)


def test_gather_sparse_grad_is_keyword_only():
    from helpers import same
    same(lambda lib: lib.gather(lib.ones(2), 0, lib.tensor([0]), False))
    same(lambda lib: lib.ones(2).gather(0, lib.tensor([0]), False))
