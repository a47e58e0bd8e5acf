"""The plan store (backend/plan_store.py): a Session that meets a program it stored before takes
its plan and StableHLO from disk (nothing planned or lowered) with the same results; a changed
graph, changed feed shapes or changed options are misses that say what changed; a damaged plan
entry is a miss that is planned and written again; a plan whose executable was evicted compiles
its stored text; graphs the store cannot key (a host callback) take the full path."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.backend import program


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A cache directory of the test's own, and no executable shared in memory from before."""
    monkeypatch.setenv("STABLEGRAPH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(program, "_EXECUTABLES", type(program._EXECUTABLES)())
    return tmp_path


XV = np.array([[0.0, -0.0, 1.5], [-2.0, np.inf, 0.25]], np.float32)  # an inf: tanh(inf) = 1
W0 = np.array([[0.5, -1.0], [0.25, 2.0], [1.0, 0.0]], np.float32)


def _want(x, w=W0, scale=1.0):
    """numpy's value of the fetches _train_step builds, before and after one SGD step."""
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    h = np.tanh(x64 @ w64)
    loss = scale * (h**2).sum()
    grad = x64.T @ (scale * 2 * h * (1 - h**2))
    return loss, (w64 - 0.1 * grad)


def _train_step(check_numerics=False, scale=1.0, x_shape=("batch", 3), feeds=XV):
    """One SGD step of a tiny model in a new graph and Session: the loss, the new weights, and
    the Session's compile records."""
    g = sg.Graph()
    with g:
        x = sg.placeholder(x_shape, sg.float32, name="x")
        w = sg.Variable(W0, name="w")
        loss = (snp.tanh(x @ w) ** 2).sum() * scale
        train = sg.optim.sgd(0.1).minimize(loss)
    with sg.Session(g, check_numerics=check_numerics) as sess:
        value, _ = sess.run([loss, train], {x: feeds})
        return value, sess.get(w), sess.stats


def _finite_rows(x):
    return x[np.isfinite(x).all(axis=1)]


def test_a_second_session_takes_plan_and_program_from_disk(fresh):
    xv = _finite_rows(XV)
    loss0, w0, stats0 = _train_step(feeds=xv)
    assert stats0.plan_misses == ["no entry", "no entry"] and stats0.plan_hits == 0
    program._EXECUTABLES.clear()
    loss1, w1, stats1 = _train_step(feeds=xv)
    assert stats1.plan_hits == stats1.compiles == 2 and stats1.plan_misses == []
    assert stats1.disk_hits == 2  # the executables came from disk too
    assert "plan hit" in str(stats1)
    want_loss, want_w = _want(xv)
    for loss, w in ((loss0, w0), (loss1, w1)):
        np.testing.assert_allclose(loss, want_loss, rtol=1e-5)
        np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-6)
    assert loss1 == loss0 and np.array_equal(w1, w0)  # one executable: the same bits
    assert len(list(fresh.glob("*.sgplan"))) == 2 and len(list(fresh.glob("*.sgx"))) == 2


def test_a_miss_says_what_changed(fresh):
    """Each run changes one thing from the run before (whose plans were the last stored)."""
    xv = _finite_rows(XV)
    two = np.concatenate([xv, xv])
    _train_step(feeds=xv)
    loss, _, stats = _train_step(feeds=xv, scale=2.0)  # another constant: another graph
    assert stats.plan_misses == ["graph changed", "graph changed"]  # the key holds the whole graph
    np.testing.assert_allclose(loss, _want(xv, scale=2.0)[0], rtol=1e-5)
    loss, _, stats = _train_step(feeds=two, scale=2.0)
    assert stats.plan_misses == ["feeds changed"] and stats.plan_hits == 1  # the initializer's plan
    np.testing.assert_allclose(loss, _want(two, scale=2.0)[0], rtol=1e-5)
    _, _, stats = _train_step(feeds=two, scale=2.0, check_numerics=True)
    assert stats.plan_misses == ["check_numerics changed"] and stats.plan_hits == 1
    _, _, stats = _train_step(feeds=xv)  # the first run's plans are still there
    assert stats.plan_hits == 2


def test_edge_values_run_the_same_from_a_stored_plan(fresh):
    """0, -0 and inf in the feeds: the stored program gives numpy's values (tanh(inf) = 1)."""
    _train_step()
    program._EXECUTABLES.clear()
    loss, w, stats = _train_step()
    assert stats.plan_hits == 2
    x64 = XV.astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf * 0
        h = np.tanh(x64 @ W0.astype(np.float64))
        grad = x64.T @ (2 * h * (1 - h**2))
    np.testing.assert_allclose(loss, (h**2).sum(), rtol=1e-5)
    np.testing.assert_allclose(w, W0 - 0.1 * grad, rtol=1e-5, atol=1e-6)  # inf * 0: nan, as numpy
    assert np.isnan(w).any()


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda b: b[: len(b) // 2], "truncated entry"),
        (lambda b: b[:-5] + bytes([b[-5] ^ 0xFF]) + b[-4:], "corrupt entry (checksum)"),
        (lambda b: b"NOTOURS!" + b[8:], "foreign entry"),
    ],
)
def test_a_damaged_plan_entry_is_a_miss_then_written_again(fresh, damage, why):
    xv = _finite_rows(XV)
    want_loss = _want(xv)[0]
    _train_step(feeds=xv)
    for entry in fresh.glob("*.sgplan"):
        entry.write_bytes(damage(entry.read_bytes()))
    program._EXECUTABLES.clear()
    loss, _, stats = _train_step(feeds=xv)
    assert stats.plan_misses == [why, why] and stats.disk_hits == 2  # found by their StableHLO
    loss2, _, stats = _train_step(feeds=xv)
    assert stats.plan_hits == 2  # rewritten by the miss
    np.testing.assert_allclose([loss, loss2], want_loss, rtol=1e-5)


def test_a_plan_whose_executable_is_gone_compiles_its_stored_text(fresh):
    xv = _finite_rows(XV)
    _train_step(feeds=xv)
    for entry in [*fresh.glob("*.sgx"), *fresh.glob("*.sginit")]:  # no stored initial values either
        entry.unlink()
    program._EXECUTABLES.clear()
    loss, w, stats = _train_step(feeds=xv)
    assert stats.plan_hits == 2
    assert [r.source for r in stats.records] == ["compiled (disk cache: no entry)"] * 2
    np.testing.assert_allclose(loss, _want(xv)[0], rtol=1e-5)
    np.testing.assert_allclose(w, _want(xv)[1], rtol=1e-5, atol=1e-6)
    assert len(list(fresh.glob("*.sgx"))) == 2  # written again


def test_a_graph_with_a_host_callback_takes_the_full_path(fresh, capfd):
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        sg.debug.print("x0 {}", x[0])
        y = snp.exp(x)
    xv = np.array([0.0, -1.0, 2.0], np.float32)
    for _ in range(2):
        program._EXECUTABLES.clear()
        with sg.Session(g) as sess:
            np.testing.assert_allclose(sess.run(y, {x: xv}), np.exp(xv), rtol=1e-6)
            (record,) = sess.stats.records
            assert record.plan.startswith("no plan key: the graph does not serialize")
    assert record.source == "disk"  # the executable cache still serves it
    assert capfd.readouterr().out.count("x0 0.0") == 2  # its callback re-bound
    assert not list(fresh.glob("*.sgplan"))


def test_nodes_of_a_stored_program_are_planned_when_asked(fresh):
    xv = _finite_rows(XV)
    _train_step(feeds=xv)
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        w = sg.Variable(W0, name="w")
        loss = (snp.tanh(x @ w) ** 2).sum() * 1.0
        train = sg.optim.sgd(0.1).minimize(loss)
    with sg.Session(g) as sess:
        sess.run([loss, train], {x: xv})
        assert sess.stats.plan_hits == 2
        stored = sess._program((loss, train), [(x, xv)])
        names = {n.name for n in stored.nodes}
        assert {"tanh", "w/read"} & names and len(stored.nodes) == len(list(stored.nodes))
        assert all(n.graph is not None for n in stored.nodes)


def test_a_mesh_is_part_of_the_key(fresh):
    """The same graph on a mesh of 2 CPU devices: other devices, another mesh; then a mesh of the
    same devices with other axes: only the mesh changed. Each runs as numpy says."""
    xv = _finite_rows(XV)
    want_loss, want_w = _want(xv)

    def on(mesh):
        g = sg.Graph()
        with g:
            x = sg.placeholder(("batch", 3), sg.float32, name="x")
            w = sg.Variable(W0, name="w")
            loss = (snp.tanh(x @ w) ** 2).sum() * 1.0
            train = sg.optim.sgd(0.1).minimize(loss)
        with sg.Session(g, mesh=mesh) as sess:
            value, _ = sess.run([loss, train], {x: xv})
            np.testing.assert_allclose(value, want_loss, rtol=1e-5)
            np.testing.assert_allclose(sess.get(w), want_w, rtol=1e-5, atol=1e-6)
            return sess.stats.plan_misses

    on(None)
    assert on(sg.make_mesh((2,), ("d",))) == ["machine, mesh changed"] * 2
    assert on(sg.make_mesh((1, 2), ("a", "b"))) == ["mesh changed"] * 2
