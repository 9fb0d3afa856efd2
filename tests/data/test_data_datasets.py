"""utils.data datasets against torch 2.13: TensorDataset, ConcatDataset, ChainDataset,
Subset, random_split (lengths, fractions, generator) and their errors and warnings."""

import warnings

import pytest
from helpers import same

import gradtrack
from gradtrack.utils.data import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, _random,
    random_split,
)


def test_tensor_dataset_items_equal_torch():
    def scenario(lib):
        x = lib.arange(12.0).view(4, 3)
        y = lib.tensor([0, 1, 1, 0])
        ds = lib.utils.data.TensorDataset(x, y)
        return [len(ds), ds[0], ds[-1], ds[1:3], list(ds.tensors)]
    same(scenario)


def test_tensor_dataset_size_mismatch():
    same(lambda lib: lib.utils.data.TensorDataset(lib.zeros(2), lib.zeros(3)))


def test_concat_dataset_equals_torch():
    def scenario(lib):
        ds = lib.utils.data.ConcatDataset([[1, 2], range(3, 6), [6]])
        return [len(ds), ds.cumulative_sizes, [ds[i] for i in range(-6, 6)]]
    same(scenario)
    same(lambda lib: lib.utils.data.ConcatDataset([[1, 2]])[-3])
    same(lambda lib: lib.utils.data.ConcatDataset([]))


def test_dataset_add_and_chain(torch):
    class Count(IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    class Items(Dataset):
        def __getitem__(self, i):
            return i * 10

        def __len__(self):
            return 3

    chained = Count(2) + Count(3)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 0, 1, 2]
    assert len(chained) == 5
    both = Items() + Items()
    assert isinstance(both, ConcatDataset) and list(both) == [0, 10, 20, 0, 10, 20]
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Count(2)])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([Items()]))
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement "
                                                  "__getitem__."):
        Dataset()[0]


def test_subset_equals_torch():
    def scenario(lib):
        ds = lib.utils.data.TensorDataset(lib.arange(10))
        sub = lib.utils.data.Subset(ds, [7, 2, 5])
        return [len(sub), sub[0], sub[-1], sub.__getitems__([2, 0])]
    same(scenario)


def test_subset_subclass_overriding_getitem_only_is_refused(torch):
    messages = []
    for lib in (gradtrack, torch):
        class Mine(lib.utils.data.Subset):
            def __getitem__(self, idx):
                return 0
        with pytest.raises(NotImplementedError) as info:
            Mine([1, 2], [0])
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_random_split_order_is_one_randperm_draw():
    gradtrack.manual_seed(11)
    parts = random_split(range(10), [3, 7])
    gradtrack.manual_seed(11)
    perm = gradtrack.randperm(10).tolist()
    assert [list(p) for p in parts] == [perm[:3], perm[3:]]
    assert all(isinstance(p, Subset) for p in parts)
    g = _random.Generator().manual_seed(5)
    parts = random_split(range(6), [0.5, 0.5], generator=g)
    expected = _random.randperm(6, _random.Generator().manual_seed(5)).tolist()
    assert [p.indices for p in parts] == [expected[:3], expected[3:]]


@pytest.mark.parametrize("fractions", [[0.3, 0.3, 0.4], [0.25, 0.75], [0.1] * 10, [1.0]])
def test_random_split_fraction_lengths_equal_torch(torch, fractions):
    for n in (7, 10, 31):
        with warnings.catch_warnings(record=True) as ours_w:
            warnings.simplefilter("always")
            ours = [len(s) for s in random_split(range(n), fractions)]
        with warnings.catch_warnings(record=True) as theirs_w:
            warnings.simplefilter("always")
            theirs = [len(s) for s in torch.utils.data.random_split(range(n), fractions)]
        assert ours == theirs
        assert [str(w.message) for w in ours_w] == [str(w.message) for w in theirs_w]


def test_random_split_errors_and_warnings_equal_torch(torch):
    same(lambda lib: lib.utils.data.random_split(range(5), [2, 2]))
    same(lambda lib: lib.utils.data.random_split(range(5), [1.5, -0.5]))
    caught = []
    for lib in (gradtrack, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lengths = [len(s) for s in lib.utils.data.random_split(range(2), [0.5, 0.5, 0.0])]
        caught.append((lengths, [str(x.message) for x in w]))
    assert caught[0] == caught[1]


def test_random_split_equals_torch_directly(torch):
    torch.manual_seed(3)
    gradtrack.manual_seed(3)
    ours = [s.indices for s in random_split(range(20), [0.4, 0.6])]
    theirs = [s.indices for s in torch.utils.data.random_split(range(20), [0.4, 0.6])]
    assert ours == theirs


def test_stack_dataset_equals_torch():
    def scenario(lib):
        d = lib.utils.data
        t = d.TensorDataset(lib.arange(4))
        by_pos = d.StackDataset(t, [10, 11, 12, 13])
        by_key = d.StackDataset(x=t, y=d.Subset(t, [3, 2, 1, 0]))
        return [len(by_pos), by_pos[1], by_pos.__getitems__([0, 3]), by_key[2],
                by_key.__getitems__([1, 0]),
                list(d.DataLoader(by_key, batch_size=3)), list(d.DataLoader(by_pos, batch_size=3))]
    same(scenario)
    same(lambda lib: lib.utils.data.StackDataset([1], y=[2]))
    same(lambda lib: lib.utils.data.StackDataset())
    same(lambda lib: lib.utils.data.StackDataset([1], [2, 3]))
