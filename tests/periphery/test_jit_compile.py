"""``torch.jit``, ``torch.compile``/``torch.compiler`` and ``torch.onnx`` as eager
passthroughs: the same results and answers as torch for code written for them."""

import warnings

import pytest

import gradtrack

from helpers import same


def _double(lib):
    def double(x):
        return x * 2
    return double


CASES = {
    "answers": lambda lib: (lib.jit.is_scripting(), lib.jit.is_tracing(),
                            lib.compiler.is_compiling(), lib.compiler.is_dynamo_compiling(),
                            lib.onnx.is_in_onnx_export(), lib.jit.annotate(list, [1]),
                            str(lib.jit.Final[int])),
    "decorators": lambda lib: (lambda f: (lib.jit.ignore(f) is f, lib.jit.unused(f) is f,
                                          lib.jit.export(f) is f))(_double(lib)),
    "ignore_drop": lambda lib: lib.jit.ignore(drop=True)(_double(lib))(lib.ones(1)),
    "script_runs": lambda lib: lib.jit.script(_scripted)(lib.arange(3.0)),
    "compile_function": lambda lib: lib.compile(_double(lib))(lib.arange(3.0)),
    "compile_decorator": lambda lib: lib.compile(mode="max-autotune-no-cudagraphs")(
        _double(lib))(lib.ones(2)),
    "compile_mode_and_options": lambda lib: lib.compile(_double(lib), mode="default",
                                                        options={}),
    "compile_not_callable": lambda lib: lib.compile(3),
}


def _scripted(x):
    return x.relu() + 1


@pytest.mark.parametrize("case", sorted(CASES))
def test_passthroughs_match_torch(case):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = CASES[case](lib)
        return result, sorted({(w.category.__name__, str(w.message)) for w in caught
                               if "script_method" not in str(w.message)})
    same(scenario)


def test_compiled_module_trains_as_the_module():
    gradtrack.manual_seed(0)
    model = gradtrack.nn.Linear(3, 2)
    compiled = gradtrack.compile(model)
    x = gradtrack.randn(4, 3)
    compiled(x).sum().backward()
    assert compiled is model and model.weight.grad is not None


def test_onnx_export_says_gradtrack_cannot():
    import gradtrack.onnx
    with pytest.raises(NotImplementedError, match="gradtrack cannot export ONNX"):
        gradtrack.onnx.export(gradtrack.nn.Linear(2, 2), (gradtrack.ones(2),), "model.onnx")


def test_module_paths_are_torch_s():
    from gradtrack.nn.modules.activation import MultiheadAttention
    from gradtrack.nn.modules.linear import NonDynamicallyQuantizableLinear
    assert MultiheadAttention is gradtrack.nn.MultiheadAttention
    out_proj = gradtrack.nn.MultiheadAttention(4, 2).out_proj
    assert type(out_proj) is NonDynamicallyQuantizableLinear
    assert issubclass(NonDynamicallyQuantizableLinear, gradtrack.nn.Linear)


def test_record_function_runs_as_torch():
    def scenario(lib):
        @lib.profiler.record_function("step")
        def step(x):
            with lib.autograd.profiler.record_function("inner") as region:
                return x * 2, type(region).__name__
        return (step(lib.ones(2)), lib.autograd.profiler.record_function is
                lib.profiler.record_function, repr(lib.profiler.ProfilerActivity.CPU),
                list(lib.profiler.ProfilerActivity.__members__))
    same(scenario)
