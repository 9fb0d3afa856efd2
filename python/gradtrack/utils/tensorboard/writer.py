"""``SummaryWriter`` and ``FileWriter``: scalars and text as torch writes them (the same
protocol buffers, through ``tensorboard``'s ``EventFileWriter``). The other ``add_*``
methods of torch's writer (images, histograms, graphs, ...) raise NotImplementedError
naming themselves."""

import os
import time

from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.summary.writer.event_file_writer import EventFileWriter


class FileWriter:
    """Writes events to one event file in ``log_dir``.

    >>> import tempfile
    >>> from gradtrack.utils.tensorboard import FileWriter
    >>> FileWriter(tempfile.mkdtemp()).get_logdir() != ""
    True
    """

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        """Writes ``event`` stamped with ``walltime`` (now by default) and ``step``."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        """Writes a ``Summary`` protocol buffer as an event."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self):
        """Writes pending events to disk."""
        self.event_writer.flush()

    def close(self):
        """Flushes and closes the event file."""
        self.event_writer.close()


def _scalar(tag, value, new_style, double_precision):
    if hasattr(value, "detach"):
        value = value.detach()
        if value.numel() != 1:
            raise AssertionError(f"Tensor should contain one element (0 dimensions). "
                                 f"Was given size: {value.numel()} and {value.dim()} dimensions.")
        value = value.item()
    value = float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=value)])
    proto = TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision \
        else TensorProto(float_val=[value], dtype="DT_FLOAT")
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=metadata)])


class SummaryWriter:
    """Logs scalars and text for TensorBoard, as ``torch.utils.tensorboard.SummaryWriter``.

    >>> import tempfile
    >>> from gradtrack.utils.tensorboard import SummaryWriter
    >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
    ...     writer.add_scalar("loss", 0.5, global_step=1)
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            import socket
            from datetime import datetime
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_"
                                   + socket.gethostname() + comment)
        if purge_step is not None:
            raise NotImplementedError("gradtrack's SummaryWriter does not support purge_step")
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self._get_file_writer()

    def _get_file_writer(self):
        if self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
        return self.file_writer

    def get_logdir(self):
        """The directory events are written to."""
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Logs one value of the series ``tag`` (a number or a one-element tensor)."""
        summary = _scalar(tag, scalar_value, new_style, double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Logs a text (Markdown) entry under ``tag``."""
        metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
            plugin_name="text", content=b""))
        tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                             tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
        summary = Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata,
                                               tensor=tensor)])
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def flush(self):
        """Writes pending events to disk."""
        if self.file_writer is not None:
            self.file_writer.flush()

    def close(self):
        """Flushes and closes the event file (a later ``add_*`` opens a new one)."""
        if self.file_writer is not None:
            self.file_writer.flush()
            self.file_writer.close()
            self.file_writer = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _not_implemented(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"gradtrack's SummaryWriter has no {name}() yet: it logs "
                                  "scalars and text")
    method.__name__ = name
    method.__doc__ = f"Not implemented in gradtrack: raises NotImplementedError ({name})."
    return method


for _name in ("add_scalars", "add_histogram", "add_histogram_raw", "add_image", "add_images",
              "add_image_with_boxes", "add_figure", "add_video", "add_audio", "add_graph",
              "add_embedding", "add_pr_curve", "add_pr_curve_raw", "add_custom_scalars",
              "add_custom_scalars_multilinechart", "add_custom_scalars_marginchart", "add_mesh",
              "add_hparams", "add_tensor", "add_onnx_graph"):
    setattr(SummaryWriter, _name, _not_implemented(_name))
del _name
