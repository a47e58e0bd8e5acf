"""A Profile as TensorBoard run metadata: per-node compute time on the graph tab (summary layer).

TensorBoard's graph tab reads a session run's ``RunMetadata.step_stats``:
per device, one ``NodeExecStats`` per node with its start and its duration
in microseconds, matched to the GraphDef's nodes by name. ``sess.profile``
(backend/profiling.py) has already charged XLA's op times to graph nodes; its
rows become those stats. The tab shows a scope's time as the span from its
first node's start to its last node's end, so the nodes are laid end to end
in the order of their names' parts, which keeps every scope's nodes
together: each scope's span is then the sum of its nodes' times (XLA's
fusions run a node's share inside one kernel anyway, so only the durations
mean anything). Starts count from the time of writing in microseconds since
the epoch, as TensorFlow's did: a start of 0, which the text format leaves
out, reads in the tab as no start and drops the node. Durations are whole
microseconds, at least 1, so a sub-microsecond node still shows as one
that ran.
"""

from __future__ import annotations

import time

from ..backend.profiling import Profile
from .events import protos
from .values import bad

DEVICE = "/device:XLA:0"  # the program's device as the graph tab lists it


def step_stats(profile: Profile, names: dict[str, str]):
    """StepStats of ``profile``'s rows, each node named as the GraphDef names it (``names``)."""
    pb = protos().step_stats
    named = sorted(
        ((names.get(row.node, row.node), row) for row in profile.rows), key=lambda nr: nr[0].split("/")
    )
    node_stats, start = [], int(time.time() * 1e6)
    for name, row in named:
        micros = max(1, round(row.time_us))
        node_stats.append(pb.NodeExecStats(
            node_name=name, all_start_micros=start, op_start_rel_micros=0, op_end_rel_micros=micros,
            all_end_rel_micros=micros, timeline_label=f"{row.op} {row.node}",
        ))  # fmt: skip
        start += micros
    return pb.StepStats(dev_stats=[pb.DeviceStepStats(device=DEVICE, node_stats=node_stats)])


def tagged_run_metadata(profile, tag: str, names: dict[str, str]):
    """The TaggedRunMetadata event field for ``profile`` under ``tag``."""
    if not isinstance(profile, Profile):
        raise bad(
            TypeError,
            f"FileWriter.add_profile takes what sess.profile(fetches, feeds) returns, not {type(profile).__name__}",
        )
    if not isinstance(tag, str) or not tag:
        raise bad(TypeError, f"FileWriter.add_profile: the tag is a non-empty string, not {tag!r}")
    pb = protos()
    run_metadata = pb.config.RunMetadata(step_stats=step_stats(profile, names))
    return pb.event.TaggedRunMetadata(tag=tag, run_metadata=run_metadata.SerializeToString())
