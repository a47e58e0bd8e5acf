"""Runs that run_async started on a worker thread, never read, still end before the process
exits: the exit hook waits for them and for the worker that works through their queue (a
worker coming back from C++ during interpreter teardown aborts the process), and the runs'
writes happened, in the order started (their callbacks printed after a pause)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_the_process_exits_cleanly_after_the_unread_run_ends():
    script = textwrap.dedent(
        """
        import time
        import numpy as np, stablegraph as sg
        from stablegraph.backend import async_run

        async_run.WORKER_FLOPS = 0.0  # every run_async on a worker, as long programs are

        def slow(v):
            time.sleep(0.2)
            print("run ended", float(v.sum()), flush=True)
            return v

        g = sg.Graph()
        with g:
            x = sg.placeholder((2,), sg.float64, name="x")
            total = sg.Variable(np.float64(0.0), name="total")
            step = sg.assign_add(total, sg.pure_callback(slow, sg.TensorType((2,), sg.float64), x).sum())
        sess = sg.Session(g)
        handle = sess.run_async(step, {x: np.array([1.5, -0.0])})
        queued = [sess.run_async(step, {x: np.array(row)}) for row in ([np.inf, 1.0], [-2.0, 0.25])]
        print("started", handle.done(), queued[-1].done(), flush=True)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "FATAL" not in done.stderr, done.stderr
    ended = ["run ended 1.5", "run ended inf", "run ended -1.75"]
    assert done.stdout.split("\n")[:4] == ["started False False", *ended], done.stdout
