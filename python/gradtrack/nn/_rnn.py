"""The computation behind ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells.

It follows torch's CPU implementation step for step, so values, gradients and the
visible ``grad_fn`` names agree:

* each layer projects the inputs of all time steps with one ``linear``, then runs
  one cell per step on the hidden projection (``linear(h, w_hh, b_hh) + x_w``);
* a layer's outputs are stacked (``StackBackward0``), the two directions of a
  bidirectional layer concatenated (``CatBackward0``), dropout is applied between
  layers only, and the final states of every layer and direction are stacked;
* a float32 LSTM without projections runs each layer as one C++ op
  (``_C._nn.lstm_layer``, ``MkldnnRnnLayerBackward0``), as torch hands it to
  oneDNN: one matrix product for the input projections, then per step one for
  the hidden projection and a fused pointwise cell; its backward runs the whole
  layer's backpropagation through time in C++.
"""

import warnings

from .. import _C
from . import _functional_layers as _FL

_linear = _C._nn.linear
_stack = _C.stack
_cat = _C.cat


def _lstm_cell(x_w, h, c, w_hh, b_hh, w_hr):
    """One LSTM step from the input projection ``x_w``; returns ``(h, c)``."""
    gates = _linear(h, w_hh, b_hh) + x_w
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = h.matmul(w_hr.t())
    return h, c


def _gru_cell(x_w, h, w_hh, b_hh):
    """One GRU step: torch's order, ``h' = (h - n) * z + n``."""
    i_r, i_z, i_n = x_w.chunk(3, 1)
    h_r, h_z, h_n = _linear(h, w_hh, b_hh).chunk(3, 1)
    r = (h_r + i_r).sigmoid()
    z = (h_z + i_z).sigmoid()
    n = (i_n + h_n * r).tanh()
    return (h - n) * z + n


def _simple_cell(x_w, h, w_hh, b_hh, relu):
    pre = _linear(h, w_hh, b_hh) + x_w
    return pre.relu() if relu else pre.tanh()


def cell(mode, input, hx, w_ih, w_hh, b_ih, b_hh):  # noqa: A002 - torch's name
    """One step of a cell module on 2-D ``input``; ``hx`` a tensor or an (h, c) pair."""
    x_w = _linear(input, w_ih, b_ih)
    if mode == "LSTM":
        return _lstm_cell(x_w, hx[0], hx[1], w_hh, b_hh, None)
    if mode == "GRU":
        return _gru_cell(x_w, hx, w_hh, b_hh)
    return _simple_cell(x_w, hx, w_hh, b_hh, mode == "RNN_RELU")


def _fused_lstm(x, state, params, reverse):
    w_ih, w_hh, b_ih, b_hh, _ = params
    out, h, c = _C._nn.lstm_layer(x, state[0], state[1], w_ih, w_hh, b_ih, b_hh, reverse)
    return out, (h, c)


def _layer(mode, x, state, params, reverse):
    """Runs one direction of one layer over ``x`` [T, B, in]; returns (output, state)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = params
    steps = _linear(x, w_ih, b_ih).unbind(0)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    outputs = [None] * len(steps)
    for t in order:
        if mode == "LSTM":
            state = _lstm_cell(steps[t], state[0], state[1], w_hh, b_hh, w_hr)
            outputs[t] = state[0]
        elif mode == "GRU":
            state = outputs[t] = _gru_cell(steps[t], state, w_hh, b_hh)
        else:
            state = outputs[t] = _simple_cell(steps[t], state, w_hh, b_hh, mode == "RNN_RELU")
    return _stack(outputs), state


_warned_projections = False


def uses_fused_lstm(mode, input, params):  # noqa: A002
    """Whether torch would run this LSTM through oneDNN (float32, no projections)."""
    global _warned_projections
    if mode != "LSTM" or input.dtype != _C.float32 or input.numel() == 0:
        return False
    if params[0][4] is not None:
        if not _warned_projections:  # torch warns once per process
            _warned_projections = True
            warnings.warn("LSTM with projections is not supported with oneDNN. Using default "
                          "implementation.", stacklevel=3)
        return False
    return True


def run(mode, input, hx, params, num_layers, dropout, train, bidirectional,  # noqa: A002
        batch_first):
    """The full multi-layer recurrence on a 3-D ``input``.

    ``hx`` is the stacked initial state (a pair for LSTM); ``params`` one tuple
    ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` per layer and direction, in torch's order.
    Returns ``(output, h_n)`` or ``(output, (h_n, c_n))``.
    """
    if input.size(0 if not batch_first else 1) == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    lstm = mode == "LSTM"
    fused = uses_fused_lstm(mode, input, params)
    x = input.transpose(0, 1) if batch_first else input
    h0 = hx[0].unbind(0) if lstm else hx.unbind(0)
    c0 = hx[1].unbind(0) if lstm else None
    dirs = 2 if bidirectional else 1
    h_n, c_n = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            state = (h0[k], c0[k]) if lstm else h0[k]
            run_layer = _fused_lstm if fused else (lambda *a: _layer(mode, *a))
            out, state = run_layer(x, state, params[k], d == 1)
            outs.append(out)
            h_n.append(state[0] if lstm else state)
            if lstm:
                c_n.append(state[1])
        x = outs[0] if dirs == 1 else _cat(outs, x.dim() - 1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = _FL.dropout(x, dropout, True)
    if batch_first:
        # torch's LSTM transposes its output back, its RNN and GRU in place
        # (TransposeBackward0 and TransposeBackward1)
        output = x.transpose(0, 1) if lstm else x.transpose_(0, 1)
    else:
        output = x
    if lstm:
        return output, (_stack(h_n), _stack(c_n))
    return output, _stack(h_n)


# ---- packed sequences: the batch shrinks as sequences end (longest first) ----------------

def _step(mode, x_w, state, params):
    """One step of any mode; returns (new state, the step's output)."""
    _, w_hh, _, b_hh, w_hr = params
    if mode == "LSTM":
        state = _lstm_cell(x_w, state[0], state[1], w_hh, b_hh, w_hr)
        return state, state[0]
    if mode == "GRU":
        state = _gru_cell(x_w, state, w_hh, b_hh)
    else:
        state = _simple_cell(x_w, state, w_hh, b_hh, mode == "RNN_RELU")
    return state, state


def _rows(state, lo, hi):
    if isinstance(state, tuple):
        return tuple(s[lo:hi] for s in state)
    return state[lo:hi]


def _join(parts):
    if isinstance(parts[0], tuple):
        return tuple(_cat([p[k] for p in parts], 0) for k in range(len(parts[0])))
    return _cat(parts, 0)


def _packed_layer(mode, data, sizes, state, params, reverse):
    """One direction of one layer over packed ``data`` [sum(sizes), in]."""
    x_w = _linear(data, params[0], params[2])
    starts = [0]
    for b in sizes[:-1]:
        starts.append(starts[-1] + b)
    outputs = [None] * len(sizes)
    if not reverse:
        finished, live = [], state
        for t, b in enumerate(sizes):
            if t and b < sizes[t - 1]:  # sequences that ended keep their last state
                finished.append(_rows(live, b, sizes[t - 1]))
                live = _rows(live, 0, b)
            live, outputs[t] = _step(mode, x_w[starts[t]:starts[t] + b], live, params)
        final = _join([live] + finished[::-1])
    else:
        live = _rows(state, 0, sizes[-1])
        for t in range(len(sizes) - 1, -1, -1):
            b = sizes[t]
            if t < len(sizes) - 1 and b > sizes[t + 1]:  # sequences starting from the back
                live = _join([live, _rows(state, sizes[t + 1], b)])
            live, outputs[t] = _step(mode, x_w[starts[t]:starts[t] + b], live, params)
        final = live
    return _cat(outputs, 0), final


def run_packed(mode, data, sizes, hx, params, num_layers, dropout, train, bidirectional):
    """``run`` for a PackedSequence's ``data`` and ``batch_sizes`` (a list)."""
    lstm = mode == "LSTM"
    h0 = hx[0].unbind(0) if lstm else hx.unbind(0)
    c0 = hx[1].unbind(0) if lstm else None
    dirs = 2 if bidirectional else 1
    h_n, c_n = [], []
    x = data
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            state = (h0[k], c0[k]) if lstm else h0[k]
            out, state = _packed_layer(mode, x, sizes, state, params[k], d == 1)
            outs.append(out)
            h_n.append(state[0] if lstm else state)
            if lstm:
                c_n.append(state[1])
        x = outs[0] if dirs == 1 else _cat(outs, 1)
        if dropout != 0 and train and layer < num_layers - 1:
            x = _FL.dropout(x, dropout, True)
    if lstm:
        return x, (_stack(h_n), _stack(c_n))
    return x, _stack(h_n)
