"""DistributedDataParallel: one model replica per rank, gradients averaged over MPI.

NOTE [When the gradient reduction ends]
torch runs its reducer's last step from a callback queued on the autograd
engine for the end of backward. gradtrack has no such queue, so the last step
runs in the post-accumulate-grad hook of the last parameter expected to get a
gradient: every parameter's ``.grad`` is final by then (the engine sums all
contributions to a leaf before its one AccumulateGrad runs), so waiting for
the in-flight all-reduces there and writing the averages into ``.grad``
finishes before ``loss.backward()`` returns, as in torch, and any optimizer
reads averaged gradients without knowing about DDP. The parameters expected
are those that require grad, minus (with ``find_unused_parameters=True``) those
the forward's output graph does not reach; if one of them gets no gradient the
reduction stays unfinished and the next forward raises torch's error.

Buckets (``bucket_cap_mb``, in reverse parameter order, as torch builds its
first ones) are launched as non-blocking MPI all-reduces from the hooks as soon
as they fill, always in bucket order so every rank issues the same sequence of
collectives; DDP runs on its own duplicate of the group's communicator so a
user's collective between forward and backward cannot interleave with them.
"""

import contextlib
import warnings
import weakref
from typing import Any

from ..modules.module import Module

_MB = 1024 * 1024
_FIRST_BUCKET_BYTES = 1024 * 1024  # torch's dist._DEFAULT_FIRST_BUCKET_BYTES

UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This "
    "error indicates that your module has parameters that were not used in producing loss. You "
    "can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss. \n"
    "If you already have done the above, then the distributed data parallel module wasn't able "
    "to locate the output tensors in the return value of your module's `forward` function. Please "
    "include the loss function and the structure of the return value of `forward` of your module "
    "when reporting this issue (e.g. list, dict, iterable).\n"
    "Parameter indices which did not receive grad for rank {rank}: {indices}\n"
    " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or "
    "DETAIL to print out information about which particular parameters did not receive gradient "
    "on this rank as part of this error")


class _Bucket:
    """Gradients of a few parameters of one dtype, averaged by one all-reduce."""

    def __init__(self, indices, params):
        import numpy as np
        self.indices = indices
        self.offsets = {}
        total = 0
        for i in indices:
            self.offsets[i] = (total, total + params[i].numel())
            total += params[i].numel()
        self.buffer = np.zeros(total, dtype=params[indices[0]].detach().numpy().dtype)
        self.pending = len(indices)

    def view(self, i):
        start, stop = self.offsets[i]
        return self.buffer[start:stop]


def _buckets(params, cap_bytes):
    """Bucket index lists: reverse parameter order, one dtype each, the first one capped at
    1 MiB (or ``cap_bytes`` if smaller) and the others at ``cap_bytes`` (torch's
    first-iteration layout)."""
    buckets, current, size, dtype = [], [], 0, None
    for i in reversed(range(len(params))):
        p = params[i]
        nbytes = p.numel() * p.element_size()
        limit = min(_FIRST_BUCKET_BYTES, cap_bytes) if not buckets else cap_bytes
        if current and (p.dtype is not dtype or size + nbytes > limit):
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        size += nbytes
        dtype = p.dtype
    if current:
        buckets.append(current)
    return buckets


def _output_tensors(obj, found):
    from ... import Tensor
    if isinstance(obj, Tensor):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _output_tensors(item, found)
    elif isinstance(obj, dict):
        for item in obj.values():
            _output_tensors(item, found)
    return found


def _reachable_leaves(outputs):
    """ids of the leaves the outputs' autograd graph accumulates into."""
    # Node wrappers are made on access: keep each alive, or a freed one's id is reused.
    seen, leaves, alive = set(), set(), []
    stack = [t.grad_fn for t in _output_tensors(outputs, []) if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        alive.append(node)
        if node.name().endswith("AccumulateGrad"):
            leaves.add(id(node.variable))
            continue
        stack.extend(fn for fn, _ in node.next_functions if fn is not None)
    return leaves


class DistributedDataParallel(Module):
    """Data parallelism over the ranks of a process group (torch's arguments).

    At construction the parameters and buffers of rank 0 are broadcast to every
    rank. During backward the gradients are averaged over the ranks in buckets
    (``bucket_cap_mb``), by non-blocking MPI all-reduces started while backward
    still runs; when ``backward()`` returns, ``.grad`` holds the average on every
    rank, so any optimizer keeps the replicas identical.

    >>> import gradtrack.distributed as dist                      # doctest: +SKIP
    >>> dist.init_process_group("mpi")                            # doctest: +SKIP
    >>> model = DistributedDataParallel(nn.Linear(4, 2))          # doctest: +SKIP
    >>> model(x).sum().backward()   # .grad: the mean over ranks  # doctest: +SKIP
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device=None, dim=0, broadcast_buffers=None,
                 init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, forward_sync_buffers=None,
                 **unsupported: Any) -> None:
        super().__init__()
        from ... import distributed as dist
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        self._warn_broadcast_buffers(broadcast_buffers, forward_sync_buffers)
        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.forward_sync_buffers = (forward_sync_buffers if forward_sync_buffers is not None
                                     else broadcast_buffers is not False)
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        pg = process_group or dist.distributed_c10d._default_group()
        self.process_group = pg
        self._comm = pg._comm.Dup()
        self._world = self._comm.Get_size()
        self._params = params
        if init_sync and self._world > 1:
            sync_buffers = forward_sync_buffers is not None or broadcast_buffers is not False
            self._sync_module_states(sync_buffers)
        self._bucket_of = {}
        self._buckets = [_Bucket(ix, params) for ix in _buckets(params, self.bucket_bytes_cap)]
        for b, bucket in enumerate(self._buckets):
            for i in bucket.indices:
                self._bucket_of[i] = b
        self._expect_hooks = False
        self._unused = set()
        self._reset()
        self._hooks = [p.register_post_accumulate_grad_hook(self._make_hook(i))
                       for i, p in enumerate(params)]

    @staticmethod
    def _warn_broadcast_buffers(broadcast_buffers, forward_sync_buffers):
        if broadcast_buffers is None:
            return
        if forward_sync_buffers is not None:
            warnings.warn("Both `broadcast_buffers` and `forward_sync_buffers` were specified. "
                          "`broadcast_buffers` is deprecated and its value is ignored when "
                          "`forward_sync_buffers` is provided.", FutureWarning, stacklevel=3)
            return
        warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. "
                      "IMPORTANT: unlike `broadcast_buffers=False`, `forward_sync_buffers=False` "
                      "still syncs buffers at init. If you rely on buffers NOT being synced at "
                      "init (e.g. rank-local buffers), keep using `broadcast_buffers=False` until "
                      "`init_sync_buffers` is available.", FutureWarning, stacklevel=3)

    @property
    def broadcast_buffers(self):
        return self.forward_sync_buffers

    # ---- construction: rank 0's state everywhere ---------------------------------------------

    def _sync_module_states(self, sync_buffers):
        """Broadcasts parameters (and buffers) from rank 0, coalesced per dtype; each tensor is
        written once, by a copy, so its version goes up by one, as torch's."""
        from ...distributed._collectives import _bump
        tensors = list(self.module.parameters())
        if sync_buffers:
            tensors += list(self.module.buffers())
        self._broadcast_coalesced(tensors, bump=_bump)

    def _broadcast_coalesced(self, tensors, bump=None):
        import numpy as np
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(str(t.dtype), []).append(t)
        for group in by_dtype.values():
            arrays = [t.detach().numpy() for t in group]
            flat = np.concatenate([a.reshape(-1) for a in arrays])
            self._wait([self._comm.Ibcast(flat, 0)], "broadcast")
            start = 0
            for t, a in zip(group, arrays):
                np.copyto(a, flat[start:start + a.size].reshape(a.shape))
                start += a.size
                if bump is not None:
                    bump(t)

    # ---- forward ------------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        from ... import is_grad_enabled
        if self._started:
            missing = [i for i in range(len(self._params)) if not self._ready[i]]
            raise RuntimeError(UNFINISHED.format(rank=self._comm.Get_rank(),
                                                 indices=" ".join(map(str, missing))))
        if self.forward_sync_buffers and self._world > 1:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast_coalesced(buffers)  # no version bump, as torch's forward sync
        output = self.module(*inputs, **kwargs)
        self._expect_hooks = is_grad_enabled() and self.require_backward_grad_sync
        if self._expect_hooks and self.find_unused_parameters:
            reached = _reachable_leaves(output)
            self._unused = {i for i, p in enumerate(self._params) if id(p) not in reached}
        else:
            self._unused = set()
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward after it averages them."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    # ---- the reducer ---------------------------------------------------------------------------

    def _reset(self):
        self._started = False
        self._ready = [False] * len(self._params)
        for bucket in self._buckets:
            bucket.pending = len(bucket.indices)
        self._next_bucket = 0
        self._requests = []
        self._used = bytearray(len(self._params))

    def _make_hook(self, index):
        # A weak reference: the parameters must not keep a dropped wrapper (and its
        # reductions) alive, as torch's reducer does not.
        ref = weakref.ref(self)

        def hook(param):
            ddp = ref()
            if ddp is None or not ddp._expect_hooks or ddp._ready[index]:
                return
            if not ddp._started:
                ddp._started = True
                for i in sorted(ddp._unused):  # torch marks them at the first hook
                    ddp._mark_ready(i, None)
            ddp._used[index] = 1
            ddp._mark_ready(index, param.grad)
        return hook

    def _mark_ready(self, index, grad):
        import numpy as np
        bucket = self._buckets[self._bucket_of[index]]
        view = bucket.view(index)
        if grad is None:
            view[:] = 0
        else:
            # torch divides while copying into the bucket: grad * (1 / world), then sums.
            scale = np.asarray(1.0 / self._world, dtype=view.dtype)
            np.multiply(grad.detach().numpy().reshape(-1), scale, out=view)
        self._ready[index] = True
        bucket.pending -= 1
        self._launch_ready_buckets()

    def _launch_ready_buckets(self):
        from mpi4py import MPI
        while (self._next_bucket < len(self._buckets)
               and self._buckets[self._next_bucket].pending == 0):
            bucket = self._buckets[self._next_bucket]
            self._requests.append(self._comm.Iallreduce(MPI.IN_PLACE, bucket.buffer, MPI.SUM))
            self._next_bucket += 1
        if self._next_bucket == len(self._buckets):
            self._finalize()
        elif self._requests:
            MPI.Request.Testall(self._requests)  # MPI progresses only inside MPI calls

    def _wait(self, requests, op_name):
        """Waits within the process group's timeout; a rank that left (say, one batch
        short) makes this one raise torch's error instead of hanging."""
        from ...distributed import _faults
        _faults.wait(requests, self.process_group, op_name)

    def _finalize(self):
        from mpi4py import MPI
        self._wait(self._requests, "all_reduce")
        used = None
        if self.find_unused_parameters:
            import numpy as np
            used = np.frombuffer(self._used, dtype=np.uint8).copy()
            self._wait([self._comm.Iallreduce(MPI.IN_PLACE, used, MPI.MAX)], "all_reduce")
        for i, p in enumerate(self._params):
            if used is not None and not used[i]:
                continue  # no rank used it: its .grad stays as it was, as torch's
            self._write_grad(p, self._buckets[self._bucket_of[i]].view(i))
        self._reset()

    @staticmethod
    def _write_grad(param, average):
        import numpy as np

        from ... import from_numpy, no_grad
        from ...distributed._collectives import _bump
        grad = param.grad
        if grad is None:
            param.grad = from_numpy(average.copy()).view(param.shape)
        elif grad.is_contiguous():
            np.copyto(grad.detach().numpy().reshape(-1), average)
            _bump(grad)
        else:
            with no_grad():
                grad.copy_(from_numpy(average.copy()).view(grad.shape))
