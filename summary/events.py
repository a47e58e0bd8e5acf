"""An append-only TensorBoard event file: framed, checksummed ``Event`` records (summary layer).

TensorBoard reads ``events.out.tfevents.*`` files: a sequence of records,
each ``length (u64 le) | masked crc32c of length (u32) | data | masked crc32c
of data (u32)``, whose data is a serialized ``Event`` proto; the first event
names the format version. The ``tensorboard`` package ships its own writer,
but it reaches files through ``tensorboard.compat.tf``, which imports
TensorFlow whenever TensorFlow is installed; this writer uses plain files and
only the package's protos and checksum, so TensorFlow is never imported.
"""

from __future__ import annotations

import itertools
import os
import socket
import struct
import threading
import time
import types

_file_numbers = itertools.count()  # orders the files one process makes, even within a microsecond


def protos() -> types.SimpleNamespace:
    """The tensorboard proto modules records are built from, by short name (``protos().event.Event``);
    imported on first use (~0.3 s), so ``import stablegraph`` does not pay for them."""
    global _protos
    if _protos is None:
        from tensorboard.compat.proto import (
            attr_value_pb2,
            config_pb2,
            event_pb2,
            graph_pb2,
            node_def_pb2,
            step_stats_pb2,
            summary_pb2,
            tensor_pb2,
            tensor_shape_pb2,
            types_pb2,
        )

        _protos = types.SimpleNamespace(
            attr_value=attr_value_pb2, config=config_pb2, event=event_pb2, graph=graph_pb2,
            node_def=node_def_pb2, step_stats=step_stats_pb2, summary=summary_pb2, tensor=tensor_pb2,
            tensor_shape=tensor_shape_pb2, types=types_pb2,
        )  # fmt: skip
    return _protos


_protos: types.SimpleNamespace | None = None


def _masked_crc(data: bytes) -> bytes:
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c

    return struct.pack("<I", masked_crc32c(data))


class EventFile:
    """One event file in ``logdir`` (made if missing), open for appending records until ``close``."""

    def __init__(self, logdir: str):
        os.makedirs(logdir, exist_ok=True)
        # TensorBoard reads a directory's event files in name order and skips a file that sorts
        # before one it has read: the name sorts by creation (seconds, then microseconds), whatever
        # the process ids and however many writers a process has made
        now_us = time.time_ns() // 1000
        name = (
            f"events.out.tfevents.{now_us // 10**6:010d}.{socket.gethostname()}.{now_us % 10**6:06d}."
            f"{os.getpid()}.{next(_file_numbers):06d}"
        )
        self.path = os.path.join(logdir, name)
        self._file = open(self.path, "wb")  # noqa: SIM115  (held open until close())
        self._lock = threading.Lock()
        self.write(protos().event.Event(wall_time=time.time(), file_version="brain.Event:2"))

    @property
    def closed(self) -> bool:
        return self._file.closed

    def write(self, event) -> None:
        """Append one Event and flush it, so TensorBoard (and a crash) sees every record written."""
        data = event.SerializeToString()
        header = struct.pack("<Q", len(data))
        record = header + _masked_crc(header) + data + _masked_crc(data)
        with self._lock:
            self._file.write(record)
            self._file.flush()

    def flush(self) -> None:
        """Sync the file to disk (the OS already has every record)."""
        with self._lock:
            self._file.flush()
            os.fsync(self._file.fileno())

    def close(self) -> None:
        """Flush and close the file; closing again does nothing."""
        with self._lock:
            if not self._file.closed:
                self._file.flush()
                self._file.close()
