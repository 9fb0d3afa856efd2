"""DistributedSampler: torch's index split for every rank, padded or cut, shuffled or not."""

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


def test_shuffled_order_equals_torchs(torch):
    ours, theirs = both(torch, 10, 3, False, shuffle=True, epoch=2, seed=7)
    assert ours == theirs


def test_invalid_rank_is_torchs_error(torch):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    for rank in (3, -1):
        with pytest.raises(ValueError) as ours:
            DistributedSampler(range(4), 3, rank)
        with pytest.raises(ValueError) as theirs:
            TorchSampler(range(4), 3, rank)
        assert str(ours.value) == str(theirs.value)


def test_rank_and_replicas_default_to_the_process_group():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))
