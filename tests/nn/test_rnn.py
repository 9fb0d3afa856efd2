"""nn.RNN, nn.LSTM, nn.GRU and their cells against torch 2.13.

Seeded parameters must equal torch's bit for bit; outputs, final states and every
gradient agree to rounding (float64 tight, float32 close: torch's float32 LSTM runs
in oneDNN); grad_fn names and error messages are torch's.
"""

import itertools
import warnings

import numpy as np
import pytest

import gradtrack as gt
from gradtrack import nn

from helpers import name, same, to_np

MODES = ("RNN", "GRU", "LSTM")
TOL = {"float64": 1e-10, "float32": 2e-5}


def _pair(torch, mode, dtype="float64", **kw):
    """The same module built in both libraries after the same seed."""
    torch.manual_seed(7)
    gt.manual_seed(7)
    tm = getattr(torch.nn, mode)(*kw.pop("sizes", (3, 5)), **kw).to(getattr(torch, dtype))
    gm = getattr(nn, mode)(*tm_sizes(tm), **kw).to(getattr(gt, dtype))
    return tm, gm


def tm_sizes(tm):
    return (tm.input_size, tm.hidden_size)


def _same_params(tm, gm):
    tn = [(n, p.detach().numpy()) for n, p in tm.named_parameters()]
    gn = [(n, to_np(p)) for n, p in gm.named_parameters()]
    assert [n for n, _ in tn] == [n for n, _ in gn]
    for (n, a), (_, b) in zip(tn, gn):
        assert a.shape == b.shape and np.array_equal(a, b), n


def _close(a, b, tol, what):
    a = a.detach().numpy()
    b = to_np(b)
    assert a.shape == b.shape, what
    assert np.abs(a - b).max(initial=0) <= tol, (what, np.abs(a - b).max())


def _leaf(torch, shape, dtype):
    t = torch.randn(*shape, dtype=getattr(torch, dtype), requires_grad=True)
    return t, gt.tensor(t.detach().numpy(), requires_grad=True)


def _states(mode, out):
    return list(out[1]) if mode == "LSTM" else [out[1]]


def _run_both(torch, mode, tm, gm, x_shape, dtype, with_h=False, seed=None):
    """Forward + backward of a loss touching output and every final state in both.

    With ``seed``, both generators are seeded after the inputs are drawn (dropout).
    """
    x, xg = _leaf(torch, x_shape, dtype)
    args_t, args_g, h_pairs = [x], [xg], []
    if with_h:
        dirs = 2 if tm.bidirectional else 1
        batched = len(x_shape) == 3
        batch = x_shape[0 if tm.batch_first else 1] if batched else None
        hsize = tm.proj_size or tm.hidden_size
        lead = (tm.num_layers * dirs,) + ((batch,) if batched else ())
        h_pairs = [_leaf(torch, lead + (hsize,), dtype)]
        if mode == "LSTM":
            h_pairs.append(_leaf(torch, lead + (tm.hidden_size,), dtype))
            args_t.append(tuple(p[0] for p in h_pairs))
            args_g.append(tuple(p[1] for p in h_pairs))
        else:
            args_t.append(h_pairs[0][0])
            args_g.append(h_pairs[0][1])
    if seed is not None:
        torch.manual_seed(seed)
        gt.manual_seed(seed)
    out_t, out_g = tm(*args_t), gm(*args_g)
    w = torch.randn(out_t[0].shape, dtype=out_t[0].dtype)
    loss_t = (out_t[0] * w).sum()
    loss_g = (out_g[0] * gt.tensor(w.numpy())).sum()
    for k, (st, sg) in enumerate(zip(_states(mode, out_t), _states(mode, out_g))):
        loss_t = loss_t + (st * st).sum() * (k + 1)
        loss_g = loss_g + (sg * sg).sum() * (k + 1)
    loss_t.backward()
    loss_g.backward()
    tol = TOL[dtype]
    _close(out_t[0], out_g[0], tol, "output")
    for st, sg in zip(_states(mode, out_t), _states(mode, out_g)):
        _close(st, sg, tol, "state")
        assert name(sg.grad_fn) == name(st.grad_fn)
    assert name(out_g[0].grad_fn) == name(out_t[0].grad_fn)
    _close(x.grad, xg.grad, tol, "input grad")
    for ht, hg in h_pairs:
        _close(ht.grad, hg.grad, tol, "h0 grad")
    for (n, pt), (_, pg) in zip(tm.named_parameters(), gm.named_parameters()):
        _close(pt.grad, pg.grad, tol, n)


# ---- construction: names, order, values --------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_seeded_parameters_equal_torch_bitwise(torch, mode):
    for layers, bidir, bias in itertools.product((1, 3), (False, True), (True, False)):
        tm, gm = _pair(torch, mode, num_layers=layers, bidirectional=bidir, bias=bias)
        _same_params(tm, gm)
        assert gm._flat_weights_names == tm._flat_weights_names
        assert [[p.shape for p in ws] for ws in gm.all_weights] == \
            [[tuple(p.shape) for p in ws] for ws in tm.all_weights]


def test_lstm_projection_parameters_equal_torch(torch):
    tm, gm = _pair(torch, "LSTM", sizes=(3, 6), proj_size=2, num_layers=2, bidirectional=True)
    _same_params(tm, gm)
    tm, gm = _pair(torch, "LSTM", sizes=(3, 6), proj_size=4, bias=False)
    _same_params(tm, gm)


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_parameters_equal_torch(torch, cell):
    for bias in (True, False):
        torch.manual_seed(3)
        gt.manual_seed(3)
        _same_params(getattr(torch.nn, cell)(4, 6, bias=bias), getattr(nn, cell)(4, 6, bias=bias))


def test_reprs_match_torch(torch):
    cases = [("LSTM", (3, 4), dict(num_layers=2, bias=False, batch_first=True, dropout=0.5,
                                   bidirectional=True, proj_size=2)),
             ("RNN", (3, 4, 2, "relu"), {}), ("GRU", (3, 4), {}),
             ("RNNCell", (3, 4), dict(bias=False, nonlinearity="relu")),
             ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), dict(bias=False))]
    for cls, args, kw in cases:
        assert repr(getattr(nn, cls)(*args, **kw)) == repr(getattr(torch.nn, cls)(*args, **kw))


def test_dropout_with_one_layer_warns_as_torch(torch):
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.GRU(3, 4, dropout=0.25)
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        nn.GRU(3, 4, dropout=0.25)
    assert [str(w.message) for w in wg] == [str(w.message) for w in wt]
    assert len(wg) == 1 and wg[0].category is UserWarning and wg[0].filename == __file__


@pytest.mark.parametrize("build", [
    lambda lib: lib.nn.LSTM(3, 4, dropout=1.5),
    lambda lib: lib.nn.LSTM(3, 4, dropout=True),
    lambda lib: lib.nn.LSTM(3, 4, bias=1),
    lambda lib: lib.nn.LSTM(3, 4, batch_first=None),
    lambda lib: lib.nn.LSTM(3.0, 4),
    lambda lib: lib.nn.LSTM(0, 4),
    lambda lib: lib.nn.LSTM(3, 4.0),
    lambda lib: lib.nn.LSTM(3, 0),
    lambda lib: lib.nn.LSTM(3, 4, 0),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=-1),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=4),
    lambda lib: lib.nn.RNN(3, 4, proj_size=2),
    lambda lib: lib.nn.GRU(3, 4, proj_size=2),
    lambda lib: lib.nn.RNN(3, 4, 1, "sigmoid"),
    lambda lib: lib.nn.RNN(3, 4, nonlinearity="gelu"),
    lambda lib: lib.nn.RNNBase("FOO", 3, 4),
])
def test_constructor_errors_match_torch(build):
    same(build)


# ---- forward and backward against torch ---------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_every_argument_combination_float64(torch, mode):
    for layers, bidir, bias, bf, with_h in itertools.product(
            (1, 2), (False, True), (True, False), (False, True), (False, True)):
        tm, gm = _pair(torch, mode, num_layers=layers, bidirectional=bidir, bias=bias,
                       batch_first=bf)
        _run_both(torch, mode, tm, gm, (2, 4, 3) if bf else (4, 2, 3), "float64", with_h)


@pytest.mark.parametrize("mode", MODES)
def test_unbatched_input(torch, mode):
    for layers, bidir, bf, with_h in itertools.product((1, 2), (False, True), (False, True),
                                                       (False, True)):
        tm, gm = _pair(torch, mode, num_layers=layers, bidirectional=bidir, batch_first=bf)
        _run_both(torch, mode, tm, gm, (4, 3), "float64", with_h)


def test_rnn_relu(torch):
    tm, gm = _pair(torch, "RNN", nonlinearity="relu", num_layers=2, bidirectional=True)
    _run_both(torch, "RNN", tm, gm, (5, 3, 3), "float64", True)


def test_lstm_with_projections(torch):
    for dtype, bidir, with_h in itertools.product(("float64", "float32"), (False, True),
                                                  (False, True)):
        tm, gm = _pair(torch, "LSTM", dtype, sizes=(3, 6), proj_size=2, num_layers=2,
                       bidirectional=bidir)
        with warnings.catch_warnings():  # torch: "LSTM with projections is not supported..."
            warnings.simplefilter("ignore")
            _run_both(torch, "LSTM", tm, gm, (4, 2, 3), dtype, with_h)


def test_float32_lstm_fused_layer_matches_torch(torch):
    # torch's oneDNN path: output MkldnnRnnLayerBackward0 (or Transpose/Cat after it).
    for layers, bidir, bias, bf, with_h in itertools.product(
            (1, 2), (False, True), (True, False), (False, True), (False, True)):
        tm, gm = _pair(torch, "LSTM", "float32", num_layers=layers, bidirectional=bidir,
                       bias=bias, batch_first=bf)
        _run_both(torch, "LSTM", tm, gm, (2, 6, 3) if bf else (6, 2, 3), "float32", with_h)


def test_fused_layer_node_edges_match_torch(torch):
    tm, gm = _pair(torch, "LSTM", "float32")
    x, xg = _leaf(torch, (3, 2, 3), "float32")
    nt, ng = tm(x)[0].grad_fn, gm(xg)[0].grad_fn
    assert name(ng) == name(nt) == "MkldnnRnnLayerBackward0"
    assert [name(n) for n, _ in ng.next_functions] == \
        [name(n) for n, _ in nt.next_functions]


def test_fused_layer_longer_sequence_and_wider_layer(torch):
    tm, gm = _pair(torch, "LSTM", "float32", sizes=(16, 40), num_layers=2)
    _run_both(torch, "LSTM", tm, gm, (30, 7, 16), "float32", True)


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_torch(torch, cell):
    for dtype, bias, batched, with_h, nonlin in itertools.product(
            ("float64", "float32"), (True, False), (True, False), (True, False),
            ("tanh", "relu")):
        if nonlin == "relu" and cell != "RNNCell":
            continue
        kw = {"bias": bias} | ({"nonlinearity": nonlin} if cell == "RNNCell" else {})
        torch.manual_seed(1)
        gt.manual_seed(1)
        tm = getattr(torch.nn, cell)(3, 4, **kw).to(getattr(torch, dtype))
        gm = getattr(nn, cell)(3, 4, **kw).to(getattr(gt, dtype))
        lead = (2,) if batched else ()
        x, xg = _leaf(torch, lead + (3,), dtype)
        hs = [_leaf(torch, lead + (4,), dtype) for _ in range(2 if cell == "LSTMCell" else 1)]
        if not with_h:
            out_t, out_g = tm(x), gm(xg)
        elif cell == "LSTMCell":
            out_t = tm(x, tuple(h[0] for h in hs))
            out_g = gm(xg, tuple(h[1] for h in hs))
        else:
            out_t, out_g = tm(x, hs[0][0]), gm(xg, hs[0][1])
        out_t = out_t if isinstance(out_t, tuple) else (out_t,)
        out_g = out_g if isinstance(out_g, tuple) else (out_g,)
        sum(((o * o).sum() * (k + 1) for k, o in enumerate(out_t))).backward()
        sum(((o * o).sum() * (k + 1) for k, o in enumerate(out_g))).backward()
        tol = TOL[dtype]
        for ot, og in zip(out_t, out_g):
            _close(ot, og, tol, "out")
            assert name(og.grad_fn) == name(ot.grad_fn)
        _close(x.grad, xg.grad, tol, "x grad")
        if with_h:
            for ht, hg in hs:
                _close(ht.grad, hg.grad, tol, "h grad")
        for (n, pt), (_, pg) in zip(tm.named_parameters(), gm.named_parameters()):
            _close(pt.grad, pg.grad, tol, n)


def test_dropout_between_layers_matches_seeded_torch(torch):
    for mode in MODES:
        tm, gm = _pair(torch, mode, num_layers=3, dropout=0.4, bidirectional=True)
        _run_both(torch, mode, tm, gm, (4, 2, 3), "float64", True, seed=11)
        tm.eval()
        gm.eval()
        _run_both(torch, mode, tm, gm, (4, 2, 3), "float64")


# ---- finite differences --------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_gradcheck_tiny_module(mode):
    gt.manual_seed(0)
    kw = {"proj_size": 1} if mode == "LSTM" else {}
    m = getattr(nn, mode)(2, 2, num_layers=2, bidirectional=True, **kw).double()
    x = gt.randn(3, 2, 2, dtype=gt.float64, requires_grad=True)
    params = list(m.parameters())

    def f(x, *ps):
        out = m(x)
        return (out[0],) + (tuple(out[1]) if mode == "LSTM" else (out[1],))

    assert gt.autograd.gradcheck(f, (x, *params))


@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck_fused_lstm_layer_kernel(reverse):
    gt.manual_seed(0)
    steps, batch, inp, hid = 3, 2, 3, 2

    def r(*shape):
        return gt.randn(*shape, dtype=gt.float64, requires_grad=True)

    args = [r(steps, batch, inp), r(batch, hid), r(batch, hid), r(4 * hid, inp), r(4 * hid, hid),
            r(4 * hid), r(4 * hid)]
    assert gt.autograd.gradcheck(lambda *a: gt._C._nn.lstm_layer(*a, reverse), args)
    # create_graph: the backward recomputes the layer with differentiable ops
    assert gt.autograd.gradgradcheck(lambda *a: gt._C._nn.lstm_layer(*a, reverse), args)
    assert gt.autograd.gradgradcheck(
        lambda *a: gt._C._nn.lstm_layer(*a, None, None, reverse), args[:5])


def test_fused_lstm_create_graph_gives_torch_first_order_gradient(torch):
    tm, gm = _pair(torch, "LSTM", "float32", batch_first=True)
    x, xg = _leaf(torch, (2, 5, 3), "float32")
    (gx_t,) = torch.autograd.grad(tm(x)[0].pow(2).sum(), x, create_graph=True)
    (gx_g,) = gt.autograd.grad(gm(xg)[0].pow(2).sum(), xg, create_graph=True)
    _close(gx_t, gx_g, 2e-5, "first-order gradient with create_graph")
    assert gx_g.requires_grad


# ---- errors, word for word ----------------------------------------------------------------

def _lstm(lib):
    lib.manual_seed(0)
    return lib.nn.LSTM(3, 4)


@pytest.mark.parametrize("call", [
    lambda lib: _lstm(lib)(lib.randn(5, 2, 3, dtype=lib.float64)),
    lambda lib: _lstm(lib)(lib.randn(5, 2, 4)),
    lambda lib: _lstm(lib)(lib.randn(5, 2, 3, 1)),
    lambda lib: _lstm(lib)(lib.randn(5, 2, 3), (lib.randn(1, 3, 4), lib.randn(1, 2, 4))),
    lambda lib: _lstm(lib)(lib.randn(5, 2, 3), (lib.randn(1, 2, 4), lib.randn(1, 2, 5))),
    lambda lib: _lstm(lib)(lib.randn(5, 2, 3), (lib.randn(2, 4), lib.randn(2, 4))),
    lambda lib: _lstm(lib)(lib.randn(5, 3), (lib.randn(1, 2, 4), lib.randn(1, 2, 4))),
    lambda lib: _lstm(lib)(lib.randn(0, 2, 3)),
    lambda lib: lib.nn.RNN(3, 4)(lib.randn(5, 2, 3), lib.randn(2, 2, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.randn(5, 2, 3), lib.randn(2, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.randn(5, 3), lib.randn(1, 1, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.randn(3)),
    lambda lib: lib.nn.GRU(3, 4)(lib.randn(3)),
    lambda lib: lib.nn.GRU(3, 4, batch_first=True)(lib.randn(2, 5, 3), lib.randn(1, 5, 4)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.randn(2, 5)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.randn(2, 3), (lib.randn(3, 4), lib.randn(2, 4))),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.randn(2, 3), (lib.randn(2, 4), lib.randn(2, 5))),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.randn(2, 3), (lib.randn(2, 4),)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.randn(2, 2, 3)),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.randn(3), (lib.randn(4), lib.randn(1, 1, 4))),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.randn(2, 3), lib.randn(2, 5)),
    lambda lib: lib.nn.GRUCell(3, 4)(lib.randn(2, 3), lib.randn(1, 1, 4)),
    lambda lib: lib.nn.RNNCell(3, 4)(lib.randn(1, 1, 3)),
    lambda lib: lib.nn.RNNCell(3, 4, nonlinearity="foo")(lib.randn(3)),
])
def test_forward_errors_match_torch(call):
    same(call)


def test_weight_changed_in_place_after_forward_fails_backward(lib):
    lib.manual_seed(0)
    m = lib.nn.LSTM(3, 4)
    out, _ = m(lib.randn(5, 2, 3))
    with lib.no_grad():
        m.weight_hh_l0.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


# ---- padded and packed sequences ----------------------------------------------------------

def _packs(lib, x, lengths, **kw):
    return lib.nn.utils.rnn.pack_padded_sequence(x, lengths, **kw)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_pad_round_trip_match_torch(torch, batch_first, enforce_sorted):
    lengths = [4, 3, 1] if enforce_sorted else [3, 4, 1]
    shape = (3, 4, 2) if batch_first else (4, 3, 2)
    x, xg = _leaf(torch, shape, "float64")
    pt = _packs(torch, x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    pg = _packs(gt, xg, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    _close(pt.data, pg.data, 0, "data")
    assert pg.batch_sizes.tolist() == pt.batch_sizes.tolist()
    for a, b in ((pt.sorted_indices, pg.sorted_indices),
                 (pt.unsorted_indices, pg.unsorted_indices)):
        assert (a is None and b is None) or a.tolist() == b.tolist()
    for total in (None, 6):
        padded_t, len_t = torch.nn.utils.rnn.pad_packed_sequence(
            pt, batch_first=batch_first, padding_value=-2.0, total_length=total)
        padded_g, len_g = nn.utils.rnn.pad_packed_sequence(
            pg, batch_first=batch_first, padding_value=-2.0, total_length=total)
        _close(padded_t, padded_g, 0, "padded")
        assert len_g.tolist() == len_t.tolist() and len_g.dtype == gt.int64
    (padded_t * padded_t).sum().backward()
    (padded_g * padded_g).sum().backward()
    _close(x.grad, xg.grad, 1e-12, "grad through pack and pad")


def test_pad_sequence_and_pack_sequence_match_torch(torch):
    seqs_t = [torch.randn(n, 2, dtype=torch.float64) for n in (2, 4, 3)]
    seqs_g = [gt.tensor(s.numpy()) for s in seqs_t]
    R_t, R_g = torch.nn.utils.rnn, nn.utils.rnn
    for bf, side in itertools.product((False, True), ("left", "right")):
        _close(R_t.pad_sequence(seqs_t, bf, 7.0, side), R_g.pad_sequence(seqs_g, bf, 7.0, side),
               0, "pad_sequence")
    pt = R_t.pack_sequence(seqs_t, enforce_sorted=False)
    pg = R_g.pack_sequence(seqs_g, enforce_sorted=False)
    _close(pt.data, pg.data, 0, "pack_sequence")
    for a, b in zip(R_t.unpack_sequence(pt), R_g.unpack_sequence(pg)):
        _close(a, b, 0, "unpack_sequence")


@pytest.mark.parametrize("call", [
    lambda lib: _packs(lib, lib.randn(4, 3, 2), [2, 3, 1]),
    lambda lib: _packs(lib, lib.randn(4, 3, 2), [3, 2, 0]),
    lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        _packs(lib, lib.randn(4, 3, 2), [3, 2, 1]), total_length=2),
    lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(2), lib.ones(3)], padding_side="mid"),
    lambda lib: lib.nn.LSTM(2, 3)(_packs(lib, lib.randn(4, 3, 3), [3, 2, 1])),
    lambda lib: lib.nn.GRU(2, 3)(_packs(lib, lib.randn(4, 3, 2), [3, 2, 1]), lib.zeros(1, 2, 3)),
])
def test_packing_errors_match_torch(call):
    same(call)


@pytest.mark.parametrize("mode", MODES)
def test_modules_on_packed_sequences_match_torch(torch, mode):
    for layers, bidir, with_h, sort in itertools.product((1, 2), (False, True), (False, True),
                                                         (True, False)):
        tm, gm = _pair(torch, mode, num_layers=layers, bidirectional=bidir)
        lengths = [5, 3, 3, 1] if sort else [3, 5, 1, 3]
        x, xg = _leaf(torch, (5, 4, 3), "float64")
        pt = _packs(torch, x, lengths, enforce_sorted=sort)
        pg = _packs(gt, xg, lengths, enforce_sorted=sort)
        args_t, args_g, hs = [pt], [pg], []
        if with_h:
            shape = (layers * (2 if bidir else 1), 4, 5)
            hs = [_leaf(torch, shape, "float64") for _ in range(2 if mode == "LSTM" else 1)]
            args_t.append(tuple(h[0] for h in hs) if mode == "LSTM" else hs[0][0])
            args_g.append(tuple(h[1] for h in hs) if mode == "LSTM" else hs[0][1])
        out_t, out_g = tm(*args_t), gm(*args_g)
        assert type(out_g[0]).__name__ == "PackedSequence"
        _close(out_t[0].data, out_g[0].data, 1e-10, "packed output")
        assert name(out_g[0].data.grad_fn) == name(out_t[0].data.grad_fn)
        loss_t = (out_t[0].data ** 2).sum()
        loss_g = (out_g[0].data ** 2).sum()
        for k, (st, sg) in enumerate(zip(_states(mode, out_t), _states(mode, out_g))):
            _close(st, sg, 1e-10, "state")
            assert name(sg.grad_fn) == name(st.grad_fn)
            loss_t = loss_t + st.sum() * (k + 2)
            loss_g = loss_g + sg.sum() * (k + 2)
        loss_t.backward()
        loss_g.backward()
        _close(x.grad, xg.grad, 1e-10, "input grad")
        for ht, hg in hs:
            _close(ht.grad, hg.grad, 1e-10, "h0 grad")
        for (n, p_t), (_, p_g) in zip(tm.named_parameters(), gm.named_parameters()):
            _close(p_t.grad, p_g.grad, 1e-10, n)


def test_float32_lstm_with_projections_warns_once_as_torch(monkeypatch):
    from gradtrack.nn import _rnn

    monkeypatch.setattr(_rnn, "_warned_projections", False)
    m = nn.LSTM(3, 4, proj_size=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m(gt.randn(2, 1, 3))
        m(gt.randn(2, 1, 3))
    assert [str(w.message) for w in caught] == [
        "LSTM with projections is not supported with oneDNN. Using default implementation."]
    assert caught[0].category is UserWarning and caught[0].filename.endswith("rnn.py")


def test_fused_layer_at_benchmark_width_matches_torch(torch):
    # hidden 128, batch 20: the products over all steps are split over threads.
    for bidir in (False, True):
        tm, gm = _pair(torch, "LSTM", "float32", sizes=(16, 128), bidirectional=bidir)
        x, xg = _leaf(torch, (4, 20, 16), "float32")
        out_t, (h_t, c_t) = tm(x)
        out_g, (h_g, c_g) = gm(xg)
        ((out_t * out_t).sum() + h_t.sum() + c_t.sum()).backward()
        ((out_g * out_g).sum() + h_g.sum() + c_g.sum()).backward()
        for a, b in [(out_t, out_g), (h_t, h_g), (c_t, c_g), (x.grad, xg.grad)] + [
                (p.grad, q.grad) for p, q in zip(tm.parameters(), gm.parameters())]:
            a = a.detach().numpy()
            assert np.allclose(a, to_np(b), rtol=1e-4, atol=1e-5)


def test_fused_layer_rows_split_over_threads_match_torch(torch):
    # Batch rows run their recurrence on separate threads (NOTE [LSTM rows in
    # parallel]): an odd batch gives unequal blocks; float64 keeps the check tight,
    # every final state and gradient included, in both directions; one thread
    # must agree with two.
    results = []
    threads = gt.get_num_threads()
    try:
        for n in (2, 1):
            gt.set_num_threads(n)
            tm, gm = _pair(torch, "LSTM", "float64", sizes=(5, 64), bidirectional=True)
            torch.manual_seed(3)
            _run_both(torch, "LSTM", tm, gm, (30, 7, 5), "float64", True)
            results.append([to_np(p.grad) for p in gm.parameters()])
    finally:
        gt.set_num_threads(threads)
    for a, b in zip(*results):
        assert np.allclose(a, b, rtol=1e-12, atol=1e-12)
