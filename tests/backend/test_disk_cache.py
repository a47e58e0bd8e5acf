"""The persistent compile cache: a fresh process loads the programs an earlier one compiled (with
the same results, host callbacks re-bound), every damaged entry is a miss that is compiled and
written again, two processes share a directory at once, the size bound evicts the least recently
used entries, and an empty STABLEGRAPH_CACHE_DIR turns it off."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.backend import disk_cache, program

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import stablegraph as sg
    import stablegraph.numpy as snp

    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        w = sg.Variable(np.full((3, 2), 0.5, np.float32), name="w")
        sg.debug.print("first x {}", x[0, 0])
        loss = (snp.tanh(x @ w) ** 2).sum()
        train = sg.optim.adam(1e-2).minimize(loss)
    with sg.Session(g) as sess:
        for _ in range(3):
            value = sess.run([loss, train], {x: np.arange(6, dtype=np.float32).reshape(2, 3)})[0]
        print("LOSS", repr(float(value)))
        print("DISK", sess.stats.disk_hits, sess.stats.compiles, sess.stats.disk_misses)

    h = sg.Graph()  # without a host callback: the plan store keys it (backend/plan_store.py)
    with h:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        w = sg.Variable(np.full((3, 2), 0.5, np.float32), name="w")
        loss = (snp.tanh(x @ w) ** 2).sum()
        train = sg.optim.adam(1e-2).minimize(loss)
    with sg.Session(h) as sess:
        value = sess.run([loss, train], {x: np.arange(6, dtype=np.float32).reshape(2, 3)})[0]
        print("PLAN", repr(float(value)), sess.stats.plan_hits, sess.stats.compiles, sess.stats.plan_misses)
    """
)


def _run(cache_dir, *, wait=True):
    env = {**os.environ, "STABLEGRAPH_CACHE_DIR": str(cache_dir)}
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    return proc.communicate(timeout=300) + (proc.returncode,) if wait else proc


def _fields(out: str) -> tuple[float, int, int, str, int]:
    loss = float(next(line for line in out.splitlines() if line.startswith("LOSS")).split()[1])
    _, hits, compiles, misses = next(line for line in out.splitlines() if line.startswith("DISK")).split(
        " ", 3
    )
    return loss, int(hits), int(compiles), misses, out.count("first x 0.0")


def test_a_fresh_process_loads_what_an_earlier_one_compiled(tmp_path):
    cold, err, code = _run(tmp_path)
    assert code == 0, err
    warm, err, code = _run(tmp_path)
    assert code == 0, err
    loss0, hits0, compiles0, misses0, prints0 = _fields(cold)
    loss1, hits1, compiles1, misses1, prints1 = _fields(warm)
    assert hits0 == 0 and "no entry" in misses0
    assert hits1 == compiles1 == compiles0 and misses1 == "[]"
    assert loss1 == loss0  # the same executable: the same bits
    assert prints0 == prints1 == 3  # the print's callback, re-bound on load
    plans = [_plan_fields(out) for out in (cold, warm)]
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    want = (np.tanh(x @ np.full((3, 2), 0.5)) ** 2).sum()  # the first step's loss, before the update
    assert plans[0][0] == plans[1][0] and abs(plans[0][0] - want) <= 1e-6 * want
    assert plans[0][1:] == (0, 2, "['no entry', 'no entry']")
    assert plans[1][1:] == (2, 2, "[]")  # planned nothing: both programs' plans came from disk
    assert len(list(tmp_path.glob("*.sgx"))) == compiles0 + 1  # both graphs' initializers are one program
    assert len(list(tmp_path.glob("*.sgplan"))) == 2


def test_two_processes_share_one_directory_at_once(tmp_path):
    procs = [_run(tmp_path, wait=False) for _ in range(2)]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert [code for _, _, code in results] == [0, 0], [err for _, err, _ in results]
    losses = {_fields(out)[0] for out, _, _ in results}
    assert len(losses) == 1
    assert len({_plan_fields(out)[0] for out, _, _ in results}) == 1
    assert not list(tmp_path.glob(".tmp-*"))  # no half-written entry left behind


def _plan_fields(out: str) -> tuple[float, int, int, str]:
    _, loss, hits, compiles, misses = next(
        line for line in out.splitlines() if line.startswith("PLAN")
    ).split(" ", 4)
    return float(loss), int(hits), int(compiles), misses


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A cache directory of the test's own, and no executable shared in memory from before."""
    monkeypatch.setenv("STABLEGRAPH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(program, "_EXECUTABLES", type(program._EXECUTABLES)())
    return tmp_path


def _one_run(x_value) -> tuple[np.ndarray, str]:
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x")
        y = snp.sin(x) * 3 + snp.cos(x)
    with sg.Session(g) as sess:
        out = sess.run(y, {x: x_value})
        return out, sess.stats.records[-1].source


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda b: b[: len(b) // 2], "truncated entry"),
        (lambda b: b[:10], "truncated entry"),
        (lambda b: b[:-5] + bytes([b[-5] ^ 0xFF]) + b[-4:], "corrupt entry (checksum)"),
        (lambda b: b"NOTOURS!" + b[8:], "foreign entry"),
        (lambda b: b[:8] + (99).to_bytes(4, "little") + b[12:], "entry of format 99, not 1"),
        (
            lambda b: b[:12] + (3).to_bytes(4, "little") + b[16:],
            "entry compiled with 3 host callbacks, not 0",
        ),
    ],
)
def test_a_damaged_entry_is_a_miss_then_written_again(fresh, damage, why):
    xv = np.linspace(-2, 2, 4).astype(np.float32)
    want = np.sin(xv) * 3 + np.cos(xv)
    out, source = _one_run(xv)
    assert source == "compiled (disk cache: no entry)"
    (entry,) = fresh.glob("*.sgx")
    entry.write_bytes(damage(entry.read_bytes()))
    program._EXECUTABLES.clear()
    out2, source2 = _one_run(xv)
    assert source2 == f"compiled (disk cache: {why})"
    program._EXECUTABLES.clear()
    out3, source3 = _one_run(xv)
    assert source3 == "disk"  # rewritten by the miss
    for got in (out, out2, out3):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_the_size_bound_evicts_the_least_recently_used(fresh, monkeypatch):
    payload = bytes(range(256)) * 4
    disk_cache.store("older", payload, 0)
    disk_cache.store("newer", payload, 0)
    os.utime(fresh / "older.sgx", (1, 1))
    assert disk_cache.load("older", 0) == (payload, "hit")  # a hit makes it the most recent
    entry = (fresh / "older.sgx").stat().st_size
    monkeypatch.setenv("STABLEGRAPH_CACHE_MAX_BYTES", str(2 * entry + entry // 2))
    disk_cache.store("third", payload, 0)  # three entries do not fit: the least recent goes
    assert sorted(p.stem for p in fresh.glob("*.sgx")) == ["older", "third"]
    assert disk_cache.load("newer", 0) == (None, "no entry")


def test_an_empty_directory_setting_turns_the_cache_off(monkeypatch, tmp_path):
    monkeypatch.setenv("STABLEGRAPH_CACHE_DIR", "")
    monkeypatch.setattr(program, "_EXECUTABLES", type(program._EXECUTABLES)())
    assert disk_cache.directory() is None
    _, source = _one_run(np.ones(4, np.float32))
    assert source == "compiled (disk cache: cache off)"
