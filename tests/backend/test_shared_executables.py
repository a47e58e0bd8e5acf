"""The compiled programs Sessions share in one process: a program goes with the last Session that
holds it (but for the few used last), so a process that runs many graphs one after another does
not keep them all (a sweep of large graphs once held gigabytes of them)."""

import gc

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.backend import pjrt, program


@pytest.fixture
def fresh_cache(monkeypatch):
    monkeypatch.setattr(program, "_EXECUTABLES", program.SharedExecutables(recent=2))


def _scaling_graph(factor: float):
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32)
        y = x * factor
    return g, x, y


def _live_executables() -> int:
    gc.collect()
    return sum(type(o) is pjrt.Executable for o in gc.get_objects())


def test_closed_sessions_leave_only_the_recent_programs(fresh_cache):
    before = _live_executables()
    for factor in range(1, 9):
        g, x, y = _scaling_graph(float(factor))
        with sg.Session(g) as sess:
            np.testing.assert_array_equal(
                sess.run(y, {x: np.arange(3, dtype=np.float32)}), [0, factor, 2 * factor]
            )
    assert _live_executables() - before == 2


def test_a_program_is_shared_while_a_session_holds_it_and_just_after(fresh_cache):
    g, x, y = _scaling_graph(3.0)
    feed = {x: np.ones(3, np.float32)}
    holder = sg.Session(g)
    holder.run(y, feed)
    for factor in (5.0, 6.0, 7.0):  # more than ``recent`` other programs since
        other, ox, oy = _scaling_graph(factor)
        with sg.Session(other) as sess:
            sess.run(oy, {ox: np.ones(3, np.float32)})
    with sg.Session(g) as again:
        np.testing.assert_array_equal(again.run(y, feed), [3, 3, 3])
        assert again.stats.records[-1].source == "shared"
    holder.close()
    with sg.Session(g) as last:
        last.run(y, feed)
        assert last.stats.records[-1].source == "shared"  # the most recent, kept after its Sessions closed
