"""Two (or three) processes on this machine join through jaxlib's distributed runtime and run one program.

Each process has 2 CPU devices; the mesh spans all of them, so the psum in
sg.spmd and the gradient's reduction cross the process boundaries (gloo over
TCP). Results are checked against numpy on the global batch.
"""

import importlib.util
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import stablegraph as sg

WORKER = Path(__file__).with_name("worker.py")
DYING_WORKER = Path(__file__).with_name("dying_worker.py")


def free_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def run_group(tmp_path, count: int = 2):
    address = free_address()
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), address, str(pid), str(count), str(tmp_path / "ckpt" / "m")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for pid in range(count)
    ]  # fmt: skip
    outputs = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("a worker process hung")
        assert p.returncode == 0, err[-3000:]
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    return outputs


@pytest.mark.parametrize("count", [2, 3])
def test_data_parallel_step_across_processes(tmp_path, count):
    spec = importlib.util.spec_from_file_location("worker", WORKER)
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)  # the workers' data, for the oracle
    X, W = worker.X, worker.W  # noqa: N806
    reports = run_group(tmp_path, count)
    y = X @ W
    grad = X.T @ (2 * y) / y.size
    rows = len(X) // count
    for pid, r in enumerate(reports):
        assert (r["process"], r["processes"], r["devices"]) == (pid, count, 2 * count)
        np.testing.assert_allclose(r["total"], X.sum(), rtol=1e-6)  # psum over devices of every process
        np.testing.assert_allclose(
            r["y"], y[pid * rows : (pid + 1) * rows], rtol=1e-6, atol=1e-6
        )  # its block
        np.testing.assert_allclose(r["loss"], (y**2).mean(), rtol=1e-6)
        np.testing.assert_allclose(r["w"], W - 0.1 * grad, rtol=1e-5, atol=1e-6)
    g = sg.Graph()  # the checkpoint the group wrote restores in a plain single-process Session
    with g:
        w = sg.Variable(sg.nn.initializers.zeros, (3, 2), name="w")
        sg.optim.sgd(0.1).minimize((w**2).sum())
    with sg.Session(g) as sess:
        sess.restore(str(tmp_path / "ckpt" / "m"))
        np.testing.assert_allclose(sess.get(w), W - 0.1 * grad, rtol=1e-5, atol=1e-6)


def test_a_peer_that_never_starts_is_a_distributed_error_after_the_timeout():
    code = (
        "import stablegraph as sg, time\n"
        "t = time.time()\n"
        "try:\n"
        f"    sg.distributed.initialize('{free_address()}', 2, 0, timeout=3)\n"
        "except sg.DistributedError as e:\n"
        "    print('DistributedError', round(time.time() - t), str(e))\n"
    )
    start = time.time()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.startswith("DistributedError"), out.stdout + out.stderr[-2000:]
    assert "did not all reach the coordinator" in out.stdout and "timeout 3 s" in out.stdout
    assert time.time() - start < 60


@pytest.mark.parametrize("dying", [1, 0], ids=["process 1 dies", "process 0 dies"])
def test_a_peer_that_dies_is_a_distributed_error_after_the_timeout_and_the_survivor_exits(dying):
    # process 0 started the coordination service's process, which must outlive it
    address = free_address()
    procs = [
        subprocess.Popen(
            [sys.executable, str(DYING_WORKER), address, str(pid), str(dying)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for pid in range(2)
    ]  # fmt: skip
    survivor, lost = procs[1 - dying], procs[dying]
    try:
        out, err = survivor.communicate(timeout=60)
        lost.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        for q in procs:
            q.kill()
        pytest.fail("a worker process hung")
    assert survivor.returncode == 0, err[-3000:]  # no abort, no hang: it exits by itself
    assert lost.returncode == 0
    report = json.loads(out.strip().splitlines()[-1])
    kind, seconds, message = report["second"]
    assert kind == "DistributedError", report
    assert seconds < 5 + 4, report  # within about the timeout (5 s); sooner when gloo sees the peer go
    assert "timeout 5 s" in message and "coordinator 127.0.0.1:" in message
    if "no sign of life" in message:  # found by the liveness watch, not by gloo's own error
        assert f"process {dying} sent" in message
    kind, seconds, message = report["third"]  # the group is lost: later runs fail at once
    assert kind == "DistributedError" and seconds < 1, report
    assert report["shutdown"] < 1, report
