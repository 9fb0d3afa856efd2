"""Attention in ``nn.functional``: ``scaled_dot_product_attention`` and
``multi_head_attention_forward``, composed from matmul, softmax and dropout.

Where PyTorch's CPU build runs its fused flash kernel (4-D inputs, no dropout, a mask
that needs no gradient) the result's ``grad_fn`` is the same
``ScaledDotProductFlashAttentionForCpuBackward0`` node; elsewhere the graph is the
math path's chain of ordinary ops, as in PyTorch.

>>> import gradtrack
>>> import gradtrack.nn.functional as F
>>> q = gradtrack.ones(1, 1, 2, 4, requires_grad=True)
>>> out = F.scaled_dot_product_attention(q, q, q, is_causal=True)
>>> out.shape, out.grad_fn.name()
(gradtrack.Size([1, 1, 2, 4]), 'ScaledDotProductFlashAttentionForCpuBackward0')
"""

import math
import sys
import warnings
from typing import Any

from .. import _C
from .._C import Tensor
from .._dtype_names import CPP_NAME, dtype_key
from ..autograd.function import Function

_Tensor = _C.Tensor
_NEG_INF = float("-inf")

def _gt():
    # The package itself, for its factories (nn is imported while it is being built).
    return sys.modules["gradtrack"]


def _cpp_type(dtype):
    # c10's type name, which PyTorch's sdpa messages print for a dtype
    return CPP_NAME[dtype_key(dtype)]


# ---- scaled_dot_product_attention ---------------------------------------------------------

def _check_sdpa_inputs(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa,
                       flash=False):
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp_type(query.dtype)} key.dtype: {_cpp_type(key.dtype)} and value.dtype: "
            f"{_cpp_type(value.dtype)} instead.")
    if attn_mask is not None and attn_mask.dtype != _C.bool and attn_mask.dtype != query.dtype:
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_cpp_type(attn_mask.dtype)} and  query.dtype: "
            f"{_cpp_type(query.dtype)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    # (torch's fused CPU kernel takes both, and adds the mask to the causal one's)
    if is_causal and attn_mask is not None and not flash:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if enable_gqa and query.dim() >= 3 and key.dim() >= 3 and value.dim() >= 3:
        heads = query.shape[-3]
        if heads % key.shape[-3] != 0 or heads % value.shape[-3] != 0:
            raise RuntimeError("Number of heads in key and value must divide the number of "
                               "heads in ")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {_scalar_name(query.dtype)}")


def _scalar_name(dtype):
    name = repr(dtype).split(".", 1)[1]
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "uint8": "Byte",
            "int16": "Short", "int8": "Char"}.get(name, name)


def _float_mask(mask, dtype):
    """A bool mask (True = attend) as the additive float mask: 0 kept, -inf dropped."""
    if mask is None or mask.dtype != _C.bool:
        return mask
    return _C.zeros(tuple(mask.shape), dtype=dtype).masked_fill(mask.logical_not(), _NEG_INF)


def _causal_mask(rows, cols, dtype):
    keep = _C.ones((rows, cols), dtype=_C.bool).tril()
    return _float_mask(keep, dtype)


def _expand_heads(key, value, query):
    """enable_gqa: each key/value head serves a group of consecutive query heads."""
    heads = query.shape[-3]
    if key.shape[-3] != heads:
        key = key.repeat_interleave(heads // key.shape[-3], -3)
    if value.shape[-3] != heads:
        value = value.repeat_interleave(heads // value.shape[-3], -3)
    return key, value


def _safe_softmax(scores):
    """Softmax over the last dim whose rows of only -inf give zeros (not NaN), with a
    zero gradient there: the -inf rows are neutralised before the softmax."""
    dead = (scores == _NEG_INF).all(-1, keepdim=True)
    if not bool(dead.any()):
        return scores.softmax(-1)
    return scores.masked_fill(dead, 0.0).softmax(-1).masked_fill(dead, 0.0)


def _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """PyTorch's math path: q and k each scaled by sqrt(scale) before the product."""
    root = math.sqrt(abs(scale))
    q = query * (-root if scale < 0 else root)
    if is_causal:
        attn_mask = _causal_mask(query.shape[-2], key.shape[-2], query.dtype)
    if enable_gqa and query.dim() >= 3:
        key, value = _expand_heads(key, value, query)
    scores = q.matmul(key.transpose(-2, -1) * root)
    if attn_mask is not None:
        scores = scores + attn_mask if attn_mask.requires_grad else scores.add_(attn_mask)
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        from ._functional_layers import dropout
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _flash_eligible(query, key, value, attn_mask, dropout_p):
    """Where PyTorch's CPU dispatch picks its fused kernel (measured on 2.13)."""
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4 or dropout_p > 0.0:
        return False
    if attn_mask is not None and attn_mask.requires_grad:
        return False
    if key.shape[0] != query.shape[0] or value.shape[0] != query.shape[0]:
        return False
    if value.shape[-1] != query.shape[-1] or key.shape[-1] != query.shape[-1]:
        return False
    return query.shape[-2] > 0 and key.shape[-2] > 0 and value.shape[-2] == key.shape[-2]


class _FlashAttentionForCpu(Function):
    """The fused node: forward through the math ops, backward from the saved
    probabilities (the usual softmax-attention vector-Jacobian product)."""

    @staticmethod
    def forward(ctx, query, key, value, attn_mask, is_causal, scale):
        key_x, value_x = _expand_heads(key, value, query)
        scores = query.matmul(key_x.transpose(-2, -1)) * scale
        if is_causal:
            scores.add_(_causal_mask(query.shape[-2], key.shape[-2], query.dtype))
        if attn_mask is not None:
            scores.add_(_float_mask(attn_mask, query.dtype))  # in place: torch's shape error
        probs = _safe_softmax(scores)
        ctx.save_for_backward(query, key, value, probs)
        ctx.scale = scale
        return probs.matmul(value_x)

    @staticmethod
    def backward(ctx, grad):
        query, key, value, probs = ctx.saved_tensors
        with _gt().no_grad():
            grads = _flash_grads(grad, query, key, value, probs, ctx.scale)
        tracked = (grad, query, key, value)
        if _C.is_grad_enabled() and any(t.requires_grad for t in tracked):
            grads = tuple(_NoDoubleBackward.apply(_needs_grad(g)) for g in grads)
        return grads + (None, None, None)


def _flash_grads(grad, query, key, value, probs, scale):
    key_x, value_x = _expand_heads(key, value, query)
    grad_value = probs.transpose(-2, -1).matmul(grad)
    grad_probs = grad.matmul(value_x.transpose(-2, -1))
    grad_scores = probs * (grad_probs - (grad_probs * probs).sum(-1, keepdim=True))
    grad_query = grad_scores.matmul(key_x) * scale
    grad_key = grad_scores.transpose(-2, -1).matmul(query) * scale
    return grad_query, _fold_heads(grad_key, key), _fold_heads(grad_value, value)


def _fold_heads(grad, like):
    """Sums the gradient of a head repeated for a group (enable_gqa) back onto it."""
    heads = like.shape[-3]
    if grad.shape[-3] == heads:
        return grad
    shape = tuple(grad.shape)
    group = shape[-3] // heads
    return grad.reshape(shape[:-3] + (heads, group) + shape[-2:]).sum(-3)


def _needs_grad(t):
    t = t.detach()
    t.requires_grad = True
    return t


class _NoDoubleBackward(Function):
    # Stands where the fused backward's own derivative would be: PyTorch has none.
    @staticmethod
    def forward(ctx, x):
        return x.detach()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_"
                           "backward is not implemented")


_FlashAttentionForCpu._backward_cls.__name__ = "ScaledDotProductFlashAttentionForCpuBackward0"
_FlashAttentionForCpu._backward_cls.__qualname__ = "ScaledDotProductFlashAttentionForCpuBackward0"
_NoDoubleBackward._backward_cls.__name__ = "NotImplemented"
_NoDoubleBackward._backward_cls.__qualname__ = "NotImplemented"


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, *, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key.T * scale + mask) @ value``, with dropout on the weights.

    ``attn_mask`` is a bool mask (True = take part) or an additive float mask of the
    query's dtype; ``is_causal`` masks the upper triangle; ``scale`` defaults to
    ``1 / sqrt(E)``; ``enable_gqa`` lets key/value have fewer heads than the query.
    Rows where every key is masked give zeros.

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> q = gradtrack.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> F.scaled_dot_product_attention(q, q, q, attn_mask=gradtrack.eye(2, dtype=gradtrack.bool))
    tensor([[[1., 0.],
             [0., 1.]]])
    """
    if _C._autocast.enabled():  # on autocast's lower-precision list
        lower = _C._autocast.lower
        query, key, value = lower(query), lower(key), lower(value)
        attn_mask = None if attn_mask is None else lower(attn_mask)
    flash = _flash_eligible(query, key, value, attn_mask, dropout_p) and (
        enable_gqa or key.shape[-3] == query.shape[-3] == value.shape[-3])
    _check_sdpa_inputs(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa, flash)
    if scale is None:
        size = query.shape[-1]
        scale = 1.0 / math.sqrt(size) if size > 0 else math.inf
    scale = float(scale)
    if flash:
        return _FlashAttentionForCpu.apply(query, key, value, attn_mask, is_causal, scale)
    return _sdpa_math(query, key, value, _float_mask(attn_mask, query.dtype), dropout_p,
                      is_causal, scale, enable_gqa)


# ---- multi_head_attention_forward ---------------------------------------------------------

def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched (3-D query), with PyTorch's shape assertions."""
    qdim = query.dim()
    if qdim not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                             f"{qdim}-D query tensor")
    batched = qdim == 3
    label = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != qdim or value.dim() != qdim:
        raise AssertionError(f"For {label} `query`, expected `key` and `value` to be {qdim}-D "
                             f"but found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != qdim - 1:
        raise AssertionError(f"For {label} `query`, expected `key_padding_mask` to be `None` or "
                             f"{qdim - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For {label} `query`, expected `attn_mask` to be `None`, 2-D or "
                                 f"3-D but found {attn_mask.dim()}-D tensor instead")
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                     f"{attn_mask.shape}")
    return batched


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str,
                    target_type: Any, check_other: bool = True) -> Tensor | None:
    """A bool mask as an additive float mask of ``target_type``; a float mask as is."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype != _C.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if not is_float:
        mask = _C.zeros(tuple(mask.shape), dtype=target_type).masked_fill_(mask, _NEG_INF)
    return mask


def _none_or_dtype(input: Tensor | None) -> Any:  # noqa: A002 - torch's argument name
    if input is None:
        return None
    if isinstance(input, _Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """Projects q, k, v with the packed ``(3E, E)`` weight: one product for
    self-attention, two when key is value, three otherwise (as PyTorch)."""
    embed = q.shape[-1]
    if k is v and q is k:
        proj = _C._nn.linear(q, w, b)
        proj = proj.reshape(tuple(proj.shape[:-1]) + (3, embed)).unsqueeze(0)
        proj = proj.transpose(0, -2).squeeze(-2).contiguous()
        return proj[0], proj[1], proj[2]
    if k is v:
        w_q, w_kv = w.split([embed, embed * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed, embed * 2])
        kv = _C._nn.linear(k, w_kv, b_kv)
        kv = kv.reshape(tuple(kv.shape[:-1]) + (2, embed)).unsqueeze(0)
        kv = kv.transpose(0, -2).squeeze(-2).contiguous()
        return _C._nn.linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _C._nn.linear(q, w_q, b_q), _C._nn.linear(k, w_k, b_k), _C._nn.linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """Projects q, k, v with separate weights, checking their shapes."""
    eq, ek, ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, shape in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)),
                           ("value", w_v, (eq, ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")
    lin = _C._nn.linear
    return lin(q, w_q, b_q), lin(k, w_k, b_k), lin(v, w_v, b_v)


def _pad_last(t):
    """``F.pad(t, (0, 1))``: one zero column at the end of the last dim."""
    zeros = _C.zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype)
    return _gt().cat([t, zeros], dim=-1)


def _check_attn_mask_shape(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        correct = (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != correct:
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {correct}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _project(query, key, value, in_proj_weight, in_proj_bias, separate, q_w, k_w, v_w):
    if not separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    for name, w in (("q", q_w), ("k", k_w), ("v", v_w)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
    biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_w, k_w, v_w, *biases)


def _check_embed(query, key, value, embed_dim_to_check, num_heads, separate):
    embed_dim = query.shape[2]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if separate:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    return head_dim


def _add_bias_kv(k, v, bias_k, bias_v, static_k, static_v, masks, bsz):
    """Appends the learned bias key/value as one more source position."""
    if bias_k is None or bias_v is None:
        if bias_k is not None:
            raise AssertionError("bias_k is set but bias_v is None")
        if bias_v is not None:
            raise AssertionError("bias_v is set but bias_k is None")
        return k, v, masks
    if static_k is not None:
        raise AssertionError("bias cannot be added to static key.")
    if static_v is not None:
        raise AssertionError("bias cannot be added to static value.")
    cat = _gt().cat
    k = cat([k, bias_k.repeat(1, bsz, 1)])
    v = cat([v, bias_v.repeat(1, bsz, 1)])
    return k, v, tuple(None if m is None else _pad_last(m) for m in masks)


def _split_heads(t, static, name, bsz, num_heads, head_dim):
    """(S, N, E) -> (N * heads, S, head_dim), or the given static tensor after checks."""
    if static is None:
        return t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                             f"{static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _add_zero_attn(k, v, masks):
    """Appends an all-zero key/value position (so no row is left with nothing)."""
    gt = _gt()
    shape = (k.shape[0], 1, k.shape[2])
    k = gt.cat([k, _C.zeros(shape, dtype=k.dtype)], dim=1)
    v = gt.cat([v, _C.zeros(shape, dtype=v.dtype)], dim=1)
    return k, v, tuple(None if m is None else _pad_last(m) for m in masks)


def _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len):
    if key_padding_mask is None:
        return attn_mask
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")
    padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
    padding = padding.reshape(bsz * num_heads, 1, src_len)
    return padding if attn_mask is None else attn_mask + padding


def _attend_with_weights(q, k, v, attn_mask, dropout_p, shape, out_w, out_b, average):
    """The explicit path (need_weights): baddbmm, softmax, dropout, bmm."""
    tgt_len, bsz, num_heads, embed_dim = shape
    gt = _gt()
    q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
    if attn_mask is not None:
        weights = gt.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    else:
        weights = gt.bmm(q_scaled, k.transpose(-2, -1))
    weights = weights.softmax(-1)
    if dropout_p > 0.0:
        from ._functional_layers import dropout
        weights = dropout(weights, dropout_p)
    out = gt.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    out = _C._nn.linear(out, out_w, out_b)
    out = out.view(tgt_len, bsz, out.size(1))
    weights = weights.view(bsz, num_heads, tgt_len, k.shape[1])
    if average:
        weights = weights.mean(dim=1)
    return out, weights


def _attend_fused(q, k, v, attn_mask, dropout_p, is_causal, shape, out_w, out_b):
    """need_weights=False: one scaled_dot_product_attention call."""
    tgt_len, bsz, num_heads, embed_dim = shape
    src_len = k.shape[1]
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    head_dim = q.shape[2]
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _C._nn.linear(out, out_w, out_b)
    return out.view(tgt_len, bsz, out.size(1)), None


def _prepare_masks(key_padding_mask, attn_mask, query, is_causal, need_weights):
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # sdpa builds the causal mask itself.
        return key_padding_mask, None, True
    attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                check_other=False)
    return key_padding_mask, attn_mask, is_causal and key_padding_mask is None


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
        bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
        out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
        v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention from its weights, as ``nn.MultiheadAttention`` runs it.

    Inputs are ``(L, N, E)`` (or unbatched ``(L, E)``); returns the output and, when
    ``need_weights``, the attention weights (averaged over heads by default).

    >>> import gradtrack
    >>> import gradtrack.nn.functional as F
    >>> x = gradtrack.ones(3, 1, 4)
    >>> w, b = gradtrack.ones(12, 4), gradtrack.zeros(12)
    >>> out, weights = F.multi_head_attention_forward(x, x, x, 4, 2, w, b, None, None, False,
    ...                                               0.0, gradtrack.eye(4), None)
    >>> out.shape, weights.shape
    (gradtrack.Size([3, 1, 4]), gradtrack.Size([1, 3, 3]))
    """
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask, attn_mask, is_causal = _prepare_masks(
        key_padding_mask, attn_mask, query, is_causal, need_weights)
    head_dim = _check_embed(query, key, value, embed_dim_to_check, num_heads,
                            use_separate_proj_weight)
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias,
                       use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight)
    if attn_mask is not None:
        attn_mask = _check_attn_mask_shape(attn_mask, tgt_len, key.shape[0], bsz, num_heads)
    k, v, (attn_mask, key_padding_mask) = _add_bias_kv(
        k, v, bias_k, bias_v, static_k, static_v, (attn_mask, key_padding_mask), bsz)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _split_heads(k, static_k, "static_k", bsz, num_heads, head_dim)
    v = _split_heads(v, static_v, "static_v", bsz, num_heads, head_dim)
    if add_zero_attn:
        k, v, (attn_mask, key_padding_mask) = _add_zero_attn(k, v, (attn_mask, key_padding_mask))
    attn_mask = _merge_padding(attn_mask, key_padding_mask, bsz, num_heads, k.size(1))
    dropout_p = dropout_p if training else 0.0
    shape = (tgt_len, bsz, num_heads, embed_dim)
    if need_weights:
        out, weights = _attend_with_weights(q, k, v, attn_mask, dropout_p, shape,
                                            out_proj_weight, out_proj_bias, average_attn_weights)
    else:
        out, weights = _attend_fused(q, k, v, attn_mask, dropout_p, is_causal, shape,
                                     out_proj_weight, out_proj_bias)
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights
