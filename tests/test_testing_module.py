"""``gradtrack.testing``: torch.testing's ``assert_close``, ``make_tensor`` and the
deprecated ``assert_allclose``, held to torch 2.13.

The messages are pinned as torch words them (measured), so they are checked without
torch too; where torch is installed each scenario also runs with it (``same``) and the
draws of ``make_tensor`` are compared bit for bit.
"""

import collections
import enum
import inspect
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import gradtrack
from gradtrack.testing import assert_allclose, assert_close, make_tensor
from helpers import same, torch_to_gradtrack

NAN, INF = float("nan"), float("inf")
UNEXPECTED = ("resulted in the unexpected exception above. If you are a user and see this message "
              "during normal operation please file an issue at https://github.com/pytorch/pytorch/issues. "
              "If you are a developer and working on the comparison functions, please except the previous "
              "error and raise an expressive `ErrorMeta` instead.")


def _fresh(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          check=True).stdout.strip()


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


# ---- reaching the module --------------------------------------------------------------------

def test_import_gradtrack_does_not_load_testing():
    assert _fresh("import sys, gradtrack; print('gradtrack.testing' in sys.modules, "
                  "'testing' in dir(gradtrack))") == "False True"


@pytest.mark.parametrize("code", [
    "import gradtrack; f = gradtrack.testing.assert_close",
    "import gradtrack.testing; f = gradtrack.testing.assert_close",
    "from gradtrack.testing import assert_close as f",
    "from gradtrack import testing; f = testing.assert_close",
])
def test_every_way_to_reach_testing(code):
    assert _fresh(code + "; print(f.__name__)") == "assert_close"


def test_as_torch_program_imports_torch_testing(tmp_path):
    script = tmp_path / "program.py"
    script.write_text(
        "import torch\nimport torch.testing\nfrom torch.testing import make_tensor\n"
        "torch.manual_seed(0)\n"
        "x = make_tensor(2, dtype=torch.float32, device='cpu')\n"
        "torch.testing.assert_close(x, x.clone())\n"
        "try:\n    torch.testing.assert_close(x, x + 1)\n"
        "except AssertionError as e:\n    print(str(e).splitlines()[0])\n"
        "print(torch.testing.__name__, x.tolist())\n")
    out = subprocess.run([sys.executable, "-m", "gradtrack.as_torch", str(script)], capture_output=True,
                         text=True, timeout=120, check=True).stdout.splitlines()
    assert out == ["Tensor-likes are not close!",
                   "gradtrack.testing [-0.06738138198852539, 4.8279924392700195]"]


def test_public_names_are_torch_s_that_fit_a_cpu_library(torch):
    ours = {n for n in dir(gradtrack.testing) if not n.startswith("_")}
    theirs = {n for n in dir(torch.testing) if not n.startswith("_")}
    assert ours == {"assert_allclose", "assert_close", "make_tensor"}
    assert theirs - ours == {"FileCheck"}  # TorchScript's graph checker


@pytest.mark.parametrize("name", ["assert_close", "make_tensor", "assert_allclose"])
def test_signatures_match_torch(torch, name):
    def shape(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
    assert shape(getattr(gradtrack.testing, name)) == shape(getattr(torch.testing, name))


@pytest.mark.parametrize("name", ["assert_close", "make_tensor", "assert_allclose"])
def test_public_functions_have_examples(name):
    assert ">>>" in getattr(gradtrack.testing, name).__doc__


# ---- assert_close: the messages, pinned as torch words them ---------------------------------

def _t(lib, *args, **kwargs):
    return lib.tensor(*args, **kwargs)


MESSAGES = [
    ("float32", lambda L: L.testing.assert_close(_t(L, [1., 2., 3.]), _t(L, [1., 4., 5.])), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\n"
     "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)"),
    ("float32_difference_in_float32", lambda L: L.testing.assert_close(_t(L, [0.1, 0.2]), _t(L, [0.2, 0.2])),
     "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 0.10000000149011612 at index (0,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.5 at index (0,) (up to 1.3e-06 allowed)"),
    ("float64", lambda L: L.testing.assert_close(_t(L, [0.1, 0.2], dtype=L.float64),
                                                 _t(L, [0.2, 0.2], dtype=L.float64)), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 0.1 at index (0,) (up to 1e-07 allowed)\n"
     "Greatest relative difference: 0.5 at index (0,) (up to 1e-07 allowed)"),
    ("float16", lambda L: L.testing.assert_close(_t(L, [0.1, 0.2], dtype=L.float16),
                                                 _t(L, [0.2, 0.2], dtype=L.float16)), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 0.0999755859375 at index (0,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.5 at index (0,) (up to 0.001 allowed)"),
    ("bfloat16", lambda L: L.testing.assert_close(_t(L, [0.1, 0.2], dtype=L.bfloat16),
                                                  _t(L, [0.2, 0.2], dtype=L.bfloat16)), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 0.10009765625 at index (0,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.5 at index (0,) (up to 0.016 allowed)"),
    ("int64_exact", lambda L: L.testing.assert_close(_t(L, [1, 2, 3]), _t(L, [1, 5, 3])), "AssertionError",
     "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\n"
     "Greatest absolute difference: 3 at index (1,)\nGreatest relative difference: 0.6000000238418579 at index (1,)"),
    ("int8_no_overflow", lambda L: L.testing.assert_close(_t(L, [1, -100], dtype=L.int8),
                                                          _t(L, [1, 100], dtype=L.int8)),
     "AssertionError", "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 200 at index (1,)\nGreatest relative difference: 2.0 at index (1,)"),
    ("bool_exact", lambda L: L.testing.assert_close(_t(L, [True, False]), _t(L, [False, False])), "AssertionError",
     "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 1 at index (0,)\nGreatest relative difference: inf at index (0,)"),
    ("2d_index", lambda L: L.testing.assert_close(_t(L, [[1., 2.], [3., 4.]]), _t(L, [[1., 2.], [3., 5.]])),
     "AssertionError", "Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\n"
     "Greatest absolute difference: 1.0 at index (1, 1) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.20000000298023224 at index (1, 1) (up to 1.3e-06 allowed)"),
    ("only_mismatches_count", lambda L: L.testing.assert_close(_t(L, [1e-6, 1.]), _t(L, [0., 2.])), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)"),
    ("nan_not_equal", lambda L: L.testing.assert_close(_t(L, [1., NAN, 1.]), _t(L, [2., NAN, 1.])), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\n"
     "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)"),
    ("nan_equal_other_differs", lambda L: L.testing.assert_close(_t(L, [NAN, 1.]), _t(L, [NAN, 2.]), equal_nan=True),
     "AssertionError", "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)"),
    ("infinity_only_close_to_itself", lambda L: L.testing.assert_close(_t(L, [INF]), _t(L, [1.]), rtol=0, atol=INF),
     "AssertionError", "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
     "Greatest absolute difference: inf at index (0,) (up to inf allowed)\n"
     "Greatest relative difference: inf at index (0,) (up to 0 allowed)"),
    ("zero_tolerances_say_equal", lambda L: L.testing.assert_close(_t(L, [1., 2.]), _t(L, [1., 3.]), rtol=0, atol=0),
     "AssertionError", "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 1.0 at index (1,)\nGreatest relative difference: 0.3333333432674408 at index (1,)"),
    ("tensor_tolerance_printed_by_value", lambda L: L.testing.assert_close(_t(L, [1.]), _t(L, [2.]), rtol=_t(L, 0.2),
                                                                           atol=0), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
     "Greatest absolute difference: 1.0 at index (0,) (up to 0 allowed)\n"
     "Greatest relative difference: 0.5 at index (0,) (up to 0.20000000298023224 allowed)"),
    ("percent_rounds", lambda L: L.testing.assert_close(L.zeros(3000), L.cat([L.ones(1), L.zeros(2999)])),
     "AssertionError", "Tensor-likes are not close!\n\nMismatched elements: 1 / 3000 (0.0%)\n"
     "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)"),
    ("dtypes_promoted", lambda L: L.testing.assert_close(_t(L, [1.], dtype=L.float16), _t(L, [1.1], dtype=L.float64),
                                                         check_dtype=False), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
     "Greatest absolute difference: 0.10000000000000009 at index (0,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.09090909090909098 at index (0,) (up to 0.001 allowed)"),
    ("0dim", lambda L: L.testing.assert_close(_t(L, 0.1), _t(L, 0.2)), "AssertionError",
     "Scalars are not close!\n\nExpected 0.20000000298023224 but got 0.10000000149011612.\n"
     "Absolute difference: 0.10000000149011612 (up to 1e-05 allowed)\n"
     "Relative difference: 0.5 (up to 1.3e-06 allowed)"),
    ("0dim_int_python_arithmetic", lambda L: L.testing.assert_close(_t(L, 1), _t(L, 3)), "AssertionError",
     "Scalars are not equal!\n\nExpected 3 but got 1.\nAbsolute difference: 2\n"
     "Relative difference: 0.6666666666666666"),
    ("0dim_bool", lambda L: L.testing.assert_close(_t(L, True), _t(L, False)), "AssertionError",
     "Scalars are not equal!\n\nExpected False but got True.\nAbsolute difference: 1\nRelative difference: inf"),
    ("0dim_nan_against_zero", lambda L: L.testing.assert_close(_t(L, NAN), _t(L, 0.)), "AssertionError",
     "Scalars are not close!\n\nExpected 0.0 but got nan.\nAbsolute difference: nan (up to 1e-05 allowed)\n"
     "Relative difference: inf (up to 1.3e-06 allowed)"),
    ("shape", lambda L: L.testing.assert_close(_t(L, [1., 2.]), _t(L, [1., 2., 3.])), "AssertionError",
     "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3])."),
    ("dtype", lambda L: L.testing.assert_close(_t(L, [1, 2]), _t(L, [1., 2.])), "AssertionError",
     "The values for attribute 'dtype' do not match: torch.int64 != torch.float32."),
    ("stride", lambda L: L.testing.assert_close(_t(L, [[1., 2.], [3., 4.]]).t(), _t(L, [[1., 3.], [2., 4.]]),
                                                check_stride=True), "AssertionError",
     "The values for attribute 'stride()' do not match: (1, 2) != (2, 1)."),
    ("stride_before_dtype", lambda L: L.testing.assert_close(L.zeros(1).expand(3), L.zeros(3, dtype=L.float64),
                                                             check_stride=True), "AssertionError",
     "The values for attribute 'stride()' do not match: (0,) != (1,)."),
    ("numbers", lambda L: L.testing.assert_close(1.0, 2.0), "AssertionError",
     "Scalars are not close!\n\nExpected 2.0 but got 1.0.\nAbsolute difference: 1.0 (up to 1e-07 allowed)\n"
     "Relative difference: 0.5 (up to 1e-07 allowed)"),
    ("ints", lambda L: L.testing.assert_close(1, 2), "AssertionError",
     "Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5"),
    ("number_types", lambda L: L.testing.assert_close(1, 1.0), "AssertionError",
     "The (d)types do not match: <class 'int'> != <class 'float'>."),
    ("complex_numbers", lambda L: L.testing.assert_close(1 + 2j, 1 + 3j), "AssertionError",
     "Scalars are not close!\n\nExpected (1+3j) but got (1+2j).\nAbsolute difference: 1.0 (up to 1e-07 allowed)\n"
     "Relative difference: 0.31622776601683794 (up to 1e-07 allowed)"),
    ("numpy_scalars_by_value", lambda L: L.testing.assert_close(np.float32(0.1), np.float32(0.2)), "AssertionError",
     "Scalars are not close!\n\nExpected 0.20000000298023224 but got 0.10000000149011612.\n"
     "Absolute difference: 0.10000000149011612 (up to 1e-07 allowed)\nRelative difference: 0.5 (up to 1e-07 allowed)"),
    ("booleans", lambda L: L.testing.assert_close([True], [False]), "AssertionError",
     "Booleans mismatch: True is not False"),
    ("none", lambda L: L.testing.assert_close({"a": None}, {"a": 2}), "AssertionError",
     "None mismatch: None is not 2\n\nThe failure occurred for item ['a']"),
    ("no_pair", lambda L: L.testing.assert_close(_t(L, [1.]), np.array([1.])), "TypeError",
     "No comparison pair was able to handle inputs of type <class 'torch.Tensor'> and <class 'numpy.ndarray'>."),
    ("no_pair_strings", lambda L: L.testing.assert_close([1., "a"], [3., "a"]), "TypeError",
     "No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>.\n\n"
     "The failure occurred for item [1]"),
    ("subclass_refused", lambda L: L.testing.assert_close(L.nn.Parameter(_t(L, [1.])), _t(L, [1.]),
                                                          allow_subclasses=False), "TypeError",
     "No comparison pair was able to handle inputs of type <class 'torch.nn.parameter.Parameter'> and "
     "<class 'torch.Tensor'>."),
    ("length", lambda L: L.testing.assert_close([[1., 2.]], [[1.]], msg="ignored"), "AssertionError",
     "The length of the sequences mismatch: 2 != 1\n\nThe failure occurred for item [0]"),
    ("keys", lambda L: L.testing.assert_close({"a": 1., "b": 2., "d": 3}, {"a": 1., "c": 2.}), "AssertionError",
     "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['c']\n"
     "Additional keys in the actual mapping: ['b', 'd']"),
    ("nested_item", lambda L: L.testing.assert_close({"a": [1., {"b": _t(L, [1., 2.])}]},
                                                     {"a": [1., {"b": _t(L, [1., 3.])}]}), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)\n\n"
     "The failure occurred for item ['a'][1]['b']"),
    ("first_failure_sorted_keys", lambda L: L.testing.assert_close({"b": 2., "a": 0.}, {"b": 3., "a": 1.}),
     "AssertionError", "Scalars are not close!\n\nExpected 1.0 but got 0.0.\n"
     "Absolute difference: 1.0 (up to 1e-07 allowed)\nRelative difference: 1.0 (up to 1e-07 allowed)\n\n"
     "The failure occurred for item ['a']"),
    ("msg_string", lambda L: L.testing.assert_close([1., _t(L, 1.)], [1., _t(L, 2.)], msg="hey"), "AssertionError",
     "hey"),
    ("msg_callable", lambda L: L.testing.assert_close([1, 2], [1, 2.0], msg=lambda m: f"<{m}>"), "AssertionError",
     "<The (d)types do not match: <class 'int'> != <class 'float'>.\n\nThe failure occurred for item [1]>"),
    ("msg_not_a_string_ignored", lambda L: L.testing.assert_close(None, 1, msg=5), "AssertionError",
     "None mismatch: None is not 1"),
    ("one_tolerance", lambda L: L.testing.assert_close(1., 1., rtol=0.1), "ValueError",
     "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."),
    ("bool_against_int", lambda L: L.testing.assert_close([True], [1]), "RuntimeError",
     "Originating a NumberPair() at item [0] with\n\nbool(): True\n\nand\n\nint(): 1\n\n" + UNEXPECTED),
    ("tolerance_not_a_number", lambda L: L.testing.assert_close(1.0, 2.0, rtol="a", atol=0), "RuntimeError",
     "Comparing\n\nNumberPair(\n    id=(),\n    actual=1.0,\n    expected=2.0,\n    rtol=a,\n    atol=0,\n"
     "    equal_nan=False,\n    check_dtype=True,\n)\n\n" + UNEXPECTED),
    ("allclose", lambda L: L.testing.assert_allclose(_t(L, [1., 2.]), [1., 3.]), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
     "Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\n"
     "Greatest relative difference: 0.3333333432674408 at index (1,) (up to 0.0001 allowed)"),
    ("allclose_float64_defaults", lambda L: L.testing.assert_allclose(np.array([1.]), np.array([2.])), "AssertionError",
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
     "Greatest absolute difference: 1.0 at index (0,) (up to 1e-08 allowed)\n"
     "Greatest relative difference: 0.5 at index (0,) (up to 1e-05 allowed)"),
    ("allclose_no_broadcast", lambda L: L.testing.assert_allclose(_t(L, [1., 1.]), 1.), "AssertionError",
     "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([])."),
]


def _check_message(lib, scenario, kind, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        got = _error(lambda: scenario(lib))
    assert got == (kind, torch_to_gradtrack(text) if lib is gradtrack else text)


@pytest.mark.parametrize("scenario, kind, text", [m[1:] for m in MESSAGES], ids=[m[0] for m in MESSAGES])
def test_message(scenario, kind, text):
    _check_message(gradtrack, scenario, kind, text)


@pytest.mark.parametrize("scenario, kind, text", [m[1:] for m in MESSAGES], ids=[m[0] for m in MESSAGES])
def test_message_is_torch_s(torch, scenario, kind, text):
    _check_message(torch, scenario, kind, text)


# ---- assert_close: what passes -------------------------------------------------------------

@pytest.mark.parametrize("actual, expected, kwargs", [
    (gradtrack.tensor([1., 2.]), gradtrack.tensor([1. + 1e-6, 2.]), {}),
    (gradtrack.tensor([INF, -INF, 1.]), gradtrack.tensor([INF, -INF, 1.]), {}),
    (gradtrack.tensor([NAN, 1.]), gradtrack.tensor([NAN, 1.]), {"equal_nan": True}),
    (gradtrack.tensor([]), gradtrack.tensor([]), {}),
    (gradtrack.tensor([1, 2]), gradtrack.tensor([1, 3]), {"rtol": 0.1, "atol": 1}),
    (gradtrack.tensor([1, 2]), gradtrack.tensor([1., 2.]), {"check_dtype": False}),
    (gradtrack.tensor([[1., 2.], [3., 4.]]).t(), gradtrack.tensor([[1., 3.], [2., 4.]]), {}),
    (gradtrack.tensor([1.], requires_grad=True), gradtrack.tensor([1.]), {}),
    (gradtrack.nn.Parameter(gradtrack.tensor([1.])), gradtrack.tensor([1.]), {}),
    ([gradtrack.tensor(1.), 2.0, np.array(3.)], (gradtrack.tensor(1.), 2.0, np.array(3.)), {}),
    (collections.OrderedDict([("b", 2.), ("a", 1.)]), {"a": 1., "b": 2.}, {}),
    (collections.deque([1., 2.]), [1., 2.], {}),
    (b"ab", b"ab", {}),
    (gradtrack.Size([2, 3]), (2, 3), {}),
    (np.array([1., 2.]), np.array([1., 2. + 1e-8]), {}),
    (np.float32(1.0), 1.0, {}),
    (np.bool_(True), True, {}),
    (1.0, 1, {"check_dtype": False}),
    (1 + 2j, 1 + 2j, {}),
    (NAN, NAN, {"equal_nan": True}),
    (0.0, -0.0, {}),
    (None, None, {}),
    ([], [], {"rtol": 1}),
])
def test_close_inputs_pass(actual, expected, kwargs):
    assert assert_close(actual, expected, **kwargs) is None


def test_comparison_takes_no_graph_and_leaves_inputs_alone():
    x = gradtrack.tensor([1., 2.], requires_grad=True)
    y = x * 2
    with pytest.raises(AssertionError):
        assert_close(y, gradtrack.tensor([2., 5.]))
    assert y.grad_fn is not None and x.grad is None and y._version == 0


# ---- assert_close against torch, scenario by scenario ---------------------------------------

class _Sub(float):
    pass


class _Level(enum.IntEnum):
    ONE = 1


PARITY = {
    "ties_first_index": lambda L: L.testing.assert_close(_t(L, [1., 2., 1.]), _t(L, [2., 3., 2.])),
    "ties_relative": lambda L: L.testing.assert_close(_t(L, [1., 2., 4.]), _t(L, [2., 4., 8.])),
    "inf_against_minus_inf": lambda L: L.testing.assert_close(_t(L, [INF, 1.]), _t(L, [-INF, 1.])),
    "nan_against_number": lambda L: L.testing.assert_close(_t(L, [1., NAN]), _t(L, [1., 1.])),
    "3d_index": lambda L: L.testing.assert_close(L.zeros(2, 3, 4), L.zeros(2, 3, 4).index_put_(
        (_t(L, [1]), _t(L, [2]), _t(L, [3])), _t(L, 5.))),
    "uint8": lambda L: L.testing.assert_close(_t(L, [1, 0], dtype=L.uint8), _t(L, [1, 200], dtype=L.uint8)),
    "int16_tolerance": lambda L: L.testing.assert_close(_t(L, [1, 2], dtype=L.int16), _t(L, [1, 3], dtype=L.int16),
                                                        rtol=0.1, atol=0.2),
    "int32_0dim": lambda L: L.testing.assert_close(_t(L, 7, dtype=L.int32), _t(L, -2, dtype=L.int32)),
    "float64_big": lambda L: L.testing.assert_close(_t(L, [3e38, 1.]), _t(L, [-3e38, 1.])),
    "float16_overflow": lambda L: L.testing.assert_close(_t(L, [6e4], dtype=L.float16), _t(L, [-6e4], dtype=L.float16)),
    "bool_tolerance": lambda L: L.testing.assert_close(_t(L, [True]), _t(L, [False]), rtol=0.1, atol=0.1),
    "promote_uint8_int8": lambda L: L.testing.assert_close(_t(L, [1, 0], dtype=L.uint8), _t(L, [3, -1], dtype=L.int8),
                                                           check_dtype=False),
    "promote_int_bool": lambda L: L.testing.assert_close(_t(L, [1, 0]), _t(L, [True, True]), check_dtype=False),
    "promote_0dim": lambda L: L.testing.assert_close(_t(L, 1.1, dtype=L.float16), _t(L, 1., dtype=L.float64),
                                                     check_dtype=False),
    "stride_of_empty": lambda L: L.testing.assert_close(L.zeros(0, 3).t(), L.zeros(3, 0), check_stride=True),
    "shape_of_empty": lambda L: L.testing.assert_close(L.zeros(0, 3), L.zeros(3, 0)),
    "noncontiguous_values": lambda L: L.testing.assert_close(L.arange(6.).view(2, 3)[:, ::2],
                                                             _t(L, [[0., 2.], [3., 6.]])),
    "requires_grad_values": lambda L: L.testing.assert_close(_t(L, [1.], requires_grad=True) * 2, _t(L, [1.])),
    "equal_nan_not_bool": lambda L: L.testing.assert_close(_t(L, [NAN]), _t(L, [NAN]), equal_nan=1),
    "failure_then_unexpected": lambda L: L.testing.assert_close([1., _t(L, [NAN])], [2., _t(L, [NAN])], equal_nan=1),
    "tensor_none": lambda L: L.testing.assert_close(_t(L, [1.]), None),
    "numpy_none": lambda L: L.testing.assert_close(np.array([1., 2.]), None),
    "tensor_number": lambda L: L.testing.assert_close(_t(L, 1.), 1.0),
    "number_tensor": lambda L: L.testing.assert_close(1.0, _t(L, 1.)),
    "numpy_scalar_tensor": lambda L: L.testing.assert_close(np.float64(1.), _t(L, 1., dtype=L.float64)),
    "numpy_0dim_number": lambda L: L.testing.assert_close(np.array(1.), 1.0),
    "numpy_0dim": lambda L: L.testing.assert_close(np.array(-100, dtype=np.int8), np.array(100, dtype=np.int8)),
    "numpy_float32_against_float64": lambda L: L.testing.assert_close(np.array([1.], dtype=np.float32), np.array([1.])),
    "numpy_float16": lambda L: L.testing.assert_close(np.array([1.], dtype=np.float16),
                                                      np.array([1.1], dtype=np.float16)),
    "numpy_bool": lambda L: L.testing.assert_close(np.array([True]), np.array([False])),
    "numpy_int": lambda L: L.testing.assert_close(np.array([1, 2]), np.array([1, 3])),
    "numpy_strides": lambda L: L.testing.assert_close(np.arange(6.).reshape(2, 3)[:, ::2],
                                                      np.array([[0., 2.], [3., 5.]]), check_stride=True),
    "numpy_subclass": lambda L: L.testing.assert_close(np.ma.array([1.]), np.array([2.])),
    "numpy_list": lambda L: L.testing.assert_close(np.array([1.]), [1.]),
    "numpy_bool_int": lambda L: L.testing.assert_close(np.bool_(True), 1),
    "int_numpy_bool": lambda L: L.testing.assert_close(1, np.bool_(True)),
    "bool_numpy_float": lambda L: L.testing.assert_close(True, np.float64(1.)),
    "numpy_int32_float": lambda L: L.testing.assert_close(np.int32(1), 1.),
    "int_enum": lambda L: L.testing.assert_close(_Level.ONE, 1),
    "float_subclass": lambda L: L.testing.assert_close(_Sub(1.), 2.),
    "object": lambda L: L.testing.assert_close(object, object),
    "big_ints": lambda L: L.testing.assert_close(2 ** 70, 2 ** 70 + 1),
    "big_floats": lambda L: L.testing.assert_close(1e308, -1e308),
    "number_infinity": lambda L: L.testing.assert_close(INF, 1.0, rtol=0, atol=INF),
    "number_minus_inf": lambda L: L.testing.assert_close(-INF, INF),
    "number_nan_zero": lambda L: L.testing.assert_close(NAN, 0.0),
    "number_expected_nan": lambda L: L.testing.assert_close(1.0, NAN),
    "number_int_nan": lambda L: L.testing.assert_close(1, NAN, check_dtype=False),
    "number_nan_tolerance": lambda L: L.testing.assert_close(1.0, 1.0000001, rtol=NAN, atol=0),
    "number_int_tolerance": lambda L: L.testing.assert_close(1, 3, rtol=0.1, atol=1),
    "number_exact": lambda L: L.testing.assert_close(1.0, 3.0, rtol=0, atol=0),
    "number_against_minus_zero": lambda L: L.testing.assert_close(1.0, -0.0),
    "complex_zero": lambda L: L.testing.assert_close(1j, 0j),
    "complex_float": lambda L: L.testing.assert_close(1 + 0j, 1.0),
    "complex_nan": lambda L: L.testing.assert_close(complex(NAN, 0), complex(NAN, 1), equal_nan=True),
    "numbers_strict_types": lambda L: L.testing.assert_close(1, 1.0, allow_subclasses=False),
    "numbers_mixed_types": lambda L: L.testing.assert_close(1, 2.0, check_dtype=False),
    "tolerance_str_list": lambda L: L.testing.assert_close([1], [2], rtol="a", atol=0),
    "tensor_tolerance_str": lambda L: L.testing.assert_close(_t(L, 1.), _t(L, 1.), rtol="a", atol=0),
    "none_0dim": lambda L: L.testing.assert_close(None, _t(L, 1.5)),
    "top_length": lambda L: L.testing.assert_close([1., 2.], [1.]),
    "length_in_mapping": lambda L: L.testing.assert_close({"a": [1., 2.]}, {"a": [1.]}),
    "keys_nested": lambda L: L.testing.assert_close([{"a": 1.}], [{"b": 1.}]),
    "keys_ints": lambda L: L.testing.assert_close({1: 1., 2: 2.}, {1: 1.}),
    "keys_missing_only": lambda L: L.testing.assert_close({1: 1.}, {1: 1., 2: 2.}),
    "keys_mixed": lambda L: L.testing.assert_close({1: 1., "x": 1}, {1: 1., 2: 2.}),
    "keys_unsortable": lambda L: L.testing.assert_close({1: 1, "a": 2}, {2: 1, "b": 2}),
    "keys_tuples": lambda L: L.testing.assert_close({(1, 2): 1}, {(1, 3): 1}),
    "tuple_key_item": lambda L: L.testing.assert_close({(1, "a"): 2.}, {(1, "a"): 3.}),
    "int_key_item": lambda L: L.testing.assert_close({1: 2.}, {1: 3.}),
    "nested_sequences": lambda L: L.testing.assert_close([1, [2, {"a": (3, 4)}]], (1, [2, {"a": [3, 5]}])),
    "list_dict": lambda L: L.testing.assert_close([1.], {0: 1.}),
    "list_tensor": lambda L: L.testing.assert_close([1.], _t(L, [1.])),
    "tensor_list": lambda L: L.testing.assert_close(_t(L, [1.]), [1.]),
    "item_shape": lambda L: L.testing.assert_close([1., _t(L, 1.)], [1., _t(L, [1.])]),
    "item_0dim": lambda L: L.testing.assert_close([_t(L, 1.)], [_t(L, 2.)]),
    "item_bool_tensor": lambda L: L.testing.assert_close([_t(L, [True])], [_t(L, [False])]),
    "item_numpy_bool": lambda L: L.testing.assert_close({"x": np.bool_(True)}, {"x": np.bool_(False)}),
    "two_failures_first": lambda L: L.testing.assert_close([1., 2.], [3., 4.]),
    "range": lambda L: L.testing.assert_close(range(3), [0, 1, 3]),
    "size": lambda L: L.testing.assert_close(L.Size([2, 3]), (2, 4)),
    "length_with_tolerance": lambda L: L.testing.assert_close([1], [1, 2], rtol=1),
    "strings_with_tolerance": lambda L: L.testing.assert_close("a", "a", rtol=1),
    "tensor_only_atol": lambda L: L.testing.assert_close(_t(L, [1.]), _t(L, [1.]), atol=0),
    "msg_on_shape": lambda L: L.testing.assert_close(_t(L, [1., 2.]), _t(L, [1.]), msg=lambda m: f"<{m}>"),
    "msg_on_booleans": lambda L: L.testing.assert_close(True, False, msg=lambda m: f"<{m}>"),
    "msg_on_types": lambda L: L.testing.assert_close("a", "a", msg="m"),
    "msg_on_keys": lambda L: L.testing.assert_close({1: 1}, {2: 1}, msg="m"),
    "msg_on_tolerances": lambda L: L.testing.assert_close(1., 1., rtol=1, msg="m"),
    "msg_empty": lambda L: L.testing.assert_close(1., 2., msg=""),
    "allclose_number": lambda L: L.testing.assert_allclose(1.0, 2.0),
    "allclose_nan_equal": lambda L: L.testing.assert_allclose(_t(L, [NAN]), _t(L, [NAN])),
    "allclose_nan": lambda L: L.testing.assert_allclose(_t(L, [NAN]), _t(L, [NAN]), equal_nan=False),
    "allclose_dtypes": lambda L: L.testing.assert_allclose(_t(L, [1.]), _t(L, [1.1], dtype=L.float64)),
    "allclose_float64_float32": lambda L: L.testing.assert_allclose(_t(L, [1.], dtype=L.float64), _t(L, [2.])),
    "allclose_int_float64": lambda L: L.testing.assert_allclose(_t(L, [1]), _t(L, [2.], dtype=L.float64)),
    "allclose_int": lambda L: L.testing.assert_allclose(_t(L, [1]), _t(L, [2])),
    "allclose_expected_in_actual_dtype": lambda L: L.testing.assert_allclose(_t(L, 1), 1.5),
    "allclose_msg": lambda L: L.testing.assert_allclose(_t(L, [1.]), _t(L, [2.]), msg="boo"),
    "allclose_msg_callable": lambda L: L.testing.assert_allclose(_t(L, [1.]), _t(L, [2.]), msg=lambda m: "X" + m),
    "allclose_one_tolerance": lambda L: L.testing.assert_allclose(_t(L, [1.]), _t(L, [2.]), rtol=0.1),
    "allclose_tolerances": lambda L: L.testing.assert_allclose(_t(L, [1.]), _t(L, [2.]), rtol=0.1, atol=0.1),
    "allclose_float16": lambda L: L.testing.assert_allclose(_t(L, [1.], dtype=L.float16), _t(L, [2.], dtype=L.float16)),
    "allclose_bfloat16": lambda L: L.testing.assert_allclose(_t(L, [1.], dtype=L.bfloat16),
                                                             _t(L, [2.], dtype=L.bfloat16)),
    "allclose_bool": lambda L: L.testing.assert_allclose(_t(L, [True]), _t(L, [False])),
    "allclose_lists": lambda L: L.testing.assert_allclose([1, 2], [1, 3]),
    "allclose_strings": lambda L: L.testing.assert_allclose("a", "b"),
    "allclose_strides": lambda L: L.testing.assert_allclose(_t(L, [[1., 2.], [3., 4.]]).t(),
                                                            _t(L, [[1., 3.], [2., 4.]])),
}


@pytest.mark.parametrize("scenario", list(PARITY.values()), ids=list(PARITY))
def test_assert_close_matches_torch(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        same(scenario)


def test_greatest_differences_match_torch_on_random_tensors(torch):
    for seed in range(4):
        torch.manual_seed(seed)
        a, e = torch.randn(7, 5), torch.randn(7, 5)
        a[a.abs() < 0.3] = e[a.abs() < 0.3]
        a[0, 1], e[0, 1], a[3, 3] = NAN, NAN, INF
        for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.5, "atol": 0.1}):
            mine = _error(lambda: assert_close(gradtrack.tensor(a.numpy()), gradtrack.tensor(e.numpy()), **kwargs))
            theirs = _error(lambda: torch.testing.assert_close(a, e, **kwargs))
            assert mine == theirs


def test_allclose_warns_as_torch_does(torch):
    for lib in (gradtrack, torch):
        with pytest.warns(FutureWarning) as record:
            lib.testing.assert_allclose(lib.tensor([1.]), lib.tensor([1.]))
        assert len(record) == 1 and record[0].filename == __file__
        text = str(record[0].message)
        assert text == ("`gradtrack.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
                        "future release. Please use `gradtrack.testing.assert_close()` instead. You can find "
                        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844."
                        ).replace("gradtrack", lib.__name__)


def test_allclose_warns_without_torch():
    with pytest.warns(FutureWarning, match=r"`gradtrack.testing.assert_allclose\(\)` is deprecated"):
        assert_allclose(gradtrack.tensor([1.]), gradtrack.tensor([1.]))


# ---- make_tensor ---------------------------------------------------------------------------

def _make(lib, *shape, seed=0, **kwargs):
    """(dtype, shape, strides, offset, values, the next draw) of a seeded make_tensor."""
    lib.manual_seed(seed)
    kwargs.setdefault("device", "cpu")
    for key in ("dtype", "memory_format"):
        if isinstance(kwargs.get(key), str):
            kwargs[key] = getattr(lib, kwargs[key])
    t = lib.testing.make_tensor(*shape, **kwargs)
    return (str(t.dtype).split(".")[-1], list(t.shape), t.stride(), t.storage_offset(), t.requires_grad,
            t.is_leaf, t.detach().tolist(), lib.rand(2).tolist())


@pytest.mark.parametrize("dtype, values", [
    ("float32", [[-0.06738138198852539, 4.8279924392700195, -7.407406330108643],
                 [-6.623451232910156, -3.4663891792297363, 2.4134163856506348]]),
    ("float64", [[8.460954032517956, 3.740757559196183, -0.7311070237058843],
                 [7.573458314195285, 2.610434162209766, 5.240662059245466]]),
    ("int64", [[6, -5, -9], [-9, 2, -2]]),
    ("bool", [[False, True, True], [False, True, True]]),
    ("uint8", [[4, 9, 3], [0, 3, 9]]),
])
def test_make_tensor_seeded_values_are_torch_s(dtype, values):
    got = _make(gradtrack, 2, 3, dtype=dtype)
    assert got[:2] == (dtype, [2, 3]) and got[6] == values


def test_make_tensor_noncontiguous_is_every_second_element_of_a_wider_draw():
    got = _make(gradtrack, 2, 3, dtype="float32", noncontiguous=True)
    assert got[2:4] == ((6, 2), 1)
    assert got[6] == [[4.8279924392700195, -6.623451232910156, 2.4134163856506348],
                      [7.136005401611328, 2.3815131187438965, -1.7690885066986084]]
    assert _make(gradtrack, 1, dtype="float32", noncontiguous=True)[2:4] == ((1,), 0)  # one element: as is


def test_make_tensor_exclude_zero():
    assert _make(gradtrack, 2, 3, dtype="int64", low=-1, high=2, exclude_zero=True)[6] == [[1, -1, 1], [-1, 1, -1]]
    assert _make(gradtrack, 3, dtype="bool", low=0, high=1, exclude_zero=True)[6] == [True] * 3
    tiny = gradtrack.finfo(gradtrack.float32).tiny
    with pytest.warns(FutureWarning):
        zeros = make_tensor(3, dtype=gradtrack.float32, device="cpu", low=0, high=0, exclude_zero=True)
    assert zeros.tolist() == [tiny] * 3


@pytest.mark.parametrize("shape", [(2, 3), ((2, 3),), ([2, 3],), (gradtrack.Size([2, 3]),)])
def test_make_tensor_shapes(shape):
    assert make_tensor(*shape, dtype=gradtrack.float32, device="cpu").shape == (2, 3)
    assert make_tensor(dtype=gradtrack.float32, device="cpu").shape == ()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                                   "uint8", "bool"])
def test_make_tensor_default_bounds(dtype):
    t = make_tensor(4000, dtype=getattr(gradtrack, dtype), device="cpu").double()
    low, high = {"bool": (0, 1), "uint8": (0, 9)}.get(dtype, (-9, 9))
    smallest, largest = t.min().item(), t.max().item()
    assert low <= smallest < low + 1 and high - 1 < largest <= high


def test_make_tensor_requires_grad_gives_a_leaf():
    t = make_tensor(2, 2, dtype=gradtrack.float64, device="cpu", requires_grad=True, noncontiguous=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None and not t.is_contiguous()
    t.sum().backward()
    assert t.grad.tolist() == [[1., 1.], [1., 1.]]


def test_make_tensor_channels_last():
    got = _make(gradtrack, 1, 2, 2, 2, dtype="float32", memory_format="channels_last")
    assert got[2] == (8, 1, 4, 2) and got[6] == _make(gradtrack, 1, 2, 2, 2, dtype="float32")[6]


def test_make_tensor_low_equal_high_warns():
    with pytest.warns(FutureWarning, match=r"Passing `low==high` to `gradtrack.testing.make_tensor`") as record:
        t = make_tensor(3, dtype=gradtrack.float32, device="cpu", low=1, high=1)
    assert t.tolist() == [1., 1., 1.] and record[0].filename == __file__


MAKE_ERRORS = [
    ({"dtype": "int64", "low": 1, "high": 1}, "ValueError", "`low` must be less than `high`, but got 1 >= 1"),
    ({"dtype": "float32", "low": 2, "high": 1}, "ValueError", "`low` must be less than `high`, but got 2 >= 1"),
    ({"dtype": "uint8", "high": NAN}, "ValueError", "`low` and `high` cannot be NaN, but got low=-9 and high=nan"),
    ({"dtype": "bool", "low": NAN}, "ValueError", "`low` and `high` cannot be NaN, but got low=nan and high=2"),
    ({"dtype": "int64", "requires_grad": True}, "ValueError",
     "`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype=torch.int64"),
    ({"dtype": "float32", "noncontiguous": True, "memory_format": "channels_last"}, "ValueError",
     "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got noncontiguous=True "
     "and memory_format=torch.channels_last"),
    ({"dtype": "uint8", "low": 256, "high": 300}, "ValueError",
     "The value interval specified by `low` and `high` is [256, 300), but torch.uint8 only supports [0, 256)"),
    ({"dtype": "int64", "low": 1e39, "high": 2e39}, "ValueError",
     "The value interval specified by `low` and `high` is [1e+39, 2e+39), but torch.int64 only supports "
     "[-9223372036854775808, 9223372036854775807)"),
    ({"dtype": "float32", "low": -INF, "high": -1e39}, "ValueError",
     "The value interval specified by `low` and `high` is [-inf, -1e+39), but torch.float32 only supports "
     "[-3.4028234663852886e+38, 3.4028234663852886e+38)"),
    ({"dtype": "int8", "low": -300, "high": -128}, "RuntimeError",
     "random_ expects 'from' to be less than 'to', but got from=-128 >= to=-128"),
    ({"dtype": None}, "TypeError", "The requested dtype 'None' is not supported by torch.testing.make_tensor(). "
     "To request support, file an issue at: https://github.com/pytorch/pytorch/issues"),
    ({"dtype": "float32", "device": "cuda"}, "AssertionError", "Torch not compiled with CUDA enabled"),
    ({"dtype": "float32", "low": "a"}, "TypeError", "'>=' not supported between instances of 'str' and 'int'"),
]


@pytest.mark.parametrize("kwargs, kind, text", MAKE_ERRORS, ids=[str(k) for k, _, _ in MAKE_ERRORS])
def test_make_tensor_errors(kwargs, kind, text):
    assert _error(lambda: _make(gradtrack, 3, **kwargs)) == (kind, torch_to_gradtrack(text))


@pytest.mark.parametrize("kwargs, kind, text", MAKE_ERRORS, ids=[str(k) for k, _, _ in MAKE_ERRORS])
def test_make_tensor_errors_are_torch_s(torch, kwargs, kind, text):
    assert _error(lambda: _make(torch, 3, **kwargs)) == (kind, text)


BOUNDS = [(-1, 1), (0.5, 3.5), (-2.5, 2.5), (-1000, 1000), (-1e10, 1e10), (-1e300, 1e300), (0, 1), (1, 1.5),
          (-2 ** 70, 2 ** 70), (0, 2 ** 63), (2 ** 40, 2 ** 63), (255, 300), (126.5, 127.5), (127, 300), (-3, 5),
          (-INF, INF), (-INF, 0), (1e39, 1e39), (-INF, -3.4028234663852886e+38), (-65504, 65504), (None, None)]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_make_tensor_draws_are_torch_s_bit_for_bit(torch, dtype):
    cases = [((5, 4), {}), ((5, 4), {"noncontiguous": True}), ((3, 1), {"noncontiguous": True}),
             ((2, 3, 2), {"noncontiguous": True}), ((), {}), ((0, 3), {"noncontiguous": True}),
             ((9,), {"low": -1, "high": 2, "exclude_zero": True}), ((1, 2, 2, 3), {"memory_format": "channels_last"}),
             ((3,), {"low": 0, "high": 0, "exclude_zero": True})]
    cases += [((16,), {"low": low, "high": high}) for low, high in BOUNDS]
    if dtype.startswith(("float", "bfloat")):
        cases.append(((2, 3), {"requires_grad": True, "noncontiguous": True}))
    for shape, kwargs in cases:
        for seed in (0, 5):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                mine = _error_or(lambda: _make(gradtrack, *shape, seed=seed, dtype=dtype, **kwargs))
                theirs = _error_or(lambda: _make(torch, *shape, seed=seed, dtype=dtype, **kwargs))
            assert mine == theirs, (shape, kwargs, seed)


def _error_or(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, torch_to_gradtrack(str(e))


def test_make_tensor_draws_leave_torch_s_generator_state(torch):
    for kwargs in ({"dtype": "float32", "low": 1, "high": 1}, {"dtype": "int8", "noncontiguous": True}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            assert _make(gradtrack, 4, 2, **kwargs)[7] == _make(torch, 4, 2, **kwargs)[7]


def test_integer_bounds_are_rounded_up_and_clamped():
    assert set(make_tensor(200, dtype=gradtrack.int64, device="cpu", low=0.5, high=3.5).tolist()) == {1, 2, 3}
    assert set(make_tensor(50, dtype=gradtrack.int8, device="cpu", low=126.5, high=1000).tolist()) == {127}
    assert set(make_tensor(50, dtype=gradtrack.bool, device="cpu", low=-3, high=5).tolist()) == {False, True}
    big = make_tensor(2000, dtype=gradtrack.float32, device="cpu", low=-INF, high=INF)
    assert math.isfinite(big.abs().max().item()) and big.abs().max().item() > 1e38
