"""Scans and sorts along a dim: cumulative sums and products, sort and topk."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("Cumsum", "CumsumBackward0", "cumsum_bw", "cumsum_jvp"),
    Derivative("Cumprod", "CumprodBackward0", "cumprod_bw", "cumprod_jvp",
               saves={0: "0"}, saves_result=True),
    Derivative("Sort", "SortBackward0", "value_select_bw", "value_select_jvp"),
    Derivative("SortStable", "SortBackward1", "value_select_bw", "value_select_jvp"),
    Derivative("Topk", "TopkBackward0", "value_select_bw", "value_select_jvp"),
]
