"""DataLoader with worker processes (num_workers > 0): the same batches as in one
process, tensors of every dtype crossing intact, worker_init_fn / get_worker_info /
persistent_workers, iterable datasets split per worker, errors raised again in the
main process with torch's wording, dead and slow workers reported. Every test that
starts processes carries a timeout."""

import os
import time
import warnings

import numpy as np
import pytest

import gradtrack
from gradtrack.utils.data import (
    DataLoader, Dataset, IterableDataset, TensorDataset, _random, get_worker_info,
)

pytestmark = pytest.mark.timeout(60)


def _flat(batches):
    return [[t.tolist() if hasattr(t, "tolist") else t for t in b] for b in batches]


def test_workers_give_the_single_process_batches():
    x = gradtrack.arange(300.0).view(100, 3)
    y = gradtrack.arange(100)
    ds = TensorDataset(x, y)
    single = list(DataLoader(ds, batch_size=7, shuffle=True,
                             generator=_random.Generator().manual_seed(3)))
    multi = list(DataLoader(ds, batch_size=7, shuffle=True, num_workers=2,
                            generator=_random.Generator().manual_seed(3)))
    assert _flat(multi) == _flat(single)
    for a, b in zip(multi, single):
        assert a[0].dtype == b[0].dtype and a[1].dtype == b[1].dtype


class Mixed(Dataset):
    """Samples of several dtypes and shapes, a non-contiguous view among them."""

    def __init__(self):
        base = gradtrack.arange(24.0).view(4, 6)
        self.items = [base.t(), gradtrack.tensor([True, False]), gradtrack.arange(5),
                      gradtrack.tensor(2.5, dtype=gradtrack.float64)]

    def __getitem__(self, i):
        big = gradtrack.full((256, 256), float(i))  # 256 KiB per sample
        return {"big": big, "items": self.items, "i": i, "name": f"s{i}",
                "np": np.full(3, i, dtype=np.int32)}

    def __len__(self):
        return 6


def test_tensors_of_every_dtype_cross_processes():
    single = list(DataLoader(Mixed(), batch_size=4))
    multi = list(DataLoader(Mixed(), batch_size=4, num_workers=2))
    assert len(multi) == 2
    for m, s in zip(multi, single):
        assert m["name"] == s["name"] and m["i"].tolist() == s["i"].tolist()
        np.testing.assert_array_equal(m["big"].numpy(), s["big"].numpy())
        assert m["np"].dtype == s["np"].dtype == gradtrack.int32
        for a, b in zip(m["items"], s["items"]):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    again = multi[0]["big"] + 1  # the received tensors are ordinary, usable tensors
    assert again.numpy()[0, 0, 0] == 1.0


class WhoAmI(Dataset):
    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "id": info.id, "n": info.num_workers, "seed": info.seed,
                "pid": os.getpid(), "init": os.environ.get("GT_TEST_INIT", "")}

    def __len__(self):
        return 8


def _init(worker_id):
    os.environ["GT_TEST_INIT"] = f"w{worker_id}"


def test_worker_info_and_worker_init_fn():
    assert get_worker_info() is None
    g = _random.Generator().manual_seed(4)
    batches = list(DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=_init,
                              generator=g))
    base_seed = _random.random_seed(_random.Generator().manual_seed(4))
    ids = [b["id"].tolist() for b in batches]
    assert ids == [[0, 0], [1, 1], [0, 0], [1, 1]]  # round-robin, in order
    for b in batches:
        wid = b["id"][0].item()
        assert b["n"].tolist() == [2, 2]
        assert b["seed"].tolist() == [base_seed + wid] * 2
        assert b["init"] == [f"w{wid}"] * 2
        assert b["pid"][0].item() != os.getpid()
    assert "GT_TEST_INIT" not in os.environ


def test_worker_info_is_read_only():
    class Probe(Dataset):
        def __getitem__(self, i):
            info = get_worker_info()
            try:
                info.id = 5
            except RuntimeError as e:
                return str(e), repr(info).startswith("WorkerInfo(id=")
            return "", False

        def __len__(self):
            return 1
    (msg,), (ok,) = next(iter(DataLoader(Probe(), num_workers=1)))
    assert msg == "Cannot assign attributes to WorkerInfo objects" and ok.item()


def test_persistent_workers_keep_their_processes():
    loader = DataLoader(WhoAmI(), batch_size=4, num_workers=2, persistent_workers=True)
    first = {p for b in loader for p in b["pid"].tolist()}
    second = {p for b in loader for p in b["pid"].tolist()}
    assert first == second and len(first) == 2
    fresh = DataLoader(WhoAmI(), batch_size=4, num_workers=2)
    assert {p for b in fresh for p in b["pid"].tolist()}.isdisjoint(first)
    loader._iterator._shutdown_workers()
    assert all(not w.is_alive() for w in loader._iterator._workers)


class Shards(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        wid, n = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(wid, 10, n))


def test_iterable_dataset_split_per_worker():
    batches = list(DataLoader(Shards(), batch_size=2, num_workers=2))
    values = sorted(v for b in batches for v in b.tolist())
    assert values == list(range(10))
    assert [b.tolist() for b in batches[:2]] == [[0, 2], [1, 3]]
    unbatched = list(DataLoader(Shards(), batch_size=None, num_workers=2))
    assert sorted(unbatched) == list(range(10))


class Faulty(Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __getitem__(self, i):
        if i == 2:
            raise self.exc
        return i

    def __len__(self):
        return 4


@pytest.mark.parametrize("exc", [ValueError("bad index 2"), KeyError("k"), IndexError("far")])
def test_worker_errors_are_raised_again_with_torch_wording(exc):
    loader = DataLoader(Faulty(exc), batch_size=1, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0] and next(it).tolist() == [1]
    with pytest.raises(type(exc)) as info:
        next(it)
    text = str(info.value)
    assert text.startswith(f"Caught {type(exc).__name__} in DataLoader worker process 0.\n"
                           "Original Traceback (most recent call last):\n")
    assert repr(exc) .split("(")[0] in text and "raise self.exc" in text
    del it


def test_worker_init_fn_error_is_raised():
    def bad_init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")
    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process 0"):
        list(DataLoader(range(4), num_workers=1, worker_init_fn=bad_init))


class Dies(Dataset):
    def __getitem__(self, i):
        if i == 1:
            os._exit(3)
        return i

    def __len__(self):
        return 3


def test_dead_worker_is_reported():
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           "unexpectedly"):
        list(DataLoader(Dies(), num_workers=1))


class Slow(Dataset):
    def __getitem__(self, i):
        time.sleep(1.5)
        return i

    def __len__(self):
        return 2


def test_timeout_message():
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        list(DataLoader(Slow(), num_workers=1, timeout=0.2))


def test_workers_run_kernels_after_the_parent_used_threads():
    # The parent uses its OpenMP pool first; forked workers must still compute.
    a = gradtrack.randn(256, 256)
    (a @ a).sum().item()

    class Compute(Dataset):
        def __getitem__(self, i):
            m = gradtrack.full((128, 128), float(i))
            return (m @ m).sum()

        def __len__(self):
            return 4
    out = [b.tolist() for b in DataLoader(Compute(), batch_size=2, num_workers=2)]
    single = [b.tolist() for b in DataLoader(Compute(), batch_size=2)]
    assert out == single


def test_out_of_order_delivery_gives_every_batch():
    batches = list(DataLoader(range(20), batch_size=3, num_workers=2, in_order=False))
    assert sorted(v for b in batches for v in b.tolist()) == list(range(20))


def test_too_many_workers_warns_like_torch(torch):
    caught = []
    for lib in (gradtrack, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.utils.data.DataLoader(range(4), num_workers=64)
        caught.append([str(x.message) for x in w])
    assert caught[0] == caught[1] and len(caught[0]) == 1


def test_persistent_workers_restart_iterable_datasets():
    loader = DataLoader(Shards(), batch_size=2, num_workers=2, persistent_workers=True)
    epochs = [[b.tolist() for b in loader] for _ in range(3)]
    assert epochs[0] == epochs[1] == epochs[2]
    assert sorted(v for b in epochs[0] for v in b) == list(range(10))


def test_spawn_context_pickles_the_dataset_and_its_tensors():
    ds = TensorDataset(gradtrack.arange(20.0).view(10, 2), gradtrack.arange(10))
    loader = DataLoader(ds, batch_size=4, num_workers=1, multiprocessing_context="spawn")
    assert _flat(loader) == _flat(DataLoader(ds, batch_size=4))
