"""``Tensor.share_memory_`` against torch 2.13: the storage moves to shared memory with
every view keeping its strides, offset, version and values; ``Module.share_memory`` and
``Adagrad.share_memory``; what ``ForkingPickler`` sends (a handle to the same memory, the
refusal of a non-leaf that requires grad). No /dev/shm file outlives the tests."""

import os
import pickle
from multiprocessing.reduction import ForkingPickler

import pytest

import gradtrack
import gradtrack.multiprocessing as gmp
from helpers import same


def shm_files():
    """This process's /dev/shm files (another one's, such as a parallel test's, are not
    this test's to count)."""
    return {f for f in os.listdir("/dev/shm") if f.startswith(f"gradtrack_{os.getpid()}_")}


@pytest.fixture(autouse=True)
def no_leak():
    before = shm_files()
    yield
    import gc
    gc.collect()
    assert shm_files() <= before


@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    """Both libraries share by ``request.param`` (torch's too, when it is installed)."""
    libs = [gmp]
    try:
        import torch.multiprocessing
        libs.append(torch.multiprocessing)
    except ImportError:
        pass
    for mp in libs:
        mp.set_sharing_strategy(request.param)
    yield request.param
    for mp in libs:
        mp.set_sharing_strategy("file_descriptor")


def views_follow(lib):
    base = lib.arange(12.0).view(3, 4)
    view = base[:, 1:3]
    base.add_(1)
    before = (base._version, view._version)
    returned = view.share_memory_()
    out = [returned is view, base.is_shared(), view.is_shared(), view.stride(),
           view.storage_offset(), (base._version, view._version) == before, view.tolist()]
    view.mul_(10)  # one storage still: the base sees the write
    out += [base.tolist(), base._version, view.share_memory_() is view, base.is_shared()]
    return out


def fresh_is_not_shared(lib):
    x = lib.ones(3)
    empty = lib.empty(0)
    return [x.is_shared(), x[1:].is_shared(), empty.share_memory_().is_shared(),
            lib.ones(2, requires_grad=True).share_memory_().requires_grad]


def module_share_memory(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
    net(lib.ones(4, 3)).sum().backward()
    out = net.share_memory()
    return [out is net, [p.is_shared() for p in net.parameters()],
            [b.is_shared() for b in net.buffers()], [p.grad.is_shared() for p in net.parameters()]]


def adagrad_share_memory(lib):
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.Adagrad([p], lr=0.1)
    before = opt.state[p]["sum"].is_shared()
    result = opt.share_memory()
    p.grad = lib.ones(2)
    opt.step()
    return [before, result, opt.state[p]["sum"].is_shared(), opt.state[p]["sum"].tolist(),
            p.is_shared()]


def non_leaf_refused(lib):
    x = lib.ones(2, requires_grad=True)
    return ForkingPickler.dumps(x * 2)


def invalid_strategy(lib):
    mp = __import__(lib.__name__ + ".multiprocessing", fromlist=["x"])
    mp.set_sharing_strategy("shm")


def strategies(lib):
    mp = __import__(lib.__name__ + ".multiprocessing", fromlist=["x"])
    return [mp.get_sharing_strategy(), sorted(mp.get_all_sharing_strategies())]


@pytest.mark.parametrize("scenario", [views_follow, fresh_is_not_shared, module_share_memory,
                                      adagrad_share_memory, non_leaf_refused, strategies],
                         ids=lambda f: f.__name__)
def test_matches_torch(scenario, strategy):
    same(scenario)


def test_invalid_strategy_message():
    with pytest.raises(AssertionError) as info:
        gmp.set_sharing_strategy("shm")
    text = str(info.value)
    assert text.startswith("invalid sharing strategy 'shm', expected one of {")
    assert "'file_system'" in text and "'file_descriptor'" in text
    assert gmp.get_sharing_strategy() == "file_descriptor"


def roundtrip(obj):
    return pickle.loads(ForkingPickler.dumps(obj))


def test_sent_tensor_shares_memory(strategy):
    base = gradtrack.arange(10.0)
    view = base[2:8:2]
    got = roundtrip(view)
    assert base.is_shared() and got.is_shared()
    assert got.tolist() == [2.0, 4.0, 6.0] and got.stride() == (2,) and got.storage_offset() == 2
    assert got._version == 0 and not got.requires_grad
    got.fill_(-1.0)  # the received tensor writes the sender's memory
    assert base.tolist() == [0.0, 1.0, -1.0, 3.0, -1.0, 5.0, -1.0, 7.0, 8.0, 9.0]
    assert got.untyped_storage_ptr() == base.untyped_storage_ptr()  # one mapping per process


def test_sent_parameter_and_leaf(strategy):
    p = gradtrack.nn.Parameter(gradtrack.ones(2))
    p.grad = gradtrack.ones(2)
    got = roundtrip(p)
    assert type(got) is gradtrack.nn.Parameter and got.requires_grad and got.grad is None
    assert p.is_shared() and not p.grad.is_shared()  # as torch: the grad does not travel
    leaf = roundtrip(gradtrack.ones(2, requires_grad=True))
    assert leaf.requires_grad and leaf.is_leaf and leaf.grad_fn is None
    frozen = roundtrip(gradtrack.nn.Parameter(gradtrack.ones(1), requires_grad=False))
    assert type(frozen) is gradtrack.nn.Parameter and not frozen.requires_grad


def test_dtypes_and_empty(strategy):
    for t in (gradtrack.tensor([1, 2, 3]), gradtrack.tensor([True, False]),
              gradtrack.tensor([1.5], dtype=gradtrack.float64), gradtrack.empty(0),
              gradtrack.tensor([0.5, 2.0], dtype=gradtrack.bfloat16)):
        got = roundtrip(t)
        assert got.dtype == t.dtype and got.tolist() == t.tolist() and got.shape == t.shape


def test_numpy_alias_survives_the_move():
    x = gradtrack.arange(4.0)
    arr = x.numpy()  # addresses the old memory, which stays alive with the storage
    x.share_memory_()
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0] and x.tolist() == [0.0, 1.0, 2.0, 3.0]
    x.add_(1)
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_plain_pickle_still_copies():
    x = gradtrack.arange(3.0)
    y = pickle.loads(pickle.dumps(x))
    assert not x.is_shared() and not y.is_shared() and y.tolist() == [0.0, 1.0, 2.0]


def test_file_system_file_is_removed_with_the_last_mapping(strategy):
    x = gradtrack.ones(4).share_memory_()
    if strategy == "file_system":
        assert len(shm_files()) >= 1
    del x
    import gc
    gc.collect()


def test_a_file_gone_before_it_arrived_is_a_clear_error():
    from gradtrack.multiprocessing.reductions import rebuild_tensor
    meta = (gradtrack.float32, (2,), (1,), 0, False)
    with pytest.raises(RuntimeError, match=r"unable to open shared memory object "
                       r"</gradtrack_gone> in read-write mode: No such file or directory \(2\)"):
        rebuild_tensor(gradtrack.Tensor, None, "gradtrack_gone", 8, meta)


def test_share_memory_is_not_an_in_place_op():
    x = gradtrack.ones(3, requires_grad=True)
    y = x * 2
    y.share_memory_()  # a non-leaf may move; its graph and version stay
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0] and y._version == 0 and y.is_shared()
