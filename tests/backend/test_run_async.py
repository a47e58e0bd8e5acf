"""sess.run_async: a handle whose result() gives what run gives, for runs started in order.

Runs are started without reading any result, then read back: a running sum
(numpy's cumsum the oracle) shows that each run saw the writes of the runs
started before it, reads interleaved with writes see the value of their
moment, a steps=k run goes through the same handle, and errors of every
stage (a bad feed, a host callback that raises) surface on result(),
naming the user's line.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.backend import pjrt
from stablegraph.test_util import line_of


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


class _FailingToken:
    """A run's token that reports the run failed on the device after it was started."""

    def block_until_ready(self):
        raise pjrt.XlaRuntimeError("INTERNAL: the device gave up (planted)")


def test_a_run_that_fails_after_it_started_loses_the_variables_it_donated(monkeypatch):
    g, x, total, new, checked, seen = build()
    with g:
        train = sg.group(new)  # no fetched value: the handle waits on the run's token
    with sg.Session(g) as sess:
        sess.run(new, {x: np.ones(2)})
        launch = pjrt.Executable.launch

        def failing_later(self, values, token=True):
            outs, real = launch(self, values, token)
            if real is not None:
                real.block_until_ready()
            return outs, _FailingToken() if token else real

        monkeypatch.setattr(pjrt.Executable, "launch", failing_later)
        handle = sess.run_async(train, {x: np.ones(2)})
        with pytest.raises(sg.ExecutionError, match=r"planted[\s\S]*lost the values this run was writing"):
            handle.result()
        monkeypatch.undo()
        with pytest.raises(sg.ExecutionError, match="total lost its value"):
            sess.get(total)
        sess.set(total, 0.5)
        assert sess.run(new, {x: np.ones(2)}) == 2.5
