"""DistributedDataParallel against one process on the whole batch (run by test_ddp.py)."""

import copy
import warnings

import numpy as np
from harness import check, finish, raises

import gradtrack as gt
import gradtrack.distributed as dist
from gradtrack import nn, optim
from gradtrack.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="mpi")
R, W = dist.get_rank(), dist.get_world_size()
PER_RANK = 8


def mlp(seed):
    gt.manual_seed(seed)
    return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 5))


def batch(step):
    rng = np.random.RandomState(step)
    x = rng.standard_normal((PER_RANK * W, 12)).astype(np.float32)
    y = rng.randint(0, 5, PER_RANK * W).astype(np.int64)
    return gt.tensor(x), gt.tensor(y)


def flat(model):
    return np.concatenate([p.detach().numpy().reshape(-1) for p in model.parameters()])


def identical_on_every_rank(model):
    mine = flat(model)
    everyone = [None] * W
    dist.all_gather_object(everyone, mine)
    for other in everyone:
        np.testing.assert_array_equal(other, mine)  # bitwise: every rank took the same step


def train_against_single_process(make_opt, bucket_cap_mb=None, steps=4):
    model = mlp(seed=R)  # different on every rank: the construction broadcast fixes that
    ddp = DDP(model, bucket_cap_mb=bucket_cap_mb)
    single = copy.deepcopy(model)
    opt, opt_single = make_opt(ddp.parameters()), make_opt(single.parameters())
    loss_fn = nn.CrossEntropyLoss()
    identical_on_every_rank(model)
    for step in range(steps):
        x, y = batch(step)
        mine = slice(R * PER_RANK, (R + 1) * PER_RANK)
        opt.zero_grad()
        loss_fn(ddp(x[mine]), y[mine]).backward()
        opt.step()
        opt_single.zero_grad()
        loss_fn(single(x), y).backward()
        opt_single.step()
        identical_on_every_rank(model)
        np.testing.assert_allclose(flat(model), flat(single), rtol=1e-5, atol=1e-6)
    return ddp


@check
def sgd_momentum_equals_one_process_on_the_whole_batch():
    train_against_single_process(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9))


@check
def tiny_buckets_many_all_reduces_same_result():
    ddp = train_against_single_process(lambda ps: optim.SGD(ps, lr=0.1), bucket_cap_mb=0.0002)
    assert len(ddp._buckets) > 2


@check
def construction_broadcasts_rank0_and_bumps_versions_once():
    model = mlp(seed=R)
    model.register_buffer("running", gt.ones(3) * R)
    before = [p._version for p in model.parameters()]
    DDP(model)
    assert [p._version for p in model.parameters()] == [v + 1 for v in before]
    assert model.running.tolist() == [0.0] * 3 and model.running._version == 1
    reference = mlp(seed=0)
    np.testing.assert_array_equal(flat(model), flat(reference))


@check
def grad_versions_as_torchs():
    model = nn.Linear(3, 2)
    ddp = DDP(model)
    ddp(gt.ones(2, 3) * (R + 1)).sum().backward()
    assert model.weight.grad._version == 1
    ddp(gt.ones(2, 3)).sum().backward()
    assert model.weight.grad._version == 3
    mean = sum(r + 1 for r in range(W)) / W
    np.testing.assert_allclose(model.bias.grad.numpy(), [4.0, 4.0])
    np.testing.assert_allclose(model.weight.grad.numpy(), np.full((2, 3), 2 * mean + 2))


@check
def a_dropped_wrapper_stops_reducing():
    import gc
    model = nn.Linear(3, 2)
    old = DDP(model)
    old(gt.ones(1, 3)).sum().backward()
    del old
    gc.collect()
    model.zero_grad()
    ddp = DDP(model)
    ddp(gt.ones(2, 3) * (R + 1)).sum().backward()
    assert model.weight.grad._version == 1  # one reduction wrote it, not two


@check
def no_sync_accumulates_locally_then_averages():
    model = nn.Linear(3, 2)
    ddp = DDP(model)
    with ddp.no_sync():
        ddp(gt.ones(4, 3) * (R + 1)).sum().backward()
    np.testing.assert_array_equal(model.weight.grad.numpy(), np.full((2, 3), 4.0 * (R + 1)))
    ddp(gt.ones(4, 3) * (R + 1)).sum().backward()
    mean = sum(8.0 * (r + 1) for r in range(W)) / W
    np.testing.assert_allclose(model.weight.grad.numpy(), np.full((2, 3), mean))


class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 2)
        self.b = nn.Linear(3, 2)

    def forward(self, x, use_b=False):
        return self.a(x) + (self.b(x) if use_b else 0)


@check
def unused_parameter_without_find_unused_is_torchs_error():
    ddp = DDP(Two())
    ddp(gt.ones(4, 3)).sum().backward()
    try:
        ddp(gt.ones(4, 3))
    except RuntimeError as e:
        message = str(e)
    else:
        raise AssertionError("no error")
    assert message.startswith("Expected to have finished reduction in the prior iteration before "
                              "starting a new one. This error indicates that your module has "
                              "parameters that were not used in producing loss.")
    assert f"Parameter indices which did not receive grad for rank {R}: 2 3\n" in message


@check
def find_unused_parameters_averages_what_was_used():
    model = Two()
    ddp = DDP(model, find_unused_parameters=True)
    ddp(gt.ones(4, 3) * (R + 1)).sum().backward()
    assert model.b.weight.grad is None  # no rank used it
    mean = sum(4.0 * (r + 1) for r in range(W)) / W
    np.testing.assert_allclose(model.a.weight.grad.numpy(), np.full((2, 3), mean))
    model.zero_grad()
    ddp(gt.ones(4, 3) * (R + 1), use_b=(R == 0)).sum().backward()  # only rank 0 uses b
    np.testing.assert_allclose(model.b.weight.grad.numpy(), np.full((2, 3), 4.0 / W), rtol=1e-6)


@check
def module_state_dict_repr_and_errors():
    inner = nn.Linear(3, 2)
    ddp = DDP(inner)
    assert ddp.module is inner
    assert list(ddp.state_dict()) == ["module.weight", "module.bias"]
    assert repr(ddp) == ("DistributedDataParallel(\n  (module): Linear(in_features=3, "
                         "out_features=2, bias=True)\n)")
    assert ddp.bucket_bytes_cap == 25 * 1024 * 1024 and ddp.broadcast_buffers is True
    raises(RuntimeError, "DistributedDataParallel is not needed when a module doesn't have any "
           "parameter that requires a gradient.", DDP, nn.ReLU())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DDP(nn.Linear(2, 2), broadcast_buffers=False)
    assert caught[0].category is FutureWarning


finish()
