"""The warm-up of XLA's CPU matrix kernels (backend/kernel_warmup.py): its program computes the
transposed product (numpy's oracle), it starts once per process and only for CPU devices of one
process, a damaged cache entry is compiled and written again, a failure inside it leaves the
Session working, and a process that exits while it may still run exits cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import numpy as np

import stablegraph as sg
from stablegraph.backend import kernel_warmup, program


def test_the_warmup_program_is_the_transposed_product(tmp_path, monkeypatch):
    monkeypatch.setenv("STABLEGRAPH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(program, "_EXECUTABLES", type(program._EXECUTABLES)())  # each load reads the disk
    devices = sg.Session(sg.Graph()).devices[:1]
    a = np.random.default_rng(0).standard_normal((kernel_warmup.SIZE,) * 2).astype(np.float32)
    compiled = kernel_warmup._executable(devices)
    np.testing.assert_allclose(compiled([a])[0], a.T @ a, rtol=1e-5, atol=1e-4)
    (entry,) = tmp_path.glob("*" + kernel_warmup.SUFFIX)
    assert not list(tmp_path.glob("*.sgx"))  # not counted among the programs Sessions ran

    program._EXECUTABLES.clear()
    loaded = kernel_warmup._executable(devices)  # from the entry
    np.testing.assert_array_equal(loaded([a])[0], compiled([a])[0])
    for damage in (b"", b"not an executable", entry.read_bytes()[:-7]):
        entry.write_bytes(damage)
        program._EXECUTABLES.clear()
        again = kernel_warmup._executable(devices)  # a miss: compiled and written again
        np.testing.assert_array_equal(again([a])[0], compiled([a])[0])
        assert entry.stat().st_size > len(damage)


def test_it_starts_once_and_only_for_the_cpu_devices_of_one_process(monkeypatch):
    started = []
    monkeypatch.setattr(kernel_warmup, "_thread", None)
    monkeypatch.setattr(kernel_warmup, "_warm", started.append)
    cpu, gpu = SimpleNamespace(platform="cpu"), SimpleNamespace(platform="cuda")
    kernel_warmup.start([gpu], multiprocess=False)
    kernel_warmup.start([cpu], multiprocess=True)
    assert kernel_warmup._thread is None
    kernel_warmup.start([cpu, cpu], multiprocess=False)
    kernel_warmup._thread.join()
    kernel_warmup.start([cpu], multiprocess=False)
    kernel_warmup._thread.join()
    assert started == [cpu]


def test_a_failing_warmup_leaves_the_session_working(monkeypatch):
    def broken(devices):
        raise RuntimeError("no kernels today")

    monkeypatch.setattr(kernel_warmup, "_thread", None)
    monkeypatch.setattr(kernel_warmup, "_executable", broken)
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 2), sg.float32)
        y = x.T @ x
    a = np.arange(6, dtype=np.float32).reshape(3, 2) - 2.5
    with sg.Session(g) as sess:
        kernel_warmup._thread.join()
        np.testing.assert_array_equal(sess.run(y, {x: a}), a.T @ a)


EXIT_AT_ONCE = textwrap.dedent(
    """
    import stablegraph as sg
    sg.Session(sg.Graph())
    print("OPENED")
    """
)


def test_a_process_that_exits_while_it_runs_exits_cleanly(tmp_path):
    for cache in (tmp_path / "cold", tmp_path / "cold", ""):  # compiling, loading, cache off
        env = {**os.environ, "STABLEGRAPH_CACHE_DIR": str(cache)}
        done = subprocess.run(
            [sys.executable, "-c", EXIT_AT_ONCE], env=env, capture_output=True, text=True, timeout=120
        )
        assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "OPENED", "")
