"""Process-level numbers, each from fresh interpreters: import time, RSS after import,
peak RSS of a training process (probe cases, run by benchmarks/worker.py).
"""

from .registry import CASES, Case, Point


# --------------------------------------------------------------------------
# 9-10. process-level numbers, each from fresh interpreters

GROUP_PROC = "import & memory"
PEAK_RSS_STEPS = 100  # enough steps for every buffer and cache to exist

CASES.extend([
    Case("import_time", GROUP_PROC, "import T",
         (Point("", None, "wall time around `import T` in a fresh interpreter"),),
         probe="import", metric="seconds", unit="s"),
    Case("import_rss", GROUP_PROC, "RSS right after import",
         (Point("", None, "VmRSS after `import T`"),),
         probe="import", metric="rss_bytes", unit="B"),
    Case("peak_rss_mlp", GROUP_PROC, "peak RSS, MLP training",
         (Point(f"{PEAK_RSS_STEPS} steps", PEAK_RSS_STEPS,
                "VmHWM after N mlp_step iterations"),),
         probe="peak_rss", metric="peak_bytes", unit="B"),
])
