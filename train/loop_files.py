"""The checkpoints of a managed loop (sg.train.Loop): pairs of files in its logdir, one pair per step.

A checkpoint at step s is ``model-<s>.npz`` (the Session's variables: weights,
optimizer slots, Generator keys, global_step; written atomically by
``Session.save``) and ``model-<s>.json`` beside it (the step and the data
set's position, written atomically here). The JSON is written after the npz,
so it marks the pair complete: a loop killed between the two leaves an npz
without JSON, which resuming ignores and the next save removes. Only the
newest ``keep`` complete pairs are kept.
"""

from __future__ import annotations

import glob
import json
import os
import re
import secrets

from ..backend.checkpoint import may_be_writing, unlink_quietly

PREFIX = "model"
_NAME = re.compile(re.escape(PREFIX) + r"-(\d+)\.(npz|json)$")
_TEMPORARY = re.compile(r"\." + re.escape(PREFIX) + r"-\d+\.json\.tmp-(\d+)-\w+$")


def prefix(logdir: str) -> str:
    """The path prefix handed to ``Session.save``: ``<logdir>/model``."""
    return os.path.join(logdir, PREFIX)


def meta_path(logdir: str, step: int) -> str:
    """The JSON of the checkpoint at ``step``: ``<logdir>/model-<step>.json``."""
    return os.path.join(logdir, f"{PREFIX}-{int(step)}.json")


def _listing(logdir: str) -> dict[int, set]:
    """{step: {"npz", "json"} present} for the checkpoint files in ``logdir``."""
    found: dict[int, set] = {}
    for path in glob.glob(os.path.join(glob.escape(logdir), f"{PREFIX}-*")):
        m = _NAME.match(os.path.basename(path))
        if m:
            found.setdefault(int(m.group(1)), set()).add(m.group(2))
    return found


def complete_steps(logdir: str) -> list[int]:
    """The steps whose npz and JSON are both there, oldest first."""
    return sorted(s for s, kinds in _listing(logdir).items() if kinds == {"npz", "json"})


def newest(logdir: str) -> tuple[int, str, dict] | None:
    """(step, npz path, its JSON) of the newest complete checkpoint, or None when there is none."""
    steps = complete_steps(logdir)
    if not steps:
        return None
    step = steps[-1]
    with open(meta_path(logdir, step), encoding="utf-8") as f:
        meta = json.load(f)
    return step, prefix(logdir) + f"-{step}.npz", meta


def write_meta(logdir: str, step: int, meta: dict) -> str:
    """Write ``model-<step>.json`` atomically (a temporary sibling, synced, renamed over it)."""
    path = meta_path(logdir, step)
    tmp = os.path.join(logdir, f".{os.path.basename(path)}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def prune(logdir: str, keep: int) -> None:
    """Keep the newest ``keep`` complete checkpoints (0 keeps all); remove half-written pairs older
    than the newest complete one, and JSON temporaries of processes that are gone."""
    listing = _listing(logdir)
    complete = sorted(s for s, kinds in listing.items() if kinds == {"npz", "json"})
    doomed = set(complete[:-keep]) if keep else set()
    if complete:
        doomed |= {s for s, kinds in listing.items() if kinds != {"npz", "json"} and s < complete[-1]}
    for step in doomed:
        for kind in ("json", "npz"):  # the JSON first: a pair is never complete without its npz
            unlink_quietly(os.path.join(logdir, f"{PREFIX}-{step}.{kind}"))
    for path in glob.glob(os.path.join(glob.escape(logdir), f".{PREFIX}-*.json.tmp-*")):
        m = _TEMPORARY.match(os.path.basename(path))
        if m and not may_be_writing(int(m.group(1))):
            unlink_quietly(path)
