"""Random small programs: the Session's results equal numpy's, and every graph survives JSON.

hypothesis draws a program from a small grammar (elementwise ops, broadcasting,
slicing and concatenation over a symbolic ``batch`` dim, reductions, cond,
fori_loop, scan). Each step is written once against a numpy-like module, so
the same code builds the graph (``sg.numpy``) and computes the oracle
(``numpy``); the placeholder's rows stay symbolic until the Session binds them.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import stablegraph as sg
from stablegraph import numpy as snp


def _cond(lib, v):
    if lib is np:
        return v * 2.0 if np.sum(v) > 0 else np.sin(v)
    return sg.cond(snp.sum(v) > 0, lambda a: a * 2.0, snp.sin, v)


def _fori(lib, v):
    if lib is np:
        for i in range(3):
            v = v * np.float32(0.5) + np.float32(i)
        return v
    return sg.fori_loop(0, 3, lambda i, a: a * 0.5 + i.astype(sg.float32), v)


def _scan(lib, v):
    if lib is np:
        return np.cumsum(v, axis=0, dtype=np.float32)
    return sg.scan(lambda c, r: (c + r, c + r), snp.zeros(v.shape[1], sg.float32), v)[1]


def _mean_rows(lib, v):  # a symbolic size in arithmetic
    return lib.sum(v, axis=0, keepdims=True) / v.shape[0]


UNARY = {
    "sin": lambda lib, v: lib.sin(v),
    "tanh": lambda lib, v: lib.tanh(v),
    "abs": lambda lib, v: lib.abs(v),
    "square": lambda lib, v: v * v,
    "cond": _cond,
    "fori_loop": _fori,
    "scan": _scan,
}
BINARY = {
    "add": lambda lib, a, b: a + b,
    "sub": lambda lib, a, b: a - b,
    "mul": lambda lib, a, b: a * b,
    "maximum": lambda lib, a, b: lib.maximum(a, b),
}
# steps that change the number of rows, and how many rows their operand needs
ROWS = {
    "drop_first": (1, lambda lib, v: v[1:]),
    "drop_last": (1, lambda lib, v: v[:-1]),
    "every_other": (1, lambda lib, v: v[::2]),
    "odd_rows": (1, lambda lib, v: v[1::2]),
}
REDUCE = {  # one row (broadcasts against any value) or one column (against values of its rows)
    "sum_rows": (0, lambda lib, v: lib.sum(v, axis=0, keepdims=True)),
    "max_rows": (1, lambda lib, v: lib.max(v, axis=0, keepdims=True)),
    "mean_rows": (1, _mean_rows),
    "sum_cols": (0, lambda lib, v: lib.sum(v, axis=1, keepdims=True)),
}


class Program:
    """Values built twice, as Tensors and as numpy arrays, by the same drawn steps."""

    def __init__(self, x, x_np):
        self.values = [(x, x_np)]
        self.steps: list[str] = []

    def pick(self, data, ok=lambda t, a: True):
        candidates = [v for v in self.values if ok(*v)]
        return data.draw(st.sampled_from(candidates)) if candidates else None

    def add(self, name, fn, *operands):
        self.steps.append(name)
        tensor = fn(snp, *(t for t, _ in operands))
        array = fn(np, *(a for _, a in operands))
        self.values.append((tensor, np.asarray(array, np.float32)))

    def step(self, data):
        kind = data.draw(st.sampled_from(["unary", "binary", "rows", "reduce", "concat"]))
        if kind == "concat":
            a, b = self.pick(data), self.pick(data)
            self.add("concat", lambda lib, p, q: lib.concatenate([p, q], axis=0), a, b)
        elif kind == "unary":
            name = data.draw(st.sampled_from(sorted(UNARY)))
            self.add(name, UNARY[name], self.pick(data))
        elif kind == "binary":
            a = self.pick(data)
            b = self.pick(data, lambda t, _: t.shape == a[0].shape)  # equal dims, symbolic included
            name = data.draw(st.sampled_from(sorted(BINARY)))
            self.add(name, BINARY[name], a, b)
        elif kind == "rows":
            name = data.draw(st.sampled_from(sorted(ROWS)))
            need, fn = ROWS[name]
            v = self.pick(data, lambda _, a: a.shape[0] >= need)
            if v is not None:
                self.add(name, fn, v)
        else:
            self.reduce_and_broadcast(data)

    def reduce_and_broadcast(self, data):
        name = data.draw(st.sampled_from(sorted(REDUCE)))
        need, fn = REDUCE[name]
        v = self.pick(data, lambda _, a: a.shape[0] >= need)
        if v is None:
            return
        rows = v[0].shape[0] if name == "sum_cols" else 1
        other = self.pick(data, lambda t, _: rows == 1 or t.shape[0] == rows)
        self.add(f"{name}+broadcast", lambda lib, o, w: o + fn(lib, w), other, v)


@settings(max_examples=20)
@given(st.data())
def test_random_programs_match_numpy_and_round_trip_json(data):
    batch = data.draw(st.integers(3, 7), label="batch")
    cols = data.draw(st.integers(1, 3), label="cols")
    x_np = (
        np.random.default_rng(data.draw(st.integers(0, 2**16))).normal(size=(batch, cols)).astype(np.float32)
    )
    g = sg.Graph("random_program")
    with g:
        x = sg.placeholder(("batch", cols), sg.float32, name="x")
        program = Program(x, x_np)
        for _ in range(data.draw(st.integers(1, 6), label="steps")):
            program.step(data)
    fetched = [t for t, _ in program.values[1:]]
    with sg.Session(g) as sess:
        got = sess.run(fetched, {x: x_np})
    for name, out, (_, want) in zip(program.steps, got, program.values[1:]):
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5, err_msg=f"{program.steps} at {name}")
    again = sg.Graph.from_json(g.to_json())
    assert str(again) == str(g)
