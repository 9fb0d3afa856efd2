"""NOTE [The out= fast path]: module functions that take out= (factories: layout=,
pin_memory=) run no Python frame unless those keywords are given, and otherwise
behave as their Python wrappers (signature, docstring, out= rules)."""

import inspect
import gc
import sys

import pytest

import gradtrack

ELEMENTWISE = ["add", "sub", "mul", "div", "exp", "sin", "maximum", "eq"]
FACTORIES = ["zeros", "ones", "empty", "rand", "randn", "arange", "full", "tensor"]


def _python_frames(fn):
    """The Python functions entered while ``fn()`` runs."""
    seen = []

    def profile(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)

    # A collection inside fn() would run gc.callbacks (hypothesis registers one) and
    # show their frames; the collector is off for the call.
    enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if enabled:
            gc.enable()
    return [name for name in seen if name != "<lambda>"]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_plain_elementwise_call_runs_no_python_frame(name):
    a, b = gradtrack.ones(2), gradtrack.full((2,), 2.0)
    fn = getattr(gradtrack, name)
    args = (a,) if name in ("exp", "sin") else (a, b)
    assert _python_frames(lambda: fn(*args)) == []
    assert fn._gt_fast is getattr(gradtrack._C, name)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_plain_factory_call_runs_no_python_frame(name):
    fn = getattr(gradtrack, name)
    assert _python_frames(lambda: fn(2, 3)) == []
    assert _python_frames(lambda: fn(2, 3, dtype=gradtrack.float64)) == []


def test_trigger_keywords_take_the_wrapper(torch):
    a = gradtrack.ones(2)
    out = gradtrack.empty(2)
    assert _python_frames(lambda: gradtrack.add(a, a, out=out)) != []
    assert out.tolist() == [2.0, 2.0] and out._version == 1
    assert _python_frames(lambda: gradtrack.zeros(2, layout=gradtrack.strided)) != []
    with pytest.raises(RuntimeError) as g_info:
        gradtrack.zeros(2, pin_memory=True)
    with pytest.raises(RuntimeError) as t_info:
        torch.zeros(2, pin_memory=True)
    assert type(g_info.value) is type(t_info.value)
    # out= on a factory wrapped twice (out= over layout=) still reaches both layers
    r = gradtrack.arange(3, out=gradtrack.empty(0, dtype=gradtrack.float64))
    assert r.dtype is gradtrack.float64 and r.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("name", ELEMENTWISE + FACTORIES)
def test_fast_path_keeps_the_wrappers_face(name):
    fn = getattr(gradtrack, name)
    slow = fn._gt_slow
    assert inspect.signature(fn) == inspect.signature(slow)
    assert fn.__doc__ == slow.__doc__ and fn.__name__ == slow.__name__
    assert callable(fn) and repr(fn) == repr(slow)


def test_fast_path_results_equal_the_wrappers():
    a, b = gradtrack.arange(4.0), gradtrack.full((4,), 3.0)
    for name in ELEMENTWISE:
        fn = getattr(gradtrack, name)
        args = (a,) if name in ("exp", "sin") else (a, b)
        assert fn(*args).tolist() == fn._gt_slow(*args).tolist()
    assert gradtrack.add(a, b, alpha=2).tolist() == [6.0, 7.0, 8.0, 9.0]


def test_fast_paths_pickle_by_name_as_torch_functions_do(torch):
    import copy
    import pickle

    names = ("add", "tanh", "zeros", "cumsum", "hstack", "tensor", "arange")
    for name in names:
        fn = getattr(gradtrack, name)
        assert fn.__module__ == getattr(torch, name).__module__.replace("torch", "gradtrack")
        assert pickle.loads(pickle.dumps(fn)) is fn
        assert copy.deepcopy(fn) is fn
    assert pickle.loads(pickle.dumps(gradtrack.Tensor.new_zeros)) is gradtrack.Tensor.new_zeros

    # what a process pool sends: a partial of a gradtrack function
    import functools

    part = pickle.loads(pickle.dumps(functools.partial(gradtrack.add, alpha=2)))
    assert part.func is gradtrack.add
    assert part(gradtrack.ones(2), gradtrack.ones(2)).tolist() == [3.0, 3.0]
