"""Attention against torch 2.13: F.scaled_dot_product_attention, nn.MultiheadAttention
(F.multi_head_attention_forward), nn.TransformerEncoderLayer / TransformerEncoder.

Values, attention weights, seeded parameters, gradients, grad_fn names, dropout under
the shared seed, fully-masked rows, messages; and a tiny encoder that learns to
reverse digit sequences with torch's loss curve."""

import warnings

import numpy as np
import pytest

import gradtrack as gt
import gradtrack.nn.functional as F
from gradtrack import nn

from helpers import error_of, torch_to_gradtrack

RNG = np.random.default_rng(19)
TOL = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=2e-5, atol=2e-6)}


def _pair(torch, array, dtype, grad=True):
    """The same values as a gradtrack and a torch tensor (leaves)."""
    ours = gt.tensor(array, dtype=getattr(gt, dtype), requires_grad=grad)
    ref = torch.tensor(array, dtype=getattr(torch, dtype), requires_grad=grad)
    return ours, ref


def _close(ours, ref, dtype="float64", equal_nan=False):
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), equal_nan=equal_nan,
                               **TOL[dtype])


def _bool_mask(shape, keep=0.6):
    return RNG.random(shape) < keep


# ---- scaled_dot_product_attention: values, gradients, grad_fn ------------------------------

SDPA_CASES = [
    # (q shape, k shape, v shape, mask kind, kwargs)
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), None, {}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), "bool", {}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), "float", {}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), "bool4", {}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), "dead_row", {}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), "float_dead_row", {}),
    ((2, 3, 5, 8), (2, 3, 5, 8), (2, 3, 5, 8), None, {"is_causal": True}),
    ((2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8), None, {"is_causal": True}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), None, {"scale": 0.3}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), "bool", {"scale": -0.7}),
    ((2, 6, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8), None, {"enable_gqa": True}),
    ((2, 6, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8), "bool", {"enable_gqa": True}),
    ((2, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 8), None, {}),
    ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), "float", {}),
    ((3, 4, 8), (3, 5, 8), (3, 5, 8), "bool", {}),
    ((3, 5, 8), (3, 5, 8), (3, 5, 8), None, {"is_causal": True}),
    ((4, 8), (5, 8), (5, 8), "float", {}),
    ((1, 2, 3, 4, 8), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8), "bool", {}),
]


def _sdpa_mask(torch, kind, q_shape, k_shape, dtype):
    lq, lk = q_shape[-2], k_shape[-2]
    if kind is None:
        return None, None
    if kind == "bool":
        m = _bool_mask((lq, lk))
        m[:, 0] = True
    elif kind == "bool4":
        m = _bool_mask((q_shape[0], 1, lq, lk))
        m[..., 0] = True
    elif kind == "dead_row":
        m = np.ones((lq, lk), dtype=bool)
        m[1] = False
    else:
        m = RNG.standard_normal((lq, lk))
        if kind == "float_dead_row":
            m[2] = -np.inf
        return gt.tensor(m, dtype=getattr(gt, dtype)), torch.tensor(m, dtype=getattr(torch, dtype))
    return gt.tensor(m), torch.tensor(m)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(SDPA_CASES)))
def test_sdpa_matches_torch(torch, case, dtype):
    q_shape, k_shape, v_shape, kind, kwargs = SDPA_CASES[case]
    pairs = [_pair(torch, RNG.standard_normal(s), dtype) for s in (q_shape, k_shape, v_shape)]
    mask, tmask = _sdpa_mask(torch, kind, q_shape, k_shape, dtype)
    out = F.scaled_dot_product_attention(*(p[0] for p in pairs), attn_mask=mask, **kwargs)
    ref = torch.nn.functional.scaled_dot_product_attention(*(p[1] for p in pairs),
                                                           attn_mask=tmask, **kwargs)
    _close(out, ref, dtype)
    assert out.grad_fn.name() == type(ref.grad_fn).__name__
    grad = RNG.standard_normal(tuple(ref.shape))
    out.backward(gt.tensor(grad, dtype=out.dtype))
    ref.backward(torch.tensor(grad, dtype=ref.dtype))
    for ours, theirs in pairs:
        _close(ours.grad, theirs.grad, dtype)
        assert not np.isnan(ours.grad.numpy()).any()


def test_sdpa_fully_masked_rows_are_zero_with_zero_gradient(torch):
    q, tq = _pair(torch, RNG.standard_normal((1, 2, 3, 4)), "float64")
    mask = np.ones((3, 3), dtype=bool)
    mask[0] = False
    for lib, x, dropout_p in ((gt, q, 0.0), (torch, tq, 0.0), (gt, q, 0.5)):
        out = lib.nn.functional.scaled_dot_product_attention(x, x, x, lib.tensor(mask),
                                                             dropout_p=dropout_p)
        assert out[:, :, 0].abs().sum().item() == 0.0
    F.scaled_dot_product_attention(q, q, q, gt.tensor(mask)).sum().backward()
    assert np.isfinite(q.grad.numpy()).all()


def test_sdpa_float_mask_gradient(torch):
    """A float mask that requires grad takes the math path and gets its gradient."""
    q, tq = _pair(torch, RNG.standard_normal((2, 3, 4, 8)), "float64")
    m, tm = _pair(torch, RNG.standard_normal((4, 4)), "float64")
    out = F.scaled_dot_product_attention(q, q, q, attn_mask=m)
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tq, tq, attn_mask=tm)
    _close(out, ref)
    out.sum().backward()
    ref.sum().backward()
    _close(m.grad, tm.grad)
    _close(q.grad, tq.grad)


def test_sdpa_gradcheck():
    q = gt.randn(1, 2, 3, 4, dtype=gt.float64, requires_grad=True)
    k = gt.randn(1, 2, 5, 4, dtype=gt.float64, requires_grad=True)
    v = gt.randn(1, 2, 5, 4, dtype=gt.float64, requires_grad=True)
    mask = gt.tensor(_bool_mask((3, 5)) | np.eye(3, 5, dtype=bool))
    assert gt.autograd.gradcheck(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask), (q, k, v))
    kv = gt.randn(1, 1, 5, 4, dtype=gt.float64, requires_grad=True)
    assert gt.autograd.gradcheck(
        lambda a, b: F.scaled_dot_product_attention(a, b, b, enable_gqa=True), (q, kv))


def test_sdpa_no_grad_and_double_backward(torch):
    q = gt.randn(1, 1, 2, 4, requires_grad=True)
    with gt.no_grad():
        assert F.scaled_dot_product_attention(q, q, q).grad_fn is None
    messages = []
    for lib, x in ((gt, q), (torch, torch.tensor(q.detach().numpy(), requires_grad=True))):
        out = lib.nn.functional.scaled_dot_product_attention(x, x, x)
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        messages.append(error_of(lambda: g.sum().backward()))
    assert messages[0] == messages[1]
    assert "not implemented" in messages[0][1]


def test_dropout_of_a_transposed_input_draws_in_memory_order(torch):
    """torch draws the mask into empty_like(input), which keeps a permuted layout (the
    attention output of a batch_first layer is one)."""
    for make in (lambda lib: lib.ones(3, 4).t(), lambda lib: lib.ones(2, 3, 4).permute(2, 0, 1),
                 lambda lib: lib.ones(2, 3, 8)[:, :, ::2].transpose(0, 2)):
        masks = []
        for lib in (gt, torch):
            lib.manual_seed(0)
            masks.append(lib.nn.functional.dropout(make(lib), 0.5).numpy())
        np.testing.assert_array_equal(*masks)


def test_sdpa_dropout_matches_torch_under_seed(torch):
    q, tq = _pair(torch, RNG.standard_normal((2, 2, 6, 4)), "float64")
    gt.manual_seed(5)
    torch.manual_seed(5)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3)
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tq, tq, dropout_p=0.3)
    assert out.grad_fn.name() == type(ref.grad_fn).__name__
    _close(out, ref)
    out.sum().backward()
    ref.sum().backward()
    _close(q.grad, tq.grad)


SDPA_ERRORS = [
    lambda lib, r: (r(2, 2, 3, 4), r(2, 2, 3, 4).double(), r(2, 2, 3, 4)),
    lambda lib, r: (r(2, 2, 3, 4), r(2, 2, 3, 4), r(2, 2, 3, 4),
                    lib.ones(3, 3, dtype=lib.int64)),
    lambda lib, r: (r(2, 2, 3, 4), r(2, 2, 3, 4), r(2, 2, 3, 4),
                    lib.ones(3, 3, dtype=lib.float64)),
    lambda lib, r: (r(4), r(4), r(4)),
    lambda lib, r: (r(3, 4), r(3, 4), r(3, 4), None, 1.5),
    lambda lib, r: (r(3, 3, 4), r(3, 3, 4), r(3, 3, 4), lib.ones(3, 3, dtype=lib.bool), 0.0,
                    True),
    lambda lib, r: (r(3, 3, 4), r(2, 3, 4), r(2, 3, 4), None, 0.0, False, None, True),
    # shape errors surface from the ops, with their words
    lambda lib, r: (r(3, 4, 8), r(3, 5, 8), r(3, 5, 8), r(4, 6)),
    lambda lib, r: (r(2, 3, 4, 8), r(2, 3, 5, 8), r(2, 3, 5, 8), r(4, 6)),
    lambda lib, r: (r(2, 3, 4, 8), r(2, 3, 5, 8), r(2, 3, 5, 8), r(5, 2, 3, 4, 5)),
    lambda lib, r: (r(3, 4, 8), r(3, 5, 7), r(3, 5, 8)),
    lambda lib, r: (r(3, 4, 8), r(3, 5, 8), r(3, 4, 8)),
    # a mask beside is_causal where torch's fused kernel does not run (another value
    # head size, dropout): its math path refuses the pair
    lambda lib, r: (r(1, 1, 3, 4), r(1, 1, 3, 4), r(1, 1, 3, 5), r(3, 3), 0.0, True),
    lambda lib, r: (r(1, 1, 3, 4), r(1, 1, 3, 4), r(1, 1, 3, 4), r(3, 3), 0.5, True),
]


@pytest.mark.parametrize("case", range(len(SDPA_ERRORS)))
def test_sdpa_errors_word_for_word(torch, case):
    results = []
    for lib in (gt, torch):
        args = SDPA_ERRORS[case](lib, lambda *s, lib=lib: lib.ones(*s))
        names = ("attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
        kwargs = dict(zip(names, args[3:]))
        results.append(error_of(
            lambda: lib.nn.functional.scaled_dot_product_attention(*args[:3], **kwargs)))
    assert results[0] == results[1]
    assert results[0][0] == "RuntimeError"


@pytest.mark.parametrize("mask_kind", ["float", "bool"])
def test_sdpa_mask_and_is_causal_in_the_fused_kernel(torch, mask_kind):
    """torch's fused CPU kernel (4-D, no dropout, one head size) takes a mask beside
    is_causal=True and adds it to the causal one's: values and gradients equal."""
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((2, 2, 3, 4)).astype(np.float32) for _ in range(3)]
    mask = rng.standard_normal((3, 3)).astype(np.float32)
    results = []
    for lib in (gt, torch):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        # (every row keeps its diagonal: no row is masked whole)
        m = lib.tensor(mask) if mask_kind == "float" else lib.tensor((mask > -0.5) | np.eye(3,
                                                                                      dtype=bool))
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m,
                                                             is_causal=True)
        (out * lib.arange(48.0).view(2, 2, 3, 4)).sum().backward()
        results.append([out.detach().numpy(), q.grad.numpy(), k.grad.numpy(), v.grad.numpy(),
                        out.grad_fn.name()])
    assert results[0][4] == results[1][4]
    for a, b in zip(results[0][:4], results[1][:4]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---- MultiheadAttention ----------------------------------------------------------------------

MHA_CONFIGS = [
    dict(embed_dim=8, num_heads=2),
    dict(embed_dim=8, num_heads=4, bias=False),
    dict(embed_dim=8, num_heads=2, add_bias_kv=True),
    dict(embed_dim=8, num_heads=2, add_zero_attn=True),
    dict(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True, batch_first=True),
    dict(embed_dim=8, num_heads=2, kdim=5, vdim=3),
    dict(embed_dim=6, num_heads=3, kdim=4, batch_first=True),
    dict(embed_dim=8, num_heads=1, batch_first=True),
]


def _twin(torch, cls_name, seed=0, dtype="float64", **kwargs):
    gt.manual_seed(seed)
    ours = getattr(nn, cls_name)(dtype=getattr(gt, dtype), **kwargs)
    torch.manual_seed(seed)
    ref = getattr(torch.nn, cls_name)(dtype=getattr(torch, dtype), **kwargs)
    return ours, ref


def _same_parameters(ours, ref, grads=False, dtype="float64"):
    names = [n for n, _ in ours.named_parameters()]
    assert names == [n for n, _ in ref.named_parameters()]
    theirs = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        if grads:
            _close(p.grad, theirs[name].grad, dtype)
        else:
            np.testing.assert_array_equal(p.detach().numpy(), theirs[name].detach().numpy())
            assert p._version == theirs[name]._version, name


@pytest.mark.parametrize("config", range(len(MHA_CONFIGS)))
def test_mha_seeded_parameters_are_torchs(torch, config):
    ours, ref = _twin(torch, "MultiheadAttention", seed=config, **MHA_CONFIGS[config])
    _same_parameters(ours, ref)
    assert repr(ours) == repr(ref)
    assert ours.head_dim == ref.head_dim and ours._qkv_same_embed_dim == ref._qkv_same_embed_dim


def _mha_inputs(torch, cfg, lq=4, ls=5, batch=3, dtype="float64", self_attn=False):
    e = cfg["embed_dim"]
    kd, vd = cfg.get("kdim") or e, cfg.get("vdim") or e

    def shape(n, d):
        return (batch, n, d) if cfg.get("batch_first") else (n, batch, d)
    q = _pair(torch, RNG.standard_normal(shape(lq, e)), dtype)
    if self_attn:
        return q, q, q
    return q, _pair(torch, RNG.standard_normal(shape(ls, kd)), dtype), \
        _pair(torch, RNG.standard_normal(shape(ls, vd)), dtype)


def _mha_masks(torch, kind, cfg, lq, ls, batch, dtype):
    heads = cfg["num_heads"]
    kpm = attn = None
    if kind in ("kpm_bool", "both"):
        m = _bool_mask((batch, ls), 0.7)
        m[:, 0] = False
        kpm = m
    if kind == "kpm_float":
        kpm = np.where(_bool_mask((batch, ls), 0.3), -np.inf, 0.0)
        kpm[:, 0] = 0.0
    if kind in ("attn2_bool", "both"):
        m = _bool_mask((lq, ls), 0.3)
        m[:, :2] = False  # key 0 is never padded: no row is fully masked
        attn = m
    if kind == "attn3_float":
        attn = RNG.standard_normal((batch * heads, lq, ls))
    pairs = []
    for m in (kpm, attn):
        if m is None:
            pairs.append((None, None))
        elif m.dtype == bool:
            pairs.append((gt.tensor(m), torch.tensor(m)))
        else:
            pairs.append(_pair(torch, m, dtype, grad=False))
    return pairs


MHA_RUNS = [(c, mask, nw, avg) for c in range(len(MHA_CONFIGS))
            for mask, nw, avg in ((None, True, True), ("kpm_bool", True, False),
                                  ("attn2_bool", False, True), ("both", True, True),
                                  ("attn3_float", False, True), ("kpm_float", True, True))]


@pytest.mark.parametrize("config,mask,need_weights,average", MHA_RUNS)
def test_mha_matches_torch(torch, config, mask, need_weights, average):
    cfg = MHA_CONFIGS[config]
    ours, ref = _twin(torch, "MultiheadAttention", seed=config, **cfg)
    lq, ls, batch = 4, 5, 3
    q, k, v = _mha_inputs(torch, cfg, lq, ls, batch)
    (kpm, tkpm), (attn, tattn) = _mha_masks(torch, mask, cfg, lq, ls, batch, "float64")
    kw = dict(need_weights=need_weights, average_attn_weights=average)
    out, w = ours(q[0], k[0], v[0], key_padding_mask=kpm, attn_mask=attn, **kw)
    rout, rw = ref(q[1], k[1], v[1], key_padding_mask=tkpm, attn_mask=tattn, **kw)
    _close(out, rout)
    assert (w is None) == (rw is None)
    if w is not None:
        _close(w, rw)
    assert out.grad_fn.name() == type(rout.grad_fn).__name__
    grad = RNG.standard_normal(tuple(rout.shape))
    out.backward(gt.tensor(grad))
    rout.backward(torch.tensor(grad))
    _same_parameters(ours, ref, grads=True)
    for a, b in (q, k, v):
        _close(a.grad, b.grad)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("batch_first", [True, False])
def test_mha_self_attention_causal_float32(torch, need_weights, batch_first):
    cfg = dict(embed_dim=8, num_heads=2, batch_first=batch_first)
    ours, ref = _twin(torch, "MultiheadAttention", dtype="float32", **cfg)
    q, _, _ = _mha_inputs(torch, cfg, 5, 5, 2, "float32", self_attn=True)
    mask, tmask = nn.Transformer.generate_square_subsequent_mask(5), \
        torch.nn.Transformer.generate_square_subsequent_mask(5)
    out, w = ours(q[0], q[0], q[0], attn_mask=mask, is_causal=True, need_weights=need_weights)
    rout, rw = ref(q[1], q[1], q[1], attn_mask=tmask, is_causal=True, need_weights=need_weights)
    _close(out, rout, "float32")
    if need_weights:
        _close(w, rw, "float32")
    out.sum().backward()
    rout.sum().backward()
    _same_parameters(ours, ref, grads=True, dtype="float32")
    _close(q[0].grad, q[1].grad, "float32")


def test_mha_unbatched(torch):
    cfg = dict(embed_dim=8, num_heads=2)
    ours, ref = _twin(torch, "MultiheadAttention", **cfg)
    x, tx = _pair(torch, RNG.standard_normal((4, 8)), "float64")
    kpm = np.array([False, True, False, False])
    out, w = ours(x, x, x, key_padding_mask=gt.tensor(kpm))
    rout, rw = ref(tx, tx, tx, key_padding_mask=torch.tensor(kpm))
    _close(out, rout)
    _close(w, rw)
    attn3 = RNG.standard_normal((2, 4, 4))
    out, w = ours(x, x, x, attn_mask=gt.tensor(attn3), need_weights=False)
    rout, rw = ref(tx, tx, tx, attn_mask=torch.tensor(attn3), need_weights=False)
    _close(out, rout)
    assert w is None and rw is None


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_fully_masked_rows_match_torch(torch, need_weights):
    """A query row with every key masked: NaN through the explicit softmax path
    (need_weights), zeros through scaled_dot_product_attention, as torch."""
    cfg = dict(embed_dim=4, num_heads=2)
    ours, ref = _twin(torch, "MultiheadAttention", **cfg)
    x, tx = _pair(torch, RNG.standard_normal((3, 2, 4)), "float64")
    mask = np.zeros((3, 3), dtype=bool)
    mask[1] = True
    out, _ = ours(x, x, x, attn_mask=gt.tensor(mask), need_weights=need_weights)
    rout, _ = ref(tx, tx, tx, attn_mask=torch.tensor(mask), need_weights=need_weights)
    _close(out, rout, equal_nan=True)
    assert np.isnan(out.detach().numpy()).any() == need_weights


def test_mha_dropout_train_and_eval(torch):
    cfg = dict(embed_dim=8, num_heads=2, dropout=0.4, batch_first=True)
    ours, ref = _twin(torch, "MultiheadAttention", **cfg)
    q, k, v = _mha_inputs(torch, cfg)
    for need_weights in (True, False):
        gt.manual_seed(11)
        torch.manual_seed(11)
        out, _ = ours(q[0], k[0], v[0], need_weights=need_weights)
        rout, _ = ref(q[1], k[1], v[1], need_weights=need_weights)
        _close(out, rout)
    ours.eval()
    ref.eval()
    out, w = ours(q[0], k[0], v[0])
    rout, rw = ref(q[1], k[1], v[1])
    _close(out, rout)
    _close(w, rw)
    with gt.no_grad(), torch.no_grad():  # torch takes its fused fast path here
        x, tx = q[0].detach(), q[1].detach()
        out, w = ours(x, x, x)
        rout, rw = ref(tx, tx, tx)
    _close(out, rout, "float32")
    _close(w, rw, "float32")


def test_mha_functional_matches_torch(torch):
    cfg = dict(embed_dim=8, num_heads=2)
    ours, ref = _twin(torch, "MultiheadAttention", **cfg)
    q, k, v = _mha_inputs(torch, cfg)

    def run(lib, mod, x, y, z):
        return lib.nn.functional.multi_head_attention_forward(
            x, y, z, 8, 2, mod.in_proj_weight, mod.in_proj_bias, None, None, False, 0.0,
            mod.out_proj.weight, mod.out_proj.bias, need_weights=True,
            average_attn_weights=False)
    out, w = run(gt, ours, q[0], k[0], v[0])
    rout, rw = run(torch, ref, q[1], k[1], v[1])
    _close(out, rout)
    _close(w, rw)


def test_mha_functional_static_kv_and_separate_weights(torch):
    cfg = dict(embed_dim=8, num_heads=2, kdim=5, vdim=3)
    ours, ref = _twin(torch, "MultiheadAttention", **cfg)
    q, k, v = _mha_inputs(torch, cfg)
    static = [_pair(torch, RNG.standard_normal((6, 7, 4)), "float64") for _ in range(2)]

    def run(lib, mod, x, y, z, sk, sv):
        return lib.nn.functional.multi_head_attention_forward(
            x, y, z, 8, 2, None, mod.in_proj_bias, None, None, True, 0.0, mod.out_proj.weight,
            mod.out_proj.bias, use_separate_proj_weight=True, q_proj_weight=mod.q_proj_weight,
            k_proj_weight=mod.k_proj_weight, v_proj_weight=mod.v_proj_weight, static_k=sk,
            static_v=sv)
    out, w = run(gt, ours, q[0], k[0], v[0], static[0][0], static[1][0])
    rout, rw = run(torch, ref, q[1], k[1], v[1], static[0][1], static[1][1])
    _close(out, rout)
    _close(w, rw)
    out.sum().backward()
    rout.sum().backward()
    for a, b in static + [q]:
        _close(a.grad, b.grad)
    bad = [error_of(lambda lib=lib, mod=mod, x=x: run(lib, mod, x[0], x[1], x[2], x[3], None))
           for lib, mod, x in ((gt, ours, (q[0], k[0], v[0], gt.ones(5, 7, 4))),
                               (torch, ref, (q[1], k[1], v[1], torch.ones(5, 7, 4))))]
    assert bad[0] == bad[1]


MHA_ERRORS = [
    lambda lib, m: lib.nn.MultiheadAttention(0, 2),
    lambda lib, m: lib.nn.MultiheadAttention(7, 2),
    lambda lib, m: m(lib.ones(2, 2, 2, 8), lib.ones(2, 2, 2, 8), lib.ones(2, 2, 2, 8)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 8), lib.ones(3, 8)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8),
                     key_padding_mask=lib.ones(3, dtype=lib.bool)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8),
                     attn_mask=lib.ones(3, 4, dtype=lib.bool)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8),
                     attn_mask=lib.ones(5, 3, 3, dtype=lib.bool)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8),
                     attn_mask=lib.ones(3, 3, dtype=lib.int64)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8), is_causal=True),
    lambda lib, m: m(lib.ones(3, 2, 6), lib.ones(3, 2, 6), lib.ones(3, 2, 6)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(4, 2, 8)),
    lambda lib, m: m(lib.ones(3, 2, 8), lib.ones(3, 2, 8), lib.ones(3, 2, 8),
                     key_padding_mask=lib.ones(3, 3, dtype=lib.bool)),
    lambda lib, m: m(lib.ones(3, 8), lib.ones(3, 8), lib.ones(3, 8),
                     attn_mask=lib.ones(3, 3, 3, dtype=lib.bool)),
]


@pytest.mark.parametrize("case", range(len(MHA_ERRORS)))
def test_mha_errors_word_for_word(torch, case):
    results = []
    for lib in (gt, torch):
        mod = lib.nn.MultiheadAttention(8, 2)
        results.append(error_of(lambda: MHA_ERRORS[case](lib, mod)))
    assert results[0] == (results[1][0], torch_to_gradtrack(results[1][1]))
    assert results[0][0] is not None


def test_mha_mismatched_mask_types_warn(torch):
    texts = []
    for lib in (gt, torch):
        mod = lib.nn.MultiheadAttention(8, 2)
        x = lib.ones(3, 2, 8)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mod(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool),
                attn_mask=lib.zeros(3, 3))
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1] and texts[0]


# ---- TransformerEncoderLayer / TransformerEncoder ----------------------------------------------

LAYER_CONFIGS = [
    dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0),
    dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, norm_first=True,
         batch_first=True),
    dict(d_model=8, nhead=4, dim_feedforward=12, dropout=0.0, activation="gelu",
         layer_norm_eps=1e-3, bias=False),
    dict(d_model=6, nhead=3, dim_feedforward=10, dropout=0.0, batch_first=True),
]


@pytest.mark.parametrize("config", range(len(LAYER_CONFIGS)))
@pytest.mark.parametrize("mask", [None, "causal", "kpm"])
def test_encoder_layer_matches_torch(torch, config, mask):
    cfg = LAYER_CONFIGS[config]
    ours, ref = _twin(torch, "TransformerEncoderLayer", seed=config, **cfg)
    _same_parameters(ours, ref)
    assert repr(ours) == repr(ref)
    s, n, e = 5, 3, cfg["d_model"]
    shape = (n, s, e) if cfg.get("batch_first") else (s, n, e)
    x, tx = _pair(torch, RNG.standard_normal(shape), "float64")
    kw, tkw = {}, {}
    if mask == "causal":
        kw = dict(src_mask=nn.Transformer.generate_square_subsequent_mask(s, dtype=gt.float64),
                  is_causal=True)
        tkw = dict(src_mask=torch.nn.Transformer.generate_square_subsequent_mask(
            s, dtype=torch.float64), is_causal=True)
    elif mask == "kpm":
        m = _bool_mask((n, s), 0.3)
        m[:, 0] = False
        kw, tkw = dict(src_key_padding_mask=gt.tensor(m)), \
            dict(src_key_padding_mask=torch.tensor(m))
    out, rout = ours(x, **kw), ref(tx, **tkw)
    _close(out, rout)
    assert out.grad_fn.name() == type(rout.grad_fn).__name__
    grad = RNG.standard_normal(shape)
    out.backward(gt.tensor(grad))
    rout.backward(torch.tensor(grad))
    _same_parameters(ours, ref, grads=True)
    _close(x.grad, tx.grad)


def test_encoder_layer_callable_activation_and_dropout(torch):
    cfg = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.2, batch_first=True)
    gt.manual_seed(3)
    ours = nn.TransformerEncoderLayer(activation=nn.GELU(), dtype=gt.float64, **cfg)
    torch.manual_seed(3)
    ref = torch.nn.TransformerEncoderLayer(activation=torch.nn.GELU(), dtype=torch.float64,
                                           **cfg)
    x, tx = _pair(torch, RNG.standard_normal((2, 5, 8)), "float64")
    gt.manual_seed(8)
    torch.manual_seed(8)
    out, rout = ours(x), ref(tx)
    _close(out, rout)
    out.sum().backward()
    rout.sum().backward()
    _same_parameters(ours, ref, grads=True)
    ours.eval()
    ref.eval()
    _close(ours(x), ref(tx))
    assert ours.activation_relu_or_gelu == ref.activation_relu_or_gelu


def test_encoder_layer_bad_activation(torch):
    results = [error_of(lambda lib=lib: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"))
               for lib in (gt, torch)]
    assert results[0] == results[1] and results[0][0] == "RuntimeError"


@pytest.mark.parametrize("batch_first,norm", [(True, True), (False, False)])
def test_encoder_matches_torch(torch, batch_first, norm):
    cfg = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=batch_first)
    gt.manual_seed(4)
    layer = nn.TransformerEncoderLayer(dtype=gt.float64, **cfg)
    ours = nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(8, dtype=gt.float64) if norm
                                 else None, enable_nested_tensor=False)
    torch.manual_seed(4)
    tlayer = torch.nn.TransformerEncoderLayer(dtype=torch.float64, **cfg)
    ref = torch.nn.TransformerEncoder(tlayer, 3, norm=torch.nn.LayerNorm(8, dtype=torch.float64)
                                      if norm else None, enable_nested_tensor=False)
    _same_parameters(ours, ref)
    assert repr(ours) == repr(ref)
    shape = (2, 6, 8) if batch_first else (6, 2, 8)
    x, tx = _pair(torch, RNG.standard_normal(shape), "float64")
    mask = nn.Transformer.generate_square_subsequent_mask(6, dtype=gt.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)
    out, rout = ours(x, mask=mask), ref(tx, mask=tmask)
    _close(out, rout)
    out.sum().backward()
    rout.sum().backward()
    _same_parameters(ours, ref, grads=True)
    _close(x.grad, tx.grad)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.parametrize("left_aligned", [True, False])
@pytest.mark.parametrize("grad", [True, False])
def test_encoder_eval_padding_matches_torchs_nested_path(torch, left_aligned, grad):
    """In eval without gradients torch runs a padded batch as a nested tensor: the padded
    positions come back as zeros (before ``norm``) when the padding is left-aligned."""
    kpm = np.array([[False] * 5, [False, False, False, True, True]])
    if not left_aligned:
        kpm[1] = [False, True, False, False, True]
    x = RNG.standard_normal((2, 5, 8))
    outs = []
    for lib in (gt, torch):
        lib.manual_seed(0)
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                               dtype=lib.float64)
        enc = lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8, dtype=lib.float64))
        enc.eval()
        with lib.set_grad_enabled(grad):
            outs.append(enc(lib.tensor(x), src_key_padding_mask=lib.tensor(kpm)).detach())
    _close(outs[0], outs[1], "float32")


def test_encoder_nested_tensor_warning(torch):
    texts = []
    for lib in (gt, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            enc = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2), 2)
        texts.append(([str(w.message) for w in caught], enc.use_nested_tensor))
    assert texts[0] == texts[1] and texts[0][0]


def test_square_subsequent_mask(torch):
    for size in (0, 1, 4):
        np.testing.assert_array_equal(
            nn.Transformer.generate_square_subsequent_mask(size).numpy(),
            torch.nn.Transformer.generate_square_subsequent_mask(size).numpy())
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=gt.float64).dtype \
        is gt.float64


@pytest.mark.parametrize("batch_first,norm_first", [(False, False), (True, True)])
def test_transformer_encoder_decoder_matches_torch(torch, batch_first, norm_first):
    cfg = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
               dim_feedforward=16, dropout=0.0, batch_first=batch_first,
               norm_first=norm_first, activation="gelu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the nested-tensor note, in both
        ours, ref = _twin(torch, "Transformer", seed=6, **cfg)
    _same_parameters(ours, ref)
    assert repr(ours) == repr(ref)
    n, s_len, t_len = 2, 5, 4

    def shape(length):
        return (n, length, 8) if batch_first else (length, n, 8)
    src, tsrc = _pair(torch, RNG.standard_normal(shape(s_len)), "float64")
    tgt, ttgt = _pair(torch, RNG.standard_normal(shape(t_len)), "float64")
    mem_pad = np.zeros((n, s_len), dtype=bool)
    mem_pad[1, -2:] = True
    kw = dict(tgt_mask=nn.Transformer.generate_square_subsequent_mask(t_len, dtype=gt.float64),
              memory_key_padding_mask=gt.tensor(mem_pad), src_key_padding_mask=gt.tensor(mem_pad))
    tkw = dict(tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(
        t_len, dtype=torch.float64), memory_key_padding_mask=torch.tensor(mem_pad),
        src_key_padding_mask=torch.tensor(mem_pad))
    out, rout = ours(src, tgt, **kw), ref(tsrc, ttgt, **tkw)
    _close(out, rout)
    grad = RNG.standard_normal(tuple(rout.shape))
    out.backward(gt.tensor(grad))
    rout.backward(torch.tensor(grad))
    _same_parameters(ours, ref, grads=True)
    _close(src.grad, tsrc.grad)
    _close(tgt.grad, ttgt.grad)


def test_transformer_errors(torch):
    results = []
    for lib in (gt, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = lib.nn.Transformer(8, 2, 1, 1, 16)
        results.append([
            error_of(lambda: model(lib.ones(3, 2, 8), lib.ones(3, 4, 8))),
            error_of(lambda: model(lib.ones(3, 2, 6), lib.ones(3, 2, 6))),
        ])
    assert results[0] == results[1]


# ---- a tiny encoder learns to reverse digit sequences ------------------------------------------

class _Reverser:
    """Embedding + positions -> 1-layer encoder -> per-position digit logits."""

    def __init__(self, lib, seq_len, vocab=10, d=16):
        lib.manual_seed(0)
        self.lib = lib
        self.embed = lib.nn.Embedding(vocab, d)
        self.pos = lib.nn.Embedding(seq_len, d)
        layer = lib.nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = lib.nn.Linear(d, vocab)
        self.modules = [self.embed, self.pos, self.encoder, self.head]
        self.positions = lib.arange(seq_len)

    def parameters(self):
        return [p for m in self.modules for p in m.parameters()]

    def __call__(self, x):
        h = self.embed(x) + self.pos(self.positions)
        return self.head(self.encoder(h))


def _reverse_task(steps, seq_len=5, batch=32):
    data = np.random.default_rng(0).integers(0, 10, size=(steps, batch, seq_len))
    return data, data[:, :, ::-1].copy()


def _train(lib, data, targets, steps):
    model = _Reverser(lib, data.shape[-1])
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for i in range(steps):
        x, y = lib.tensor(data[i]), lib.tensor(targets[i])
        logits = model(x)
        loss = lib.nn.functional.cross_entropy(logits.reshape(-1, 10), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


def test_tiny_encoder_learns_to_reverse_with_torchs_loss_curve(torch):
    data, targets = _reverse_task(300)
    _, ref_losses = _train(torch, data, targets, 8)
    model, losses = _train(gt, data, targets, 300)
    np.testing.assert_allclose(losses[:8], ref_losses, rtol=2e-4)
    test_x, test_y = _reverse_task(1, batch=256)
    with gt.no_grad():
        pred = model(gt.tensor(test_x[0])).argmax(-1).numpy()
    assert (pred == test_y[0]).mean() > 0.95
