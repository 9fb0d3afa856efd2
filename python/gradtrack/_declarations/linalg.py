"""Matrix products, the fused updates (addcmul, addcdiv, addr, addbmm: ops/fused.cpp), the
cross product, the trace and pairwise distances."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("Mm", "MmBackward0", "mm_bw", "mm_jvp",
               saves={0: "1", 1: "0"}, saves_last_input_first=True, unpacks_last_input_first=True),
    Derivative("Mv", "MvBackward0", "mv_bw", "mv_jvp",
               saves={0: "1", 1: "0"}, saves_last_input_first=True),
    Derivative("Dot", "DotBackward0", "dot_bw", "dot_jvp",
               saves={0: "1", 1: "0"}, saves_last_input_first=True),
    Derivative("Bmm", "BmmBackward0", "bmm_bw", "bmm_jvp",
               saves={0: "1", 1: "0"}, saves_last_input_first=True, unpacks_last_input_first=True),
    Derivative("Addmm", "AddmmBackward0", "addmm_bw", "addmm_jvp",
               saves={1: "2", 2: "1"}, saves_last_input_first=True),
    Derivative("Baddbmm", "BaddbmmBackward0", "baddbmm_bw", "baddbmm_jvp", saves={1: "2", 2: "1"}),
    Derivative("Addmv", "AddmvBackward0", "addmv_bw", "addmv_jvp", saves={1: "2", 2: "1"}),
    Derivative("Addcmul", "AddcmulBackward0", "addcmul_bw", "addcmul_jvp", saves={1: "2", 2: "1"}),
    Derivative("Addcdiv", "AddcdivBackward0", "addcdiv_bw", "addcdiv_jvp", saves={1: "2", 2: "12"}),
    Derivative("Addr", "AddrBackward0", "addr_bw", "addr_jvp", saves={1: "2", 2: "1"}),
    Derivative("Addbmm", "AddbmmBackward0", "addbmm_bw", "addbmm_jvp", saves={1: "2", 2: "1"}),
    Derivative("Cross", "LinalgCrossBackward0", "cross_bw", "cross_jvp", saves={0: "1", 1: "0"}),
    Derivative("Trace", "TraceBackward0", "trace_bw", "trace_jvp"),
    Derivative("Cdist", "CdistBackward0", "cdist_bw",
               saves={0: "012", 1: "012"}, saves_result=True, aten_name="_cdist_forward"),
    # a first derivative taken with a graph: torch's _cdist_backward has no derivative
    Derivative("CdistBackward", "CdistBackwardBackward0", "cdist_backward_bw",
               aten_name="_cdist_backward"),
    Derivative("EuclideanDist", "EuclideanDistBackward0", "euclidean_dist_bw",
               saves={0: "012", 1: "012"}, saves_result=True),
]
