"""Serve an exported model: load a ``.sgx`` file in a fresh process and answer batches of any size.

No graph-building code is needed here: ``sg.load_exported`` reads the
program's StableHLO from the file, and each new batch size compiles once (a second
process with the same persistent compile cache compiles nothing). Requests
are JSON lines on stdin, one object of named inputs per line; each answer
is one JSON line of named outputs on stdout:

    python examples/serve.py model.sgx  <  requests.jsonl
    {"x": [[0.0, 0.1, ...], ...]}        ->   {"probs": [[...], ...]}

Make a model to serve with ``python examples/serve.py --make model.sgx``
(a small softmax classifier on scikit-learn's digits, trained for a few
hundred steps, exported with a symbolic batch dim).
"""

from __future__ import annotations

import json
import sys

import numpy as np

import stablegraph as sg


def make_model(path: str, steps: int = 200) -> str:
    """Train a small digits classifier and export ``probs`` as a function of ``x`` to ``path``."""
    X, Y = sg.data.load_digits()
    g = sg.Graph("digits_softmax")
    with g:
        x = sg.placeholder(("batch", 64), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        logits = sg.nn.dense(sg.nn.relu(sg.nn.dense(x, 32, name="fc1")), 10, name="fc2")
        probs = sg.nn.softmax(logits)
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(1e-2).minimize(loss)
    with sg.Session(g) as sess:
        for xb, yb in sg.data.batches(
            (X, Y), 64, shuffle=True, epochs=-(-steps * 64 // len(X)), drop_last=True
        ):
            sess.run(train, {x: xb, y: yb})
        exp = sess.export({"probs": probs}, feeds={"x": x})
    return exp.save(path)


def serve(path: str, requests, answer) -> int:
    """Answer every request (a dict of named inputs, nested lists) with ``answer(dict of lists)``;
    returns how many were answered."""
    srv = sg.load_exported(path)
    dtypes = {p.name: p.type.dtype.np for p in srv.signature.inputs}
    n = 0
    for request in requests:
        inputs = {k: np.asarray(v, dtypes.get(k)) for k, v in request.items()}
        outputs = srv(**inputs)
        answer({k: v.tolist() for k, v in outputs.items()})
        n += 1
    return n


def main(argv) -> int:
    if len(argv) == 2 and argv[0] == "--make":
        print(f"wrote {make_model(argv[1])}", file=sys.stderr)
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(f"serving {sg.load_exported(argv[0]).signature}", file=sys.stderr)
    requests = (json.loads(line) for line in sys.stdin if line.strip())

    def answer(outputs: dict) -> None:
        print(json.dumps(outputs), flush=True)

    serve(argv[0], requests, answer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
