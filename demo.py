"""A short tour of stablegraph in one run: ``make demo`` or ``python -m stablegraph.demo``.

Builds a small two-layer model as an explicit graph (a placeholder with a
symbolic batch dim, constant weights, matmul, tanh, reductions, indexing),
prints its listing, draws it to out/demo_graph.svg, runs it in a Session at
two batch sizes, checks every result against numpy, and shows what the
Session compiled and why, plus the StableHLO of one program. Until training
exists (a later issue grows this into a training loop), the weights are
fixed random constants.
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


def make_weights(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "w1": (rng.normal(size=(4, 8)) / 2).astype(np.float32),
        "b1": (rng.normal(size=(8,)) / 10).astype(np.float32),
        "w2": (rng.normal(size=(8, 3)) / 3).astype(np.float32),
    }


def build(weights: dict[str, np.ndarray]) -> tuple[sg.Graph, dict]:
    """The model graph and the tensors worth fetching, by name."""
    g = sg.Graph("demo")
    with g, sg.name_scope("model"):
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        with sg.name_scope("dense1"):
            h = snp.tanh(x @ sg.constant(weights["w1"], name="w") + sg.constant(weights["b1"], name="b"))
        with sg.name_scope("dense2"):
            logits = h @ sg.constant(weights["w2"], name="w")
        fetches = {
            "logits": logits,
            "best": snp.argmax(logits, axis=1),  # predicted class per example
            "score": logits.max(axis=1),
            "mean_act": h.mean(axis=0),  # reduction over the symbolic batch dim
            "first_class": logits[:, 0],
            "first_example": x[0],
        }
    return g, fetches


def reference(weights: dict[str, np.ndarray], xb: np.ndarray) -> dict[str, np.ndarray]:
    """The same model in numpy."""
    h = np.tanh(xb @ weights["w1"] + weights["b1"])
    logits = h @ weights["w2"]
    return {
        "logits": logits,
        "best": logits.argmax(axis=1),
        "score": logits.max(axis=1),
        "mean_act": h.mean(axis=0),
        "first_class": logits[:, 0],
        "first_example": xb[0],
    }


def check(got: dict, want: dict) -> None:
    for name, w in want.items():
        np.testing.assert_allclose(got[name], w, rtol=1e-5, atol=1e-6, err_msg=name)


def draw(g: sg.Graph) -> None:
    path = os.path.join(OUT_DIR, "demo_graph.svg")
    if shutil.which("dot") is None:
        print(f"(graphviz's dot is not installed: skipped drawing {path})")
        return
    sg.draw(g, path)
    print(f"drew the graph to {path}")


def show_error() -> None:
    """A shape error is reported at build time, at the line that built the op."""
    g = sg.Graph("broken")
    with g:
        a = sg.placeholder(("batch", 4), sg.float32, name="a")
        try:
            a @ sg.constant(np.ones((5, 2), np.float32))  # 4 != 5: this line is in the message
        except sg.GraphError as e:
            print(f"GraphError: {e}")


def main() -> int:
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    weights = make_weights(rng)
    g, fetches = build(weights)

    print("== the graph ==")
    print(g)
    draw(g)

    print("\n== running it ==")
    with sg.Session(g) as sess:
        for batch in (2, 5, 2):  # the second 2 reuses the first program
            xb = rng.normal(size=(batch, 4)).astype(np.float32)
            got = sess.run(fetches, {"model/x": xb})  # feed by name; the nest of fetches comes back
            check(got, reference(weights, xb))
            score = np.round(got["score"], 3)
            print(f"batch {batch}: best class {got['best']}, score {score}  (matches numpy)")

        print("\n== what the Session compiled, and why ==")
        print(sess.stats)

        print("\n== StableHLO of the 'score' program at batch 2 ==")
        print(sess.lower(fetches["score"], {"model/x": np.zeros((2, 4), np.float32)}))

    print("== errors point to your line ==")
    show_error()
    print(f"\ndemo finished in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
