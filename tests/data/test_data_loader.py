"""utils.data.DataLoader (single process) against torch 2.13: batches, lengths,
errors and warnings; shuffled orders against torch's algorithm fed with gradtrack's
own draws (and directly against torch once gradtrack's RNG is torch's mt19937);
the TensorDataset fast path against the per-sample path."""

import warnings

import numpy as np
import pytest
from helpers import same, summary

import gradtrack
from gradtrack.utils.data import (
    DataLoader, Dataset, SequentialSampler, TensorDataset, _random,
    default_collate,
)


def _xy(lib, n=10):
    return lib.arange(n * 3.0).view(n, 3), lib.arange(n) % 3


LOADERS = {
    "tensor dataset": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(*_xy(lib)), batch_size=4),
    "drop_last": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(*_xy(lib)), batch_size=4, drop_last=True),
    "batch_size None": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(*_xy(lib, 3)), batch_size=None),
    "list of dicts": lambda lib: lib.utils.data.DataLoader(
        [{"a": i, "b": float(i) / 2, "s": str(i)} for i in range(5)], batch_size=2),
    "numpy samples": lambda lib: lib.utils.data.DataLoader(
        [np.full(2, i, dtype=np.float32) for i in range(5)], batch_size=3),
    "custom collate": lambda lib: lib.utils.data.DataLoader(
        range(7), batch_size=3, collate_fn=lambda b: sum(b)),
    "batch_sampler": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(*_xy(lib)), batch_sampler=[[3, 1], [0], [9, 8, 7]]),
    "sampler": lambda lib: lib.utils.data.DataLoader(
        list(range(10, 20)), sampler=[5, 3, 3, 0], batch_size=3),
    "subset": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.Subset(lib.utils.data.TensorDataset(*_xy(lib)), [4, 2, 7]), batch_size=2),
    "concat": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.ConcatDataset([lib.utils.data.TensorDataset(*_xy(lib, 3))] * 2),
        batch_size=4),
    "requires_grad": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(lib.ones(4, 2, requires_grad=True)), batch_size=3),
    "negative indices": lambda lib: lib.utils.data.DataLoader(
        lib.utils.data.TensorDataset(*_xy(lib)), sampler=[-1, -2, 0], batch_size=2),
}


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_batches_and_len_equal_torch(name):
    def scenario(lib):
        loader = LOADERS[name](lib)
        return [len(loader), list(loader), list(loader)]
    same(scenario)


def _stream(lib):
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

        def __repr__(self):
            return "Stream()"
    return Stream()


@pytest.mark.parametrize("kwargs", [{"batch_size": 2}, {"batch_size": 2, "drop_last": True},
                                    {"batch_size": None}, {"batch_size": 10}])
def test_iterable_dataset_batches_equal_torch(torch, kwargs):
    def batches(lib):
        class S(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter([{"v": i} for i in range(5)])
        loader = lib.utils.data.DataLoader(S(), **kwargs)
        return list(loader)
    assert summary(batches(gradtrack)) == summary(batches(torch))


def test_iterable_dataset_len_and_overrun_warning(torch):
    out = []
    for lib in (gradtrack, torch):
        class S(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(5))

            def __len__(self):
                return 3

            def __repr__(self):
                return "S()"
        loader = lib.utils.data.DataLoader(S(), batch_size=None)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            n = len(loader)
            items = list(loader)
        out.append((n, items, [str(x.message) for x in w]))
    assert out[0] == out[1] and len(out[0][2]) == 2


ERRORS = [
    lambda lib, ds: lib.utils.data.DataLoader(ds, batch_sampler=[[0]], batch_size=2),
    lambda lib, ds: lib.utils.data.DataLoader(ds, batch_sampler=[[0]], shuffle=True),
    lambda lib, ds: lib.utils.data.DataLoader(ds, batch_sampler=[[0]], sampler=[0]),
    lambda lib, ds: lib.utils.data.DataLoader(ds, batch_sampler=[[0]], drop_last=True),
    lambda lib, ds: lib.utils.data.DataLoader(ds, sampler=[0], shuffle=True),
    lambda lib, ds: lib.utils.data.DataLoader(ds, batch_size=None, drop_last=True),
    lambda lib, ds: lib.utils.data.DataLoader(ds, num_workers=-1),
    lambda lib, ds: lib.utils.data.DataLoader(ds, timeout=-1),
    lambda lib, ds: lib.utils.data.DataLoader(ds, prefetch_factor=2),
    lambda lib, ds: lib.utils.data.DataLoader(ds, num_workers=1, prefetch_factor=-1),
    lambda lib, ds: lib.utils.data.DataLoader(ds, persistent_workers=True),
    lambda lib, ds: lib.utils.data.DataLoader(ds, multiprocessing_context="fork"),
    lambda lib, ds: lib.utils.data.DataLoader(ds, num_workers=1, multiprocessing_context="nope"),
    lambda lib, ds: lib.utils.data.DataLoader(ds, num_workers=1, multiprocessing_context=3),
    lambda lib, ds: lib.utils.data.DataLoader(ds, batch_size=0),
    lambda lib, ds: lib.utils.data.DataLoader(_stream(lib), shuffle=True),
    lambda lib, ds: lib.utils.data.DataLoader(_stream(lib), sampler=[0]),
    lambda lib, ds: lib.utils.data.DataLoader(_stream(lib), batch_sampler=[[0]]),
    lambda lib, ds: setattr(lib.utils.data.DataLoader(ds), "batch_size", 3),
    lambda lib, ds: setattr(lib.utils.data.DataLoader(ds), "sampler", None),
    lambda lib, ds: list(lib.utils.data.DataLoader(ds, sampler=[0, 99], batch_size=2)),
    lambda lib, ds: list(lib.utils.data.DataLoader(ds, batch_sampler=[[]])),
    lambda lib, ds: list(lib.utils.data.DataLoader(lib.utils.data.Dataset(), batch_size=2,
                                                   sampler=[0])),
    lambda lib, ds: list(lib.utils.data.DataLoader(ds, timeout=1)),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_equal_torch(case):
    same(lambda lib: ERRORS[case](lib, lib.utils.data.TensorDataset(lib.arange(6.0))))


def test_setting_other_attributes_is_allowed(torch):
    loader = DataLoader(range(3))
    loader.collate_fn = lambda b: b
    assert list(loader) == [[0], [1], [2]]


def test_default_collate_and_convert_are_chosen_like_torch(torch):
    assert DataLoader(range(3)).collate_fn is default_collate
    assert DataLoader(range(3), batch_size=None).collate_fn is gradtrack.utils.data.default_convert


def test_pin_memory_warns_like_torch(torch):
    out = []
    for lib in (gradtrack, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            list(lib.utils.data.DataLoader(range(2), pin_memory=True))
        out.append([str(x.message) for x in w])
    assert out[0] == out[1]


def _expected_shuffled(n, batch_size, seed=None, generator_seed=None):
    """torch's draws for DataLoader(shuffle=True): the iterator's base seed first, then
    the RandomSampler's (a seed for a fresh generator, unless one was given)."""
    if generator_seed is None:
        gradtrack.manual_seed(seed)
        _random.random_seed()
        g = _random.Generator().manual_seed(int(_random.random_seed()))
    else:
        g = _random.Generator().manual_seed(generator_seed)
        _random.random_seed(g)
    perm = _random.randperm(n, g).tolist()
    return [perm[i:i + batch_size] for i in range(0, n, batch_size)]


def test_shuffle_draws_as_torch_without_generator():
    x = gradtrack.arange(23)
    gradtrack.manual_seed(5)
    ours = [b[0].tolist() for b in DataLoader(TensorDataset(x), batch_size=5, shuffle=True)]
    assert ours == _expected_shuffled(23, 5, seed=5)
    assert sorted(sum(ours, [])) == list(range(23))


def test_shuffle_draws_as_torch_with_generator():
    x = gradtrack.arange(17)
    g = _random.Generator().manual_seed(12)
    loader = DataLoader(TensorDataset(x), batch_size=4, shuffle=True, generator=g)
    first = [b[0].tolist() for b in loader]
    assert first == _expected_shuffled(17, 4, generator_seed=12)
    second = [b[0].tolist() for b in loader]
    assert second != first and sorted(sum(second, [])) == list(range(17))


def test_every_epoch_draws_the_base_seed_even_unshuffled():
    gradtrack.manual_seed(2)
    list(DataLoader(range(4)))
    after_loader = gradtrack.rand(3).tolist()
    gradtrack.manual_seed(2)
    _random.random_seed()
    assert gradtrack.rand(3).tolist() == after_loader


def test_shuffled_batches_equal_torch_directly(torch):
    def batches(lib, gen):
        lib.manual_seed(0)
        ds = lib.utils.data.TensorDataset(lib.arange(30))
        g = lib.Generator().manual_seed(1) if gen else None
        return [b[0].tolist() for b in lib.utils.data.DataLoader(ds, 8, shuffle=True,
                                                                 generator=g)]
    assert batches(gradtrack, False) == batches(torch, False)
    assert batches(gradtrack, True) == batches(torch, True)


DTYPES = ["float32", "float64", "int64", "int32", "bool", "uint8"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_dataset_fast_path_equals_per_sample_stacking(dtype):
    rng = np.random.default_rng(0)
    a = gradtrack.tensor((rng.standard_normal((37, 3, 2)) * 5).astype(dtype))
    b = gradtrack.tensor(rng.integers(0, 9, 37).astype(dtype))
    ds = TensorDataset(a, b)
    order = [int(i) for i in rng.permutation(37)]
    fast = list(DataLoader(ds, batch_size=8, sampler=order))
    slow = list(DataLoader(ds, batch_size=8, sampler=order, collate_fn=lambda s: default_collate(s)))
    assert len(fast) == len(slow) == 5
    for fb, sb in zip(fast, slow):
        assert type(fb) is type(sb) is list
        for f, s in zip(fb, sb):
            assert f.dtype == s.dtype and f.shape == s.shape and f.stride() == s.stride()
            assert f.is_contiguous() and f._version == s._version == 0
            assert not f.requires_grad and f.grad_fn is None
            np.testing.assert_array_equal(f.numpy(), s.numpy())
    a[0, 0, 0] = 99  # batches are copies, never views of the dataset
    assert fast[0][0].numpy().max() != 99 or order[0] != 0


def test_fast_path_batches_match_torch(torch):
    def scenario(lib):
        ds = lib.utils.data.TensorDataset(lib.arange(40.0).view(20, 2), lib.arange(20))
        return list(lib.utils.data.DataLoader(ds, batch_size=6, sampler=list(range(19, -1, -1))))
    same(scenario)


def test_sequential_sampler_over_custom_dataset(torch):
    class Squares(Dataset):
        def __getitem__(self, i):
            return gradtrack.tensor([i * i]), i

        def __len__(self):
            return 5
    batches = list(DataLoader(Squares(), batch_size=2, sampler=SequentialSampler(range(5))))
    assert [b[1].tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    assert [b[0].view(-1).tolist() for b in batches] == [[0, 1], [4, 9], [16]]


def test_training_loop_with_loader_scheduler_and_clipping_equals_torch(torch):
    # The loop every training script has: DataLoader, SGD with momentum, a scheduler
    # stepped per batch (cycling the momentum) and gradient clipping.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((48, 5)).astype(np.float32)
    y = (x @ rng.standard_normal((5, 1)) + 0.1).astype(np.float32)
    w0 = rng.standard_normal((1, 5)).astype(np.float32)

    def train(lib):
        model = lib.nn.Linear(5, 1)
        with lib.no_grad():
            model.weight.copy_(lib.tensor(w0))
            model.bias.fill_(0.0)
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.tensor(x), lib.tensor(y)),
                                           batch_size=16)
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.2, epochs=4,
                                                  steps_per_epoch=len(loader))
        norms = []
        for _ in range(4):
            for xb, yb in loader:
                opt.zero_grad()
                loss = lib.nn.functional.mse_loss(model(xb), yb)
                loss.backward()
                norms.append(lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
                opt.step()
                sched.step()
        return model.weight.detach().numpy().copy(), norms, sched.get_last_lr()

    w, norms, lr = train(gradtrack)
    tw, tnorms, tlr = train(torch)
    np.testing.assert_allclose(w, tw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(norms, tnorms, rtol=1e-5)
    assert lr == tlr
