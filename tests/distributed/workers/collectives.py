"""Every collective on every dtype, against a numpy reference (run by test_collectives.py)."""

import warnings

import numpy as np
from harness import check, finish, raises

import gradtrack as gt
import gradtrack.distributed as dist

dist.init_process_group(backend="mpi")
R, W = dist.get_rank(), dist.get_world_size()
DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool"]
OPS = ["SUM", "PRODUCT", "MIN", "MAX", "AVG"]


def data(rank, dtype, n=6):
    """Rank ``rank``'s input: small values (products stay exact), different on every rank."""
    values = (np.arange(n) * (rank + 2) + 3 * rank) % 7 + 1
    if dtype == "bool":
        return (values % 2 == 0)
    return values.astype(dtype)


def tensor(rank, dtype, n=6):
    return gt.tensor(data(rank, dtype, n))


def reference(op, dtype, n=6):
    stacked = np.stack([data(r, dtype, n) for r in range(W)])
    if dtype == "bool":
        return {"SUM": stacked.any(0), "MAX": stacked.any(0), "PRODUCT": stacked.all(0),
                "MIN": stacked.all(0)}[op]
    if op == "AVG":
        return stacked.sum(0, dtype=dtype) / np.asarray(W, dtype=dtype)
    return {"SUM": lambda: stacked.sum(0, dtype=dtype), "PRODUCT": lambda: stacked.prod(0, dtype=dtype),
            "MIN": lambda: stacked.min(0), "MAX": lambda: stacked.max(0)}[op]()


def same(t, expected):
    got = t.numpy()
    assert got.dtype == np.asarray(expected).dtype, (got.dtype, np.asarray(expected).dtype)
    np.testing.assert_array_equal(got, expected)


@check
def all_reduce_every_dtype_and_op():
    for dtype in DTYPES:
        for op in OPS:
            if op == "AVG" and dtype not in ("float32", "float64"):
                continue
            t = tensor(R, dtype)
            assert dist.all_reduce(t, op=getattr(dist.ReduceOp, op)) is None
            same(t, reference(op, dtype))
            assert t._version == 0  # torch's all_reduce does not bump it (measured, gloo)


@check
def all_reduce_avg_on_integers_is_torchs_error():
    raises(RuntimeError, "result type Float can't be cast to the desired output type Long",
           dist.all_reduce, gt.ones(2, dtype=gt.int64), dist.ReduceOp.AVG)


@check
def all_reduce_async_work():
    t = tensor(R, "float64", 1000)
    work = dist.all_reduce(t, async_op=True)
    assert work.wait() is True and work.is_completed() and work.is_success()
    assert work.result()[0] is t
    same(t, reference("SUM", "float64", 1000))
    u = tensor(R, "float32")
    work = dist.all_reduce(u, op=dist.ReduceOp.AVG, async_op=True)
    while not work.is_completed():
        pass
    same(u, reference("AVG", "float32"))


@check
def all_reduce_of_a_2d_and_a_0d_tensor_and_a_leaf_that_requires_grad():
    t = gt.tensor(data(R, "float32", 6).reshape(2, 3))
    dist.all_reduce(t)
    same(t, reference("SUM", "float32").reshape(2, 3))
    s = gt.tensor(float(R + 1))
    dist.all_reduce(s)
    assert s.item() == W * (W + 1) / 2
    p = gt.ones(3, requires_grad=True)
    dist.all_reduce(p)
    assert p.requires_grad and p.is_leaf and p.tolist() == [W] * 3


@check
def reduce_to_the_last_rank():
    for dtype in DTYPES:
        t = tensor(R, dtype)
        dist.reduce(t, dst=W - 1, op=dist.ReduceOp.MAX)
        same(t, reference("MAX", dtype) if R == W - 1 else data(R, dtype))
    t = tensor(R, "float64")
    dist.reduce(t, dst=0, op=dist.ReduceOp.AVG)
    if R == 0:
        same(t, reference("AVG", "float64"))


@check
def broadcast_from_every_rank():
    for dtype in DTYPES:
        for src in range(W):
            t = tensor(R, dtype)
            dist.broadcast(t, src=src)
            same(t, data(src, dtype))
            assert t._version == 0


@check
def all_gather_into_a_list():
    for dtype in DTYPES:
        outs = [gt.zeros(6, dtype=getattr(gt, dtype)) for _ in range(W)]
        dist.all_gather(outs, tensor(R, dtype))
        for r, out in enumerate(outs):
            same(out, data(r, dtype))
            assert out._version == 1  # copied out of the staging buffer, as torch's


@check
def all_gather_into_tensor_and_single():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = gt.zeros(6 * W, dtype=gt.int32)
        dist.all_gather_into_tensor(out, tensor(R, "int32"))
    assert caught[0].category is FutureWarning
    assert str(caught[0].message) == ("`torch.distributed.all_gather_into_tensor` is deprecated. "
                                      "Please use `torch.distributed.all_gather_single` instead.")
    same(out, np.concatenate([data(r, "int32") for r in range(W)]))
    assert out._version == 2  # torch's (gloo) number
    out2 = gt.zeros(W, 6)
    dist.all_gather_single(out2, tensor(R, "float32"))
    same(out2, np.stack([data(r, "float32") for r in range(W)]))


@check
def gather_to_rank_1_and_scatter_from_it():
    root = 1
    for dtype in DTYPES:
        outs = [gt.zeros(6, dtype=getattr(gt, dtype)) for _ in range(W)] if R == root else None
        dist.gather(tensor(R, dtype), outs, dst=root)
        if R == root:
            for r, out in enumerate(outs):
                same(out, data(r, dtype))
                assert out._version == 1
        mine = gt.zeros(6, dtype=getattr(gt, dtype))
        pieces = [tensor(r, dtype) for r in range(W)] if R == root else None
        dist.scatter(mine, pieces, src=root)
        same(mine, data(R, dtype))
        assert mine._version == 0


@check
def reduce_scatter_tensor_sum_and_avg():
    full = np.stack([data(r, "float64", 2 * W) for r in range(W)])
    for op in ("SUM", "AVG"):
        out = gt.zeros(2, dtype=gt.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            dist.reduce_scatter_tensor(out, tensor(R, "float64", 2 * W), op=getattr(dist.ReduceOp, op))
        total = full.sum(0)[2 * R:2 * R + 2]
        same(out, total / W if op == "AVG" else total)
        assert out._version == 1


@check
def all_to_all_single_even_and_with_splits():
    inp = gt.arange(2 * W * 3).reshape(2 * W, 3) + 100 * R
    out = gt.zeros(2 * W, 3, dtype=gt.int64)
    dist.all_to_all_single(out, inp)
    expected = np.concatenate([(np.arange(2 * W * 3).reshape(2 * W, 3) + 100 * r)[2 * R:2 * R + 2]
                               for r in range(W)])
    same(out, expected)
    # uneven: rank r sends (s + 1) rows to rank s
    send_rows = [s + 1 for s in range(W)]
    inp = gt.arange(sum(send_rows), dtype=gt.float32) + 100 * R
    out = gt.zeros(W * (R + 1))
    dist.all_to_all_single(out, inp, output_split_sizes=[R + 1] * W, input_split_sizes=send_rows)
    start = sum(send_rows[:R])
    expected = np.concatenate([np.arange(start, start + R + 1) + 100 * r for r in range(W)])
    same(out, expected.astype(np.float32))


@check
def send_recv_around_the_ring():
    right, left = (R + 1) % W, (R - 1) % W
    got = gt.zeros(4, dtype=gt.float64)
    if R % 2 == 0:
        dist.send(tensor(R, "float64", 4), dst=right)
        assert dist.recv(got, src=left) == left
    else:
        assert dist.recv(got) == left  # any source: the sender's rank comes back
        dist.send(tensor(R, "float64", 4), dst=right)
    same(got, data(left, "float64", 4))
    got2 = gt.zeros(4, dtype=gt.int32)
    w_recv = dist.irecv(got2, src=left, tag=7)
    w_send = dist.isend(tensor(R, "int32", 4), dst=right, tag=7)
    assert w_send.wait() and w_recv.wait()
    assert w_recv.source_rank() == left
    same(got2, data(left, "int32", 4))


@check
def objects_are_pickled_across():
    objs = [{"lr": 0.1, "rank": R}, (R, "x")] if R == 0 else [None, None]
    assert dist.broadcast_object_list(objs, src=0) is None
    assert objs == [{"lr": 0.1, "rank": 0}, (0, "x")]
    gathered = [None] * W
    dist.all_gather_object(gathered, {"r": R, "sq": R * R})
    assert gathered == [{"r": r, "sq": r * r} for r in range(W)]


@check
def gather_and_scatter_objects_and_root_0_by_default():
    out = [None] * W if R == 0 else None
    dist.gather_object({"r": R}, out)
    if R == 0:
        assert out == [{"r": r} for r in range(W)]
    got = [None]
    dist.scatter_object_list(got, [("x", r) for r in range(W)] if R == 0 else None)
    assert got == [("x", R)]
    raises(ValueError, "Expected argument scatter_object_output_list to be a list of size at least 1.",
           dist.scatter_object_list, [], None)
    outs = [gt.zeros(2) for _ in range(W)] if R == 0 else None
    dist.gather(gt.ones(2) * R, outs)  # torch's gather and scatter default to root 0
    if R == 0:
        assert [o.tolist() for o in outs] == [[r, r] for r in range(W)]
    mine = gt.zeros(2)
    dist.scatter(mine, [gt.ones(2) * r for r in range(W)] if R == 0 else None)
    assert mine.tolist() == [R, R]
    objs = [R]
    dist.broadcast_object_list(objs)
    assert objs == [0]


@check
def groups_and_non_members():
    sub = dist.new_group([0, W - 1])
    inside = R in (0, W - 1)
    assert dist.get_rank(sub) == ({0: 0, W - 1: 1}[R] if inside else -1)
    assert dist.get_world_size(sub) == (2 if inside else -1)
    t = gt.tensor([R + 1.0])
    if inside:
        dist.all_reduce(t, group=sub)
        assert t.item() == 1 + W
        assert dist.get_process_group_ranks(sub) == [0, W - 1]
        assert dist.get_global_rank(sub, 1) == W - 1 and dist.get_group_rank(sub, W - 1) == 1
        dist.broadcast(t, src=W - 1, group=sub)
        dist.broadcast(t, group=sub, group_src=1)
    else:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert dist.all_reduce(t, group=sub) is None
        assert str(caught[0].message) == (f"Running all_reduce on global rank {R} which does not "
                                          "belong to the given group.")
    raises(ValueError, f"Rank {W + 3} is out of range. Valid ranks are 0 to {W - 1} "
           f"(world_size={W})", dist.new_group, [0, W + 3])
    assert dist.get_backend() == "mpi" and dist.get_world_size() == W and dist.get_rank() == R


@check
def errors_are_torchs():
    raises(RuntimeError, "input tensor has to be contiguous", dist.all_reduce, gt.ones(4, 3).t())
    raises(RuntimeError, "All gather: number of output tensors should equal to the world size",
           dist.all_gather, [gt.zeros(2)] * (W + 1), gt.ones(2))
    raises(RuntimeError, "Tensors are not equal in size or data type",
           dist.all_gather, [gt.zeros(3)] * W, gt.ones(2))
    raises(ValueError, "Invalid usage of tensors with different dtypesFound gradtrack.float64 and  "
           "gradtrack.float32", dist.all_gather, [gt.zeros(2, dtype=gt.float64)] * W, gt.ones(2))
    raises(TypeError, "Invalid function argument. Expected parameter `tensor` of type torch.Tensor\n"
           "             but got <class 'list'> instead.", dist.all_reduce, [1, 2])
    raises(ValueError, "Invalid destination rank: destination rank should not be the same as the "
           "rank of the current process.", dist.send, gt.ones(2), R)
    raises(ValueError, "Must specify global_rank or group_rank", dist.broadcast, gt.ones(2))
    raises(RuntimeError, f"ProcessGroupMPI::broadcast: invalid root rank: {W + 2}",
           dist.broadcast, gt.ones(2), W + 2)
    raises(RuntimeError, "Split sizes doesn't match total dim 0 size",
           dist.all_to_all_single, gt.zeros(W), gt.ones(W), [1] * W, [2] * W)
    raises(IndexError, "list assignment index out of range", dist.all_gather_object, [None], 1)
    if R == 0:  # root-only checks: they fail before any communication
        raises(ValueError, "Argument ``gather_list`` must be specified on destination rank.",
               dist.gather, gt.ones(2), None, 0)
        raises(ValueError, "Argument ``scatter_list`` must be specified on source rank.",
               dist.scatter, gt.ones(2), None, 0)
        raises(RuntimeError, "Scatter: number of input tensors should equal to the world size",
               dist.scatter, gt.ones(2), [gt.ones(2)] * (W + 1), 0)
    else:
        raises(ValueError, "Argument ``gather_list`` must NOT be specified on non-destination ranks.",
               dist.gather, gt.ones(2), [gt.ones(2)] * W, 0)
        raises(ValueError, "Argument ``scatter_list`` must NOT be specified on non-source ranks.",
               dist.scatter, gt.ones(2), [gt.ones(2)] * W, 0)
    raises(ValueError, "trying to initialize the default process group twice!",
           dist.init_process_group, "mpi")


@check
def barrier_destroy_and_init_again():
    assert dist.barrier() is None
    assert dist.barrier(async_op=True).wait()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    raises(ValueError, "Default process group has not been initialized, please make sure to call "
           "init_process_group.", dist.get_rank)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist.init_process_group("gloo", world_size=W, rank=R)
    assert str(caught[0].message) == (f"For MPI backend, world_size ({W}) and rank ({R}) are "
                                      "ignored since they are assigned by the MPI runtime.")
    assert dist.get_rank() == R and dist.get_backend() == "mpi"
    t = gt.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [W, W]


finish()
