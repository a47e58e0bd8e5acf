"""The file an ``sg.Exported`` is saved in: one versioned, checked file, no pickles (backend).

Layout: the 8-byte magic ``SGEXPORT``, the format version (uint32, little
endian), the length of the header (uint64), the header (UTF-8 JSON: the
signature, the program's description, each array's dtype, shape, offset and
size, each blob's offset and size), the arrays' raw bytes (C order, little
endian), the blobs (the program's StableHLO portable artifacts), and a
SHA-256 of everything before it. Version 2 holds the program as StableHLO;
version 1 (the program as a stablegraph JSON graph, no blobs) still reads.
Loading checks all of that before it builds anything: the JSON is parsed as
data (no code is imported or run from the file), dtypes come from a fixed
list (never numpy's object dtype), and every offset and size must lie inside
the file. A truncated, corrupt or
newer-version file is an ExportError naming the file; writing goes through a
temporary file and ``os.replace``, so a crash never leaves half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile

import numpy as np

from ..graph import StablegraphError, dtypes

MAGIC = b"SGEXPORT"
VERSION = 2  # 1: the program as a stablegraph graph; 2: as StableHLO artifacts (blobs)
_PREFIX = struct.Struct("<8sIQ")
_DIGEST = 32
# the dtypes an exported array may have (by name; never numpy's object or structured dtypes)
_DTYPES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 complex64 "
    "complex128 bfloat16 float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz".split()
)


class ExportError(StablegraphError, ValueError):
    """An exported model that cannot be written, read or run as asked (names the file or the part)."""


def write(path, header: dict, arrays: dict[str, np.ndarray], blobs: dict[str, bytes] | None = None) -> str:
    """Write ``header`` (JSON-able), ``arrays`` and ``blobs`` (bytes by name) to ``path``
    atomically; returns the path."""
    path = os.fspath(path)
    entries, pieces, offset = {}, [], 0
    for name, arr in arrays.items():
        arr = np.ascontiguousarray(arr)
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        entries[name] = {
            "dtype": arr.dtype.name,
            "shape": list(arr.shape),
            "offset": offset,
            "nbytes": len(data),
        }
        pieces.append(data)
        offset += len(data)
    blob_entries = {}
    for name, data in (blobs or {}).items():
        blob_entries[name] = {"offset": offset, "nbytes": len(data)}
        pieces.append(bytes(data))
        offset += len(data)
    head = json.dumps({**header, "arrays": entries, "blobs": blob_entries}, sort_keys=True).encode()
    body = _PREFIX.pack(MAGIC, VERSION, len(head)) + head + b"".join(pieces)
    try:
        _write_atomically(path, body)
    except OSError as e:
        raise ExportError(f"cannot write exported model {path}: {e.strerror or e}") from None
    return path


def _write_atomically(path: str, body: bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".sgx-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(body)
            f.write(hashlib.sha256(body).digest())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read(path) -> tuple[int, dict, dict[str, np.ndarray], dict[str, bytes]]:
    """The format version, header, arrays and blobs of an exported file; ExportError naming the
    file if it is not one this version can read whole."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ExportError(f"cannot read exported model {path}: {e.strerror or e}") from None
    if len(raw) < _PREFIX.size + _DIGEST or raw[:8] != MAGIC:
        what = (
            "is truncated" if raw[:8] == MAGIC or MAGIC.startswith(raw[:8]) else "is not a stablegraph export"
        )
        raise ExportError(f"{path} {what} (no complete SGEXPORT header)")
    _, version, n_head = _PREFIX.unpack_from(raw)
    if version > VERSION:
        raise ExportError(
            f"{path} is export format version {version}; this stablegraph reads versions up to {VERSION}: "
            "load it with a newer stablegraph"
        )
    body, digest = raw[:-_DIGEST], raw[-_DIGEST:]
    if hashlib.sha256(body).digest() != digest:
        raise ExportError(f"{path} is corrupt or truncated (its checksum does not match its contents)")
    start = _PREFIX.size + n_head
    if start > len(body):
        raise ExportError(f"{path} is corrupt: its header runs past the end of the file")
    try:
        header = json.loads(body[_PREFIX.size : start].decode())
        arrays = {name: _array(body, start, e) for name, e in header.pop("arrays").items()}
        blobs = {name: _blob(body, start, e) for name, e in header.pop("blobs", {}).items()}
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ExportError(f"{path} is corrupt: {e}") from None
    return version, header, arrays, blobs


def _blob(body: bytes, start: int, entry: dict) -> bytes:
    offset, nbytes = int(entry["offset"]), int(entry["nbytes"])
    if offset < 0 or nbytes < 0 or start + offset + nbytes > len(body):
        raise ValueError("a blob runs past the end of the file")
    return body[start + offset : start + offset + nbytes]


def _array(body: bytes, start: int, entry: dict) -> np.ndarray:
    name = entry["dtype"]
    if name not in _DTYPES:
        raise ValueError(f"array dtype {name!r} is not one an export holds")
    dtype = dtypes.dtype(name).np.newbyteorder("<")
    shape = tuple(int(d) for d in entry["shape"])
    offset, nbytes = int(entry["offset"]), int(entry["nbytes"])
    if min(shape, default=0) < 0 or offset < 0 or int(np.prod(shape)) * dtype.itemsize != nbytes:
        raise ValueError(f"array entry {entry} does not fit its shape and dtype")
    if start + offset + nbytes > len(body):
        raise ValueError("an array runs past the end of the file")
    data = np.frombuffer(body, dtype, count=nbytes // dtype.itemsize, offset=start + offset)
    return data.reshape(shape).astype(dtype.newbyteorder("="))
