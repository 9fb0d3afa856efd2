"""utils.data samplers against torch 2.13. Orders that need no random numbers are
compared with torch directly; shuffled orders are checked against torch's algorithm
fed with gradtrack's own draws (``utils.data._random``: randperm / randint / the seed
draw / Generator), and directly against torch in tests that pass once gradtrack's RNG
is torch's mt19937."""

import pytest
from helpers import same

import gradtrack
from gradtrack.utils.data import (
    RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
    _random,
)


def test_sequential_and_batch_samplers_equal_torch():
    def scenario(lib):
        d = lib.utils.data
        out = [list(d.SequentialSampler(range(5))), len(d.SequentialSampler(range(5)))]
        for n, bs, drop in [(10, 3, False), (10, 3, True), (9, 3, True), (2, 5, False),
                            (2, 5, True), (0, 2, False)]:
            s = d.BatchSampler(d.SequentialSampler(range(n)), bs, drop)
            out += [list(s), len(s)]
        out.append(list(d.BatchSampler([4, 2, 9, 1], 3, False)))
        return out
    same(scenario)


SAMPLER_ERRORS = [
    lambda d: d.BatchSampler(range(3), 0, False),
    lambda d: d.BatchSampler(range(3), True, False),
    lambda d: d.BatchSampler(range(3), 2.0, False),
    lambda d: d.BatchSampler(range(3), 2, 1),
    lambda d: d.RandomSampler(range(3), replacement=1),
    lambda d: d.RandomSampler(range(3), num_samples=0),
    lambda d: d.RandomSampler(range(3), num_samples=2.5),
    lambda d: d.RandomSampler([], num_samples=None),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], 0),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], True),
    lambda d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=0),
    lambda d: d.WeightedRandomSampler([[1.0, 2.0]], 2),
    lambda d: list(d.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
    lambda d: list(d.WeightedRandomSampler([0.0, 0.0], 2)),
    lambda d: list(d.WeightedRandomSampler([-1.0, 2.0], 2)),
    lambda d: list(d.WeightedRandomSampler([float("nan"), 2.0], 2)),
    lambda d: list(d.WeightedRandomSampler([float("inf"), 2.0], 2)),
    lambda d: list(d.WeightedRandomSampler([float("nan"), 2.0], 1)),
    lambda d: list(d.WeightedRandomSampler([-1.0, 2.0], 2, replacement=False)),
    lambda d: list(d.WeightedRandomSampler([0.0, 0.0], 1, replacement=False)),
    lambda d: list(d.WeightedRandomSampler([1.0, 0.0], 2, replacement=False)),
]


@pytest.mark.parametrize("case", range(len(SAMPLER_ERRORS)))
def test_sampler_errors_equal_torch(case):
    same(lambda lib: SAMPLER_ERRORS[case](lib.utils.data))


def _gen(seed):
    return _random.Generator().manual_seed(seed)


@pytest.mark.parametrize("n, num_samples", [(10, None), (10, 4), (10, 25), (7, 14)])
def test_random_sampler_without_replacement_is_torch_algorithm(n, num_samples):
    # torch: one randperm(n) per full pass, then the head of one more randperm.
    ours = list(RandomSampler(range(n), num_samples=num_samples, generator=_gen(4)))
    g = _gen(4)
    total = n if num_samples is None else num_samples
    expected = []
    for _ in range(total // n):
        expected += _random.randperm(n, g).tolist()
    expected += _random.randperm(n, g).tolist()[:total % n]
    assert ours == expected and sorted(set(ours)) == sorted(set(expected))
    assert len(RandomSampler(range(n), num_samples=num_samples)) == total


@pytest.mark.parametrize("num_samples", [5, 32, 70])
def test_random_sampler_with_replacement_draws_in_chunks_of_32(num_samples):
    ours = list(RandomSampler(range(9), replacement=True, num_samples=num_samples,
                              generator=_gen(8)))
    g = _gen(8)
    expected = []
    for _ in range(num_samples // 32):
        expected += _random.randint(9, (32,), g).tolist()
    expected += _random.randint(9, (num_samples % 32,), g).tolist()
    assert ours == expected
    assert all(0 <= i < 9 for i in ours)


def test_random_sampler_without_generator_seeds_a_fresh_one():
    # torch: seed = empty((), int64).random_() from the default generator, then
    # randperm with a new Generator seeded by it.
    gradtrack.manual_seed(21)
    ours = list(RandomSampler(range(12)))
    after = gradtrack.rand(1).item()
    gradtrack.manual_seed(21)
    seed = _random.random_seed()
    expected = _random.randperm(12, _gen(int(seed))).tolist()
    assert ours == expected
    assert gradtrack.rand(1).item() == after  # the default stream moved by the seed draw only


def test_subset_random_sampler_is_one_randperm_per_pass():
    indices = [10, 20, 30, 40, 50]
    g = _gen(2)
    sampler = SubsetRandomSampler(indices, generator=g)
    first, second = list(sampler), list(sampler)
    g2 = _gen(2)
    assert first == [indices[i] for i in _random.randperm(5, g2).tolist()]
    assert second == [indices[i] for i in _random.randperm(5, g2).tolist()]
    assert sorted(first) == indices and len(sampler) == 5
    gradtrack.manual_seed(1)
    unseeded = list(SubsetRandomSampler(indices))
    gradtrack.manual_seed(1)
    assert unseeded == [indices[i] for i in gradtrack.randperm(5).tolist()]


def test_weighted_random_sampler_respects_weights():
    gradtrack.manual_seed(0)
    draws = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 400))
    assert set(draws) == {1, 3}
    assert 0.15 < draws.count(1) / 400 < 0.35
    no_repl = list(WeightedRandomSampler([1.0, 0.5, 2.0, 0.1, 4.0], 5, replacement=False,
                                         generator=_gen(3)))
    assert sorted(no_repl) == [0, 1, 2, 3, 4]
    again = list(WeightedRandomSampler([1.0, 0.5, 2.0, 0.1, 4.0], 5, replacement=False,
                                       generator=_gen(3)))
    assert no_repl == again
    sampler = WeightedRandomSampler((0.2, 0.8), 3)
    assert len(sampler) == 3 and str(sampler.weights.dtype) == "gradtrack.float64"


def test_random_samplers_equal_torch_directly(torch):
    def orders(lib):
        d = lib.utils.data
        lib.manual_seed(7)
        out = [list(d.RandomSampler(range(15))),
               list(d.RandomSampler(range(15), replacement=True, num_samples=40)),
               list(d.SubsetRandomSampler([3, 1, 4, 1, 5])),
               list(d.WeightedRandomSampler([0.1, 0.2, 0.7], 10))]
        g = lib.Generator().manual_seed(9)
        out.append(list(d.RandomSampler(range(15), generator=g)))
        return out
    assert orders(gradtrack) == orders(torch)


