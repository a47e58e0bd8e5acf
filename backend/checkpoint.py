"""Checkpoint files: variables as numpy's npz, written atomically, read without pickles (backend).

``save`` writes to a temporary file ``.<prefix>.tmp-<pid>-<random>`` in the
target folder, flushes it to disk and renames it over the target, so a crash
or error while writing leaves the previous checkpoint whole. The temporary
file is removed on any failure, and those left by a killed save (their pid is
no longer running on this machine) are removed by the next save of the same
prefix. The file is created the way ``open`` creates one, so its permissions
follow the umask. With a step (an int >= 0), files are named
``<prefix>-<step>.npz`` and only the newest ``keep`` are kept (0 keeps all).
Any failure to write is a CheckpointError naming the target.

``load`` never unpickles and never trusts the file: it reads each member's
.npy header first and checks every expected name, shape and dtype, and that
the member really holds the bytes its header claims (a damaged header could
claim a terabyte), reporting every problem at once before any array is read.
A truncated, corrupted or non-npz file is a CheckpointError naming it.
"""

from __future__ import annotations

import glob
import math
import operator
import os
import re
import secrets
import zlib
from typing import TYPE_CHECKING

import numpy as np

from ..graph import CheckpointError, located, user_location

if TYPE_CHECKING:
    import zipfile

SUFFIX = ".npz"


def _read_errors() -> tuple:
    """What a damaged zip or .npy raises while read: zipfile's errors, zlib's, numpy's header
    parser's (zipfile, with shutil, bz2 and lzma, loads with the first checkpoint, not at import)."""
    import zipfile  # noqa: PLC0415

    return (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError)


def save(prefix, arrays: dict[str, np.ndarray], step: int | None = None, keep: int = 5) -> str:
    """Write ``arrays`` (by variable name) to ``prefix.npz`` or ``prefix-<step>.npz``; returns the path.

    ``prefix`` is a str or a path-like object (pathlib.Path).
    """
    prefix = _prefix(prefix, "save")
    step = None if step is None else _count(prefix, "step", step)
    keep = _count(prefix, "keep", keep)
    path = _path(prefix, step)
    stem = os.path.basename(_base(prefix))
    try:
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        _remove_orphans(folder, stem)
        _write_atomically(path, stem, arrays)
        if step is not None and keep:
            for old in _steps(prefix)[:-keep]:
                os.unlink(old[1])
    except OSError as e:
        raise _error(f"cannot write checkpoint {path}: {e}") from e
    return path


def _prefix(path, what: str) -> str:
    """A checkpoint path as a str: a file prefix, not empty and not a folder (a CheckpointError at the
    user's line otherwise; ``save`` would write a hidden ``.npz`` there)."""
    try:
        prefix = os.fspath(path)
    except TypeError:
        raise _error(
            f"{what} wants a checkpoint path (a str or a pathlib.Path), got {type(path).__name__}"
        ) from None
    if isinstance(prefix, bytes):
        prefix = os.fsdecode(prefix)
    if what == "save" and (not os.path.basename(_base(prefix)) or os.path.isdir(prefix)):
        if not prefix:
            why = "it is empty"
        elif os.path.isdir(prefix) or prefix.endswith(("/", os.sep)):
            why = "it is a folder"
        else:
            why = f"it has no file name before {SUFFIX}"
        example = os.path.join(os.path.dirname(prefix) if why != "it is a folder" else prefix, "model")
        raise _error(
            f"cannot save a checkpoint to {prefix!r}: {why}; give a file prefix such as {example!r} "
            f"(written as {example + SUFFIX!r})"
        )
    if what == "restore" and not prefix:
        raise _error("cannot restore a checkpoint from '': give the path save returned, or its prefix")
    return prefix


def _error(message: str) -> CheckpointError:
    return CheckpointError(located(message, user_location()))


def _count(prefix: str, what: str, value) -> int:
    """``value`` as an int >= 0 (a step or a number of files to keep), else a CheckpointError."""
    try:
        n = operator.index(value)
    except TypeError:
        n = -1
    if n < 0 or isinstance(value, bool):
        hint = " (0 keeps all)" if what == "keep" else ""
        raise _error(f"checkpoint {prefix}: {what} must be an int >= 0{hint}, got {value!r}")
    return n


def _write_atomically(path: str, stem: str, arrays: dict[str, np.ndarray]) -> None:
    """Write to a temporary sibling, sync, rename over ``path``; the temporary never outlives a failure."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = _create_temporary(folder, stem)
    done = False
    try:
        with os.fdopen(fd, "wb") as f:
            _write_npz(f, arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        done = True
    finally:
        if not done:
            unlink_quietly(tmp)
    _sync_folder(folder)


def _create_temporary(folder: str, stem: str) -> tuple[int, str]:
    """Create ``.<stem>.tmp-<pid>-<random>`` exclusively, mode 0666 so the kernel applies the umask.

    (tempfile.mkstemp makes 0600 files, and reading the umask is not thread-safe.)
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, f".{stem}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def _remove_orphans(folder: str, stem: str) -> None:
    """Remove temporaries of this prefix left by saves whose process is gone (killed mid-save)."""
    pattern = re.compile(re.escape(f".{stem}.tmp-") + r"(\d+)-\w+")
    for f in glob.glob(os.path.join(glob.escape(folder), f".{glob.escape(stem)}.tmp-*")):
        m = pattern.fullmatch(os.path.basename(f))
        if m and not may_be_writing(int(m.group(1))):
            unlink_quietly(f)


def may_be_writing(pid: int) -> bool:
    """Whether process ``pid`` may still be writing; when unsure, yes (its file is left alone)."""
    if pid == os.getpid() or os.name != "posix":  # another thread may be saving; Windows' kill kills
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except (OverflowError, OSError):  # someone else's process, or a pid that cannot be asked about
        return True
    return True


def unlink_quietly(path: str) -> None:
    """Remove ``path`` if it is there (another process may have removed it first)."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_folder(folder: str) -> None:
    """Make the rename durable too (POSIX); not every platform can open a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_SAVEZ_OWN = ("file", "allow_pickle")  # np.savez's own parameter names: such variables get a '~' suffix


def _write_npz(f, arrays: dict[str, np.ndarray]) -> None:
    """numpy's npz (one .npy per array in a zip), nothing pickled; '/' in names is fine."""
    members = {(name + "~" if name.rstrip("~") in _SAVEZ_OWN else name): a for name, a in arrays.items()}
    np.savez(f, allow_pickle=False, **{k: np.asarray(a) for k, a in members.items()})


def _name(member: str) -> str:
    """The variable name of a zip member ``<name>.npy`` (undoing the '~' of ``_write_npz``)."""
    name = member[: -len(".npy")]
    return name[:-1] if name.endswith("~") and name.rstrip("~") in _SAVEZ_OWN else name


def load(path, expected: dict[str, tuple]) -> tuple[str, dict[str, np.ndarray]]:
    """The arrays of the checkpoint at ``path`` (a file or a ``save`` prefix; str or path-like) for ``expected``.

    ``expected`` maps variable names to (shape, numpy dtype). Raises
    CheckpointError listing every missing name, every shape or dtype that
    differs and every damaged member, all from the headers, before reading data.
    """
    found = _find(_prefix(path, "restore"))
    try:
        import zipfile  # noqa: PLC0415

        with zipfile.ZipFile(found) as z:
            headers = _headers(z, found)
            _check(found, headers, expected)
            return found, {
                name: _read(z, headers[name], np.dtype(want[1])) for name, want in expected.items()
            }
    except CheckpointError:
        raise
    except _read_errors() as e:
        raise _error(f"cannot read checkpoint {found}: {type(e).__name__}: {e}") from None


def _headers(z: zipfile.ZipFile, found: str) -> dict[str, tuple]:
    """Variable name -> (zip member, shape, dtype, fortran order, data bytes), from the .npy headers only."""
    out = {}
    for info in z.infolist():
        if not info.filename.endswith(".npy"):
            continue
        with z.open(info) as f:
            try:
                shape, fortran, dtype = _read_header(f)
            except _read_errors() as e:
                raise _error(
                    f"checkpoint {found}: cannot read the .npy header of {_name(info.filename)} "
                    f"({type(e).__name__}: {e}); the file is corrupt"
                ) from None
            nbytes = info.file_size - f.tell()
        out[_name(info.filename)] = (info, shape, dtype, fortran, nbytes)
    return out


def _read_header(f) -> tuple[tuple, bool, np.dtype]:
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise ValueError(f".npy version {version[0]}.{version[1]} is not supported")
    return tuple(shape), fortran, dtype


def _check(found: str, headers: dict[str, tuple], expected: dict[str, tuple]) -> None:
    """Every problem of the headers against ``expected``, as one CheckpointError."""
    problems = []
    for name, (shape, dtype) in expected.items():
        if name not in headers:
            problems.append(f"  {name}: not in the checkpoint")
            continue
        _, got_shape, got_dtype, _, nbytes = headers[name]
        if got_dtype.hasobject:
            problems.append(f"  {name}: holds Python objects (a pickle), which are never loaded")
        elif got_shape != tuple(shape) or not _same_dtype(got_dtype, np.dtype(dtype)):
            problems.append(
                f"  {name}: the checkpoint has shape {got_shape} {got_dtype}, "
                f"the graph wants shape {tuple(shape)} {np.dtype(dtype)}"
            )
        elif math.prod(got_shape) * got_dtype.itemsize != nbytes:
            want = math.prod(got_shape) * got_dtype.itemsize
            problems.append(
                f"  {name}: its header claims {want} bytes but the member holds {nbytes} bytes; "
                "the file is corrupt or truncated"
            )
    if problems:
        raise _error(f"checkpoint {found} does not match the graph's variables:\n" + "\n".join(problems))


def _same_dtype(got: np.dtype, want: np.dtype) -> bool:
    """Equal dtypes; .npy has no code for ml_dtypes' (bfloat16, float8...), so they are stored as raw |V<n>."""
    if got == want:
        return True
    raw = got.type is np.void and got.names is None and got.subdtype is None
    return raw and want.kind == "V" and want.type is not np.void and got.itemsize == want.itemsize


def _read(z: zipfile.ZipFile, header: tuple, dtype: np.dtype) -> np.ndarray:
    """One member's array as ``dtype``, its header accepted by ``_check`` (the zip checks its CRC at the end)."""
    info, shape, _, fortran, nbytes = header
    buf = bytearray(nbytes)
    with z.open(info) as f:
        _read_header(f)
        if f.readinto(buf) != nbytes or f.read(1):  # reading to the end makes zipfile check the CRC
            raise ValueError(f"{info.filename} does not hold {nbytes} bytes of data")
    return np.frombuffer(buf, dtype=dtype).reshape(shape, order="F" if fortran else "C")


def _base(prefix: str) -> str:
    return prefix[: -len(SUFFIX)] if prefix.endswith(SUFFIX) else prefix


def _path(prefix: str, step: int | None) -> str:
    base = _base(prefix)
    return f"{base}-{int(step)}{SUFFIX}" if step is not None else f"{base}{SUFFIX}"


def _steps(prefix: str) -> list[tuple[int, str]]:
    """The ``prefix-<step>.npz`` files, oldest step first."""
    base = _base(prefix)
    pattern = re.compile(re.escape(os.path.basename(base)) + r"-(\d+)" + re.escape(SUFFIX) + "$")
    out = []
    for f in glob.glob(glob.escape(base) + "-*" + SUFFIX):
        m = pattern.match(os.path.basename(f))
        if m:
            out.append((int(m.group(1)), f))
    return sorted(out)


def _find(path: str) -> str:
    for candidate in (path, path + SUFFIX):
        if os.path.isfile(candidate):
            return candidate
    steps = _steps(path)
    if steps:
        return steps[-1][1]
    raise _error(f"no checkpoint at {path} (nor {path}{SUFFIX} or {path}-<step>{SUFFIX})")
