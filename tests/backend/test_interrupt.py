"""Ctrl-C (SIGINT) during a long sess.run gives KeyboardInterrupt back within a second and leaves
the Session usable; the abandoned program runs to its end, and the variables it writes take
its values then (until then, runs that need them are refused, naming them)."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.backend import interrupt

SIGNAL_AFTER = 0.25  # seconds into the run
LONG = 1.5  # seconds the interrupted run would take


@pytest.fixture(autouse=True)
def _no_run_left_behind():
    """Each test runs with Python's own Ctrl-C handler (a library another test file loaded into
    this worker may have put its own there: in the whole suite one did, and no SIGINT came back as
    KeyboardInterrupt), and ends when the programs it abandoned have ended, so none burns a core later."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
        assert interrupt.wait_abandoned(timeout=60)
    finally:
        signal.signal(signal.SIGINT, before if before is not None else signal.SIG_DFL)


def _loop(n, start):
    """A while_loop XLA cannot shorten: n steps of acc = sin(acc) + 1; gives (n, acc)."""
    return sg.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, snp.sin(c[1]) + 1.0), (0, start))


def _oracle(steps: int, start=0.0) -> np.float32:
    acc = np.float32(start)
    for _ in range(steps):
        acc = np.float32(np.sin(acc) + np.float32(1.0))
    return acc


def _steps_for(sess, fetch, n, seconds: float, feeds=None) -> int:
    """How many loop steps take about ``seconds`` here (also compiles the program): from the
    fastest of three timed runs, since a run slowed by a busy neighbour would undercount."""
    small = 1_000_000
    sess.run(fetch, {n: np.int32(10), **(feeds or {})})
    times = []
    for _ in range(3):
        start = time.perf_counter()
        sess.run(fetch, {n: np.int32(small), **(feeds or {})})
        times.append(time.perf_counter() - start)
    return int(min(2**31 - 1, seconds * small / min(times)))


def _ctrl_c(sent: threading.Event) -> None:
    sent.set()
    os.kill(os.getpid(), signal.SIGINT)


def _interrupted(run, steps: int) -> tuple[float, int]:
    """Call ``run(steps)`` with SIGINT sent to this process SIGNAL_AFTER seconds in; returns the
    seconds until KeyboardInterrupt came back, and the steps of the run it interrupted. A run that
    ends before the signal (the steps were measured on a busy machine) is tried again, longer."""
    for _ in range(4):
        sent = threading.Event()
        timer = threading.Timer(SIGNAL_AFTER, _ctrl_c, (sent,))
        start = time.perf_counter()
        timer.start()
        try:
            run(steps)
        except KeyboardInterrupt:
            return time.perf_counter() - start, steps
        finally:
            timer.cancel()
        assert not sent.is_set(), "the run went on past Ctrl-C"
        steps = min(2**31 - 1, steps * 4)
    raise AssertionError(f"a run of {steps} steps still ended before Ctrl-C came")


def _when_available(fn, deadline: float = 60.0):
    """``fn()`` once it stops raising ExecutionError (the abandoned run has ended)."""
    end = time.monotonic() + deadline
    while True:
        try:
            return fn()
        except sg.ExecutionError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def test_ctrl_c_interrupts_a_long_loop_and_the_session_stays_usable():
    g = sg.Graph()
    with g:
        n = sg.placeholder((), sg.int32, name="n")
        p = sg.placeholder((3,), sg.float32, name="p")
        count, acc = _loop(n, 0.0)
        q = p * 2 + 1
    with sg.Session(g) as sess:
        elapsed, _ = _interrupted(lambda k: sess.run(acc, {n: np.int32(k)}), _steps_for(sess, acc, n, LONG))
        assert elapsed < SIGNAL_AFTER + 0.75
        # the Session works at once for other programs, and for this one
        pv = np.array([1.0, -2.0, 0.5], np.float32)
        np.testing.assert_array_equal(sess.run(q, {p: pv}), pv * 2 + 1)
        c, a = sess.run([count, acc], {n: np.int32(1000)})
        assert c == 1000
        np.testing.assert_allclose(a, _oracle(1000), rtol=1e-5)


def test_variables_an_interrupted_run_writes_are_pending_until_it_ends():
    g = sg.Graph()
    with g:
        n = sg.placeholder((), sg.int32, name="n")
        counter = sg.Variable(np.int32(0), name="counter")
        other = sg.Variable(np.float32(0.0), name="other")
        untouched = sg.Variable(np.arange(3, dtype=np.float32), name="untouched")
        count, acc = _loop(n, 0.0)
        update = sg.group(counter.assign(count), other.assign(acc))
        bump = untouched.assign_add(1.0)
        counter_again = counter * 1
    with sg.Session(g) as sess:
        elapsed, steps = _interrupted(
            lambda k: sess.run(update, {n: np.int32(k)}), _steps_for(sess, update, n, LONG)
        )
        assert elapsed < SIGNAL_AFTER + 0.75
        with pytest.raises(sg.ExecutionError, match=r"variables counter, other are being updated by a run "):
            sess.get([counter, other])
        with pytest.raises(sg.ExecutionError, match=r"variable counter is being updated.*Ctrl-C"):
            sess.run(counter_again)
        sess.set(other, np.float32(-5.0))  # a new value at once: the interrupted run's is dropped
        assert sess.get(other) == -5.0
        sess.run(bump)  # runs that do not need the pending variables write as usual
        np.testing.assert_array_equal(sess.get(untouched), np.arange(3, dtype=np.float32) + 1)
        assert _when_available(lambda: sess.get(counter)) == steps  # the run's value, once it ended
        assert sess.get(other) == -5.0


def test_a_run_may_update_a_variable_that_an_interrupted_run_still_reads():
    g = sg.Graph()
    with g:
        n = sg.placeholder((), sg.int32, name="n")
        w = sg.Variable(np.float32(0.5), name="w")
        count, acc = _loop(n, w)
        double = w.assign(w * 2)  # donates w's buffer, which the interrupted run still reads
    with sg.Session(g) as sess:
        elapsed, _ = _interrupted(lambda k: sess.run(acc, {n: np.int32(k)}), _steps_for(sess, acc, n, LONG))
        assert elapsed < SIGNAL_AFTER + 0.75
        sess.run(double)
        sess.run(double)
        assert sess.get(w) == 2.0
        np.testing.assert_allclose(sess.run(acc, {n: np.int32(100)}), _oracle(100, 2.0), rtol=1e-5)
