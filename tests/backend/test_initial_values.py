"""Stored initial values (backend/initial_values.py): a Session whose initialization the plan store
has takes the variables' initial values from disk, bit for bit what running the initializer program
gives, without loading that program; another seed, a damaged entry or an initialization that reads
a variable runs the program (and the values it gives are the oracle's)."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.backend import initial_values, pjrt, program

EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3.5, 3.4028235e38], np.float32)
INTS = np.array([0, -1, 2**31 - 1, -(2**31)], np.int32)


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A cache directory of the test's own, no executable shared in memory, and a count of the
    executables loaded from disk (``loads[0]``)."""
    monkeypatch.setenv("STABLEGRAPH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(program, "_EXECUTABLES", type(program._EXECUTABLES)())
    loads = [0]
    real = pjrt.deserialize

    def counting(*args, **kwargs):
        loads[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pjrt, "deserialize", counting)
    return tmp_path, loads


def _graph():
    """Random (glorot, normal), constant (edge values, ints, a bool) variables and a train step."""
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        w = sg.Variable(sg.nn.initializers.glorot_uniform(), (3, 4), name="w")
        n = sg.Variable(sg.nn.initializers.normal(1.0), (4,), sg.float64, name="n")
        e = sg.Variable(EDGES, name="e", trainable=False)
        i = sg.Variable(INTS, name="i")
        b = sg.Variable(np.array([True, False]), name="b")
        loss = ((x @ w).sum(axis=1) ** 2).mean()
        train = sg.optim.sgd(0.1).minimize(loss)
    return g, x, [w, n, e, i, b], loss, train


def _session_values(seed=0, step=True):
    """The variables' values right after initialization, the loss of one step and the stats."""
    g, x, variables, loss, train = _graph()
    with sg.Session(g, seed=seed) as sess:
        values = sess.get(variables)
        xv = np.array([[1.0, -0.0, 2.0], [0.5, 0.25, -1.0]], np.float32)
        value = sess.run([loss, train], {x: xv})[0] if step else None
        return values, value, sess.stats, xv


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def test_a_warm_session_restores_the_initial_values_without_their_program(fresh):
    where, loads = fresh
    cold, loss0, stats0, xv = _session_values()
    assert stats0.disk_hits == 0 and len(list(where.glob("*.sginit"))) == 1
    program._EXECUTABLES.clear()
    loads[0] = 0
    warm, loss1, stats1, _ = _session_values()
    assert stats1.plan_hits == 2 and stats1.disk_hits == 2
    assert loads[0] == 1  # the training step's executable only: the initializer's stays on disk
    for a, b in zip(cold, warm):
        _same_bits(a, b)
    # the oracles: the constants as given (-0, nan, the smallest subnormal kept), the random
    # values in their ranges, and the step's loss from numpy on the restored weights
    _same_bits(warm[2], EDGES)
    _same_bits(warm[3], INTS)
    np.testing.assert_array_equal(warm[4], [True, False])
    limit = np.sqrt(6 / (3 + 4))
    assert np.all(np.abs(warm[0]) <= limit) and len(np.unique(warm[0])) == 12
    assert warm[1].dtype == np.float64 and np.all(np.isfinite(warm[1]))
    want = ((xv.astype(np.float64) @ warm[0].astype(np.float64)).sum(axis=1) ** 2).mean()
    np.testing.assert_allclose([loss0, loss1], want, rtol=1e-6)


def test_another_seed_runs_the_initializer_then_is_stored_too(fresh):
    where, loads = fresh
    seed0, _, _, _ = _session_values(seed=0, step=False)
    program._EXECUTABLES.clear()
    loads[0] = 0
    seed7, _, stats, _ = _session_values(seed=7, step=False)
    assert loads[0] == 1 and stats.plan_hits == 1  # the stored plan, its executable run for seed 7
    assert not np.array_equal(seed0[0], seed7[0]) and len(list(where.glob("*.sginit"))) == 2
    program._EXECUTABLES.clear()
    loads[0] = 0
    again, _, _, _ = _session_values(seed=7, step=False)
    assert loads[0] == 0
    for a, b in zip(seed7, again):
        _same_bits(a, b)


DAMAGES = {
    "truncated": lambda b: b[: len(b) // 2],
    "corrupt": lambda b: b[:-1] + bytes([b[-1] ^ 1]),
    "foreign": lambda b: b"NOTOURS!" + b[8:],
    "empty": lambda b: b"",
}


def test_a_damaged_values_entry_runs_the_initializer_and_is_written_again(fresh):
    where, loads = fresh
    cold, _, _, _ = _session_values(step=False)
    for damage in DAMAGES.values():
        (entry,) = where.glob("*.sginit")
        entry.write_bytes(damage(entry.read_bytes()))
        program._EXECUTABLES.clear()
        loads[0] = 0
        values, _, _, _ = _session_values(step=False)
        assert loads[0] == 1
        for a, b in zip(cold, values):
            _same_bits(a, b)
    program._EXECUTABLES.clear()
    loads[0] = 0
    _session_values(step=False)
    assert loads[0] == 0  # rewritten by the last miss


def test_reinitializing_restores_the_first_values_and_reads_of_variables_are_computed(fresh):
    where, loads = fresh
    g = sg.Graph()
    with g:
        a = sg.Variable(np.float32(2.0), name="a")
        twice = sg.Variable(a * 2 + 1, name="twice")  # initialized from a's value at the time
    for before in (-0.5, 3.0, -0.0):  # one plan for all: no run may take an earlier run's value
        program._EXECUTABLES.clear()
        with sg.Session(g) as sess:
            sess.set(a, np.float32(before))
            sess.initialize([twice])  # reads a (state, not only the seed): never stored, computed
            assert sess.get(twice) == np.float32(2 * before + 1)
    assert not list(where.glob("*.sginit"))
    gw, xw, variables, loss, train = _graph()
    with sg.Session(gw) as sess:
        first = sess.get(variables)
        sess.run(train, {xw: np.ones((2, 3), np.float32)})
        assert not np.array_equal(sess.get(variables[0]), first[0])
        sess.initialize()  # back to the initial values, restored or computed alike
        for want, got in zip(first, sess.get(variables)):
            _same_bits(want, got)


def test_values_past_the_size_bound_are_computed_not_stored(fresh, monkeypatch):
    where, loads = fresh
    monkeypatch.setattr(initial_values, "MAX_BYTES", 16)  # less than w's 48 bytes alone
    cold, _, _, _ = _session_values(step=False)
    program._EXECUTABLES.clear()
    loads[0] = 0
    warm, _, _, _ = _session_values(step=False)
    assert loads[0] == 1 and not list(where.glob("*.sginit"))
    for a, b in zip(cold, warm):
        _same_bits(a, b)
