"""stablegraph's main job in one run: ``make demo`` or ``python -m stablegraph.demo``.

Builds a small classifier as an explicit graph (placeholders with a symbolic
batch dim, two dense layers whose weights are Session variables, softmax
cross-entropy, an Adam train op with a cosine learning-rate schedule),
prints its size and its listing (one line per library call: a layer, a
loss, the optimizer) and draws it to out/demo_graph.svg, then trains it
with sg.train.Loop on scikit-learn's bundled digits (8x8 images, 1797 of
them, split 80/20 with a fixed seed; an sg.data.Dataset shuffled each epoch,
prefetched to the device, one epoch of steps per compiled run) with a
progress bar, TensorBoard logs and checkpoints in out/runs/demo, prints the
test accuracy, restores the loop's newest checkpoint into a new Session and
checks that the new Session scores the same. Ends with what the Session compiled and why, and
an error that points at the line that caused it.
"""

from __future__ import annotations

import os
import shutil
import sys
import time

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

OUT_DIR = "out"
EPOCHS = 30
BATCH = 64
TARGET = 0.97


def build(features: int, classes: int, steps: int) -> tuple[sg.Graph, dict]:
    """The model graph and the tensors the loop uses, by name."""
    g = sg.Graph("digits")
    with g:
        x = sg.placeholder(("batch", features), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        h = sg.nn.relu(sg.nn.dense(x, 128, name="fc1"))  # creates fc1/kernel and fc1/bias
        h = sg.nn.dropout(h, 0.1)  # a fresh mask every training run; off in runs with no train op
        logits = sg.nn.dense(h, classes, name="fc2")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        opt = sg.optim.adam(sg.optim.cosine_decay(3e-3, steps=steps))
        train = opt.minimize(loss)  # all trainable variables
        acc = (snp.argmax(logits, -1) == y).mean()
    return g, {"x": x, "y": y, "loss": loss, "train": train, "acc": acc}


def draw(g: sg.Graph) -> None:
    path = os.path.join(OUT_DIR, "demo_graph.svg")
    if shutil.which("dot") is None:
        print(f"(graphviz's dot is not installed: skipped drawing {path})")
        return
    sg.draw(g, path)  # one box per library call (fc1, relu, dropout, adam, ...) until expand= opens it
    print(f"drew the graph to {path}, one box per library call")


def evaluate(sess: sg.Session, t: dict, X: np.ndarray, Y: np.ndarray) -> float:
    """Test accuracy with dropout off (a run with no train op: the training switch is off)."""
    return float(sess.run(t["acc"], {t["x"]: X, t["y"]: Y}))


def show_error() -> None:
    """A shape error is reported at build time, at the line that built the op."""
    g = sg.Graph("broken")
    with g:
        a = sg.placeholder(("batch", 4), sg.float32, name="a")
        try:
            sg.nn.dense(a, 3) @ sg.constant(
                np.ones((5, 2), np.float32)
            )  # 3 != 5: this line is in the message
        except sg.GraphError as e:
            print(f"GraphError: {e}")


def main() -> int:
    start = time.perf_counter()
    X, Y = sg.data.load_digits()
    (x_train, y_train), (x_test, y_test) = sg.data.split((X, Y), fraction=0.2, seed=0)
    print(f"digits: {len(x_train)} training and {len(x_test)} test images of {X.shape[1]} pixels")

    steps = EPOCHS * (len(x_train) // BATCH)
    g, t = build(X.shape[1], int(Y.max()) + 1, steps)
    print(f"\n== the graph: {len(g)} nodes, variables {[v.var_name for v in g.trainable_variables]} ==")
    print(g)  # one line per library call; g.listing(expand=True) lists every node
    draw(g)

    print("\n== training with sg.train.Loop ==")
    data = (
        sg.data.Dataset.from_arrays({"x": x_train, "y": y_train})
        .shuffle(seed=0)  # a new order every epoch, the same every run
        .batch(BATCH, drop_remainder=True)
        .repeat()
    )
    logdir = os.path.join(OUT_DIR, "runs", "demo")
    shutil.rmtree(
        logdir, ignore_errors=True
    )  # a fresh run: a Loop resumes from its logdir's newest checkpoint
    epoch = len(x_train) // BATCH
    loop = sg.train.Loop(
        g, t["train"], data=data, feeds={"x": t["x"], "y": t["y"]}, logdir=logdir, steps=steps,
        checkpoint_every=10 * epoch, keep=2, log_every=epoch, metrics={"loss": t["loss"], "acc": t["acc"]},
    )  # fmt: skip
    loop.run()  # one compiled run per epoch (log_every steps), the next epoch's batches already on the device
    sess = loop.session
    accuracy = evaluate(sess, t, x_test, y_test)
    step = int(sess.get("global_step"))
    print(f"{step} steps; test accuracy {accuracy:.4f} (target {TARGET})")
    print(f"TensorBoard logs and checkpoints in {logdir}: tensorboard --logdir {os.path.dirname(logdir)}")

    restored = sg.Session(g, seed=1)  # another seed: different initial weights until restored
    path = restored.restore(os.path.join(logdir, "model"))  # the loop's newest checkpoint
    again = evaluate(restored, t, x_test, y_test)
    print(f"a new Session restored from {path} scores {again:.4f}")

    print("\n== what the Session compiled, and why ==")
    print(sess.stats)
    print("\n== errors point to your line ==")
    show_error()
    print(f"\ndemo finished in {time.perf_counter() - start:.1f} s")
    ok = accuracy >= TARGET and again == accuracy
    if not ok:
        print("FAILED: accuracy below target or the restored Session differs", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
