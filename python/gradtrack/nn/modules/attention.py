"""``nn.MultiheadAttention``."""

from typing import Any

from .. import init
from .._attention_functional import (_canonical_mask, _none_or_dtype,
                                     multi_head_attention_forward)
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from ... import _C
from ..._C import Tensor


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features each.

    Parameters and their seeded values are PyTorch's: ``in_proj_weight`` (or
    ``q/k/v_proj_weight`` when ``kdim``/``vdim`` differ), ``in_proj_bias``, ``out_proj``,
    and ``bias_k``/``bias_v`` with ``add_bias_kv``.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = gradtrack.randn(3, 5, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    (gradtrack.Size([3, 5, 8]), gradtrack.Size([3, 5, 5]))
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self._make_in_proj(bias, dtype)
        # Built (and so drawn from the RNG) before the in-projection is initialised.
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_C.empty((1, 1, embed_dim), dtype=dtype))
            self.bias_v = Parameter(_C.empty((1, 1, embed_dim), dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _make_in_proj(self, bias: bool, dtype: Any) -> None:
        embed_dim = self.embed_dim
        names = ("q_proj_weight", "k_proj_weight", "v_proj_weight")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_C.empty((3 * embed_dim, embed_dim), dtype=dtype))
            for name in names:
                self.register_parameter(name, None)
        else:
            for name, width in zip(names, (embed_dim, self.kdim, self.vdim)):
                setattr(self, name, Parameter(_C.empty((embed_dim, width), dtype=dtype)))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_C.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """Returns ``(attn_output, attn_weights)``; the weights are None unless
        ``need_weights``."""
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = _to_sequence_first(query, key, value)
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


def _to_sequence_first(query: Tensor, key: Tensor,
                       value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(N, L, E) -> (L, N, E), keeping ``query is key is value`` identities (they pick the
    packed projection's shared products)."""
    if key is value:
        if query is key:
            query = key = value = query.transpose(1, 0)
        else:
            query, key = query.transpose(1, 0), key.transpose(1, 0)
            value = key
        return query, key, value
    return query.transpose(1, 0), key.transpose(1, 0), value.transpose(1, 0)


__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]
