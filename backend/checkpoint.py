"""Checkpoint files: variables as numpy's npz, written atomically, read without pickles (backend).

``save`` writes to a temporary file in the target folder, flushes it to disk
and renames it over the target, so a crash or error while writing leaves
the previous checkpoint whole. With a step, files are named
``<prefix>-<step>.npz`` and only the newest ``keep`` are kept. ``load``
opens with ``allow_pickle=False`` and checks every expected name, shape and
dtype before returning anything, reporting all mismatches at once.
"""

from __future__ import annotations

import glob
import os
import re
import tempfile

import numpy as np

from ..graph import CheckpointError

SUFFIX = ".npz"


def save(prefix: str, arrays: dict[str, np.ndarray], step: int | None = None, keep: int = 5) -> str:
    """Write ``arrays`` (by variable name) to ``prefix.npz`` or ``prefix-<step>.npz``; returns the path."""
    path = _path(prefix, step)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            _write_npz(f, arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if step is not None and keep:
        for old in _steps(prefix)[:-keep]:
            os.unlink(old[1])
    return path


_SAVEZ_OWN = ("file", "allow_pickle")  # np.savez's own parameter names: such variables get a '~' suffix


def _write_npz(f, arrays: dict[str, np.ndarray]) -> None:
    """numpy's npz (one .npy per array in a zip), nothing pickled; '/' in names is fine."""
    members = {(name + "~" if name.rstrip("~") in _SAVEZ_OWN else name): a for name, a in arrays.items()}
    np.savez(f, allow_pickle=False, **{k: np.asarray(a) for k, a in members.items()})


def _name(member: str) -> str:
    return member[:-1] if member.endswith("~") and member.rstrip("~") in _SAVEZ_OWN else member


def load(path: str, expected: dict[str, tuple]) -> tuple[str, dict[str, np.ndarray]]:
    """The arrays of the checkpoint at ``path`` (a file or a ``save`` prefix) for ``expected``.

    ``expected`` maps variable names to (shape, numpy dtype). Raises
    CheckpointError listing every missing name and every shape or dtype that differs.
    """
    found = _find(path)
    try:
        with np.load(found, allow_pickle=False) as data:
            stored = {_name(k): data[k] for k in data.files}
    except (OSError, ValueError) as e:
        raise CheckpointError(f"cannot read checkpoint {found}: {e}") from None
    problems = []
    for name, (shape, dtype) in expected.items():
        if name not in stored:
            problems.append(f"  {name}: not in the checkpoint")
            continue
        arr = stored[name]
        if arr.shape != tuple(shape) or arr.dtype != np.dtype(dtype):
            problems.append(
                f"  {name}: the checkpoint has shape {arr.shape} {arr.dtype}, "
                f"the graph wants shape {tuple(shape)} {np.dtype(dtype)}"
            )
    if problems:
        raise CheckpointError(
            f"checkpoint {found} does not match the graph's variables:\n" + "\n".join(problems)
        )
    return found, {name: stored[name] for name in expected}


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
    raise CheckpointError(f"no checkpoint at {path} (nor {path}{SUFFIX} or {path}-<step>{SUFFIX})")
