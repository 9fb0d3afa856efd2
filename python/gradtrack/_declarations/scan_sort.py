"""Scans and sorts along a dim: cumulative sums, products, extremes and logsumexp,
sort and topk."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("Cumsum", "CumsumBackward0", "cumsum_bw", "cumsum_jvp"),
    Derivative("Cumprod", "CumprodBackward0", "cumprod_bw", "cumprod_jvp",
               saves={0: "0"}, saves_result=True),
    Derivative("Cummax", "CummaxBackward0", "cummaxmin_bw", "cummaxmin_jvp", saves={0: "0"}),
    Derivative("Cummin", "CumminBackward0", "cummaxmin_bw", "cummaxmin_jvp", saves={0: "0"}),
    Derivative("Logcumsumexp", "LogcumsumexpBackward0", "logcumsumexp_bw", "logcumsumexp_jvp",
               saves={0: "0"}, saves_result=True),
    Derivative("Sort", "SortBackward0", "value_select_bw", "value_select_jvp"),
    Derivative("SortStable", "SortBackward1", "value_select_bw", "value_select_jvp"),
    Derivative("Topk", "TopkBackward0", "value_select_bw", "value_select_jvp"),
]
