"""sess.run_async: a handle whose result() gives what run gives, for runs started in order.

Runs are started without reading any result, then read back: a running sum
(numpy's cumsum the oracle) shows that each run saw the writes of the runs
started before it, reads interleaved with writes see the value of their
moment, a steps=k run goes through the same handle, and errors of every
stage (a bad feed, a host callback that raises) surface on result(),
naming the user's line. Every test runs three times: with runs launched
inline; with every program started on a worker thread (async_run.WORKER_FLOPS
0), as long programs on one CPU device are; and with every repeated run
gathered from its second run on (gathering.py, its time threshold off), as
the runs of a long loop of short steps are.
"""

from __future__ import annotations

import threading

import ml_dtypes
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.backend import async_run, gathering, pjrt
from stablegraph.test_util import line_of


# Only one-device CPU runs go to worker threads (async_run.on_worker); on a GPU every run is launched
# where run_async is called (on an H100, one with a host callback had ended when run_async returned).
@pytest.fixture(
    autouse=True, params=["inline", "worker", "gathered"] if pjrt.DEFAULT_PLATFORM == "cpu" else ["inline"]
)
def where_runs_start(request, monkeypatch):
    """Runs launched where run_async is called, every one started on a worker thread, or repeated
    runs gathered into loops without waiting for them to pay for the loop's compile."""
    if request.param == "worker":
        monkeypatch.setattr(async_run, "WORKER_FLOPS", 0.0)
    if request.param == "gathered":
        monkeypatch.setattr(gathering.Gatherer, "worth", lambda self, program, seconds: True)
    return request.param


def fails_above(v):
    if v.max() > 100:
        raise ValueError("value above 100")
    return v


def build():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n",), sg.float64, name="x")
        total = sg.Variable(np.float64(0.0), name="total")
        new = sg.assign_add(total, x.sum())
        checked = sg.assign_add(
            total, sg.pure_callback(fails_above, sg.TensorType(("n",), sg.float64), x).sum()
        )
        seen = total + 0.0
    return g, x, total, new, checked, seen


def test_runs_take_effect_in_the_order_started():
    g, x, total, new, checked, seen = build()
    rows = np.random.default_rng(1).normal(size=(5, 3))
    rows[2] = [0.0, -0.0, np.inf]
    rows[3] = [-np.inf, 1.0, 2.0]  # inf - inf: nan from here on
    with sg.Session(g) as sess:
        handles = [sess.run_async({"total": new}, {x: row}) for row in rows[:2]]
        before = sess.run_async(seen)  # reads between writes see the value of their moment
        handles += [sess.run_async({"total": new}, {x: row}) for row in rows[2:]]
        after = sess.run_async([seen, new], {x: np.zeros(1)})
        got = [h.result()["total"] for h in handles]
        after.result()  # (the last one started: on a worker it may still run until read)
        assert all(h.done() for h in [*handles, before, after])
        assert handles[0].result() is handles[0].result()  # read once, kept
        with np.errstate(invalid="ignore"):  # inf - inf
            np.testing.assert_array_equal(got, np.cumsum(rows.sum(axis=1)))
        np.testing.assert_array_equal(before.result(), rows[:2].sum())
        assert np.isnan(after.result()[0]) and np.isnan(after.result()[1])
        np.testing.assert_array_equal(sess.get(total), np.nan)


def test_steps_through_a_handle_and_the_next_run_enqueued_behind_it():
    g, x, total, new, checked, seen = build()
    stacked = np.arange(12.0).reshape(4, 3)
    with sg.Session(g) as sess:
        loop = sess.run_async(new, {x: stacked}, steps=4)
        one = sess.run_async(new, {x: np.ones(2)})
        twice = sess.run_async(new, {x: stacked[:2]}, steps=2)
        np.testing.assert_array_equal(loop.result(), np.cumsum(stacked.sum(axis=1)))
        np.testing.assert_array_equal(one.result(), 66.0 + 2.0)
        np.testing.assert_array_equal(twice.result(), 68.0 + np.cumsum(stacked[:2].sum(axis=1)))
        assert sess.run(total) == 68.0 + 15.0


def test_errors_surface_on_the_handle_naming_the_users_line():
    g, x, total, new, checked, seen = build()
    here = __file__.rsplit("/", 1)[-1]
    with sg.Session(g) as sess:
        bad_feed = sess.run_async(new, {x: np.ones((2, 2))})  # a feed of the wrong rank
        bad_steps = sess.run_async(new, {x: np.ones((2, 2))}, steps=0)
        ok = sess.run_async(checked, {x: np.ones(3)})
        failing = sess.run_async(checked, {x: np.full(3, 1e3)})
        assert bad_feed.done() and bad_steps.done()
        with pytest.raises(sg.FeedError, match=rf"{here}:{line_of(__file__, 'name=' + chr(34) + 'x')}:"):
            bad_feed.result()
        with pytest.raises(sg.FeedError, match=rf"{here}:{line_of(__file__, 'steps=0)')}:.*int >= 1"):
            bad_steps.result()
        assert ok.result() == 3.0
        callback_line = line_of(__file__, "sg.pure_callback(fails_above")
        with pytest.raises(
            sg.ExecutionError, match=rf"{here}:{callback_line}.*raised ValueError: value above 100"
        ):
            failing.result()  # (at once or when the device ran it: the same error either way)
        assert (
            sess.get(total) == 3.0
        )  # the failed run wrote nothing (a program with callbacks donates nothing)
        np.testing.assert_array_equal(sess.run_async(new, {x: np.ones(2)}).result(), 5.0)


def test_a_run_keeps_the_feeds_it_was_started_with():
    """The caller overwrites one array for every run: each run still adds the row it was given
    (on a worker, the run reads its feeds after run_async returned; gathered, they wait longer)."""
    g, x, total, new, checked, seen = build()
    rows = np.random.default_rng(2).normal(size=(40, 3))
    buffer = np.empty(3)
    with sg.Session(g) as sess:
        handles = []
        for row in rows:
            buffer[:] = row
            handles.append(sess.run_async(new, {x: buffer}))
        got = [h.result() for h in handles]
    np.testing.assert_array_equal(got, np.cumsum(rows.sum(axis=1)))


class _FailingToken:
    """A run's token that reports the run failed on the device after it was started."""

    def block_until_ready(self):
        raise pjrt.XlaRuntimeError("INTERNAL: the device gave up (planted)")


def test_a_run_that_fails_after_it_started_loses_the_variables_it_donated(where_runs_start):
    g, x, total, new, checked, seen = build()
    with g:
        train = sg.group(new)  # no fetched value: the handle waits on the run's token
    with sg.Session(g) as sess, pytest.MonkeyPatch.context() as patch:
        sess.run(new, {x: np.ones(2)})
        for _ in range(2):  # (gathered: the first makes the fast path, the second switches it)
            sess.run_async(train, {x: np.ones(2)}).result()
        launch, call = pjrt.Executable.launch, pjrt.Executable.__call__

        def failing_later(self, values, token=True):
            outs, real = launch(self, values, token)
            if real is not None:
                real.block_until_ready()
            return outs, _FailingToken() if token else real

        def failing_on_worker(self, values):  # the run ends (its buffers donated), then fails
            call(self, values)
            _FailingToken().block_until_ready()

        if where_runs_start == "inline":
            patch.setattr(pjrt.Executable, "launch", failing_later)
            lost = "lost the values this run was writing"
        else:
            patch.setattr(pjrt.Executable, "__call__", failing_on_worker)
            lost = "total lost its value"
        handle = sess.run_async(train, {x: np.ones(2)})
        with pytest.raises(sg.ExecutionError, match=rf"planted[\s\S]*{lost}"):
            handle.result()
        patch.undo()
        with pytest.raises(sg.ExecutionError, match="total lost its value"):
            sess.get(total)
        sess.set(total, 0.5)
        assert sess.run(new, {x: np.ones(2)}) == 2.5
        assert not any("steps=" in r for r in sess.stats.reasons)  # a single gathered run goes alone


def _slow_accumulator(go: threading.Event, why: str):
    """A graph whose run adds x's sum to a Variable through a callback that waits for ``go``
    (10 s at most, then raises TimeoutError(why)): the run stays inside its program until the
    caller says go."""

    def wait_for_caller(v):
        if not go.wait(10.0):
            raise TimeoutError(why)
        return v

    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float64, name="x")
        total = sg.Variable(np.float64(0.0), name="total")
        slow = sg.assign_add(
            total, sg.pure_callback(wait_for_caller, sg.TensorType((3,), sg.float64), x).sum()
        )
    return g, x, total, slow


def test_a_long_run_starts_on_a_worker_and_later_calls_wait_for_it(where_runs_start):
    """On a worker, run_async returns while the run is still inside its program (a callback
    there waits for the caller); inline, the run has ended when it returns. Either way a get or
    run after it sees its write."""
    go = threading.Event()
    g, x, total, slow = _slow_accumulator(go, "run_async did not return while its run was waiting")
    rows = np.array([[1.5, -0.0, 2.0], [np.inf, 1.0, 0.5]])
    with sg.Session(g) as sess:
        if where_runs_start != "worker":  # (a program with a callback is never gathered)
            go.set()
        handle = sess.run_async(slow, {x: rows[0]})
        assert handle.done() == (where_runs_start != "worker")  # on a worker: waiting for the go
        go.set()
        np.testing.assert_array_equal(sess.get(total), rows[0].sum())  # waits for the run
        assert handle.done() and handle.result() == rows[0].sum()
        second = sess.run_async(slow, {x: rows[1]})
        assert sess.run(total) == np.inf and second.result() == np.inf


def test_runs_started_behind_a_running_one_queue_without_waiting(where_runs_start, monkeypatch):
    """On a worker, run_async returns at once while the run before it is still inside its program
    (the caller enqueues step k + 1 while step k computes, as jax's dispatch does); the queued
    runs then take effect in the order started, a reader between writers sees its moment, and a
    queue longer than QUEUED makes the caller wait for the oldest. Inline, each run has ended
    when run_async returns."""
    from stablegraph.backend import state as state_module

    monkeypatch.setattr(state_module, "QUEUED", 2)
    go = threading.Event()
    rows = np.array([[1.5, -0.0, 2.0], [np.inf, 1.0, 0.5], [-1.0, 4.0, 0.25], [2.0, 2.0, 2.0]])
    g, x, total, slow = _slow_accumulator(go, "run_async waited for the run before it")
    with g:
        seen = total * 1.0
    with sg.Session(g) as sess:
        if where_runs_start != "worker":  # (a program with a callback is never gathered)
            go.set()
        first = sess.run_async(slow, {x: rows[0]})
        queued = [sess.run_async(slow, {x: rows[1]}), sess.run_async(seen)]  # first still waits
        assert not first.done() if where_runs_start == "worker" else first.done()
        go.set()
        later = [sess.run_async(slow, {x: row}) for row in rows[2:]]  # the third waits for a turn
        got = [h.result() for h in [first, queued[0], *later]]
        np.testing.assert_array_equal(got, np.cumsum(rows.sum(axis=1)))  # (inf from the second on)
        assert queued[1].result() == np.inf
        assert sess.run(total) == np.cumsum(rows.sum(axis=1))[-1]


def test_fetches_copied_off_the_device_read_back_in_order():
    """Results numpy cannot view in place (bfloat16 here; on a GPU, every result) have their
    host copies started when the run starts (pjrt.start_host_copies): several runs started, then
    read, give each run's own values, as run gives them."""
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x")
        total = sg.Variable(np.zeros(4, np.float32), name="total")
        new = sg.assign_add(total, x)
        half = new.astype(sg.bfloat16)
    rows = np.random.default_rng(2).normal(size=(6, 4)).astype(np.float32)
    rows[1] = [0.0, -0.0, np.inf, 1e-40]
    with sg.Session(g) as sess:
        handles = [sess.run_async([half, new], {x: row}) for row in rows[:5]]
        last = sess.run([half, new], {x: rows[5]})
        sums = np.cumsum(rows, axis=0)
        for h, want in zip(handles, sums[:5]):
            got_half, got = h.result()
            np.testing.assert_array_equal(got, want)
            assert got_half.dtype == ml_dtypes.bfloat16
            np.testing.assert_array_equal(got_half, want.astype(ml_dtypes.bfloat16))
        np.testing.assert_array_equal(last[1], sums[5])
        np.testing.assert_array_equal(last[0], sums[5].astype(ml_dtypes.bfloat16))
