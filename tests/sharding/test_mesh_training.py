"""Training on device meshes: data- and tensor-parallel MLP steps against a numpy oracle.

One graph (the issue's model: a data-parallel batch, a column-split then a
row-split weight, a constrained hidden layer, Adam) runs on one device and on
meshes of 4 and 8 CPU devices; every run must give the oracle's losses and
weights. One compile per mesh shape.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg

P = sg.PartitionSpec
B, D, H, C = 8, 6, 8, 4
LR, B1, B2, EPS = 1e-2, 0.9, 0.999, 1e-8
RNG = np.random.default_rng(0)
X = RNG.normal(size=(B, D)).astype(np.float32)
Y = RNG.integers(0, C, B).astype(np.int32)
W1 = (RNG.normal(size=(D, H)) * 0.5).astype(np.float32)
W2 = (RNG.normal(size=(H, C)) * 0.5).astype(np.float32)


def build():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", D), sg.float32, name="x", sharding=P("data", None))
        y = sg.placeholder(("batch",), sg.int32, name="y", sharding=P("data"))
        w1 = sg.Variable(sg.nn.initializers.glorot_uniform(), (D, H), name="w1", sharding=P(None, "model"))
        w2 = sg.Variable(sg.nn.initializers.glorot_uniform(), (H, C), name="w2", sharding=P("model", None))
        h = sg.sharding_constraint(sg.nn.relu(x @ w1), P("data", "model"))
        logits = h @ w2
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(LR).minimize(loss)
    return g, x, y, w1, w2, logits, loss, train


G, XP, YP, W1V, W2V, LOGITS, LOSS, TRAIN = build()


def oracle(steps: int):
    """Losses and weights after ``steps`` Adam steps (optax's Adam), by hand in float64."""
    w = [W1.astype(np.float64), W2.astype(np.float64)]
    m = [np.zeros_like(a) for a in w]
    v = [np.zeros_like(a) for a in w]
    losses = []
    for t in range(1, steps + 1):
        a = X @ w[0]
        h = np.maximum(a, 0)
        z = h @ w[1]
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        losses.append(-np.log(p[np.arange(B), Y]).mean())
        dz = (p - np.eye(C)[Y]) / B
        grads = [X.T @ ((dz @ w[1].T) * (a > 0)), h.T @ dz]
        for i, gr in enumerate(grads):
            m[i] = B1 * m[i] + (1 - B1) * gr
            v[i] = B2 * v[i] + (1 - B2) * gr * gr
            w[i] = w[i] - LR * (m[i] / (1 - B1**t)) / (np.sqrt(v[i] / (1 - B2**t)) + EPS)
    return np.array(losses), w


LOSSES, WEIGHTS = oracle(3)
MESHES = [None, (4, 1), (2, 2), (1, 4), (4, 2)]  # 4 and 8 devices; data, tensor and both


@pytest.mark.parametrize("shape", MESHES, ids=str)
def test_train_steps_match_the_oracle_on_every_mesh(shape):
    mesh = None if shape is None else sg.make_mesh(shape, ("data", "model"))
    with sg.Session(G, mesh=mesh, seed=0) as sess:
        sess.set(W1V, W1)
        sess.set(W2V, W2)
        losses = [sess.run([LOSS, TRAIN], {XP: X, YP: Y})[0] for _ in range(3)]
        w1, w2 = sess.get([W1V, W2V])
        if mesh is not None:
            assert sess.sharding_of(W1V) == sg.NamedSharding(mesh, P(None, "model"))
            assert sess.sharding_of("w2") == sg.NamedSharding(mesh, P("model", None))
            assert sess.sharding_of(XP) == sg.NamedSharding(mesh, P("data"))
    np.testing.assert_allclose(losses, LOSSES, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(w1, WEIGHTS[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w2, WEIGHTS[1], rtol=1e-4, atol=1e-5)


def test_lowered_program_carries_shardy_annotations_and_compiles_to_them():
    mesh = sg.make_mesh((2, 2), ("data", "model"))
    with sg.Session(G, mesh=mesh) as sess:
        logits = sess.run(LOGITS, {XP: X})  # (initializes the variables, which lower() needs)
        assert sess.sharding_of(LOGITS).spec.normalized()[:1] == ("data",)  # as the program laid it out
        lowered = sess.lower([LOSS, LOGITS, TRAIN], {XP: X, YP: Y})
        assert 'sdy.mesh @mesh = <["data"=2, "model"=2]>' in lowered
        assert "mhlo.num_partitions = 4 : i32" in lowered
        assert 'tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}' in lowered
        assert 'tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}]>}' in lowered
        assert '#sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output' in lowered  # w1, donated
        assert "sdy.sharding_constraint %" in lowered and '<@mesh, [{"data"}, {"model"}]>' in lowered
        compiled = lowered.compile()
        outs = compiled.output_shardings()
        # fetches (XLA's choice), then the new values of w1, w2, the step and Adam's slots
        assert outs[0] == sg.NamedSharding(mesh, P())  # the scalar loss is replicated
        assert outs[2] == sg.NamedSharding(mesh, P(None, "model"))
        assert outs[5] == sg.NamedSharding(mesh, P("model", None))
        ins = compiled.input_shardings()
        assert ins[0] == sg.NamedSharding(mesh, P("data", None)) and ins[1] == sg.NamedSharding(
            mesh, P("data")
        )
        w1, w2 = sess.get([W1V, W2V])
    np.testing.assert_allclose(logits, np.maximum(X @ w1, 0) @ w2, rtol=1e-5, atol=1e-5)


def test_uneven_feed_is_a_feed_error_naming_the_placeholder():
    mesh = sg.make_mesh((4, 1), ("data", "model"))
    with sg.Session(G, mesh=mesh) as sess:
        with pytest.raises(
            sg.FeedError,
            match=r"feed for x has shape \(6, 6\): dim 0 \(6\) does not split evenly over mesh axes data=4",
        ):
            sess.run(LOSS, {XP: X[:6], YP: Y[:6]})


def test_unknown_axis_in_an_annotation_is_a_graph_error():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 2), sg.float32, name="x", sharding=P("rows"))
        y = x * 2
    with sg.Session(g, mesh=sg.make_mesh((2, 2), ("data", "model"))) as sess:
        with pytest.raises(sg.GraphError, match="names axis 'rows'"):
            sess.run(y, {x: np.ones((4, 2), np.float32)})
    with sg.Session(g) as sess:  # without a mesh the annotation is ignored
        np.testing.assert_array_equal(sess.run(y, {x: np.ones((4, 2), np.float32)}), np.full((4, 2), 2.0))
