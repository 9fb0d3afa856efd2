"""``torch.backends``, ``torch.cuda`` and the global settings as torch's CPU build
answers them, each against torch 2.13."""

import warnings

import pytest

import gradtrack

from helpers import same


def _flags(lib):
    b = lib.backends
    return (b.cuda.is_built(), b.cuda.matmul.allow_tf32, b.cuda.matmul.fp32_precision,
            b.cuda.matmul.allow_fp16_reduced_precision_reduction,
            b.cuda.matmul.allow_bf16_reduced_precision_reduction,
            b.cuda.flash_sdp_enabled(), b.cuda.mem_efficient_sdp_enabled(),
            b.cuda.math_sdp_enabled(), b.cuda.cudnn_sdp_enabled(),
            b.cuda.fp16_bf16_reduction_math_sdp_allowed(), b.cuda.is_flash_attention_available(),
            b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32,
            b.cudnn.is_available(), b.cudnn.version(), b.cudnn.benchmark_limit,
            b.cudnn.fp32_precision, b.cudnn.is_acceptable(lib.ones(2)),
            b.mkldnn.is_available(), b.mkldnn.enabled, b.mkldnn.deterministic,
            b.openmp.is_available(), b.mkl.is_available(), b.mps.is_available(),
            b.mps.is_built(), b.opt_einsum.is_available(), b.opt_einsum.enabled,
            b.opt_einsum.strategy, b.opt_einsum.get_opt_einsum() is None,
            b.cpu.get_cpu_capability())


def test_backend_defaults_match_torch():
    same(_flags)


def _set_and_restore(lib, body):
    b = lib.backends
    saved = (b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.enabled)
    try:
        return body(b)
    finally:
        b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.enabled = saved
        lib.set_float32_matmul_precision("highest")


SETTERS = {
    "cudnn_flags": lambda b: (setattr(b.cudnn, "benchmark", True),
                              setattr(b.cudnn, "deterministic", True),
                              b.cudnn.benchmark, b.cudnn.deterministic),
    "cudnn_flags_block": lambda b: [b.cudnn.enabled for _ in [b.cudnn.flags(enabled=False)
                                                              .__enter__()]],
    "tf32_true": lambda b: (setattr(b.cuda.matmul, "allow_tf32", True), b.cuda.matmul.allow_tf32,
                            b.cuda.matmul.fp32_precision),
    "tf32_false": lambda b: (setattr(b.cuda.matmul, "allow_tf32", False),
                             b.cuda.matmul.fp32_precision),
    "tf32_bad": lambda b: setattr(b.cuda.matmul, "allow_tf32", "yes"),
    "unknown_get": lambda b: b.cuda.matmul.foo,
    "unknown_set": lambda b: setattr(b.cuda.matmul, "foo", 1),
}


@pytest.mark.parametrize("case", sorted(SETTERS))
def test_backend_setters_match_torch(case):
    same(lambda lib: _set_and_restore(lib, SETTERS[case]))


def test_cudnn_flags_restore_on_exit():
    cudnn = gradtrack.backends.cudnn
    with cudnn.flags(enabled=False, benchmark=True):
        assert (cudnn.enabled, cudnn.benchmark) == (False, True)
    assert (cudnn.enabled, cudnn.benchmark) == (True, False)
    with gradtrack.backends.mkldnn.flags(enabled=False):
        assert gradtrack.backends.mkldnn.enabled is False
    assert gradtrack.backends.mkldnn.enabled is True


def _precision(lib):
    m = lib.backends.cuda.matmul
    seen = []
    try:
        for p in ("high", "medium", "highest"):
            lib.set_float32_matmul_precision(p)
            seen.append((lib.get_float32_matmul_precision(), m.allow_tf32, m.fp32_precision))
        m.allow_tf32 = True
        seen.append(lib.get_float32_matmul_precision())
    finally:
        lib.set_float32_matmul_precision("highest")
    return seen


def test_matmul_precision_is_tf32_flag():
    same(_precision)


@pytest.mark.parametrize("bad", ["foo", 3])
def test_matmul_precision_bad_values(bad):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.set_float32_matmul_precision(bad)
        return [str(w.message).split(" (Triggered")[0] for w in caught], \
            lib.get_float32_matmul_precision()
    same(scenario)


def _deterministic(lib):
    try:
        seen = [lib.are_deterministic_algorithms_enabled()]
        lib.use_deterministic_algorithms(True)
        seen += [lib.are_deterministic_algorithms_enabled(),
                 lib.is_deterministic_algorithms_warn_only_enabled(),
                 lib.get_deterministic_debug_mode()]
        lib.use_deterministic_algorithms(True, warn_only=True)
        seen += [lib.is_deterministic_algorithms_warn_only_enabled(),
                 lib.get_deterministic_debug_mode()]
        lib.set_deterministic_debug_mode("error")
        seen += [lib.get_deterministic_debug_mode()]
    finally:
        lib.use_deterministic_algorithms(False)
    return seen, lib.get_deterministic_debug_mode()


def test_deterministic_algorithms_match_torch():
    same(_deterministic)


@pytest.mark.parametrize("call", [
    lambda lib: lib.use_deterministic_algorithms("x"),
    lambda lib: lib.set_deterministic_debug_mode("x"),
    lambda lib: lib.set_deterministic_debug_mode(5),
    lambda lib: lib.set_num_interop_threads(0),
    lambda lib: lib.set_num_interop_threads(2.0),
], ids=["mode_str", "debug_str", "debug_int", "interop_zero", "interop_float"])
def test_settings_refuse_bad_values(call):
    same(call)


def test_interop_threads_set_once():
    # A fresh process: the count can be set once per process, in torch as here.
    import subprocess
    import sys
    code = ("import gradtrack as t; t.set_num_interop_threads(2); print(t.get_num_interop_threads())\n"
            "try:\n    t.set_num_interop_threads(3)\nexcept RuntimeError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.splitlines() == [
        "2", "Error: cannot set number of interop threads after parallel work has started or "
        "set_num_interop_threads called"]


CUDA = {
    "answers": lambda lib: (lib.cuda.is_available(), lib.cuda.device_count(),
                            lib.cuda.is_initialized(), lib.cuda.is_bf16_supported(),
                            lib.cuda.memory_allocated(), lib.cuda.max_memory_allocated(),
                            lib.cuda.memory_reserved(), lib.cuda.max_memory_reserved(),
                            lib.cuda.get_rng_state_all(), lib.cuda.empty_cache(),
                            lib.cuda.manual_seed(1), lib.cuda.manual_seed_all(1),
                            lib.cuda.seed_all()),
    "synchronize": lambda lib: lib.cuda.synchronize(),
    "current_device": lambda lib: lib.cuda.current_device(),
    "device_name": lambda lib: lib.cuda.get_device_name(),
    "capability": lambda lib: lib.cuda.get_device_capability(),
    "rng_state": lambda lib: lib.cuda.get_rng_state(),
    "init": lambda lib: lib.cuda.init(),
    "module_cuda": lambda lib: lib.nn.Linear(2, 2).cuda(),
    "module_to_cuda": lambda lib: lib.nn.Linear(2, 2).to("cuda"),
    "module_to_cuda_device": lambda lib: lib.nn.Linear(2, 2).to(device=lib.device("cuda:0")),
    "module_to_cpu": lambda lib: lib.nn.Linear(2, 2).to("cpu").weight.dtype == lib.float32,
}


@pytest.mark.parametrize("case", sorted(CUDA))
def test_cuda_on_a_cpu_build_matches_torch(case):
    same(CUDA[case])


def _cuda_amp(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = lib.cuda.amp.GradScaler(enabled=False)
        enabled = lib.cuda.amp.GradScaler().is_enabled()
        with lib.cuda.amp.autocast():
            inside = lib.is_autocast_enabled()
        w = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([w], lr=0.5)
        scaler.scale((w * 2).sum()).backward()
        scaler.step(opt)
        scaler.update()
    return ([(w.category.__name__, str(w.message)) for w in caught], scaler.is_enabled(),
            scaler.get_scale(), scaler.state_dict(), enabled, inside, w.detach().tolist())


def test_cuda_amp_aliases_warn_and_disable():
    same(_cuda_amp)


def test_cuda_amp_imports_by_module_path():
    from gradtrack.cuda.amp import GradScaler, autocast  # noqa: F401
    import gradtrack.cuda.amp as amp
    assert amp.GradScaler is GradScaler
