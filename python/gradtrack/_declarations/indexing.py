"""Indexing: advanced indexing, masks, gather/scatter and index_select."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("Index", "IndexBackward0", "index_bw", "index_jvp"),
    Derivative("IndexPut", "IndexPutBackward0", "index_put_bw", "index_put_jvp"),
    Derivative("IndexPutImpl", "IndexPutImplBackward0", "index_put_bw", "index_put_jvp"),
    Derivative("IndexAdd", "IndexAddBackward0", "index_put_bw", "index_put_jvp"),
    Derivative("MaskedFill", "MaskedFillBackward0", "masked_fill_bw", "masked_fill_jvp"),
    Derivative("MaskedFillTensor", "MaskedFillBackward1", "masked_fill_bw", "masked_fill_tensor_jvp",
               ),
    Derivative("MaskedSelect", "MaskedSelectBackward0", "masked_select_bw", "masked_select_jvp"),
    Derivative("Gather", "GatherBackward0", "gather_bw", "gather_jvp", saves={0: "0"}),
    Derivative("Scatter", "ScatterBackward0", "scatter_bw", "scatter_jvp"),
    Derivative("ScatterValue", "ScatterBackward1", "scatter_bw", "scatter_value_jvp"),
    Derivative("ScatterAdd", "ScatterAddBackward0", "scatter_add_bw", "scatter_add_jvp"),
    Derivative("IndexSelect", "IndexSelectBackward0", "index_select_bw", "index_select_jvp"),
]
