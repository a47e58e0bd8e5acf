"""sess.run(fetches, feeds, steps=k): k steps as one compiled loop.

The oracle of a loop is the k single runs it replaces (each run's own
program, in another Session with the same seed): losses, logits, weights,
Adam's slots and the Generator's key must match bit for bit on CPU, with
dropout drawing from the default Generator, a symbolic batch size, and on
a mesh of 4 CPU devices. A running sum checks the carry against numpy's
cumsum. Feeds come stacked (numpy or device arrays) or from a feed source;
bad ``steps`` and feeds of the wrong leading axis are FeedErrors at the
user's line.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.backend import async_run, gathering, pjrt
from stablegraph.backend.placement import tiling
from stablegraph.test_util import line_of

P = sg.PartitionSpec
K, B, D, H, C = 4, 8, 5, 6, 3
RNG = np.random.default_rng(0)
X = RNG.normal(size=(K, B, D)).astype(np.float32)
Y = RNG.integers(0, C, (K, B)).astype(np.int32)
X[1, 0, :2] = [0.0, -0.0]  # edge points ride along: signed zeros, a tie of relu
X[2, 3, 1] = np.float32(1e-38)


def build(sharded: bool = False):
    """An MLP step with dropout (the default Generator) and Adam, the batch symbolic; with
    ``sharded``, data- and model-parallel specs on the feeds and weights, and momentum."""
    spec = (lambda *s: P(*s)) if sharded else (lambda *s: None)
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", D), sg.float32, name="x", sharding=spec("data", None))
        y = sg.placeholder(("batch",), sg.int32, name="y", sharding=spec("data"))
        w1 = sg.Variable(sg.nn.initializers.glorot_uniform(), (D, H), name="w1", sharding=spec(None, "model"))
        w2 = sg.Variable(sg.nn.initializers.glorot_uniform(), (H, C), name="w2", sharding=spec("model", None))
        h = sg.nn.dropout(sg.nn.relu(x @ w1), 0.25)
        logits = h @ w2
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        optimizer = (
            sg.optim.momentum(0.05, 0.9) if sharded else sg.optim.adam(0.05)
        )  # (fewer compiles on the mesh)
        train = optimizer.minimize(loss)
    return g, x, y, loss, logits, train


def single_runs(g, fetches, feeds_per_step, mesh=None):
    """The oracle: one sess.run per step; the stacked fetches and every variable after."""
    with sg.Session(g, mesh=mesh, seed=7) as sess:
        runs = [sess.run(fetches, feeds) for feeds in feeds_per_step]
        return runs, sess.get(g.variables)


def test_steps_equal_single_runs_bit_for_bit_with_dropout_and_a_symbolic_batch():
    g, x, y, loss, logits, train = build()
    runs, want_vars = single_runs(g, [loss, logits, train], [{x: X[i], y: Y[i]} for i in range(K)])
    with sg.Session(g, seed=7) as sess:
        got = sess.run({"loss": loss, "logits": logits, "t": train}, {x: X, "y": Y}, steps=K)
        variables = sess.get(g.variables)
    assert got["t"] is None
    np.testing.assert_array_equal(got["loss"], np.array([r[0] for r in runs]))
    np.testing.assert_array_equal(got["logits"], np.stack([r[1] for r in runs]))
    assert got["loss"].shape == (K,) and got["logits"].shape == (K, B, C)
    for v, have, want in zip(g.variables, variables, want_vars):  # weights, Adam's slots, the Generator's key
        np.testing.assert_array_equal(have, want, err_msg=v.var_name)
    assert np.isfinite(got["loss"]).all() and len(set(got["loss"].tolist())) == K  # the steps trained


def test_steps_on_a_mesh_of_4_cpu_devices_equal_single_runs_on_it():
    g, x, y, loss, logits, train = build(sharded=True)
    mesh = sg.make_mesh((2, 2), ("data", "model"))
    runs, want_vars = single_runs(g, [loss, train], [{x: X[i], y: Y[i]} for i in range(K)], mesh)
    with sg.Session(g, mesh=mesh, seed=7) as sess:
        first = [sess.run([loss, train], {x: X[i], y: Y[i]})[0] for i in range(2)]  # a loop goes on from them
        # the next two batches as a feed source puts them: on the devices, split as the
        # placeholders' specs say, the stack axis whole (the program takes them as they are)
        split = {
            x: pjrt.put(X[2:], pjrt.placed(sess.devices, tiling(P(None, "data", None), mesh, 3))),
            y: pjrt.put(Y[2:], pjrt.placed(sess.devices, tiling(P(None, "data"), mesh, 2))),
        }
        second, none = sess.run([loss, train], split, steps=2)
        variables = sess.get(g.variables)
    assert none is None
    np.testing.assert_array_equal(np.hstack([first, second]), np.array([r[0] for r in runs]))
    for v, have, want in zip(g.variables, variables, want_vars):
        np.testing.assert_array_equal(have, want, err_msg=v.var_name)


def running_sum():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n",), sg.float64, name="x")
        total = sg.Variable(np.float64(0.0), name="total")
        new = sg.assign_add(total, x.sum())
        draw = sg.random.Generator(3).uniform((2,))
    return g, x, total, new, draw


def test_the_carry_against_numpy_and_the_fast_path_of_a_repeated_call():
    g, x, total, new, draw = running_sum()
    rows = np.array([[1.5, -2.0, 0.0], [-0.0, 3.0, -0.0], [4.0, 1e300, -1e300], [0.25, np.inf, 0.125]])
    with sg.Session(g) as sess:
        first = sess.run(new, {x: rows[:1]}, steps=1)  # k = 1, the smallest loop
        np.testing.assert_array_equal(first, [-0.5])
        compiles = sess.stats.compiles
        got = sess.run(new, {x: rows[1:3]}, steps=2)
        got2 = sess.run(new, {x: rows[2:4]}, steps=2)
        assert sess.stats.compiles == compiles + 1  # one loop per k; the second call repeats it
        shorter = sess.run(new, {x: rows[:2, :2]}, steps=2)  # another size of the symbolic dim n
        empty = sess.run([new, x], {x: np.zeros((2, 0))}, steps=2)  # n = 0: empty batches
        sess.set(total, 0.0)
        draws = sess.run(draw, steps=3)  # no feeds at all: a Generator still advances per step
    sums = rows.sum(axis=1)
    np.testing.assert_array_equal(got, np.cumsum(sums[:3])[1:])
    np.testing.assert_array_equal(got2, np.cumsum([got[-1], *sums[2:4]])[1:])
    np.testing.assert_array_equal(shorter, np.cumsum([got2[-1], *rows[:2, :2].sum(axis=1)])[1:])
    np.testing.assert_array_equal(empty[0], [shorter[-1]] * 2)
    assert empty[1].shape == (2, 0)
    with sg.Session(g) as sess:
        want = np.stack([sess.run(draw) for _ in range(3)])
    np.testing.assert_array_equal(draws, want)
    assert len({tuple(r) for r in draws.tolist()}) == 3
    assert np.isinf(got2[-1])  # an infinity carried through the loop


class Source:
    """A feed source (the protocol sg.data.prefetch implements): the next batches on request."""

    def __init__(self, x, data, where=None):
        self.x, self.data, self.where, self.position, self.asked = x, data, where, 0, []

    def next_feeds(self, steps):
        self.asked.append(steps)
        n = 1 if steps is None else steps
        batch = self.data[self.position : self.position + n]
        self.position += n
        value = batch[0] if steps is None else batch
        return {self.x: value if self.where is None else pjrt.put(value, self.where)}


def test_feed_sources_and_device_arrays():
    g, x, total, new, _ = running_sum()
    rows = RNG.normal(size=(6, 3))
    source = Source(x, rows)
    with sg.Session(g) as sess:
        a = sess.run(new, source, steps=2)
        b = sess.run(new, source)  # one batch, no steps
        c = sess.run(new, source, steps=3)
        placed = pjrt.put(rows[:2], pjrt.placed(sess.devices))
        d = sess.run(new, {x: placed}, steps=2)
        placing = Source(x, rows, pjrt.placed(sess.devices))  # a source of device arrays
        e = [sess.run(new, placing), sess.run(new, placing, steps=2), sess.run(new, placing)]
        f = sess.run_async(new, placing).result()
        one = pjrt.put(rows[5], pjrt.placed(sess.devices))  # a plain dict of device arrays, run twice
        h = [sess.run(new, {x: one}) for _ in range(2)]
    assert source.asked == [2, None, 3] and source.position == 6
    assert placing.asked == [None, 2, None, None]
    want = np.cumsum(rows.sum(axis=1))
    np.testing.assert_array_equal(a, want[:2])
    np.testing.assert_array_equal(b, want[2])
    np.testing.assert_array_equal(c, want[3:6])
    np.testing.assert_array_equal(d, want[5] + np.cumsum(rows[:2].sum(axis=1)))
    np.testing.assert_array_equal(np.hstack(e + [f]), np.cumsum([d[-1], *rows[:5].sum(axis=1)])[1:])
    np.testing.assert_array_equal(h, np.cumsum([f, rows[5].sum(), rows[5].sum()])[1:])


def test_a_checked_session_runs_the_steps_one_by_one():
    g, x, total, new, _ = running_sum()
    with sg.Session(g, check_numerics=True) as sess:
        got = sess.run(new, {x: np.ones((3, 2))}, steps=3)
        np.testing.assert_array_equal(got, [2.0, 4.0, 6.0])
        with pytest.raises(sg.ExecutionError, match="nan or an infinity"):
            sess.run(new, {x: np.array([[1.0], [np.inf]])}, steps=2)
        assert sess.get(total) == 7.0  # the first step ran, the checked second wrote nothing


def test_bad_steps_and_feeds_are_feed_errors_at_the_users_line():
    g, x, total, new, _ = running_sum()
    here = __file__.rsplit("/", 1)[-1]
    bad_steps_line = line_of(__file__, "# " + "bad steps")
    short_line = line_of(__file__, "# " + "too few batches")
    with sg.Session(g) as sess:
        for bad in (0, -1, 1.5, True, "2"):
            with pytest.raises(sg.FeedError, match=rf"{here}:{bad_steps_line}:.*int >= 1"):
                sess.run(new, {x: np.ones((2, 3))}, steps=bad)  # bad steps
        with pytest.raises(
            sg.FeedError, match=rf"{here}:{short_line}:.*expected shape \(3, n\), got \(2, 3\)"
        ):
            sess.run(new, {x: np.ones((2, 3))}, steps=3)  # too few batches
        with pytest.raises(sg.FeedError, match=r"expected shape \(2, n\), got \(2,\)"):
            sess.run(new, {x: np.ones(2)}, steps=2)
        placed = pjrt.put(np.ones((2, 3), np.float32), pjrt.placed(sess.devices))
        with pytest.raises(sg.FeedError, match="dtype float32, expected float64"):
            sess.run(new, {x: placed}, steps=2)
        with pytest.raises(sg.FeedError, match="placeholder x"):
            sess.run(new, None, steps=2)
        with pytest.raises(sg.FeedError, match="not a mapping"):
            sess.run(new, _Broken(), steps=2)
        assert sess.get(total) == 0.0  # nothing ran


class _Broken:
    def next_feeds(self, steps):
        return [1, 2]


def test_a_short_loop_runs_inline_and_one_with_a_loop_inside_stays_interruptible():
    """A steps=k loop ends after k trips: with short trips it runs in the calling thread (no
    hand-off to the Ctrl-C worker); a step with a while_loop of its own may never end, so its
    loop still runs where Ctrl-C can stop the wait. Both still give the running sums numpy does."""
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float64, name="x")
        total = sg.Variable(np.float64(0.0), name="total")
        plain = sg.assign_add(total, x.sum())
        counted = sg.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + x.sum()), (0, np.float64(0.0))
        )
        looped = sg.assign_add(total, counted[1])
    rows = np.array([[1.0, -0.0, 2.5], [np.inf, 0.0, 0.0], [-1.0, 3.0, 0.5]])
    with sg.Session(g) as sess:
        got_plain = sess.run(plain, {x: rows}, steps=3)
        sess.set(total, 0.0)
        got_looped = sess.run(looped, {x: rows}, steps=3)
        flags = {key[1][0].name: p.interruptible for key, p in sess._cache.items() if key[0] == "steps"}
    np.testing.assert_array_equal(got_plain, np.cumsum(rows.sum(axis=1)))
    np.testing.assert_array_equal(got_looped, np.cumsum(3 * rows.sum(axis=1)))
    assert flags == {plain.name: False, looped.name: True}


# -- run_async's repeated short runs gathered into loops (gathering.py) ----------------------------
# Gathering waits until the runs have cost what their program's compile did; these tests take that
# threshold away (``Gatherer.worth`` always yes), so a repeated run is gathered from its second
# run_async on. Its loops run where run_async is called, or (as long ones do) on a worker thread.
@pytest.fixture(params=["inline", "worker"])
def gather_at_once(request, monkeypatch):
    monkeypatch.setattr(gathering.Gatherer, "worth", lambda self, program, seconds: True)
    if request.param == "worker":
        monkeypatch.setattr(async_run, "WORKER_FLOPS", 0.0)


def loops_gathered(sess) -> int:
    return sum(f"steps={gathering.CHUNK}" in r for r in sess.stats.reasons)


def test_gathered_runs_take_effect_in_order_on_the_values_given_at_the_start(gather_at_once):
    """numpy's cumsum the oracle: each run sees the writes of the runs started before it, a get or
    set between them sees or sets its moment, and a run keeps the feed it was given though the
    caller overwrites that array right after."""
    rows = np.random.default_rng(3).normal(size=(50, 3))
    rows[5] = [0.0, -0.0, 2.0**-1022]  # (no subnormal: XLA on CPU flushes them, as for jax)
    rows[30] = [np.inf, -1.0, 2.0]
    g, x, total, new, _ = running_sum()
    with g:
        doubled = x * 2.0
    buffer = np.empty(3)
    handles, want, seen = [], [], {}
    with sg.Session(g) as sess:
        running = 0.0
        for i, row in enumerate(rows):
            buffer[:] = row
            handles.append(sess.run_async([new, doubled], {x: buffer}))
            running += row.sum()
            want.append(running)
            if i == 20:  # 16 ran as one loop when the 18th was started; the get runs the rest first
                seen["get"] = sess.get(total)
            if i == 26:
                sess.set(total, 0.5)
                running = 0.5
            if i == 40:
                seen["done"] = handles[-2].done()  # runs the gathered ones now
        assert loops_gathered(sess) == 1
    assert seen["get"] == np.cumsum(rows[:21].sum(axis=1))[-1] and seen["done"]
    got = [h.result() for h in handles]
    np.testing.assert_array_equal([n for n, _ in got], want)
    np.testing.assert_array_equal(np.stack([d for _, d in got]), 2 * rows)


def test_gathered_training_steps_equal_single_runs_bit_for_bit(gather_at_once):
    """Dropout keys advance per step and Adam's slots carry on, in loops of CHUNK and alone."""
    g, x, y, loss, logits, train = build()
    steps = [{x: X[i % K], y: Y[i % K]} for i in range(2 * gathering.CHUNK + 3)]
    runs, want_vars = single_runs(g, [loss, train], steps)
    with sg.Session(g, seed=7) as sess:
        handles = [sess.run_async([loss, train], feeds) for feeds in steps]
        variables = sess.get(g.variables)
        got = [h.result() for h in handles]
        assert loops_gathered(sess) == 1
    np.testing.assert_array_equal([r[0] for r in got], [r[0] for r in runs])
    assert all(r[1] is None for r in got)
    for v, have, want in zip(g.variables, variables, want_vars):
        np.testing.assert_array_equal(have, want, err_msg=v.var_name)


def test_what_is_not_gathered(gather_at_once):
    """Runs fed device arrays, a program with a host callback and a checked Session's runs are
    launched one by one as before: no loop is compiled for them."""
    g, x, total, new, _ = running_sum()
    called = []
    with g:
        logged = sg.assign_add(total, sg.pure_callback(lambda v: called.append(1) or v, x.type, x).sum())
    rows = np.arange(60.0).reshape(20, 3)
    with sg.Session(g) as sess:
        [sess.run_async(logged, {x: row}) for row in rows]
        assert sess.run(total) == rows.sum() and len(called) == 20
        placed = [pjrt.put(row, pjrt.placed(sess.devices)) for row in rows]
        [sess.run_async(new, {x: row}) for row in placed]
        assert sess.run(total) == 2 * rows.sum() and loops_gathered(sess) == 0
    with sg.Session(g, check_numerics=True) as sess:
        [sess.run_async(new, {x: row}) for row in rows]
        assert sess.run(total) == rows.sum() and loops_gathered(sess) == 0


def test_a_short_loop_is_not_gathered_until_its_runs_paid_for_the_compile():
    g, x, total, new, _ = running_sum()
    rows = np.arange(120.0).reshape(40, 3)
    with sg.Session(g) as sess:
        handles = [sess.run_async(new, {x: row}) for row in rows]
        assert handles[-1].result() == rows.sum()
        assert loops_gathered(sess) == 0  # 40 runs of some microseconds: far below MIN_SECONDS


def test_gathered_runs_keep_their_session_and_no_longer(gather_at_once):
    """Handles of gathered runs keep a dropped Session until they are read; then it goes at once
    (no reference cycle: its buffers are not left to the garbage collector)."""
    g, x, total, new, _ = running_sum()
    gc.disable()
    try:
        sess = sg.Session(g)
        handles = [sess.run_async(new, {x: row}) for row in np.ones((5, 3))]
        alive = weakref.ref(sess)
        del sess
        assert [h.result() for h in handles] == [3.0, 6.0, 9.0, 12.0, 15.0]
        del handles
        assert alive() is None
    finally:
        gc.enable()


def test_a_caller_that_reads_each_run_gets_launched_runs_again(gather_at_once):
    """Gathered runs read one at a time never fill a loop: after SHORT_FLUSHES such flushes the runs
    are launched again (then timed anew; here, with the threshold off, gathered at once again)."""
    g, x, total, new, _ = running_sum()
    rows = np.random.default_rng(4).normal(size=(gathering.SHORT_FLUSHES + 4, 3))
    with sg.Session(g) as sess:
        kinds, got = [], []
        for row in rows:
            handle = sess.run_async(new, {x: row})
            kinds.append(type(handle) is gathering.GatheredHandle)
            got.append(handle.result())
        assert loops_gathered(sess) == 0
    last = 2 + gathering.SHORT_FLUSHES  # the first makes the fast path, the second switches it on
    assert not any(kinds[:2]) and all(kinds[2:last]) and not kinds[last] and kinds[last + 1]
    np.testing.assert_array_equal(got, np.cumsum(rows.sum(axis=1)))


def test_a_smaller_batch_between_does_not_start_the_count_again(gather_at_once):
    """An epoch's last, smaller batch replaces the run's fast path (its Repeat); the time the runs
    have summed, and so their gathering, is their program's and survives it: the run after the
    small one makes the fast path again, and the next is gathered at once."""
    g, x, total, new, _ = running_sum()
    rows = np.random.default_rng(5).normal(size=(12, 3))
    with sg.Session(g) as sess:
        kinds, got = [], []
        for i, row in enumerate(rows):
            feed = row[:2] if i == 5 else row
            handle = sess.run_async(new, {x: feed})
            kinds.append(type(handle) is gathering.GatheredHandle)
            got.append(handle)
        values = [h.result() for h in got]
    assert kinds == [False, False, True, True, True, False, False, True, True, True, True, True]
    sums = [row[:2].sum() if i == 5 else row.sum() for i, row in enumerate(rows)]
    np.testing.assert_array_equal(values, np.cumsum(sums))
