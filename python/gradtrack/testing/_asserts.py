"""``assert_close`` and the deprecated ``assert_allclose``.

The inputs are walked into leaves first (``_structure.py``): a structure that does not
match raises before anything is compared. Then every leaf is compared, and the first
failure is raised, with ``msg=`` applied; a leaf whose comparison raises something
unforeseen (a tolerance that is not a number) raises torch's RuntimeError, even after
an earlier leaf failed, as torch's does.

>>> import gradtrack
>>> from gradtrack.testing import assert_close
>>> assert_close({"w": gradtrack.ones(2)}, {"w": gradtrack.tensor([1.0, 1.5])})
Traceback (most recent call last):
...
AssertionError: Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 1 / 2 (50.0%)
Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
Greatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)
<BLANKLINE>
The failure occurred for item ['w']
"""

import warnings

import gradtrack

from ._leaves import Settings
from ._messages import unexpected_comparison_text
from ._structure import leaves
from ._tolerances import ALLCLOSE, defaults


def _first_failure(found):
    first = None
    for leaf in found:
        try:
            failure = leaf.failure()
        except Exception as error:
            raise RuntimeError(unexpected_comparison_text(leaf.kind, leaf.fields())) from error
        if first is None:
            first = failure
    return first


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``:
    tensors (and NumPy arrays) elementwise, ``|actual - expected| <= atol + rtol *
    |expected|``, after their shape, device, dtype (``check_dtype``), layout and, with
    ``check_stride=True``, strides match; Python numbers, booleans and ``None`` by value;
    sequences and mappings item by item. Infinities are close only to themselves, NaN
    only to NaN with ``equal_nan=True``; integer and boolean tensors compare exactly.

    Without ``rtol`` and ``atol`` (give both or neither) each dtype has its defaults:
    float16 1e-3 / 1e-5, bfloat16 1.6e-2 / 1e-5, float32 1.3e-6 / 1e-5, float64 1e-7 /
    1e-7, others 0 / 0; for two dtypes (``check_dtype=False``, which compares in their
    promoted dtype) the larger of each. ``msg`` replaces the message (a string) or
    rewrites it (a callable given the message).

    Raises AssertionError for values or attributes that differ and for sequences or
    mappings whose lengths or keys do not match; TypeError for items no comparison
    takes (a tensor against a list, or against a number); ValueError for one
    tolerance alone.

    >>> import gradtrack
    >>> from gradtrack.testing import assert_close
    >>> expected = gradtrack.tensor([1.0, 2.0, 3.0])
    >>> assert_close(expected + 1e-7, expected)
    >>> assert_close([expected, 2.0], (expected, 2.0))
    >>> assert_close(gradtrack.tensor([1.0, 4.0, 5.0]), expected, msg=lambda m: m + "\\n(step 3)")
    Traceback (most recent call last):
    ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 2 / 3 (66.7%)
    Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)
    (step 3)
    >>> assert_close(1.0, 1, check_dtype=False)
    >>> assert_close(float("nan"), float("nan"), equal_nan=True)
    """
    settings = Settings(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                        check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                        check_stride=check_stride)
    failure = _first_failure(leaves(actual, expected, settings))
    if failure is not None:
        raise failure.exception(msg)


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since torch 1.12 (a FutureWarning says so): ``assert_close`` with
    ``check_dtype=False`` and ``equal_nan=True``, after each input that is not a tensor
    is made one (``expected`` in ``actual``'s dtype), with the older defaults: float16
    1e-3 / 1e-3, float32 1e-4 / 1e-5, float64 1e-5 / 1e-8, others 0 / 0.

    >>> import warnings
    >>> import gradtrack
    >>> from gradtrack.testing import assert_allclose
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     assert_allclose(gradtrack.tensor([1.0, 2.0]), [1.0, 2.00005])
    ...     assert_allclose(gradtrack.tensor([1.0, 2.0]), [1.0, 2.5])
    Traceback (most recent call last):
    ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 1 / 2 (50.0%)
    Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 0.20000000298023224 at index (1,) (up to 0.0001 allowed)
    """
    warnings.warn(
        "`gradtrack.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `gradtrack.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    if not isinstance(actual, gradtrack.Tensor):
        actual = gradtrack.as_tensor(actual)
    if not isinstance(expected, gradtrack.Tensor):
        expected = gradtrack.as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = defaults((actual.dtype, expected.dtype), ALLCLOSE)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
