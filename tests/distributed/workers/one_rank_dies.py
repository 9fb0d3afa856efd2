"""Rank 1 raises while rank 0 waits in a collective: the job must end, not hang."""

import gradtrack as gt
import gradtrack.distributed as dist

dist.init_process_group("mpi")
if dist.get_rank() == 1:
    raise RuntimeError("rank 1 fails on purpose")
dist.all_reduce(gt.ones(2))  # never completes: rank 1 is gone
