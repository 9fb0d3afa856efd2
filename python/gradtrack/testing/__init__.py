"""``torch.testing`` for gradtrack: ``assert_close``, ``make_tensor`` and the deprecated
``assert_allclose``, with torch's defaults, pairing of inputs, messages and draws.

Loaded on first use (``gradtrack.testing``; NOTE [Loaded on first use] in
``gradtrack/_lazy.py``). torch's ``FileCheck`` checks TorchScript graphs, which gradtrack
does not build, so it has none.

>>> import gradtrack
>>> from gradtrack.testing import assert_close, make_tensor
>>> _ = gradtrack.manual_seed(0)
>>> x = make_tensor(3, dtype=gradtrack.float32, device="cpu", low=0, high=1)
>>> assert_close(x * 2 / 2, x)
>>> assert_close(x.sum(), x.sum() + 1)
Traceback (most recent call last):
...
AssertionError: Scalars are not close!
<BLANKLINE>
Expected 2.3529558181762695 but got 1.3529558181762695.
Absolute difference: 1.0 (up to 1e-05 allowed)
Relative difference: 0.4249973553583682 (up to 1.3e-06 allowed)
"""

# the public names (torch.testing has no __all__)
from ._asserts import assert_allclose, assert_close  # noqa: F401
from ._make_tensor import make_tensor  # noqa: F401
