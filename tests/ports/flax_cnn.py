"""A flax linen CNN ported into a graph with sg.from_jax and trained in a Session loop.

The model is plain flax (``CNN`` below: conv 3x3 (16) + relu + avg_pool 2x2,
dense 10, on scikit-learn's 8x8 digits). flax initializes its parameters;
each leaf becomes an sg.Variable holding it, and the forward pass is one
``module_call`` node: jax exports ``model.apply`` for a symbolic batch, and
its exported vjp is the node's gradient, so ``sg.optim.adam(...).minimize``
trains the flax weights like any others. It lives with the ported programs of the tests: jax and
flax are test-only dependencies (a user installs them with ``pip install stablegraph[jax] flax``).

    python tests/ports/flax_cnn.py    # prints the loss falling and the test accuracy
"""

from __future__ import annotations

import sys

import flax.linen as nn
import jax
import numpy as np

import stablegraph as sg


class CNN(nn.Module):
    """A small convnet for 8x8x1 images (NHWC), as flax users write one."""

    classes: int = 10

    @nn.compact
    def __call__(self, x):
        x = x.reshape((x.shape[0], 8, 8, 1))
        x = nn.relu(nn.Conv(features=16, kernel_size=(3, 3))(x))
        x = nn.avg_pool(x, window_shape=(2, 2), strides=(2, 2))  # 4x4x16
        x = x.reshape((x.shape[0], 4 * 4 * 16))
        return nn.Dense(features=self.classes)(x)


def build(model: CNN, params, learning_rate: float) -> tuple[sg.Graph, dict]:
    """The graph: flax's parameters as Variables, its forward pass as one node, loss and Adam."""
    leaves, treedef = jax.tree_util.tree_flatten(params)
    paths = [jax.tree_util.keystr(p) for p, _ in jax.tree_util.tree_flatten_with_path(params)[0]]

    def forward(x, *flat):
        return model.apply(jax.tree_util.tree_unflatten(treedef, flat), x)

    g = sg.Graph("flax_cnn")
    with g:
        x = sg.placeholder(("batch", 64), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        weights = [
            sg.Variable(np.asarray(leaf), name=path.strip("[]'").replace("']['", "/"))
            for path, leaf in zip(paths, leaves)
        ]  # fmt: skip
        logits = sg.from_jax(forward, x, *weights, order=1)  # training needs the gradient only
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(learning_rate).minimize(loss)
        acc = (sg.numpy.argmax(logits, -1) == y).mean()
    return g, {"x": x, "y": y, "loss": loss, "train": train, "acc": acc}


def main(steps: int = 300, batch: int = 64, learning_rate: float = 1e-2, seed: int = 0) -> dict:
    """Train for ``steps``; returns ``losses`` (one per step) and the test ``accuracy``."""
    X, Y = sg.data.load_digits()
    (x_train, y_train), (x_test, y_test) = sg.data.split((X, Y), fraction=0.2, seed=0)
    model = CNN()
    params = model.init(jax.random.key(seed), np.zeros((1, 64), np.float32))
    g, t = build(model, params, learning_rate)
    epochs = -(-steps // (len(x_train) // batch))
    data = sg.data.batches((x_train, y_train), batch, shuffle=True, epochs=epochs, drop_last=True, seed=seed)
    losses = []
    with sg.Session(g, seed=seed) as sess:
        step = sess.make_callable([t["loss"], t["train"]], [t["x"], t["y"]])
        for _, (xb, yb) in zip(range(steps), data):
            loss, _ = step(xb, yb)
            losses.append(float(loss))
        accuracy = float(sess.run(t["acc"], {t["x"]: x_test, t["y"]: y_test}))
    return {"losses": losses, "accuracy": accuracy}


if __name__ == "__main__":
    result = main()
    losses = result["losses"]
    print(
        f"loss {np.mean(losses[:10]):.3f} -> {np.mean(losses[-10:]):.4f}; test accuracy {result['accuracy']:.4f}"
    )
    sys.exit(0 if result["accuracy"] > 0.9 else 1)
