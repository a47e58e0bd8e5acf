"""The persistent compile cache: compiled programs kept on disk between processes (backend).

A second process that runs a program seen before loads its executable
instead of compiling it. An entry's key hashes what decides the compiled
code: the StableHLO without source locations, the machine (jaxlib's
version, platform, device kinds and ids: pjrt.machine_identity), the
argument and result types and how many results come back to the host.
It is on by default, for every program (no time threshold), in
``STABLEGRAPH_CACHE_DIR`` (default ``~/.cache/stablegraph``; an empty value
turns it off), at most ``STABLEGRAPH_CACHE_MAX_BYTES`` (default 2 GiB), the
least recently used entries evicted first.

An entry is one file, written atomically (a temporary file renamed into
place, so processes sharing the directory never see half of one): a magic
word, the format version, the number of host callbacks the program was
compiled with, the payload's length and SHA-256, then the payload
(pjrt.serialize). A missing, truncated, corrupt or foreign entry is a miss,
never an error; so is an entry whose callback count differs (loading a
program without its callbacks crashes jaxlib, so that is never tried). The
directory must be trusted like any pickle: loading runs the compiled code
it holds. plan_store.py keeps programs' plans in the same directory and
format (``.sgplan`` files, bounded and evicted with the executables).
"""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

MAGIC = b"SGXCACHE"
FORMAT = 1
_HEADER = struct.Struct("<8sIIQ32s")  # magic, format, callbacks, payload length, sha256
SUFFIX = ".sgx"
# executables; plan_store's plans and their last keys; initial_values's stored initializations;
# kernel_warmup's program
SUFFIXES = (SUFFIX, ".sgplan", ".sglast", ".sginit", ".sgwarm")
DEFAULT_MAX_BYTES = 2 << 30


def directory() -> Path | None:
    """The cache directory, or None when STABLEGRAPH_CACHE_DIR is set empty (cache off)."""
    raw = os.environ.get("STABLEGRAPH_CACHE_DIR")
    if raw is None:
        return Path.home() / ".cache" / "stablegraph"
    return Path(raw) if raw.strip() else None


def max_bytes() -> int:
    raw = os.environ.get("STABLEGRAPH_CACHE_MAX_BYTES", "")
    try:
        return int(raw) if raw.strip() else DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


def key(*parts) -> str:
    """The hex digest naming an entry: a hash of ``parts`` (strings and reprs of values)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        digest.update(struct.pack("<Q", len(data)))
        digest.update(data)
    return digest.hexdigest()


def load(name: str, callbacks: int, suffix: str = SUFFIX) -> tuple[bytes | None, str]:
    """The payload of entry ``name`` (a file ending in ``suffix``) and "hit", or None and why it missed."""
    where = directory()
    if where is None:
        return None, "cache off"
    path = where / (name + suffix)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, "no entry"
    except OSError as e:
        return None, f"unreadable entry ({e.strerror})"
    if len(data) < _HEADER.size:
        return None, "truncated entry"
    magic, version, n_callbacks, length, digest = _HEADER.unpack_from(data)
    payload = data[_HEADER.size :]
    if magic != MAGIC:
        return None, "foreign entry"
    if version != FORMAT:
        return None, f"entry of format {version}, not {FORMAT}"
    if len(payload) != length:
        return None, "truncated entry"
    if hashlib.sha256(payload).digest() != digest:
        return None, "corrupt entry (checksum)"
    if n_callbacks != callbacks:
        return None, f"entry compiled with {n_callbacks} host callbacks, not {callbacks}"
    try:
        os.utime(path)  # recently used: evicted last
    except OSError:
        pass
    return payload, "hit"


def store(name: str, payload: bytes, callbacks: int, suffix: str = SUFFIX) -> None:
    """Write entry ``name`` atomically, then evict the least recently used past the size bound
    (looked at after each 1/16 of the bound this process writes, and at its first entry).
    A cache that cannot be written (read-only, full disk) is left alone: caching is best effort."""
    where = directory()
    if where is None:
        return
    import tempfile  # noqa: PLC0415  (only a process that writes entries needs it)

    header = _HEADER.pack(MAGIC, FORMAT, callbacks, len(payload), hashlib.sha256(payload).digest())
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".tmp-", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header + payload)
            os.replace(tmp, where / (name + suffix))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        limit = max_bytes()
        _UNSCANNED[where] = _UNSCANNED.get(where, limit) + len(header) + len(payload)
        if _UNSCANNED[where] >= limit // 16:  # not a scan per entry: the directory may hold thousands
            _UNSCANNED[where] = 0
            _evict(where, limit)
    except OSError:
        return


# bytes this process wrote into each directory since it last scanned it for eviction (a first
# entry scans), so the bound holds to within 1/16 of itself per process writing
_UNSCANNED: dict = {}


def _evict(where: Path, limit: int) -> None:
    entries = []
    for path in (p for suffix in SUFFIXES for p in where.glob("*" + suffix)):
        try:
            stat = path.stat()
        except OSError:
            continue  # removed by another process meanwhile
        entries.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries, key=lambda e: e[0]):
        if total <= limit:
            break
        path.unlink(missing_ok=True)
        total -= size


__all__ = ["directory", "key", "load", "store"]
