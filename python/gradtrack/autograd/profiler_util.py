"""The events a profile collects and their summaries, as torch's
``torch.autograd.profiler_util``: ``FunctionEvent`` (one timed call), ``FunctionEventAvg``
(the calls of one name added up) and ``EventList`` (``key_averages``, ``table``,
``export_chrome_trace``, ``total_average``).

>>> from gradtrack.autograd.profiler_util import EventList, FunctionEvent
>>> events = EventList([FunctionEvent(0, "aten::mm", 1, 0, 2000)])
>>> events.key_averages()[0].cpu_time_total
2.0
"""

import json
import os
import time
import uuid


def _host_name():
    """This machine's name, for a trace's header. socket is imported here rather than
    up front, where it cost ``import gradtrack`` 4 ms."""
    import socket  # noqa: PLC0415

    return socket.gethostname()


def _time_str(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _memory_str(nbytes):
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


class _NoDevice:
    """What torch reports of the devices on a CPU build: no time, no memory, no flops."""

    cuda_time = cuda_time_total = self_cuda_time_total = 0.0
    device_time = device_time_total = self_device_time_total = 0.0
    cuda_memory_usage = self_cuda_memory_usage = 0
    device_memory_usage = self_device_memory_usage = 0
    flops = 0


class FunctionEvent(_NoDevice):
    """One timed call: ``name``, its thread, start and end (nanoseconds, monotonic clock),
    the events inside it (``cpu_children``) and the input shapes recorded for it. Times
    are read in microseconds, as torch's.

    >>> from gradtrack.autograd.profiler_util import FunctionEvent
    >>> FunctionEvent(0, "aten::add", 1, 1000, 4000).cpu_time_total
    3.0
    """

    def __init__(self, id, name, thread, start_ns, end_ns, input_shapes=None,  # noqa: A002
                 is_user_annotation=False):
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.device_type = "CPU"
        self.cpu_memory_usage = 0
        self.stack = []  # Python frames: none recorded (NOTE [What the profiler times])

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def cpu_time_total(self):
        return (self.end_ns - self.start_ns) / 1e3

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time={_time_str(self.cpu_time_total)} input_shapes={self.input_shapes}>")


class FunctionEventAvg(_NoDevice):
    """The calls of one name (and input shapes, when grouped by them) added up.

    >>> from gradtrack.autograd.profiler_util import FunctionEvent, FunctionEventAvg
    >>> avg = FunctionEventAvg()
    >>> avg.add(FunctionEvent(0, "aten::mm", 1, 0, 2000)).count
    1
    """

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.is_user_annotation = False
        self.device_type = "CPU"

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_time_str(self.self_cpu_time_total)}"
                f" cpu_time={_time_str(self.cpu_time)} input_shapes={self.input_shapes}>")


class EventList(list):
    """The events of a profile, in start order; ``key_averages()`` adds them up by name.

    >>> from gradtrack.autograd.profiler_util import EventList
    >>> EventList().key_averages()
    []
    """

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        groups = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shape else e.key
            groups.setdefault(key, FunctionEventAvg()).add(e)
        averages = EventList(groups.values())
        averages._shapes = group_by_input_shape
        averages.profile_memory = getattr(self, "profile_memory", False)
        return averages

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.add(e)
        total.key = "Total"
        return total

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        """torch's table: name, self and total CPU time (with their share), the average, the
        number of calls, and the input shapes when the events were grouped by them."""
        rows = list(self)
        # the column widths come from every event, the rows shown or not (as torch's)
        name_width = min(max([len(str(e.key)) for e in rows] + [4]) + 4, max_name_column_width)
        shape_width = min(max([len(str(e.input_shapes)) for e in rows] + [12]) + 4,
                          max_shapes_column_width)
        if sort_by is not None:
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        rows = rows[:row_limit] if row_limit is not None and row_limit >= 0 else rows
        shapes = getattr(self, "_shapes", False)
        total = self.self_cpu_time_total or 1.0
        memory = getattr(self, "profile_memory", False)
        headers = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        headers += ["CPU Mem", "Self CPU Mem"] if memory else []
        headers.append("# of Calls")
        widths = [12] * len(headers)
        if shapes:
            headers.append("Input Shapes")
            widths.append(shape_width)
        line = "-" * name_width + "  " + "".join("-" * w + "  " for w in widths)

        def fmt(name, cells):
            if len(name) > name_width:
                name = name[:name_width - 3] + "..."
            return name.rjust(name_width) + "  " + "".join(
                str(c).rjust(w) + "  " for c, w in zip(cells, widths))

        out = []
        if header is not None:
            out += ["=" * len(line), header]
        out += [line, fmt("Name", headers), line]
        for e in rows:
            cells = [f"{100 * e.self_cpu_time_total / total:.2f}%", _time_str(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / total:.2f}%", _time_str(e.cpu_time_total),
                     _time_str(e.cpu_time)]
            if memory:
                cells += [_memory_str(e.cpu_memory_usage), _memory_str(e.self_cpu_memory_usage)]
            cells.append(e.count)
            if shapes:
                cells.append(str(e.input_shapes)[:widths[-1] - 4])
            out.append(fmt(str(e.key), cells))
        out += [line, f"Self CPU time total: {_time_str(self.self_cpu_time_total)}", ""]
        return "\n".join(out)

    def __str__(self):
        return self.table()

    def export_stacks(self, path, metric):
        """Writes each event that has a Python stack as one line of ``frame;frame value``
        (outermost frame first, the metric in microseconds), the input of flame-graph
        tools, as torch's. gradtrack records no stacks, as torch's default configuration
        keeps none, so the file is written empty."""
        metrics = ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                   "self_privateuse1_time_total"]
        if metric not in metrics:
            raise ValueError("metric should be one of: " + str(metrics))
        blank = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for e in self:
                value = int(getattr(e, metric, 0) or 0)
                if e.stack and value > 0:
                    frames = ";".join(frame.translate(blank) for frame in reversed(e.stack))
                    f.write(f"{frames} {value}\n")

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (``chrome://tracing``, Perfetto) laid out as
        torch's: the process and thread metadata, then one complete (``"X"``) event per
        op, region and backward node, with ``Input Dims``, ``Input Strides`` and ``Input
        type`` when the shapes were recorded (torch's ``Concrete Inputs`` are not kept)."""
        pid = os.getpid()
        threads = sorted({e.thread for e in self})
        meta = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                 "args": {"name": "python"}},
                {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0,
                 "args": {"labels": "CPU"}},
                {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                 "args": {"sort_index": pid}}]
        for tid in threads:
            meta += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                      "args": {"name": f"thread {tid} (python)"}},
                     {"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                      "args": {"sort_index": tid}}]
        ops = []
        for i, e in enumerate(self):
            args = {"External id": i + 1, "Record function id": 0}
            if not e.is_user_annotation and getattr(e, "input_types", None) is not None:
                args["Input type"] = e.input_types
                args["Input Strides"] = e.input_strides
                args["Input Dims"] = e.input_shapes
            args["Ev Idx"] = i
            ops.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                        "name": e.name, "pid": pid, "tid": e.thread, "ts": e.start_ns / 1e3,
                        "dur": (e.end_ns - e.start_ns) / 1e3, "args": args})
        first = min((e.start_ns for e in self), default=0) / 1e3
        last = max((e.end_ns for e in self), default=0) / 1e3
        marks = [{"ph": "i", "s": "g", "name": "Iteration Start: PyTorch Profiler",
                  "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": first},
                 {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "",
                  "ts": last}]
        trace = {"schemaVersion": 1, "deviceProperties": [], "trace_id": uuid.uuid4().hex.upper(),
                 "record_shapes": int(getattr(self, "record_shapes", False)),
                 "host_name": _host_name(), "displayTimeUnit": "ms",
                 "baseTimeNanoseconds": time.time_ns() - time.monotonic_ns(),
                 "traceEvents": meta + ops + marks, "traceName": str(path)}
        with open(path, "w") as f:
            json.dump(trace, f)


def nest(events):
    """Sets each event's parent and children by time containment, per thread; returns
    them as an EventList in start order."""
    events = sorted(events, key=lambda e: (e.thread, e.start_ns, -e.end_ns))
    stacks = {}
    for e in events:
        stack = stacks.setdefault(e.thread, [])
        while stack and stack[-1].end_ns <= e.start_ns:
            stack.pop()
        if stack and e.end_ns <= stack[-1].end_ns:
            e.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(e)
        stack.append(e)
    return EventList(sorted(events, key=lambda e: e.start_ns))


class EventReader:
    """What both profile classes read from their finished events: ``key_averages()``
    and ``export_chrome_trace()``. A subclass says where the events are (and what
    it raises before there are any) in ``_finished_events()``."""

    def _finished_events(self):
        raise NotImplementedError

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        return self._finished_events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        return self._finished_events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        events = self._finished_events()
        if not getattr(self, "with_stack", False):
            raise AssertionError("export_stacks() requires with_stack=True")
        return events.export_stacks(path, metric)
