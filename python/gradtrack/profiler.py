"""``torch.profiler``: ``profile`` (with ``schedule``, ``step()`` and ``on_trace_ready``),
``record_function``, ``tensorboard_trace_handler`` and the activity and action enums.
What a profile times: NOTE [What the profiler times] in ``gradtrack/autograd/profiler.py``.

>>> import gradtrack
>>> from gradtrack.profiler import profile, ProfilerActivity
>>> x = gradtrack.ones(4, 4)
>>> with profile(activities=[ProfilerActivity.CPU]) as prof:
...     y = x.sum()
>>> print(prof.key_averages().table(sort_by="cpu_time_total"))  # doctest: +ELLIPSIS
-------------  ------------  ------------  ------------  ------------  ------------  ------------...
         Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls...
"""

import enum
import os
import time
import warnings

from .autograd.profiler import _Collector, _active, record_function  # noqa: F401
from .autograd.profiler_util import EventList, EventReader, _host_name


class ProfilerActivity(enum.Enum):
    """The kinds of activity torch's profiler can record.

    >>> import gradtrack
    >>> list(gradtrack.profiler.ProfilerActivity.__members__)[:2]
    ['CPU', 'XPU']
    """

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a profile does at a step: nothing, warm up, record, or record then hand over.

    >>> import gradtrack
    >>> gradtrack.profiler.ProfilerAction.RECORD_AND_SAVE
    <ProfilerAction.RECORD_AND_SAVE: 3>
    """

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    """The activities a profile can record here: the CPU.

    >>> import gradtrack
    >>> gradtrack.profiler.supported_activities()
    {<ProfilerActivity.CPU: 0>}
    """
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """torch's step schedule: after ``skip_first`` steps, cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded ones (the last hands the trace over), ``repeat``
    times (0: forever); ``skip_first_wait`` skips the first cycle's wait.

    >>> import gradtrack
    >>> s = gradtrack.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


def _always_record(step):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False, use_python_export: bool = False):
    """An ``on_trace_ready`` that writes each trace to ``dir_name`` as
    ``{worker_name}.{ms}.pt.trace.json`` (gzip-compressed with ``use_gzip``).

    >>> import gradtrack, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with gradtrack.profiler.profile(on_trace_ready=gradtrack.profiler.tensorboard_trace_handler(d)):
    ...     y = gradtrack.ones(2) + 1
    >>> [f.endswith(".pt.trace.json") for f in os.listdir(d)]
    [True]
    """
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{_host_name()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{time.time_ns() // 1_000_000}.pt.trace.json")
        if use_gzip:
            import gzip
            import tempfile
            with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
                prof.export_chrome_trace(tmp.name)
            with open(tmp.name, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                dst.write(src.read())
            os.unlink(tmp.name)
        else:
            prof.export_chrome_trace(path)
    return handler


class profile(EventReader):
    """torch's profiler: a context manager that times the ops, ``record_function``
    regions and backward nodes run inside it (NOTE [What the profiler times]); with a
    ``schedule``, ``step()`` moves it through idle, warm-up and recorded steps and
    ``on_trace_ready`` receives it after each recorded window.

    >>> import gradtrack
    >>> from gradtrack.profiler import profile, record_function
    >>> with profile() as prof:
    ...     with record_function("forward"):
    ...         y = gradtrack.ones(2, 2).exp()
    >>> sorted(e.key for e in prof.key_averages())
    ['aten::exp', 'aten::ones', 'forward']
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.profiler = None
        self._collector = None
        self._events = None

    def _open(self):
        if self._collector is None and not _active:
            self._collector = _Collector(self.record_shapes, self.profile_memory)
            self._collector.start()

    def _close(self, keep):
        if self._collector is not None:
            events = self._collector.stop()
            self._collector = None
            if keep:
                self._events = events

    def _save(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def start(self):
        if self.current_action in (ProfilerAction.WARMUP, ProfilerAction.RECORD,
                                   ProfilerAction.RECORD_AND_SAVE):
            self._open()

    def stop(self):
        recording = self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        self._close(keep=recording)
        if recording:
            self._save()

    def step(self):
        """Ends a step: hands a finished recorded window to ``on_trace_ready`` and starts
        or stops recording as the schedule says."""
        before = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if before == ProfilerAction.RECORD_AND_SAVE:
            self._close(keep=True)
            self._save()
        elif before == ProfilerAction.WARMUP and self.current_action == ProfilerAction.NONE:
            self._close(keep=False)
        elif before in (ProfilerAction.RECORD,) and self.current_action == ProfilerAction.NONE:
            self._close(keep=True)
        if before == ProfilerAction.WARMUP and self.current_action in (
                ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._close(keep=False)  # warm-up events are not kept
            self._open()
        elif self.current_action != ProfilerAction.NONE and self._collector is None:
            self._open()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.stop()
        return False

    def events(self):
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self._events

    _finished_events = events


__all__ = ["EventList", "ProfilerAction", "ProfilerActivity", "profile", "record_function",
           "schedule", "supported_activities", "tensorboard_trace_handler"]
