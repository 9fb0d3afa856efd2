"""``torch.autograd.profiler``: ``record_function`` (a named region) and the legacy
``profile``; the collector behind both profilers.

NOTE [What the profiler times]
A profile times every call of a public op (named as torch names its ops: ``aten::linear``,
``aten::sum``, and for the operator slots ``a + b``, ``a @ b``, ``-a``, ``a[i]``, ``a += b``:
``aten::add``, ``aten::matmul``, ``aten::neg``, ``aten::select``, ``aten::add_``), every
``record_function`` region, torch's regions around an optimizer's ``step`` and
``zero_grad`` (``Optimizer.step#AdamW.step``) and a DataLoader's ``__next__``, and every
node the backward pass runs: the engine records
``autograd::engine::evaluate_function: AddmmBackward0`` with the node ``AddmmBackward0``
inside it, as torch's. The ops are timed by timers put on them while the profile is open
(NOTE [Profiled ops are swapped in] in ``_profiled_ops.py``), so no op pays for the
profiler when none is open. With ``record_shapes=True`` an event carries every argument's
shape (``[]`` for numbers and other non-tensors), as torch's. Events nest by time, so self
time is total time less the events inside. The steps an op or a backward formula takes
in C++ are events inside it, named as torch's (NOTE [Inner profiler events] in
csrc/autograd/profiling.h): ``aten::linear`` holds ``aten::t`` and ``aten::addmm`` (for
more than two dims ``aten::view``, ``aten::t``, ``aten::addmm``, ``aten::view``; without
bias ``aten::matmul`` > ``aten::mm``), ``aten::reshape`` holds ``aten::view`` or
``aten::clone`` and ``aten::_unsafe_view``, ``aten::cross_entropy_loss`` holds
``aten::log_softmax`` > ``aten::_log_softmax`` and ``aten::nll_loss_nd`` >
``aten::nll_loss`` > ``aten::nll_loss_forward``, ``aten::softmax`` holds
``aten::_softmax``, ``aten::layer_norm`` holds ``aten::native_layer_norm``;
``AddmmBackward0`` holds the ``aten::t``/``aten::mm`` its formula runs,
``ReluBackward0`` ``aten::threshold_backward``, ``LogSoftmaxBackward0``
``aten::_log_softmax_backward_data``, ``NllLossBackward0`` ``aten::nll_loss_backward``,
and the engine's event holds the ``aten::sum`` and ``aten::view`` that fit a broadcast
gradient (a bias's) to its input. What differs from torch is where gradtrack takes one
step where torch takes several, so torch shows events gradtrack has not: the
``aten::transpose`` > ``aten::as_strided`` inside ``aten::t``, ``aten::transpose`` and
``aten::expand``; the ``aten::expand``, ``aten::copy_`` and ``aten::resolve_conj``
inside ``aten::addmm``, ``aten::mm`` and ``aten::bmm``; ``aten::clamp_min`` inside
``aten::relu``; the ``aten::to`` inside ``aten::log_softmax``; the ``aten::fill_``
inside ``aten::sum``; the ``aten::zero_`` inside ``aten::nll_loss_backward``;
``aten::empty_like``/``aten::fill_`` inside the factories; ``aten::detach`` inside
``AccumulateGrad``; the allocations (``aten::empty``) inside the layers; and the steps of
the kernels gradtrack runs as one (``aten::embedding``'s ``aten::index_select``,
``aten::native_layer_norm_backward``, ``aten::gelu_backward``, the backward of the
embedding). A backward formula that gradtrack writes with other ops than torch's shows
its own (``EmbeddingBackward0`` holds the ``aten::reshape`` of its gradient), and the
seed gradient of ``backward()`` is made without an ``aten::ones_like`` event. Not
recorded yet: the ``python_function`` events torch adds with ``with_stack=True``, and the
Chrome trace's ``Concrete Inputs``. Events keep no Python stack, as torch's default
configuration keeps none: ``e.stack`` is empty and ``export_stacks`` writes an empty file.

>>> import gradtrack
>>> x = gradtrack.ones(2, 2)
>>> with gradtrack.autograd.profiler.profile() as prof:
...     y = (x.exp() + 1).sum()
>>> [e.key for e in prof.key_averages()]
['aten::exp', 'aten::add', 'aten::sum']
"""

import functools
import threading
import time

from .. import _C
from . import _profiled_ops
from .profiler_util import EventList, EventReader, FunctionEvent, nest

_active = []  # the collector of the open profile (one at a time, as torch's)


def _merge_repeats(events):
    """Drops an event inside one of the same name (a public op calling another spelling of
    itself), giving its children to the outer one."""
    kept = EventList()
    for e in events:
        parent = e.cpu_parent
        if parent is not None and parent.name == e.name:
            parent.cpu_children.remove(e)
            for child in e.cpu_children:
                child.cpu_parent = parent
                parent.cpu_children.append(child)
            parent.cpu_children.sort(key=lambda c: c.start_ns)
        else:
            kept.append(e)
    return kept


# NOTE [Inner events shown as torch's]
# The C++ ops record every step they take (NOTE [Inner profiler events] in
# csrc/autograd/profiling.h), but gradtrack's kernels call views and reductions where
# torch's call other things (a convolution's reshapes): a step is kept where torch shows
# that op inside that event (measured from torch 2.13), and its time stays in its parent
# otherwise, so no event torch would not show is invented.
_ENGINE = "autograd::engine::evaluate_function: "
_SHOWN_INSIDE = {
    "aten::linear": {"aten::t", "aten::addmm", "aten::matmul", "aten::view"},
    "aten::matmul": {"aten::mm", "aten::bmm", "aten::mv", "aten::dot", "aten::view",
                     "aten::reshape", "aten::expand", "aten::_unsafe_view", "aten::t",
                     "aten::transpose", "aten::unsqueeze", "aten::squeeze_"},
    "aten::reshape": {"aten::view", "aten::clone", "aten::_unsafe_view",
                      "aten::_reshape_alias"},
    "aten::cross_entropy_loss": {"aten::log_softmax", "aten::nll_loss_nd"},
    "aten::log_softmax": {"aten::_log_softmax"},
    "aten::softmax": {"aten::_softmax"},
    "aten::nll_loss_nd": {"aten::nll_loss"},
    "aten::nll_loss": {"aten::nll_loss_forward"},
    "aten::layer_norm": {"aten::native_layer_norm"},
    "AddmmBackward0": {"aten::t", "aten::mm"},
    "MmBackward0": {"aten::t", "aten::mm"},
    "BmmBackward0": {"aten::transpose", "aten::bmm"},
    "TBackward0": {"aten::t"},
    "TransposeBackward0": {"aten::transpose"},
    "PermuteBackward0": {"aten::permute"},
    "ViewBackward0": {"aten::reshape"},
    "UnsafeViewBackward0": {"aten::reshape"},
    "ReluBackward0": {"aten::threshold_backward"},
    "ThresholdBackward0": {"aten::threshold_backward"},
    "LogSoftmaxBackward0": {"aten::_log_softmax_backward_data"},
    "SoftmaxBackward0": {"aten::_softmax_backward_data"},
    "NllLossBackward0": {"aten::nll_loss_backward"},
    _ENGINE: {"aten::sum", "aten::view"},  # fitting a broadcast gradient to its input
}


def _shown_inside(parent, name):
    if parent is None:
        return False
    key = _ENGINE if parent.name.startswith(_ENGINE) else parent.name
    return name in _SHOWN_INSIDE.get(key, ())


def _keep_torch_steps(events):
    """Drops the C++ steps torch does not show where they ran (NOTE [Inner events shown
    as torch's]), giving any event inside one to its parent."""
    kept = EventList()
    for e in events:  # parents come first
        parent = e.cpu_parent
        if getattr(e, "_inner", False) and not _shown_inside(parent, e.name):
            if parent is not None:
                at = parent.cpu_children.index(e)
                parent.cpu_children[at:at + 1] = e.cpu_children
            for child in e.cpu_children:
                child.cpu_parent = parent
            e.cpu_children = []
        else:
            kept.append(e)
    return kept


class _Collector:
    """The events of one profile: the ops' timers and ``record_function`` add to it, the
    engine's backward events join it when it stops."""

    def __init__(self, record_shapes, profile_memory=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.events = []
        self._uninstall = None

    def add_op(self, name, start, end, thread, inputs, memory=0):
        if inputs is None:
            event = FunctionEvent(0, name, thread, start, end)
        else:
            event = FunctionEvent(0, name, thread, start, end, [dims for dims, _, _ in inputs])
            event.input_strides = [strides for _, strides, _ in inputs]
            event.input_types = [kind for _, _, kind in inputs]
        event.cpu_memory_usage = memory
        self.events.append(event)

    def add_region(self, name, start, end, thread, memory=0):
        event = FunctionEvent(0, name, thread, start, end, is_user_annotation=True)
        event.cpu_memory_usage = memory
        self.events.append(event)

    def start(self):
        _active.append(self)
        _C._profiler.start(self.record_shapes)
        _C._profiler.count_allocations(self.profile_memory)
        self._uninstall = _profiled_ops.install(self)

    def stop(self):
        if self._uninstall is not None:
            self._uninstall()
            self._uninstall = None
        backward = _C._profiler.stop()
        _C._profiler.count_allocations(False)
        if _active and _active[-1] is self:
            _active.pop()
        for name, start, end, thread, shapes, memory in backward:
            # a node's inputs are its gradients (the engine gives the shapes only); an
            # op's step is marked as one, to be kept where torch shows it
            self.add_op(name, start, end, thread, [(s, [], "") for s in shapes] if (
                self.record_shapes and shapes is not None) else None, memory)
            if name.startswith("aten::"):
                self.events[-1]._inner = True
        events = _keep_torch_steps(_merge_repeats(nest(self.events)))
        events.record_shapes = self.record_shapes
        events.profile_memory = self.profile_memory
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
        self._memory = _C._profiler.allocated_bytes()
        self._start = time.perf_counter_ns()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if _active:
            collector = _active[-1]
            memory = _C._profiler.allocated_bytes() - self._memory
            collector.add_region(self.name, self._start, time.perf_counter_ns(),
                                 threading.get_native_id(),
                                 memory if collector.profile_memory else 0)
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
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.function_events = None
        self._collector = None

    def __enter__(self):
        if self.enabled and not _active:
            self._collector = _Collector(self.record_shapes, self.profile_memory)
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
