"""Process-level numbers, each from fresh interpreters: import time, RSS after import,
peak RSS of a training process, and the activation memory of a deep MLP's forward and
backward with and without ``utils.checkpoint`` (probe cases, run by benchmarks/worker.py).
"""

import importlib

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


# --------------------------------------------------------------------------
# activation memory: a deep MLP's forward + backward, plain and checkpointed

# NOTE [Activation memory probe]
# Neither library can be asked for its peak the same way: torch's CPU build keeps no
# allocator statistics, gradtrack's caching allocator counts cached blocks, not a peak.
# What both share is the process's resident memory.  So each measurement is a fresh
# worker process: build the model and the batch, warm up on a tiny batch (thread pools,
# BLAS buffers and lazily built state exist afterwards), collect, read VmRSS, reset the
# high-water mark (writing 5 to /proc/self/clear_refs), run one forward + backward at
# full size, read VmHWM.  The peak delta is VmHWM - VmRSS: the activations the graph
# keeps, the gradients and the temporaries of the step, whatever allocator holds them.
# glibc's malloc raises its mmap threshold to the size of each mmapped block freed, so
# after the first 4 MiB tensor dies the next ones come from the heap, whose freed pages
# stay resident: measured with torch, the checkpointed peak read 126 MiB that way
# against 77 MiB of live tensors (the plain run 136 against 140). The probe therefore
# runs with MALLOC_MMAP_THRESHOLD_ fixed at glibc's default 128 KiB (ACT_ENV), which
# keeps that threshold from moving, for both libraries: every tensor of the step is
# then its own mapping, returned when freed, and the peak is the live memory's.
# 16 blocks of Linear(64, 64) + GELU on a 16384-row batch keep 4 MiB per saved tensor,
# two per block in the plain run (128 MiB), against a few MiB of noise; a narrow layer
# keeps the step's FLOPs (and the probe's time) small.
ACT_DEPTH, ACT_WIDTH, ACT_BATCH, ACT_WARMUP_BATCH = 16, 64, 16384, 8
ACT_ENV = {"MALLOC_MMAP_THRESHOLD_": str(128 * 1024)}
ACT_SEGMENTS = 4  # checkpoint_sequential's segments
ACT_MODES = {
    "plain": "no checkpointing: every block's activations kept for backward",
    "checkpoint": "each block under checkpoint(block, h, use_reentrant=False)",
    "checkpoint_sequential": f"checkpoint_sequential(blocks, {ACT_SEGMENTS}, x, "
                             f"use_reentrant=False)",
}


def build_deep_mlp(T):
    """ACT_DEPTH blocks of Linear(ACT_WIDTH, ACT_WIDTH) + GELU, each its own Sequential."""
    nn = T.nn
    return nn.Sequential(*(nn.Sequential(nn.Linear(ACT_WIDTH, ACT_WIDTH), nn.GELU())
                           for _ in range(ACT_DEPTH)))


def activation_step(T, model, mode):
    """fwd_bwd(x): one forward and backward of ``model`` run as ``mode`` says."""
    ckpt = importlib.import_module(T.__name__ + ".utils.checkpoint")

    def forward(x):
        if mode == "plain":
            return model(x)
        if mode == "checkpoint":
            for block in model:
                x = ckpt.checkpoint(block, x, use_reentrant=False)
            return x
        if mode == "checkpoint_sequential":
            return ckpt.checkpoint_sequential(model, ACT_SEGMENTS, x, use_reentrant=False)
        raise ValueError(f"unknown mode {mode!r}")

    def fwd_bwd(x):
        model.zero_grad()
        forward(x).sum().backward()

    return fwd_bwd


CASES.append(
    Case("activation_memory", GROUP_PROC, "peak memory, deep MLP fwd+bwd",
         tuple(Point(mode, mode, f"{ACT_DEPTH}x (Linear({ACT_WIDTH},{ACT_WIDTH}) + GELU), "
                                 f"batch {ACT_BATCH}: {text}; VmHWM - VmRSS of one step "
                                 f"in a fresh process")
               for mode, text in ACT_MODES.items()),
         probe="activation_memory", metric="peak_delta_bytes", unit="B"))
