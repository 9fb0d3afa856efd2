"""``torch.autograd.profiler``: ``record_function`` (a named region) and the legacy
``profile``; the collector behind both profilers.

NOTE [What the profiler times]
A profile times, on the thread that opened it, every call from Python into gradtrack's
C++ core (named as torch names its ops: ``aten::linear``, ``aten::sum``...), every
``record_function`` region, and every node the backward pass runs
(``autograd::engine::evaluate_function: AddmmBackward0``, timed by the engine itself). Its
events nest by time, so self time is total time less the events inside. What it does not
see: the arithmetic operators (``a + b``, ``a @ b`` through Python's number slots) are not
calls, so their time counts in the self time of the event around them; with
``record_shapes=True`` the input shapes known are those of the tensor a method is called
on. Forward calls are seen through ``sys.setprofile``, which slows the profiled code.

>>> import gradtrack
>>> x = gradtrack.ones(2, 2)
>>> with gradtrack.autograd.profiler.profile() as prof:
...     y = x.exp().sum()
>>> [e.key for e in prof.key_averages()]
['aten::exp', 'aten::sum']
"""

import functools
import sys
import threading
import time

from .. import _C
from .profiler_util import EventList, EventReader, FunctionEvent, nest

# The calls into _C that are bookkeeping rather than ops, left out of a profile.
_NOT_OPS = frozenset({
    "dim", "size", "stride", "numel", "nelement", "ndimension", "is_contiguous",
    "is_floating_point", "is_complex", "data_ptr", "element_size", "storage_offset",
    "get_device", "requires_grad_", "retain_grad", "register_hook", "is_set_to", "type",
    "backward",
})
_PRIVATE_MODULES = ("gradtrack._C._autocast", "gradtrack._C._profiler", "gradtrack._C._docs",
                    "gradtrack._C._bench")

_active = []  # the collector of the open profile (one at a time, as torch's)


def _op_name(fn):
    name = getattr(fn, "__name__", None)
    if name is None or name in _NOT_OPS:
        return None
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, _C.Tensor):
        pass
    else:
        module = getattr(fn, "__module__", None) or ""
        if not module.startswith("gradtrack._C") or module.startswith(_PRIVATE_MODULES):
            return None
    if name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
        if name.startswith(("r", "i")) and name[1:] in ("add", "sub", "mul", "truediv",
                                                         "matmul", "pow", "and", "or", "xor"):
            name = name[1:] + ("_" if name[0] == "i" else "")
        name = {"truediv": "div", "getitem": "index", "setitem": "index_put_"}.get(name, name)
    elif name.startswith("_"):
        return None
    return "aten::" + name


class _Collector:
    """Times the calls into the C++ core on one thread (``sys.setprofile``)."""

    def __init__(self, record_shapes):
        self.record_shapes = record_shapes
        self.thread = threading.get_native_id()
        self.events = []
        self.open = []

    def hook(self, frame, event, arg):
        if event == "c_call":
            name = _op_name(arg)
            if name is None:
                self.open.append(None)
                return
            shapes = []
            if self.record_shapes and isinstance(getattr(arg, "__self__", None), _C.Tensor):
                shapes = [list(arg.__self__.shape)]
            self.open.append((name, time.perf_counter_ns(), shapes))
        elif event in ("c_return", "c_exception") and self.open:
            item = self.open.pop()
            if item is not None:
                name, start, shapes = item
                self.events.append(FunctionEvent(0, name, self.thread, start,
                                                 time.perf_counter_ns(), shapes))

    def start(self):
        _active.append(self)
        _C._profiler.start()
        sys.setprofile(self.hook)

    def stop(self):
        sys.setprofile(None)
        backward = _C._profiler.stop()
        if _active and _active[-1] is self:
            _active.pop()
        self.events += [FunctionEvent(0, n, tid, s, e) for n, s, e, tid in backward]
        events = nest(self.events)
        for i, e in enumerate(events):
            e.id = i
        return events


class record_function:
    """A named region (a context manager or a decorator); an open profile shows it as an
    event of its own, with the ops inside it as its children.

    >>> import gradtrack
    >>> @gradtrack.autograd.profiler.record_function("step")
    ... def step():
    ...     return 3
    >>> step()
    3
    """

    def __init__(self, name: str, args=None):
        self.name = name
        self.args = args

    def __enter__(self):
        self._start = time.perf_counter_ns()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if _active:
            collector = _active[-1]
            collector.events.append(FunctionEvent(0, self.name, threading.get_native_id(),
                                                  self._start, time.perf_counter_ns(),
                                                  is_user_annotation=True))
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapped


class profile(EventReader):
    """The legacy profiler, as torch's ``torch.autograd.profiler.profile``: times what runs
    inside it (NOTE [What the profiler times]); afterwards ``function_events``,
    ``key_averages()``, ``table()``, ``export_chrome_trace()`` read the events.

    >>> import gradtrack
    >>> with gradtrack.autograd.profiler.profile() as prof:
    ...     y = gradtrack.ones(3).mul(2)
    >>> prof.key_averages()[-1].key, prof.key_averages()[-1].count
    ('aten::mul', 1)
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events = None
        self._collector = None

    def __enter__(self):
        if self.enabled and not _active:
            self._collector = _Collector(self.record_shapes)
            self._collector.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._collector is not None:
            self.function_events = self._collector.stop()
            self._collector = None
        elif self.enabled and self.function_events is None:
            self.function_events = EventList()
        return False

    def _finished_events(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        return self._finished_events().table(sort_by=sort_by, row_limit=row_limit, header=header)

    def total_average(self):
        return self._finished_events().total_average()

    @property
    def self_cpu_time_total(self):
        return self._finished_events().self_cpu_time_total

    def __str__(self):
        return str(self._finished_events())
