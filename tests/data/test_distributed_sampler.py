"""DistributedSampler: torch's index split for every rank, padded or cut, shuffled or not."""

import inspect

import pytest

from gradtrack.utils.data import distributed as gt_distributed
from gradtrack.utils.data.distributed import DistributedSampler

CASES = [(n, replicas, drop_last) for n in (0, 1, 2, 7, 10, 12, 13) for replicas in (1, 2, 3, 5)
         for drop_last in (False, True)]


def both(torch, n, replicas, drop_last, shuffle, epoch=0, seed=0):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    ours, theirs = [], []
    for rank in range(replicas):
        a = DistributedSampler(range(n), replicas, rank, shuffle=shuffle, seed=seed,
                               drop_last=drop_last)
        b = TorchSampler(range(n), replicas, rank, shuffle=shuffle, seed=seed, drop_last=drop_last)
        a.set_epoch(epoch)
        b.set_epoch(epoch)
        if n == 0 and not drop_last:
            ours.append(len(a))
            theirs.append(len(b))
            continue
        ours.append((list(a), len(a), a.num_samples, a.total_size))
        theirs.append((list(b), len(b), b.num_samples, b.total_size))
    return ours, theirs


@pytest.mark.parametrize("n,replicas,drop_last", CASES)
def test_unshuffled_split_equals_torchs(torch, n, replicas, drop_last):
    ours, theirs = both(torch, n, replicas, drop_last, shuffle=False)
    assert ours == theirs


@pytest.mark.parametrize("n,replicas,drop_last", [c for c in CASES if c[0] > 0])
def test_shuffled_split_is_torchs_algorithm_on_the_permutation(torch, monkeypatch, n, replicas,
                                                               drop_last):
    # torch's permutation fed to our sampler: the split must then be torch's exactly, for
    # every epoch and seed (the permutation itself is the RNG's business).
    def torch_permutation(size, seed):
        g = torch.Generator()
        g.manual_seed(seed)
        return torch.randperm(size, generator=g).tolist()
    monkeypatch.setattr(gt_distributed, "_permutation", torch_permutation)
    for epoch, seed in ((0, 0), (3, 0), (1, 42)):
        ours, theirs = both(torch, n, replicas, drop_last, True, epoch, seed)
        assert ours == theirs


def test_shuffled_ranks_partition_one_permutation_per_epoch():
    n, replicas = 11, 3
    samplers = [DistributedSampler(range(n), replicas, r, seed=5) for r in range(replicas)]
    epoch0 = [list(s) for s in samplers]
    assert [list(s) for s in samplers] == epoch0  # deterministic: every rank agrees
    merged = [i for j in range(4) for i in (epoch0[r][j] for r in range(replicas))]
    assert sorted(merged[:n]) == list(range(n))  # padded with the first indices of the order
    assert merged[n:] == merged[:12 - n]
    for s in samplers:
        s.set_epoch(1)
    assert [list(s) for s in samplers] != epoch0


@pytest.mark.parametrize("n,replicas,drop_last", [(0, 2, False), (0, 2, True), (1, 3, False),
                                                  (10, 3, False), (10, 3, True), (13, 4, True),
                                                  (64, 5, False), (1000, 7, True),
                                                  (50_001, 2, False)])
@pytest.mark.parametrize("epoch,seed", [(0, 0), (2, 7), (5, 123456789)])
def test_shuffled_order_equals_torchs(torch, n, replicas, drop_last, epoch, seed):
    # The real generator, not torch's permutation patched in: seed + epoch gives torch's order.
    ours, theirs = both(torch, n, replicas, drop_last, shuffle=True, epoch=epoch, seed=seed)
    assert ours == theirs


def test_dataloader_with_the_sampler_yields_torchs_batches(torch):
    import gradtrack
    from gradtrack.utils.data import DataLoader, TensorDataset
    from torch.utils.data import DataLoader as TorchLoader
    from torch.utils.data import TensorDataset as TorchDataset
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    x = [[float(i), float(-i)] for i in range(23)]
    y = [i % 4 for i in range(23)]
    data = TensorDataset(gradtrack.tensor(x), gradtrack.tensor(y))
    torch_data = TorchDataset(torch.tensor(x), torch.tensor(y))
    for rank in range(3):
        sampler = DistributedSampler(data, num_replicas=3, rank=rank, seed=11, drop_last=True)
        torch_sampler = TorchSampler(torch_data, num_replicas=3, rank=rank, seed=11,
                                     drop_last=True)
        loader = DataLoader(data, batch_size=3, sampler=sampler)
        torch_loader = TorchLoader(torch_data, batch_size=3, sampler=torch_sampler)
        for epoch in range(3):
            sampler.set_epoch(epoch)
            torch_sampler.set_epoch(epoch)
            ours = [(xb.tolist(), yb.tolist()) for xb, yb in loader]
            theirs = [(xb.tolist(), yb.tolist()) for xb, yb in torch_loader]
            assert ours == theirs
            assert len(ours) == len(loader) == len(torch_loader) == 3


def test_importable_from_utils_data_as_torchs(torch):
    import gradtrack.utils.data as data
    assert data.DistributedSampler is DistributedSampler
    assert "DistributedSampler" in data.__all__
    assert gt_distributed.__all__ == torch.utils.data.distributed.__all__
    assert issubclass(DistributedSampler, data.Sampler)


def _parameters(function):
    return [(p.name, p.default, p.kind) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("method", ["__init__", "__iter__", "__len__", "set_epoch"])
def test_signatures_are_torchs(torch, method):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    assert _parameters(getattr(DistributedSampler, method)) == _parameters(
        getattr(TorchSampler, method))


def test_defaults_are_torchs(torch):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    ours, theirs = DistributedSampler(range(5), 2, 1), TorchSampler(range(5), 2, 1)
    for attribute in ("num_replicas", "rank", "epoch", "drop_last", "num_samples", "total_size",
                      "shuffle", "seed"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("change", ["grow", "shrink"])
def test_data_set_resized_after_construction_as_torch(torch, drop_last, change):
    # The sizes are fixed at construction: torch pads, cuts or raises; so must we.
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    results = []
    for cls in (DistributedSampler, TorchSampler):
        data = list(range(6))
        sampler = cls(data, 2, 0, shuffle=False, drop_last=drop_last)
        if change == "grow":
            data.extend([6, 7])
        else:
            del data[2:]
        try:
            results.append(list(sampler))
        except AssertionError as error:
            results.append(str(error))
    assert results[0] == results[1]
    assert any(isinstance(r, str) for r in results) == ((change == "grow") != drop_last)


@pytest.mark.parametrize("given", [{}, {"num_replicas": 2}, {"rank": 0}])
def test_rank_and_replicas_default_to_the_process_group(torch, given):
    import gradtrack.distributed as dist
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    if dist.is_available():  # torch's CPU build: no process group initialised yet
        with pytest.raises(ValueError) as theirs:
            TorchSampler(range(4), **given)
        expected_type, expected = ValueError, str(theirs.value)
    else:  # without mpi4py, as torch built without its distributed package
        expected_type, expected = RuntimeError, "Requires distributed package to be available"
    with pytest.raises(expected_type) as ours:
        DistributedSampler(range(4), **given)
    assert str(ours.value) == expected
