"""Activation modules: ``ReLU``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``, ``GELU``,
``SiLU``, ``LeakyReLU``, ``ELU``, ... (the ones with parameters at the end)."""

from ... import _batched_tensor as _batched
from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

_relu = _C.relu
_sigmoid = _C.sigmoid
_tanh = _C.tanh


class ReLU(Module):
    """``max(x, 0)`` elementwise (``inplace=True`` writes the input).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.ReLU()(gradtrack.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # noqa: A002 - PyTorch's argument name
        try:
            return input.relu_() if self.inplace else _relu(input)
        except TypeError:  # NOTE [vmap batching rules]
            return _batched.call("relu", input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Sigmoid()(gradtrack.zeros(1))
    tensor([0.5000])
    """

    def forward(self, input):  # noqa: A002
        try:
            return _sigmoid(input)
        except TypeError:  # NOTE [vmap batching rules]
            return _batched.call("sigmoid", input)


class Tanh(Module):
    """``tanh(x)`` elementwise.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Tanh()(gradtrack.zeros(1))
    tensor([0.])
    """

    def forward(self, input):  # noqa: A002
        try:
            return _tanh(input)
        except TypeError:  # NOTE [vmap batching rules]
            return _batched.call("tanh", input)


class Softmax(Module):
    """``softmax(x, dim)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Softmax(dim=1)(gradtrack.zeros(1, 4))
    tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log_softmax(x, dim)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.LogSoftmax(dim=1)(gradtrack.zeros(1, 2))
    tensor([[-0.6931, -0.6931]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


# ---- nn layers: activations with parameters (their functions are in nn.functional) --------

def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class GELU(Module):
    """Gaussian error linear unit (``approximate`` 'none' or 'tanh').

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.GELU()(gradtrack.tensor([1.0]))
    tensor([0.8413])
    """

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):  # noqa: A002
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _Inplace(Module):
    """An elementwise activation with only an ``inplace`` flag."""

    _fn = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return type(self)._fn(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Hardsigmoid()(gradtrack.tensor([-4.0, 0.0, 1.5]))
    tensor([0.0000, 0.5000, 0.7500])
    """

    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self):
        return ""


class RReLU(Module):
    """Randomized leaky ReLU: negative inputs scaled by a slope drawn from ``[lower,
    upper)`` in training, by their mean in evaluation (:func:`~nn.functional.rrelu`).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.RReLU(0.1, 0.3)
    RReLU(lower=0.1, upper=0.3)
    >>> nn.RReLU(0.1, 0.3).eval()(gradtrack.tensor([-1.0, 2.0]))
    tensor([-0.2000,  2.0000])
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace_str}"


class SiLU(_Inplace):
    """``x * sigmoid(x)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.SiLU()(gradtrack.tensor([0.0]))
    tensor([0.])
    """

    _fn = staticmethod(F.silu)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Mish()(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.2525,  0.0000,  1.4034])
    """

    _fn = staticmethod(F.mish)


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Hardswish()(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.3333,  0.0000,  1.1250])
    """

    _fn = staticmethod(F.hardswish)

    def extra_repr(self):
        return ""


class SELU(_Inplace):
    """Scaled ELU with the self-normalizing constants.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.SELU()(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-1.5202,  0.0000,  1.5761])
    """

    _fn = staticmethod(F.selu)


class ReLU6(_Inplace):
    """``min(max(x, 0), 6)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.ReLU6()(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([0.0000, 0.0000, 1.5000])
    """

    _fn = staticmethod(F.relu6)


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.LeakyReLU(0.5)(gradtrack.tensor([-2.0, 2.0]))
    tensor([-1.,  2.])
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.ELU()(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.8647,  0.0000,  1.5000])
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.CELU(alpha=0.5)(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-0.4908,  0.0000,  1.5000])
    """

    def forward(self, input):  # noqa: A002
        return F.celu(input, self.alpha, self.inplace)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Softplus(beta=2.0)(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([0.0091, 0.3466, 1.5243])
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):  # noqa: A002
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Hardtanh(-1.0, 1.0)(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-1.,  0.,  1.])
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val, (
            f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input):  # noqa: A002
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class LogSigmoid(Module):
    """``log(sigmoid(x))``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.LogSigmoid()(gradtrack.tensor([-2.0, 0.0, 1.5]))
    tensor([-2.1269, -0.6931, -0.2014])
    """

    def forward(self, input):  # noqa: A002
        return F.logsigmoid(input)


class Softmin(Module):
    """``softmax(-x, dim)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Softmin(dim=1)(gradtrack.tensor([[1.0, 2.0, 3.0]]))
    tensor([[0.6652, 0.2447, 0.0900]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


# ---- shrinks, threshold, gates and per-channel slopes --------------------------------------

class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Hardshrink()(gradtrack.tensor([-1.0, 0.25]))
    tensor([-1.,  0.])
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input):  # noqa: A002
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Softshrink(0.5)(gradtrack.tensor([-1.0, 0.25]))
    tensor([-0.5000,  0.0000])
    """

    def forward(self, input):  # noqa: A002
        return F.softshrink(input, self.lambd)


class Tanhshrink(Module):
    """``x - tanh(x)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Tanhshrink()(gradtrack.tensor([0.0]))
    tensor([0.])
    """

    def forward(self, input):  # noqa: A002
        return F.tanhshrink(input)


class Softsign(Module):
    """``x / (1 + |x|)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Softsign()(gradtrack.tensor([1.0, -3.0]))
    tensor([ 0.5000, -0.7500])
    """

    def forward(self, input):  # noqa: A002
        return F.softsign(input)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Threshold(0.1, 20.0)(gradtrack.tensor([0.0, 1.0]))
    tensor([20.,  1.])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class GLU(Module):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.GLU()(gradtrack.tensor([[2.0, 0.0]]))
    tensor([[1.]])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of ``(N, C, H, W)`` or ``(C, H, W)`` input.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> nn.Softmax2d()(gradtrack.zeros(2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input):  # noqa: A002
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3, _stacklevel=5)


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere, with a learned slope (one, or one per
    channel), initialised to ``init``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> prelu = nn.PReLU()
    >>> prelu
    PReLU(num_parameters=1)
    >>> prelu(gradtrack.tensor([-4.0, 1.0]))
    tensor([-1.,  1.], grad_fn=<PreluKernelBackward0>)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_C.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Fills ``weight`` with ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input):  # noqa: A002
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


# torch defines MultiheadAttention in torch.nn.modules.activation, the path imports and
# pickles name; it lives in attention.py here, with its helpers.
from .attention import MultiheadAttention  # noqa: E402,F401
