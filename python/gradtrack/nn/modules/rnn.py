"""``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and the cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Parameters are registered with torch's names, in torch's order (per layer and
direction: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``, ``weight_hr``)
and drawn in that order from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), so after
the same ``manual_seed`` they equal torch's bit for bit.
"""

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any, overload

from ... import _C
from ..._C import Tensor
from ..._out import _caller_level
from .. import _rnn, init
from ..parameter import Parameter
from .module import Module

if TYPE_CHECKING:
    from ..utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

# An LSTM's hidden state: (h, c).
_LSTMState = tuple[Tensor, Tensor]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_sizes(dropout: Any, bias: Any, batch_first: Any, input_size: Any, hidden_size: Any,
                 num_layers: int, proj_size: int) -> None:
    """torch's constructor checks, in torch's order, with its words."""
    if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
            or not 0 <= dropout <= 1):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}",
                      stacklevel=_caller_level())  # (the layer's __init__ may be wrapped)
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: parameters, checks and the forward.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    >>> [name for name, _ in lstm.named_parameters()][:5]
    ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse']
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) else dropout
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_sizes(dropout, bias, batch_first, input_size, hidden_size, num_layers, proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self._make_parameters(_GATES[mode] * hidden_size, dtype)
        self.reset_parameters()

    def _make_parameters(self, gate_size: int, dtype: Any) -> None:
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(self.num_layers):
            for direction in range(dirs):
                in_size = self.input_size if layer == 0 else real_hidden * dirs
                shapes = [("weight_ih", (gate_size, in_size)), ("weight_hh", (gate_size, real_hidden))]
                if self.bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if self.proj_size > 0:
                    shapes += [("weight_hr", (self.proj_size, self.hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for stem, shape in shapes:
                    name = f"{stem}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_C.empty(*shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)

    @property
    def _flat_weights(self) -> list[Tensor | None]:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters as one list per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op on CPU, as in torch."""

    def reset_parameters(self) -> None:
        """Draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _layer_params(self) -> list[tuple[Tensor, Tensor, Tensor | None, Tensor | None,
                                          Tensor | None]]:
        # Read as attributes, as torch's forward does: a parameter replaced by a plain
        # attribute (the forward-AD idiom, parametrizations) is what the layer computes with.
        out = []
        for layer in range(self.num_layers):
            for suffix in (("", "_reverse") if self.bidirectional else ("",)):
                key = f"_l{layer}{suffix}"
                out.append((getattr(self, "weight_ih" + key), getattr(self, "weight_hh" + key),
                            getattr(self, "bias_ih" + key, None),
                            getattr(self, "bias_hh" + key, None),
                            getattr(self, "weight_hr" + key, None)))
        return out

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:  # noqa: A002
        """torch's dtype, rank and feature-size checks of ``input``."""
        w_dtype = self._flat_weights[0].dtype
        if input.dtype != w_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w_dtype}). Convert input: input.to({w_dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor,  # noqa: A002 - torch's names
                                 batch_sizes: Tensor | None) -> tuple[int, int, int]:
        """(layers * directions, batch, hidden or proj size)."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        dirs = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * dirs, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """Raises torch's RuntimeError when ``hx`` is not of the expected size."""
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor,  # noqa: A002
                           batch_sizes: Tensor | None) -> None:
        """Checks ``input`` and the initial hidden state."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None) -> Tensor:
        """Reorders the batch dimension of ``hx`` (PackedSequence sorting)."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def _zeros(self, input: Tensor, size: int, batch: int) -> Tensor:  # noqa: A002
        dirs = 2 if self.bidirectional else 1
        return _C.zeros(self.num_layers * dirs, batch, size, dtype=input.dtype)

    def _forward_single(self, input: "Tensor | PackedSequence",  # noqa: A002
                        hx: Tensor | None) -> "tuple[Tensor | PackedSequence, Tensor]":
        """RNN and GRU: one hidden tensor."""
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        packed = _unpack(input)
        if packed is not None:
            return self._forward_packed(packed, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             + ("tensor instead" if name == "RNN" else "instead"))
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)  # noqa: A001
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{hx.dim()}-D tensor")
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        if hx is None:
            batch = input.size(0) if self.batch_first else input.size(1)
            hx = self._zeros(input, self.hidden_size, batch)
        self.check_forward_args(input, hx, None)
        output, hidden = _rnn.run(self.mode, input, hx, self._layer_params(), self.num_layers,
                                  self.dropout, self.training, self.bidirectional,
                                  self.batch_first)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden

    def _forward_packed(self, packed: "PackedSequence", hx: Any) -> Any:
        """The layers on a PackedSequence: they run on the packed steps."""
        from ..utils.rnn import PackedSequence

        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = [int(b) for b in batch_sizes.tolist()]
        lstm = self.mode == "LSTM"
        if hx is None:
            real = self.proj_size if lstm and self.proj_size > 0 else self.hidden_size
            h = self._zeros(data, real, sizes[0])
            hx = (h, self._zeros(data, self.hidden_size, sizes[0])) if lstm else h
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        if not lstm:  # torch's LSTM leaves a packed input's checks to its kernels
            self.check_forward_args(data, hx, batch_sizes)
        output, hidden = _rnn.run_packed(self.mode, data, sizes, hx, self._layer_params(),
                                         self.num_layers, self.dropout, self.training,
                                         self.bidirectional)
        return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                self.permute_hidden(hidden, unsorted_indices))

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)


def _unpack(input: "Tensor | PackedSequence") -> "PackedSequence | None":  # noqa: A002
    """The PackedSequence's fields, or None for a plain tensor."""
    from ..utils.rnn import PackedSequence

    return input if isinstance(input, PackedSequence) else None


class RNN(RNNBase):
    """An Elman RNN with tanh or ReLU: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> _ = gradtrack.manual_seed(0)
    >>> output, h_n = nn.RNN(3, 4, num_layers=2)(gradtrack.randn(5, 2, 3))
    >>> tuple(output.shape), tuple(h_n.shape), output.grad_fn.name()
    ((5, 2, 4), (2, 2, 4), 'StackBackward0')
    """

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None: ...

    @overload
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    @overload
    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]: ...

    @overload
    def forward(self, input: "PackedSequence",  # noqa: A002
                hx: Tensor | None = None) -> "tuple[PackedSequence, Tensor]": ...

    def forward(self, input: "Tensor | PackedSequence",  # noqa: A002
                hx: Tensor | None = None) -> "tuple[Tensor | PackedSequence, Tensor]":
        """Returns ``(output, h_n)``."""
        return self._forward_single(input, hx)


class GRU(RNNBase):
    """A gated recurrent unit RNN (torch's gate order r, z, n).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> output, h_n = nn.GRU(3, 4, batch_first=True)(gradtrack.randn(2, 5, 3))
    >>> tuple(output.shape), tuple(h_n.shape)
    ((2, 5, 4), (1, 2, 4))
    """

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None, dtype: Any = None) -> None: ...

    @overload
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    @overload
    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]: ...

    @overload
    def forward(self, input: "PackedSequence",  # noqa: A002
                hx: Tensor | None = None) -> "tuple[PackedSequence, Tensor]": ...

    def forward(self, input: "Tensor | PackedSequence",  # noqa: A002
                hx: Tensor | None = None) -> "tuple[Tensor | PackedSequence, Tensor]":
        """Returns ``(output, h_n)``."""
        return self._forward_single(input, hx)


class LSTM(RNNBase):
    """A long short-term memory RNN (gate order i, f, g, o), optionally with projections.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> output, (h_n, c_n) = nn.LSTM(3, 4, proj_size=2)(gradtrack.randn(5, 2, 3))
    >>> tuple(output.shape), tuple(h_n.shape), tuple(c_n.shape)
    ((5, 2, 2), (1, 2, 2), (1, 2, 4))
    """

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None: ...

    @overload
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor,  # noqa: A002 - torch's names
                               batch_sizes: Tensor | None) -> tuple[int, int, int]:
        """(layers * directions, batch, hidden_size)."""
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size)

    # torch's LSTM overrides these two with an (h, c) pair where RNNBase has one tensor.
    def check_forward_args(self, input: Tensor,  # type: ignore[override]  # noqa: A002
                           hidden: _LSTMState, batch_sizes: Tensor | None) -> None:
        """Checks ``input``, ``h_0`` and ``c_0``."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: _LSTMState,  # type: ignore[override]
                       permutation: Tensor | None) -> _LSTMState:
        """Reorders the batch dimension of ``(h, c)``."""
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    @overload
    def forward(self, input: Tensor,  # noqa: A002 - torch's names
                hx: _LSTMState | None = None) -> tuple[Tensor, _LSTMState]: ...

    @overload
    def forward(self, input: "PackedSequence",  # noqa: A002
                hx: _LSTMState | None = None) -> "tuple[PackedSequence, _LSTMState]": ...

    def forward(self, input: "Tensor | PackedSequence",  # noqa: A002
                hx: _LSTMState | None = None) -> "tuple[Tensor | PackedSequence, _LSTMState]":
        """Returns ``(output, (h_n, c_n))``."""
        packed = _unpack(input)
        if packed is not None:
            return self._forward_packed(packed, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)  # noqa: A001
        if hx is None:
            batch = input.size(0) if self.batch_first else input.size(1)
            real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, real_hidden, batch),
                  self._zeros(input, self.hidden_size, batch))
        else:
            want = 3 if is_batched else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                kind = "batched 3-D" if is_batched else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            if not is_batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, hidden = _rnn.run("LSTM", input, hx, self._layer_params(), self.num_layers,
                                  self.dropout, self.training, self.bidirectional,
                                  self.batch_first)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, hidden


class RNNCellBase(Module):
    """What the cells share: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``.

    >>> import gradtrack
    >>> cell = gradtrack.nn.GRUCell(3, 2)
    >>> isinstance(cell, gradtrack.nn.RNNCellBase), tuple(cell.weight_ih.shape)
    (True, (6, 3))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(_C.empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        """Draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, mode: str, input: Tensor, hx: Any) -> Any:  # noqa: A002
        w_ih, w_hh = self.weight_ih, self.weight_hh
        _check_cell(mode, input, hx, w_ih, w_hh)
        return _rnn.cell(mode, input, hx, w_ih, w_hh, self.bias_ih, self.bias_hh)


def _check_cell(mode: str, input: Tensor, hx: Any, w_ih: Tensor,  # noqa: A002
                w_hh: Tensor) -> None:
    """torch's C++ checks of a cell's input and hidden states (2-D by now)."""
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{w_ih.size(1)}")
    states = hx if mode == "LSTM" else (hx,)
    if mode == "LSTM" and len(states) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    for k, h in enumerate(states):
        if input.size(0) != h.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} batch "
                               f"size {h.size(0)}")
        if h.size(1) != w_hh.size(1):
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, "
                               f"expected {w_hh.size(1)}")


def _cell_dims(name: str, input: Tensor, hx: Tensor | None,  # noqa: A002
               what: str = "hidden") -> None:
    if input.dim() not in (1, 2):
        raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
    if hx is not None and hx.dim() not in (1, 2):
        raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {hx.dim()}D instead")


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU).

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> cell = nn.RNNCell(3, 4, nonlinearity="relu")
    >>> cell
    RNNCell(3, 4, nonlinearity=relu)
    >>> tuple(cell(gradtrack.randn(2, 3)).shape)
    (2, 4)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        """Returns the next hidden state."""
        _cell_dims("RNNCell", input, hx)
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)  # noqa: A001
        if hx is None:
            hx = _C.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        ret = self._step(mode, input, hx)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h', c')``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> h, c = nn.LSTMCell(3, 4)(gradtrack.randn(2, 3))
    >>> h.grad_fn.name(), c.grad_fn.name()
    ('MulBackward0', 'AddBackward0')
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor,  # noqa: A002 - torch's names
                hx: _LSTMState | None = None) -> _LSTMState:
        """Returns ``(h', c')``."""
        _cell_dims("LSTMCell", input, None)
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)  # noqa: A001
        if hx is None:
            zeros = _C.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = self._step("LSTM", input, hx)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: ``h' = (1 - z) * n + z * h``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> tuple(nn.GRUCell(3, 4)(gradtrack.randn(3)).shape)
    (4,)
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        """Returns the next hidden state."""
        _cell_dims("GRUCell", input, hx)
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)  # noqa: A001
        if hx is None:
            hx = _C.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        ret = self._step("GRU", input, hx)
        return ret if is_batched else ret.squeeze(0)
