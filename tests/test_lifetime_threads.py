"""Graphs, saved tensors and hooks are freed when the last reference
goes; cycles through hooks are collected; memory does not grow over training;
grad mode is per thread; threads train independently; long kernels release the
GIL so other Python threads run."""

import gc
import subprocess
import sys
import threading
import weakref
from pathlib import Path

import numpy as np

import gradtrack as gt
from helpers import env_for_rss_child

ROOT = Path(__file__).resolve().parents[1]


def test_hooks_are_freed_with_their_graph():
    def hook(g):
        return g

    alive = weakref.ref(hook)
    x = gt.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(hook)
    del hook
    assert alive() is not None
    del y
    assert alive() is None


def test_saved_tensors_are_freed_after_backward():
    array = np.ones(3, dtype=np.float32)
    alive = weakref.ref(array)
    x = gt.ones(3, requires_grad=True)
    t = gt.from_numpy(array)  # the storage keeps `array` alive
    del array
    y = (x * t).sum()  # MulBackward0 saves t (x requires grad)
    del t
    assert alive() is not None
    y.backward()  # without retain_graph the saved tensors are released
    assert alive() is None


def test_saved_tensors_are_kept_with_retain_graph_until_graph_dies():
    array = np.ones(3, dtype=np.float32)
    alive = weakref.ref(array)
    x = gt.ones(3, requires_grad=True)
    t = gt.from_numpy(array)
    del array
    y = (x * t).sum()
    del t
    y.backward(retain_graph=True)
    assert alive() is not None
    y.backward()
    assert alive() is None


def test_graph_is_freed_when_the_output_dies():
    array = np.ones(3, dtype=np.float32)
    alive = weakref.ref(array)
    x = gt.ones(3, requires_grad=True)
    t = gt.from_numpy(array)
    del array
    y = x * t
    del t
    assert alive() is not None
    del y
    assert alive() is None


def test_cycle_through_leaf_hook_is_collected():
    def make():
        x = gt.ones(3, requires_grad=True)
        x.register_hook(lambda g: g * x.sum())  # the closure refers to x
        return weakref.ref(x)

    alive = make()
    assert alive() is not None
    gc.collect()
    assert alive() is None


def test_cycle_through_non_leaf_hook_and_graph_is_collected():
    def make():
        x = gt.ones(3, requires_grad=True)
        x.register_hook(lambda g: g * x.sum())
        y = x * 2
        y.register_hook(lambda g: g + y.detach())  # hook on y's node refers to y
        return weakref.ref(x), weakref.ref(y)

    wx, wy = make()
    # The leaf's cycle is held by y's graph; it becomes unique (collectable)
    # once y's cycle is gone, so two passes free both, as generations would.
    gc.collect()
    gc.collect()
    assert wx() is None and wy() is None


def test_soak_short_run_does_not_grow_memory():
    """A short run of the soak script (the full 100 000 steps is one command:
    `python -m benchmarks.soak --steps 100000`)."""
    env = env_for_rss_child()
    out = subprocess.run([sys.executable, "-m", "benchmarks.soak", "--steps", "3000",
                          "--warmup", "500", "--limit-mb", "5"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "RSS growth" in out.stdout


def test_grad_mode_is_thread_local():
    seen = {}
    ready = threading.Event()
    done = threading.Event()

    def worker():
        with gt.no_grad():
            ready.set()
            done.wait(5)
            seen["worker"] = gt.is_grad_enabled()

    t = threading.Thread(target=worker)
    t.start()
    ready.wait(5)
    x = gt.ones(2, requires_grad=True)
    seen["main_requires_grad"] = (x * 2).requires_grad  # the worker's no_grad is not ours
    done.set()
    t.join()
    assert seen == {"worker": False, "main_requires_grad": True}


def _train(seed, steps=30):
    gt.manual_seed(seed)
    data = np.random.default_rng(seed)
    x = gt.tensor(data.standard_normal((64, 8)).astype(np.float32))
    y = gt.tensor(data.integers(0, 3, 64))
    model = gt.nn.Sequential(gt.nn.Linear(8, 16), gt.nn.ReLU(), gt.nn.Linear(16, 3))
    with gt.no_grad():  # deterministic weights whatever the generator interleaving
        for i, p in enumerate(model.parameters()):
            p.copy_(gt.tensor(np.random.default_rng(seed + i).standard_normal(
                tuple(p.shape)).astype(np.float32) * 0.3))
    opt = gt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = gt.nn.CrossEntropyLoss()
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_two_threads_training_match_sequential_runs():
    sequential = [_train(1), _train(2)]
    results = {}

    def run(seed):
        results[seed] = _train(seed)

    threads = [threading.Thread(target=run, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for seed, expected in zip((1, 2), sequential):
        for got, want in zip(results[seed], expected):
            np.testing.assert_array_equal(got, want)


def test_long_kernels_release_the_gil():
    a = gt.rand(1024, 1024)
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1

    old = sys.getswitchinterval()
    # Long intervals: the spinner gets the GIL only when the kernel releases it
    # (and then keeps it for one interval, so the test takes about that long).
    sys.setswitchinterval(0.5)
    t = threading.Thread(target=spin)
    try:
        t.start()
        while counter[0] == 0:  # the spinner is running (it had the GIL once)
            pass
        before = counter[0]
        a @ a  # ~10 ms of BLAS: the GIL is released inside
        during = counter[0] - before
    finally:
        stop.set()
        sys.setswitchinterval(old)
        t.join()
    assert during > 0
