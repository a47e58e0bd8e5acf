"""sharding_constraint and sg.shard: identity values, sdy.sharding_constraint on a mesh (nothing
without one), the same constraint on cotangents and tangents, and shard's Function rewrite."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

P = sg.PartitionSpec
RNG = np.random.default_rng(2)
X = RNG.normal(size=(8, 4)).astype(np.float32)
T = RNG.normal(size=(8, 4)).astype(np.float32)
A = RNG.normal(size=(4, 2)).astype(np.float32)


def constrained_square(x):
    return (sg.sharding_constraint(x, P("data", "model")) ** 2).sum()


def build():
    g = sg.Graph()
    with g:
        x = sg.placeholder((8, 4), sg.float32, name="x")
        t = sg.placeholder((8, 4), sg.float32, name="t")
        out = {
            "value": sg.sharding_constraint(x * 2, P("data")),
            "grad": sg.grad(constrained_square)(x),
            "jvp": sg.jvp(constrained_square, (x,), (t,))[1],
            "vmap": sg.vmap(lambda r: sg.sharding_constraint(snp.sin(r), P("model")))(x),
        }
        f = sg.function(
            lambda u, v: u @ v, [sg.TensorType((8, 4), sg.float32), sg.TensorType((4, 2), sg.float32)]
        )
        sf = sg.shard(f, MESH, in_specs=(P("data"), None), out_specs=P("data"))
        out["shard"] = sf(x, sg.constant(A))
        out["shard_callable"] = sg.shard(lambda u: snp.tanh(u), MESH, P(None, "model"), P())(x)
    return g, x, t, out, sf


MESH = sg.make_mesh((2, 2), ("data", "model"))
G, XP, TP, OUT, SF = build()
EXPECT = {
    "value": 2 * X,
    "grad": 2 * X,
    "jvp": np.float32((2 * X * T).sum()),
    "vmap": np.sin(X),
    "shard": X @ A,
    "shard_callable": np.tanh(X),
}


@pytest.mark.parametrize("mesh", [None, MESH, "1x1"], ids=["one device", "2x2 mesh", "1x1 mesh"])
def test_values_are_the_identity_with_and_without_a_mesh(mesh):
    mesh = sg.make_mesh((1, 1), ("data", "model")) if mesh == "1x1" else mesh
    with sg.Session(G, mesh=mesh) as sess:
        got = sess.run(OUT, {XP: X, TP: T})
        text = sess.lower(OUT, {XP: X, TP: T})
    for k, want in EXPECT.items():
        np.testing.assert_allclose(got[k], want, rtol=1e-5, atol=1e-5, err_msg=k)
    if mesh is None:
        assert "sdy" not in text
        return
    assert text.count("sdy.sharding_constraint") >= 6
    assert '<@mesh, [{"data"}, {}]>' in text  # P("data") padded to the rank
    assert '<@mesh, [{}, {"model"}]>' in text  # vmap's lane spec with the batch dim left whole


def test_derivatives_carry_the_constraint():
    g = sg.Graph()
    with g:
        x = sg.placeholder((8, 4), sg.float32, name="x")
        t = sg.placeholder((8, 4), sg.float32, name="t")
        before = len(g.nodes)
        sg.grad(constrained_square)(x)
        grad_nodes = [n for n in g.nodes[before:] if n.op.name == "sharding_constraint"]
        before = len(g.nodes)
        sg.jvp(constrained_square, (x,), (t,))
        jvp_nodes = [n for n in g.nodes[before:] if n.op.name == "sharding_constraint"]
    assert len(grad_nodes) == 2 and all(n.attrs.spec == ("data", "model") for n in grad_nodes)
    assert len(jvp_nodes) == 2 and all(n.attrs.spec == ("data", "model") for n in jvp_nodes)


def test_shard_is_a_function_rewrite():
    text = str(SF)
    assert SF.name == "shard_lambda" and len(SF.params) == 2
    assert text.count("sharding_constraint[spec=(data,)]") == 2  # the first input and the output
    assert "spec=(model" not in text


def test_shard_errors():
    f = sg.function(lambda u: u * 2, [sg.TensorType((4,), sg.float32)])
    with pytest.raises(sg.GraphError, match="names axis 'rows'"):
        sg.shard(f, MESH, P("rows"), None)
    with pytest.raises(sg.GraphError, match="in_specs has 2 entries for 1 leaves"):
        sg.shard(f, MESH, (P("data"), P()), None)
    with pytest.raises(sg.GraphError, match="shard wants a Mesh"):
        sg.shard(f, ("data",), P("data"), None)
