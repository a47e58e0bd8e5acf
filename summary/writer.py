"""sg.summary.FileWriter: what a training loop shows in TensorBoard, written to one event file.

TF1's ``tf.summary.FileWriter`` habit without summary ops: the user fetches
values with ``sess.run`` and hands them to the writer with a step. The graph
(``add_graph``) goes in as a GraphDef whose names keep the name scopes and
library calls, and a profile (``add_profile``) as RunMetadata, so
TensorBoard's graph tab groups the graph and colours it by compute time.
"""

from __future__ import annotations

import numbers
import os
import time

from ..graph.graph import Graph
from . import values as summary_values
from .events import EventFile, protos
from .graphdef import graph_def
from .run_metadata import tagged_run_metadata
from .values import bad


def _step(step) -> int:
    """``step`` as an int: TensorBoard's x axis is the training step, an integer."""
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise bad(TypeError, f"a summary step is an integer (the training step), not {step!r}")
    return int(step)


class FileWriter:
    """Writes TensorBoard summaries to a new event file in ``logdir`` (made if missing).

    ``scalar``, ``scalars``, ``histogram``, ``image``, ``text`` log values at a step;
    ``add_graph(g)`` the graph (also done by ``graph=g``); ``add_profile(profile, step)`` a
    ``sess.profile`` result; ``add_session_log("start", step)`` where a (resumed) run starts.
    Every record is flushed as it is written; ``flush`` also syncs the file to disk, ``close``
    ends it (also on leaving a ``with`` block).
    """

    def __init__(self, logdir, graph: Graph | None = None):
        if not isinstance(logdir, str | os.PathLike):
            raise bad(
                TypeError, f"FileWriter: logdir is a path (str or os.PathLike), not {type(logdir).__name__}"
            )
        self.logdir = os.fspath(logdir)
        try:
            self._file = EventFile(self.logdir)
        except OSError as e:  # a file where the directory should be, no permission, a full disk
            raise bad(type(e), f"FileWriter: cannot write an event file in {self.logdir!r}: {e}") from None
        self._names: dict[str, str] = {}  # graph node name -> its GraphDef name (set by add_graph)
        if graph is not None:
            self.add_graph(graph)

    @property
    def path(self) -> str:
        """The event file this writer appends to."""
        return self._file.path

    def _event(self, step: int | None = None, **fields):
        event_pb2 = protos().event
        if self._file.closed:
            raise bad(ValueError, f"FileWriter({self.logdir!r}) is closed: make a new one to write more")
        event = event_pb2.Event(wall_time=time.time(), **fields)
        if step is not None:
            event.step = step
        self._file.write(event)

    def _summary(self, step, *summary_values) -> None:
        summary_pb2 = protos().summary
        self._event(_step(step), summary=summary_pb2.Summary(value=list(summary_values)))

    def scalar(self, tag: str, value, step: int) -> None:
        """Log one number (a Python or numpy number, a 0-d or one-element array) under ``tag``."""
        self._summary(step, summary_values.scalar(tag, value))

    def scalars(self, tag_values: dict, step: int) -> None:
        """Log several numbers at one step: ``{tag: value}`` (each as ``scalar`` takes it)."""
        if not hasattr(tag_values, "items"):
            raise bad(
                TypeError,
                f"FileWriter.scalars takes a mapping {{tag: value}}, not {type(tag_values).__name__}",
            )
        self._summary(step, *(summary_values.scalar(tag, v) for tag, v in tag_values.items()))

    def histogram(self, tag: str, values, step: int, bins: int = 30) -> None:
        """Log the distribution of an array's values (any shape, all finite) in ``bins`` buckets."""
        self._summary(step, summary_values.histogram(tag, values, bins))

    def image(self, tag: str, array, step: int, max_images: int = 3) -> None:
        """Log an image ``[h, w]``, ``[h, w, c]`` or a batch ``[n, h, w, c]`` (c = 1..4; uint8
        0..255 or floats 0..1); a batch keeps its first ``max_images``."""
        self._summary(step, summary_values.image(tag, array, max_images))

    def text(self, tag: str, text: str, step: int) -> None:
        """Log a string (TensorBoard's text tab renders it as markdown)."""
        self._summary(step, summary_values.text(tag, text))

    def add_graph(self, graph: Graph) -> None:
        """Log ``graph`` for TensorBoard's graph tab (see summary/graphdef.py)."""
        if not isinstance(graph, Graph):
            raise bad(TypeError, f"FileWriter.add_graph takes an sg.Graph, not {type(graph).__name__}")
        proto, names = graph_def(graph)
        self._names.update(names)
        self._event(graph_def=proto.SerializeToString())

    def add_profile(self, profile, step: int, tag: str | None = None) -> None:
        """Log ``sess.profile(...)``'s per-node device time as run metadata named ``tag``
        (default ``step_<step>``): the graph tab's "Session runs" list offers it, and its
        compute-time colouring shows it on the graph added with ``add_graph``."""
        step = _step(step)
        tagged = tagged_run_metadata(profile, tag if tag is not None else f"step_{step}", self._names)
        self._event(step, tagged_run_metadata=tagged)

    def add_session_log(self, status: str, step: int) -> None:
        """Mark the run's ``status`` at ``step``: "start", "stop" or "checkpoint" (TF1's SessionLog).
        Write a "start" when a run begins: TensorBoard takes the first as the run's beginning and
        each later one as a restart at its step, dropping the values written before it for that
        step and later (what a killed run logged after its last checkpoint)."""
        statuses = {"start": 1, "stop": 2, "checkpoint": 3}  # SessionLog.SessionStatus
        if status not in statuses:
            raise bad(
                ValueError, f"FileWriter.add_session_log: status is one of {sorted(statuses)}, not {status!r}"
            )
        self._event(_step(step), session_log=protos().event.SessionLog(status=statuses[status]))

    def flush(self) -> None:
        """Push what was written to disk (records are already flushed to the OS as written)."""
        if not self._file.closed:
            self._file.flush()

    def close(self) -> None:
        """Finish the event file; writing after this is an error, closing again does nothing."""
        self._file.close()

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._file.closed else "open"
        return f"<FileWriter {self.logdir!r} ({state})>"
