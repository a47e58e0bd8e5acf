"""A program that fails on the device (here: out of memory) is an ExecutionError from the run that
failed, in a process without jax too. Without jax, numpy boxes a failed result as an object array
instead of raising, so the run must ask for the error itself; a run that writes variables names
the ones it lost, and get, save and later runs refuse them until they are given new values."""

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import stablegraph as sg
    from stablegraph import numpy as snp

    HUGE = 2**40  # a result of four TiB of float32: no CPU or GPU allocates it

    g = sg.Graph()
    with g:
        x = sg.placeholder((), sg.float32, name="x")
        w = sg.Variable(np.zeros(3, np.float32), name="w")
        other = sg.Variable(np.ones(2, np.float32), name="other")
        huge = snp.broadcast_to(x, (HUGE,))
        train = [sg.group(w.assign(w + x)), huge]  # the run writes w, and cannot hold its result
        spread = snp.broadcast_to(x, (HUGE,)) + snp.arange(HUGE, dtype=snp.float32)  # (not sorted already)
        train_only = sg.group(w.assign(w + snp.sort(spread)[:3]))  # nothing to fetch
        doubled = other * 2

    report = {"jax_loaded": "jax" in sys.modules}

    def outcome(fn):
        try:
            value = fn()
        except sg.StablegraphError as e:
            return [type(e).__name__, str(e)]
        except Exception as e:  # noqa: BLE001  (what leaks is the finding)
            return ["raw " + type(e).__name__, str(e)]
        return ["ok", repr(value)]

    with sg.Session(g) as sess:
        sess.run(doubled)
        report["stateless"] = outcome(lambda: sess.run(huge, {x: 1.0}))
        report["stateless_again"] = outcome(lambda: sess.run(huge, {x: 1.0}))
        report["train"] = outcome(lambda: sess.run(train, {x: 1.0}))
        report["run_w"] = outcome(lambda: sess.run(w))
        report["get_w"] = outcome(lambda: sess.get(w))
        report["save"] = outcome(lambda: sess.save(sys.argv[1]))
        report["train_again"] = outcome(lambda: sess.run(train, {x: 1.0}))
        report["other"] = outcome(lambda: sess.run(doubled).tolist())
        sess.initialize([w])
        report["restored"] = outcome(lambda: sess.get(w).tolist())
        if sess.devices[0].platform == "cpu":  # (GPUs sort at most 2**31 - 1 elements)
            report["train_only"] = outcome(lambda: sess.run(train_only, {x: 1.0}))  # no result to read
            report["after_train_only"] = outcome(lambda: sess.get(w))
    print(json.dumps(report))
    """
)


def test_a_device_failure_is_an_execution_error_naming_lost_variables_without_jax(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "ckpt")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["jax_loaded"] is False
    for run in ("stateless", "stateless_again", "train"):
        kind, message = report[run]
        assert kind == "ExecutionError", (run, report[run])
        assert "Out of memory" in message or "RESOURCE_EXHAUSTED" in message
    assert "variable w lost its value" in report["train"][1]
    for refused in ("run_w", "get_w", "save", "train_again"):
        kind, message = report[refused]
        assert kind == "ExecutionError" and "variable w lost its value" in message, (refused, report[refused])
    assert report["other"] == ["ok", "[2.0, 2.0]"]
    assert report["restored"] == ["ok", "[0.0, 0.0, 0.0]"]
    if "train_only" in report:  # a failed run with nothing to fetch raises too, not only at the next read
        assert report["train_only"][0] == "ExecutionError" and "variable w lost" in report["train_only"][1]
        assert report["after_train_only"][0] == "ExecutionError"
    assert not (tmp_path / "ckpt.npz").exists() and not list(tmp_path.iterdir())
