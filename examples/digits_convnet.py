"""A small convnet on scikit-learn's digits, trained in a Session with checkpoints and a resume.

The images are 8x8x1 (NHWC): conv 3x3 (32) + relu + max_pool 2x2 +
batch_norm, conv 3x3 (64) + relu + max_pool 2x2, dense 10, softmax
cross-entropy, Adam with a cosine schedule. The loop is the plain Session
one, ``sess.run([loss, train], feeds)``; it saves a checkpoint every
``checkpoint_every`` steps. To show resuming, the run stops halfway, a new
Session (another seed, so other initial weights) restores the newest
checkpoint, which holds the weights, Adam's moments, batch_norm's moving
statistics and the global step, and finishes the schedule from there,
skipping the batches already seen (``sg.data.batches`` repeats its order
from its seed). Test accuracy is taken in runs with no train op, where the
training switch is off, so batch_norm uses its moving statistics.

    python examples/digits_convnet.py     # full run: prints the test accuracy (target 0.985)
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
import time

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

TARGET = 0.985


def build(classes: int, steps: int, learning_rate: float) -> tuple[sg.Graph, dict]:
    """The model graph and the tensors the loop uses, by name."""
    g = sg.Graph("digits_convnet")
    with g:
        x = sg.placeholder(("batch", 64), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        h = snp.reshape(x, (-1, 8, 8, 1))
        h = sg.nn.relu(sg.nn.conv(h, 32, kernel_size=(3, 3), padding="SAME", name="conv1"))
        h = sg.nn.max_pool(h, window=(2, 2), strides=(2, 2))  # 4x4x32
        h = sg.nn.batch_norm(h, name="bn1")
        h = sg.nn.relu(sg.nn.conv(h, 64, kernel_size=(3, 3), padding="SAME", name="conv2"))
        h = sg.nn.max_pool(h, window=(2, 2), strides=(2, 2))  # 2x2x64
        logits = sg.nn.dense(snp.reshape(h, (-1, 2 * 2 * 64)), classes, name="fc")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(sg.optim.cosine_decay(learning_rate, steps=steps)).minimize(loss)
        acc = (snp.argmax(logits, -1) == y).mean()
    return g, {"x": x, "y": y, "loss": loss, "train": train, "acc": acc}


def evaluate(sess: sg.Session, t: dict, X: np.ndarray, Y: np.ndarray) -> float:
    """Accuracy with batch_norm on its moving statistics (no train op in the run: the switch is off)."""
    return float(sess.run(t["acc"], {t["x"]: X, t["y"]: Y}))


def train_steps(sess: sg.Session, t: dict, batches, start: int, stop: int, every: int, prefix: str) -> list:
    """Steps ``start + 1``..``stop`` on ``batches`` (skipping those before), saving every ``every`` and at ``stop``."""
    losses = []
    for step, (xb, yb) in enumerate(itertools.islice(batches, start, stop), start + 1):
        loss, _ = sess.run([t["loss"], t["train"]], {t["x"]: xb, t["y"]: yb})
        losses.append(float(loss))
        if step % every == 0 or step == stop:
            sess.save(prefix, step=step, keep=2)
    return losses


def main(
    steps: int = 1200,
    batch: int = 64,
    learning_rate: float = 3e-3,
    checkpoint_every: int = 100,
    checkpoint_dir: str | None = None,
    seed: int = 0,
    resume_at: int | None = None,
    verbose: bool = False,
) -> dict:
    """Train for ``steps``, stopping after step ``resume_at`` (default: halfway) and going on in a
    new Session restored from the newest checkpoint; returns the figures.

    The result has ``losses`` (one per step), ``accuracy`` (test),
    ``train_accuracy``, ``resumed_from`` (the step restored), and ``seconds``.
    """
    start_time = time.perf_counter()
    X, Y = sg.data.load_digits()
    (x_train, y_train), (x_test, y_test) = sg.data.split((X, Y), fraction=0.2, seed=0)
    epochs = -(-steps // (len(x_train) // batch))
    g, t = build(int(Y.max()) + 1, steps, learning_rate)
    data = sg.data.batches((x_train, y_train), batch, shuffle=True, epochs=epochs, drop_last=True, seed=seed)

    with tempfile.TemporaryDirectory() as scratch:
        prefix = os.path.join(checkpoint_dir or scratch, "digits_convnet")
        stop_at = steps // 2 if resume_at is None else resume_at
        sess = sg.Session(g, seed=seed)
        losses = train_steps(sess, t, data, 0, stop_at, checkpoint_every, prefix)
        if verbose:
            print(f"step {stop_at}: loss {np.mean(losses[-20:]):.4f}, saved {prefix}-{stop_at}; stopping")
        sess.close()

        resumed = sg.Session(g, seed=seed + 1)  # other initial weights until restored
        path = resumed.restore(prefix)  # the newest checkpoint
        resumed_from = int(resumed.get("global_step"))
        if verbose:
            print(f"a new Session restored {os.path.basename(path)} (global_step {resumed_from})")
        losses += train_steps(resumed, t, data, resumed_from, steps, checkpoint_every, prefix)
        accuracy = evaluate(resumed, t, x_test, y_test)
        train_accuracy = evaluate(resumed, t, x_train, y_train)
        resumed.close()
    return {
        "losses": losses,
        "accuracy": accuracy,
        "train_accuracy": train_accuracy,
        "resumed_from": resumed_from,
        "test_size": len(x_test),
        "seconds": time.perf_counter() - start_time,
    }


if __name__ == "__main__":
    result = main(verbose=True)
    losses = result["losses"]
    print(
        f"{len(losses)} steps in {result['seconds']:.1f} s; loss {np.mean(losses[:20]):.3f} -> "
        f"{np.mean(losses[-20:]):.4f}; train accuracy {result['train_accuracy']:.4f}"
    )
    print(
        f"test accuracy {result['accuracy']:.4f} on {result['test_size']} held-out images (target {TARGET})"
    )
    sys.exit(0 if result["accuracy"] >= TARGET else 1)
