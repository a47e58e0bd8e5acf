"""sg.train.Loop: resume after SIGKILL (mid-run and mid-save) reaches the weights of a plain
uninterrupted loop, no batch repeated or skipped across resume, keep=k, the nan stop and its
report, hooks and early stopping, Ctrl-C, TensorBoard scalars read back with tensorboard's reader.

The oracle is a plain Python loop of single ``sess.run`` calls over the data set's batches (no
prefetch, no steps=k, no checkpoints), and numpy for the data order's properties. Run as a script
(``python test_loop.py LOGDIR STEPS KILL``), this file is the child process the resume test kills.
"""

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.test_util import line_of

ROWS, BATCH, FEATURES, CLASSES = 50, 8, 4, 3  # 6 batches an epoch (2 rows dropped)


def arrays():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(ROWS, FEATURES)).astype(np.float32)
    Y = rng.integers(0, CLASSES, ROWS).astype(np.int32)
    return {"x": X, "y": Y, "id": np.arange(ROWS, dtype=np.float32)}


def dataset(values=None):
    values = arrays() if values is None else values
    return sg.data.Dataset.from_arrays(values).shuffle(seed=3).batch(BATCH, drop_remainder=True).repeat()


def build():
    """A small classifier with dropout (a Generator) and Adam (slots), and the batch's first row id."""
    g = sg.Graph("loop_test")
    with g:
        x = sg.placeholder(("batch", FEATURES), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        ids = sg.placeholder(("batch",), sg.float32, name="id")
        h = sg.nn.dropout(sg.nn.relu(sg.nn.dense(x, 16, name="fc1")), 0.2)
        logits = sg.nn.dense(h, CLASSES, name="fc2")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(0.05).minimize(loss)
        first_id = ids[0]
    return g, {"x": x, "y": y, "id": ids, "loss": loss, "train": train, "first_id": first_id}


def linear():
    """A model small to compile (one weight vector, SGD), for tests about the loop's control."""
    g = sg.Graph("linear")
    with g:
        x = sg.placeholder(("batch", FEATURES), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        ids = sg.placeholder(("batch",), sg.float32, name="id")
        w = sg.Variable(np.full(FEATURES, 0.5, np.float32), name="w")
        loss = ((x @ w - y.astype(sg.float32)) ** 2).mean()
        train = sg.optim.sgd(0.05).minimize(loss)
        first_id = ids[0]
    return g, {"x": x, "y": y, "id": ids, "loss": loss, "train": train, "first_id": first_id}


def make_loop(logdir, steps, t, g, **kw):
    options = dict(checkpoint_every=4, keep=2, log_every=2, steps_per_run=2, progress=False)
    options.update(kw)
    return sg.train.Loop(
        g, t["train"], data=dataset(), feeds={"x": t["x"], "y": t["y"], "id": t["id"]}, logdir=logdir,
        steps=steps, metrics={"loss": t["loss"], "first_id": t["first_id"]}, **options,
    )  # fmt: skip


def plain_loop(steps, values=None):
    """The oracle: single runs over the data set's batches; (session, [(loss, first id) per step])."""
    g, t = build()
    sess = sg.Session(g, seed=0)
    seen = []
    for _, b in zip(range(steps), dataset(values)):
        loss, first, _ = sess.run(
            [t["loss"], t["first_id"], t["train"]], {t["x"]: b["x"], t["y"]: b["y"], t["id"]: b["id"]}
        )
        seen.append((float(loss), float(first)))
    return sess, seen


def child(logdir: str, steps: int, kill: str) -> None:
    """Train, logging each step's first row id to ``logdir``/steps.log, and stop where ``kill`` says:
    ``save:S`` SIGKILLs itself inside the save of step S (npz written, JSON not yet), ``int:K``
    is interrupted (Ctrl-C's KeyboardInterrupt) in the hook of step K."""
    from stablegraph.train import loop_files

    g, t = build()
    log = open(os.path.join(logdir, "steps.log"), "a")
    what, _, at = kill.partition(":")

    def on_step(loop, step, values):
        log.write(f"{step} {float(values['first_id'])} {float(values['loss'])!r}\n")
        log.flush()
        if what == "int" and step == int(at):
            # what Python's SIGINT handler raises, raised here: a signal sent to itself (os.kill,
            # and signal.raise_signal too) was now and then never turned into the exception under
            # load, and the child ran to its end
            raise KeyboardInterrupt

    if what == "save":
        write_meta = loop_files.write_meta

        def dying_write_meta(folder, step, meta):
            if step == int(at):
                os.kill(os.getpid(), signal.SIGKILL)
            return write_meta(folder, step, meta)

        loop_files.write_meta = dying_write_meta
    make_loop(logdir, steps, t, g, on_step=on_step).run()


def _child(logdir, steps, kill) -> int:
    proc = subprocess.run(
        [sys.executable, __file__, str(logdir), str(steps), kill], capture_output=True, text=True
    )
    assert proc.returncode in (-signal.SIGKILL, -signal.SIGINT, 1), proc.stderr[-3000:]
    assert proc.returncode != 1 or proc.stderr.rstrip().endswith("KeyboardInterrupt"), proc.stderr[-3000:]
    return proc.returncode


def _models(folder) -> set:
    return {f for f in os.listdir(folder) if f.startswith("model") or f.startswith(".")}


def test_a_loop_killed_mid_save_and_interrupted_resumes_to_the_uninterrupted_weights(tmp_path):
    steps = 14  # checkpoints every 4 steps, runs of 2 steps, keep=2
    # the first child checkpoints step 4, runs steps 5-8 and is killed inside the save of step 8 (its
    # npz written, its JSON not yet): the steps since the checkpoint of step 4 are lost
    assert _child(tmp_path, steps, "save:8") == -signal.SIGKILL
    assert _models(tmp_path) == {"model-4.json", "model-4.npz", "model-8.npz"}
    # the second resumes at 4; Ctrl-C in step 9's hook (after the run of steps 9-10): it saves step 10
    assert _child(tmp_path, steps, "int:9") != -signal.SIGKILL
    assert _models(tmp_path) == {"model-8.json", "model-8.npz", "model-10.json", "model-10.npz"}
    g, t = build()
    seen = []
    loop = make_loop(
        tmp_path, steps, t, g, on_step=lambda loop, step, v: seen.append((step, float(v["first_id"])))
    )
    loop.run()  # resumes at 10
    assert _models(tmp_path) == {"model-12.json", "model-12.npz", "model-14.json", "model-14.npz"}
    assert json.load(open(tmp_path / "model-14.json"))["step"] == 14

    sess, oracle = plain_loop(steps)
    for name in ("fc1/kernel", "fc2/kernel", "fc1/kernel/adam/mu", "rng", "global_step"):
        np.testing.assert_array_equal(loop.session.get(name), sess.get(name), err_msg=name)
    loop.close()

    # every step the processes ran (5-8 twice) fed the batch the plain loop fed at that step
    lines = [line.split() for line in open(tmp_path / "steps.log")]
    assert [int(s) for s, _, _ in lines] == [*range(1, 9), *range(5, 10)]
    for step, first, loss in lines:
        assert (float(first), float(loss)) == (oracle[int(step) - 1][1], oracle[int(step) - 1][0]), step
    assert [s for s, _ in seen] == list(range(11, steps + 1))
    assert [f for _, f in seen] == [oracle[s - 1][1] for s, _ in seen]

    # TensorBoard drops what the killed run logged after step 4 (the resumed runs' restart markers)
    from tensorboard.backend.event_processing.plugin_event_accumulator import EventAccumulator
    from tensorboard.util.tensor_util import make_ndarray

    events = EventAccumulator(str(tmp_path))
    events.Reload()
    logged = [(e.step, float(make_ndarray(e.tensor_proto))) for e in events.Tensors("first_id")]
    want = [(s, np.mean([oracle[s - 2][1], oracle[s - 1][1]])) for s in range(2, steps + 1, 2)]
    np.testing.assert_allclose(np.array(logged), np.array(want), rtol=1e-6)


def test_the_data_order_repeats_and_skips_no_row_within_an_epoch():
    firsts = []
    for _, b in zip(range(12), dataset()):
        firsts.append(b["id"])
    for epoch in (firsts[:6], firsts[6:]):
        rows = np.concatenate(epoch)
        assert len(np.unique(rows)) == 6 * BATCH and set(rows) <= set(range(ROWS))
    assert not np.array_equal(np.concatenate(firsts[:6]), np.concatenate(firsts[6:]))  # reshuffled


class Recorder:
    def __init__(self):
        self.steps, self.logs, self.checkpoints, self.ended = [], [], [], 0

    def on_step(self, loop, step, values):
        self.steps.append((step, float(values["loss"])))

    def on_log(self, loop, step, means):
        self.logs.append((step, means["loss"]))

    def on_checkpoint(self, loop, step, path):
        self.checkpoints.append((step, os.path.basename(path), os.path.exists(path)))

    def on_end(self, loop):
        self.ended += 1


def test_hooks_and_tensorboard_scalars_match_a_plain_loop(tmp_path):
    from tensorboard.backend.event_processing.plugin_event_accumulator import EventAccumulator
    from tensorboard.util.tensor_util import make_ndarray

    g, t = build()
    rec = Recorder()
    calls = []
    loop = make_loop(tmp_path, 9, t, g, hooks=[rec], steps_per_run=3, log_every=3, checkpoint_every=6,
                     on_checkpoint=lambda loop, step, path: calls.append(step))  # fmt: skip
    means = loop.run()
    _, oracle = plain_loop(9)
    losses = np.array([loss for loss, _ in oracle])
    assert [s for s, _ in rec.steps] == list(range(1, 10))
    np.testing.assert_allclose([v for _, v in rec.steps], losses, rtol=1e-6)
    want = [(3, losses[:3].mean()), (6, losses[3:6].mean()), (9, losses[6:].mean())]
    np.testing.assert_allclose(np.array(rec.logs), np.array(want), rtol=1e-5)
    assert means["loss"] == pytest.approx(want[-1][1], rel=1e-5) and loop.step == 9 and rec.ended == 1
    assert rec.checkpoints == [(6, "model-6.npz", True), (9, "model-9.npz", True)] and calls == [6, 9]
    loop.close()

    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert {"loss", "first_id", "loop/steps_per_second", "loop/data_stall_seconds"} <= set(
        acc.Tags()["tensors"]
    )
    assert acc.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"
    logged = [(e.step, float(make_ndarray(e.tensor_proto))) for e in acc.Tensors("loss")]
    np.testing.assert_allclose(np.array(logged), np.array(want), rtol=1e-5)
    assert "fc1" in str(acc.Graph())  # the graph tab's nodes keep the layer's scope

    again = make_loop(tmp_path, 9, t, g, hooks=[rec])  # done already: resumes at 9 and runs nothing
    assert again.run() == {} and again.step == 9 and len(rec.steps) == 9
    again.close()


def test_early_stopping_a_progress_bar_and_checkpoints_by_the_clock(tmp_path, capsys):
    g, t = linear()
    with g:
        flat = sg.numpy.zeros(()) + 1.0  # never improves after its first log
    stop = sg.train.EarlyStopping("flat", patience=2)
    loop = sg.train.Loop(
        g, t["train"], dataset(), {"x": t["x"], "y": t["y"], "id": t["id"]}, steps=50, metrics={"flat": flat},
        log_every=1, hooks=[stop], logdir=tmp_path, checkpoint_secs=1e-9, keep=0,
    )  # fmt: skip
    loop.run()
    assert loop.step == 3 and stop.stopped_at == 3 and stop.best == 1.0 and stop.best_step == 1
    assert int(loop.session.get("global_step")) == 3
    assert {f for f in os.listdir(tmp_path) if f.endswith(".json")} == {f"model-{s}.json" for s in (1, 2, 3)}
    bar = capsys.readouterr().err.replace("\r", "\n").splitlines()[-1]
    assert "3/50" in bar and "flat=1" in bar, bar
    loop.close()

    # stopped at step 2 and resumed with a fresh EarlyStopping: the checkpoint's JSON gives it the
    # best value and the count so far, so it stops at step 3 as the uninterrupted loop did
    cut = tmp_path / "cut"
    for steps, hook in (
        (2, sg.train.EarlyStopping("flat", patience=2)),
        (50, sg.train.EarlyStopping("flat", 2)),
    ):
        part = sg.train.Loop(
            g, t["train"], dataset(), {"x": t["x"], "y": t["y"], "id": t["id"]}, steps=steps,
            metrics={"flat": flat}, log_every=1, hooks=[hook], logdir=cut, progress=False,
        )  # fmt: skip
        part.run()
        part.close()
    assert part.step == 3 and hook.stopped_at == 3 and hook.best_step == 1
    with open(cut / "model-2.json") as f:
        assert json.load(f)["hooks"] == {
            "0:EarlyStopping": {"best": 1.0, "best_step": 1, "waited": 1, "stopped_at": None}
        }


def test_a_nan_stops_the_loop_with_the_report_of_the_step_that_made_it(tmp_path):
    values = arrays()
    order = [b["id"] for _, b in zip(range(6), dataset(values))]
    values["id"][int(order[4][2])] = -1.0  # a row of the 5th batch only (rows are distinct within an epoch)
    g, t = linear()  # a small model: the search instruments every tensor of the train step
    with g:
        bad = sg.numpy.sqrt(t["id"]).sum()  # the nan: sqrt of a negative
    x, y, ids, loss, train = t["x"], t["y"], t["id"], t["loss"], t["train"]
    loop = sg.train.Loop(
        g, train, data=dataset(values), feeds={"x": x, "y": y, "id": ids}, logdir=tmp_path,
        steps=12, metrics={"loss": loss, "bad": bad}, checkpoint_every=3, steps_per_run=3, log_every=3,
        progress=False,
    )  # fmt: skip
    with pytest.raises(sg.ExecutionError) as e:
        loop.run()  # steps 1-3, a checkpoint, steps 4-6 in one run: step 5 is found in its replay
    message = str(e.value)
    assert "step 5" in message and "sqrt" in message and "nan" in message
    assert f"test_loop.py:{line_of(__file__, 'the nan: sqrt of a negative')}" in message
    assert loop.nonfinite.found and loop.nonfinite.op == "sqrt" and loop.step == 4
    want = np.full(FEATURES, 0.5)  # four steps of gradient descent in numpy, float64
    for _, b in zip(range(4), dataset(values)):
        residual = b["x"] @ want - b["y"]
        want = want - 0.05 * 2 * b["x"].T @ residual / len(residual)
    np.testing.assert_allclose(loop.session.get("w"), want, rtol=1e-5)
    assert {f for f in os.listdir(tmp_path) if f.endswith(".json")} == {"model-3.json"}
    loop.close()


def test_ctrl_c_between_runs_checkpoints_the_step_and_the_next_run_resumes(tmp_path):
    g, t = build()

    def interrupt(loop, step, values):
        if step == 5:
            raise KeyboardInterrupt

    loop = make_loop(tmp_path, 8, t, g, on_step=interrupt, steps_per_run=1, checkpoint_every=100)
    with pytest.raises(KeyboardInterrupt):
        loop.run()
    loop.close()
    assert {f for f in os.listdir(tmp_path) if f.endswith(".json")} == {"model-5.json"}
    again = make_loop(tmp_path, 8, t, g, steps_per_run=1, checkpoint_every=100)
    real_run, calls = again.session.run, []

    def interrupted_run(*args, **kw):  # Ctrl-C as the 2nd run ends: its step done but not counted
        out = real_run(*args, **kw)
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return out

    again.session.run = interrupted_run
    with pytest.raises(KeyboardInterrupt):
        again.run()
    assert again.step == 6 and {f for f in os.listdir(tmp_path) if f.endswith(".json")} == {"model-5.json"}
    again.run()  # goes back to the checkpoint of step 5, not on from a step count that disagrees
    sess, _ = plain_loop(8)
    np.testing.assert_array_equal(again.session.get("fc2/kernel"), sess.get("fc2/kernel"))
    again.close()


def test_a_finite_data_set_with_short_batches_runs_to_its_last_batch():
    g, t = linear()
    data = sg.data.Dataset.from_arrays(arrays()).batch(BATCH).repeat(2)  # 2 x (6 batches of 8, 1 of 2)
    seen = []
    loop = sg.train.Loop(
        g, t["train"], data=data, feeds={"x": t["x"], "y": t["y"], "id": t["id"]}, steps_per_run=4,
        metrics={"first_id": t["first_id"]}, progress=False,
        on_step=lambda loop, step, values: seen.append(float(values["first_id"])),
    )  # fmt: skip
    loop.run()  # 4 stacked; 5-8 hold the short batch: one by one; 9-12 stacked; 2 left: one by one
    assert loop.step == 14 and seen == [8.0 * i for i in range(7)] * 2
    loop.close()


def test_bad_arguments_are_errors_at_the_users_line(tmp_path):
    g, t = build()
    feeds = {"x": t["x"], "y": t["y"], "id": t["id"]}
    with pytest.raises(sg.GraphError, match="sg.data.Dataset") as e:
        sg.train.Loop(g, t["train"], data=[1, 2], feeds=feeds)  # a list is no Dataset
    assert f"test_loop.py:{line_of(__file__, 'a list is no Dataset')}" in str(e.value)
    with pytest.raises(sg.GraphError, match="logdir"):
        sg.train.Loop(g, t["train"], data=dataset(), feeds=feeds, checkpoint_every=5)
    with pytest.raises(sg.GraphError, match="metrics are scalars"):
        sg.train.Loop(g, t["train"], data=dataset(), feeds=feeds, metrics={"ids": t["id"]})
    with pytest.raises(sg.GraphError, match="steps_per_run"):
        sg.train.Loop(g, t["train"], data=dataset(), feeds=feeds, steps_per_run=0)


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]), sys.argv[3])
