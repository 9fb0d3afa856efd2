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
    # indexed writes (ops/indexed_writes.cpp); index and mask are the nodes' extras
    Derivative("IndexAddAlpha", "IndexAddBackward0", "index_add_bw", "index_add_jvp",
               saves={1: "1"}),
    Derivative("IndexCopy", "IndexCopyBackward0", "index_copy_bw", "index_copy_jvp",
               saves={1: "1"}),
    Derivative("IndexFill", "IndexFillBackward0", "index_fill_bw", "index_fill_jvp"),
    Derivative("IndexFillTensor", "IndexFillBackward1", "index_fill_bw", "index_fill_tensor_jvp"),
    # scatter_reduce, index_reduce: self, src and the result, for every reduce (one formula)
    Derivative("ScatterReduce", "ScatterReduceBackward0", "scatter_reduce_bw", "scatter_reduce_jvp",
               saves={0: "01", 1: "01"}, saves_result=True),
    Derivative("IndexReduce", "IndexReduceBackward0", "index_reduce_bw", None,
               saves={0: "01", 1: "01"}, saves_result=True, aten_name="index_reduce"),
    Derivative("Take", "TakeBackward0", "take_bw", "take_jvp", saves={0: "0"}),
    Derivative("Put", "PutBackward0", "put_bw", "put_jvp", saves={1: "01"}),
    Derivative("MaskedScatter", "MaskedScatterBackward0", "masked_scatter_bw",
               "masked_scatter_jvp"),
    Derivative("SelectScatter", "SelectScatterBackward0", "select_scatter_bw",
               "select_scatter_jvp"),
    Derivative("SliceScatter", "SliceScatterBackward0", "slice_scatter_bw", "slice_scatter_jvp"),
    Derivative("DiagonalScatter", "DiagonalScatterBackward0", "diagonal_scatter_bw",
               "diagonal_scatter_jvp"),
    Derivative("IndexSelect", "IndexSelectBackward0", "index_select_bw", "index_select_jvp"),
]
