"""Crowded resources in a running job: threads training their own models while another
thread collects garbage give the numbers of sequential runs; a very long chain's
backward completes (no recursion in the engine); a very deeply nested module raises
RecursionError as torch does, never crashes. The deep cases run in a fresh interpreter
with a timeout, so a crash or a hang fails the test."""

import gc
import subprocess
import sys
import textwrap
import threading

import pytest

import gradtrack

pytestmark = pytest.mark.timeout(120)


def _train(seed, steps=25):
    gen = gradtrack.Generator().manual_seed(seed)
    model = gradtrack.nn.Sequential(gradtrack.nn.Linear(8, 16), gradtrack.nn.Tanh(),
                                    gradtrack.nn.Linear(16, 1))
    with gradtrack.no_grad():
        for p in model.parameters():
            p.copy_(gradtrack.randn(p.shape, generator=gen) * 0.3)
    opt = gradtrack.optim.Adam(model.parameters(), lr=0.01)
    x = gradtrack.randn(32, 8, generator=gen)
    y = gradtrack.randn(32, 1, generator=gen)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return [p.detach().tolist() for p in model.parameters()]


def test_threads_training_while_another_collects_garbage():
    seeds = [1, 2, 3]
    sequential = [_train(s) for s in seeds]
    results, errors, stop = {}, [], threading.Event()

    def worker(seed):
        try:
            results[seed] = _train(seed)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    def collector():
        while not stop.is_set():
            gc.collect()

    threads = [threading.Thread(target=worker, args=(s,)) for s in seeds]
    sweeper = threading.Thread(target=collector)
    sweeper.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    stop.set()
    sweeper.join(timeout=60)
    assert not errors and [results[s] for s in seeds] == sequential


DEEP = textwrap.dedent("""
    import sys
    lib = __import__(sys.argv[1])
    case = sys.argv[2]
    if case == "chain":
        x = lib.ones(1, requires_grad=True)
        y = x
        for _ in range(300_000):
            y = y * 1.0
        y.sum().backward()
        print(x.grad.tolist())
    else:
        m = lib.nn.Linear(2, 2)
        for _ in range(5000):
            m = lib.nn.Sequential(m)
        for what in (lambda: m(lib.ones(1, 2)), lambda: list(m.parameters())):
            try:
                what()
                print("ok")
            except RecursionError:
                print("RecursionError")
""")


def _deep(tmp_path, lib, case):
    script = tmp_path / "deep.py"
    script.write_text(DEEP)
    done = subprocess.run([sys.executable, str(script), lib, case], capture_output=True,
                          text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_very_long_chain_backward_completes(tmp_path):
    assert _deep(tmp_path, "gradtrack", "chain") == ["[1.0]"]


def test_very_deep_module_raises_recursion_error_as_torch(tmp_path, torch):
    ours = _deep(tmp_path, "gradtrack", "nested")
    assert ours == _deep(tmp_path, "torch", "nested")
    assert ours[0] == "RecursionError"
