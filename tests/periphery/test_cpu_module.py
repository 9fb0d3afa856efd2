"""``torch.cpu`` against torch 2.13: the CPU as a device module (available, one device,
already initialized, 'cpu'), its streams and events (nothing to wait for), the deprecated
``torch.cpu.amp`` aliases with their FutureWarnings, and ``gradtrack.cpu`` loaded on first
use like the other optional submodules."""

import inspect
import subprocess
import sys
import warnings

import pytest

import gradtrack

NAMES = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
         "stream", "set_device", "device_count", "Stream", "StreamContext", "Event"]


def test_device_queries_match_torch(torch):
    for lib in (gradtrack, torch):
        cpu = lib.cpu
        assert (cpu.is_available(), cpu.is_initialized(), cpu.device_count(),
                cpu.current_device()) == (True, True, 1, "cpu")
        assert cpu.synchronize() is None and cpu.synchronize("cpu") is None
        assert cpu.set_device("cpu") is None and cpu.set_device(0) is None


def test_public_names_and_signatures_match_torch(torch):
    assert sorted(gradtrack.cpu.__all__) == sorted(set(torch.cpu.__all__) - {"get_capabilities"})
    for name in NAMES:
        ours, theirs = getattr(gradtrack.cpu, name), getattr(torch.cpu, name)
        assert list(inspect.signature(ours).parameters) == \
            list(inspect.signature(theirs).parameters), name


def test_streams_and_events_match_torch(torch):
    for lib in (gradtrack, torch):
        cpu = lib.cpu
        default = cpu.current_stream()
        assert cpu.current_stream() is default and cpu.current_stream("cpu") is default
        s = cpu.Stream(priority=3)
        assert (s.wait_stream(default), s.record_event(), s.wait_event(cpu.Event())) == \
            (None, None, None)
        e = cpu.Event()
        assert (e.query(), e.record(), e.wait(), e.synchronize()) == (True, None, None, None)
        with cpu.stream(s) as entered:
            assert entered is None and cpu.current_stream() is s
        assert cpu.current_stream() is default
        with cpu.StreamContext(None):
            assert cpu.current_stream() is default


def test_amp_autocast_warns_and_runs_as_autocast_cpu(torch):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.cpu.amp.autocast(dtype=lib.bfloat16) as region:
                inside = ((lib.ones(2, 2) @ lib.ones(2, 2)).dtype, lib.is_autocast_enabled("cpu"),
                          lib.get_autocast_dtype("cpu"))
            default = lib.cpu.amp.autocast(enabled=False)
        return ([str(d).split(".")[-1] for d in inside[::2]], inside[1],
                isinstance(region, lib.amp.autocast), str(default.fast_dtype).split(".")[-1],
                [(w.category, str(w.message), w.filename == __file__) for w in caught])

    assert run(gradtrack) == run(torch)
    message = run(gradtrack)[-1][0][1]
    assert message == ("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                       "`torch.amp.autocast('cpu', args...)` instead.")
    assert list(inspect.signature(gradtrack.cpu.amp.autocast).parameters) == \
        list(inspect.signature(torch.cpu.amp.autocast).parameters)


def test_amp_grad_scaler_warns_and_is_a_cpu_scaler(torch):
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = lib.cpu.amp.GradScaler(init_scale=8.0)
        return (scaler.get_scale(), scaler.is_enabled(),
                [(w.category, str(w.message), w.filename == __file__) for w in caught])

    assert run(gradtrack) == run(torch)
    assert gradtrack.cpu.amp.GradScaler.__module__ == "gradtrack.cpu.amp.grad_scaler"
    assert gradtrack.cpu.amp.autocast.__module__ == "gradtrack.cpu.amp.autocast_mode"


def test_cpu_module_loads_on_first_use():
    code = ("import sys, gradtrack; before = 'gradtrack.cpu' in sys.modules; "
            "print(before, 'cpu' in dir(gradtrack), gradtrack.cpu.device_count(), "
            "'gradtrack.cpu' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    assert out == ["False", "True", "1", "True"]


@pytest.mark.parametrize("statement", ["import gradtrack.cpu", "from gradtrack.cpu import amp",
                                       "import gradtrack.cpu.amp.autocast_mode"])
def test_cpu_module_imports_as_torch_s_does(statement):
    out = subprocess.run([sys.executable, "-c", statement + "; import gradtrack; "
                          "print(gradtrack.cpu.amp.autocast.__name__)"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.strip() == "autocast"
