"""The export file's program is StableHLO: what a loaded export runs is the stored portable artifact
(one module_call node), for every shape of its symbolic dims; vjp=True gradients equal jax.grad;
vectorizing it equals a loop; a version 1 file (a stablegraph graph) still loads; a damaged
artifact is an ExportError naming the file."""

from __future__ import annotations

import hashlib
import json
import struct

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.backend import export_file
from stablegraph.backend.export_program import module_json
from stablegraph.ops.primitives import hlo
from stablegraph.test_util import line_of

RNG = np.random.default_rng(7)
F32 = sg.float32


def net(x, w, b):
    """softmax(tanh(x) @ w + b) over the last axis, for sg and for jax (same spelling)."""
    z = snp.tanh(x) @ w + b
    e = snp.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def jax_net(x, w, b):
    return jax.nn.softmax(jnp.tanh(x) @ w + b, axis=-1)


NET = jax.jit(jax_net)
W = RNG.standard_normal((4, 3)).astype(np.float32)
B = RNG.standard_normal(3).astype(np.float32)
TYPES = [sg.TensorType(("batch", 4), F32), sg.TensorType((4, 3), F32), sg.TensorType((3,), F32)]


@pytest.fixture(scope="module")
def weightless(tmp_path_factory):
    """net exported with its weights as inputs and vjp=True, saved and loaded."""
    path = tmp_path_factory.mktemp("hlo") / "net.sgx"
    sg.export(lambda x, w, b: {"p": net(x, w, b)}, *TYPES, vjp=True).save(path)
    return path, sg.load_exported(path)


def _module_calls(graph):
    return [n for n in graph.nodes if n.op.name == "module_call"]


def test_the_loaded_program_is_the_stored_artifact(weightless, tmp_path):
    path, srv = weightless
    version, header, arrays, blobs = export_file.read(path)
    assert version == export_file.VERSION == 2
    assert header["program"]["module"]["stablehlo_version"].count(".") == 2  # e.g. "1.15.0"
    assert srv.call.module == hlo.text_of_artifact(blobs[header["program"]["module"]["artifact"]])
    assert "tensor<?x4xf32>" in srv.call.module  # the symbolic batch is a dynamic dim of @main
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 4), F32, name="x")
        srv(x, W, B)
    (node,) = _module_calls(g)
    assert node.attrs.module == srv.call.module
    assert "exported/exported = module_call[name='exported'" in g.listing()  # a one-node library call
    # swap in another program's artifact with the same types: the loaded export runs what the file holds
    other = sg.export(lambda x, w, b: {"p": snp.tanh(x) @ w + b}, *TYPES)
    blobs = {}
    header["program"] = module_json(other.call, blobs)
    export_file.write(tmp_path / "swapped.sgx", header, arrays, blobs)
    xs = RNG.standard_normal((3, 4)).astype(np.float32)
    got = sg.load_exported(tmp_path / "swapped.sgx")(xs, W, B)["p"]
    np.testing.assert_allclose(got, np.tanh(xs) @ W + B, rtol=1e-5, atol=1e-6)


def test_every_shape_of_two_symbolic_dims_round_trips(tmp_path):
    def fn(a, b):
        return {"s": a @ b, "m": a.max(1), "a": a * 2, "twice": a * 2, "same": a}

    exp = sg.export(fn, sg.TensorType(("n", "k"), F32), sg.TensorType(("k", "m"), F32))
    srv = sg.load_exported(exp.save(tmp_path / "two.sgx"))
    assert str(srv.signature) == (
        "a: f32[n, k], b: f32[k, m] -> s: f32[n, m], m: f32[n], a: f32[n, k], twice: f32[n, k], same: f32[n, k]"
    )
    edge = np.array([[0.0, -0.0, np.inf], [np.nan, -np.inf, 1e30]], np.float32)
    cases = [
        (RNG.standard_normal((2, 3)), RNG.standard_normal((3, 5))),
        (edge, np.ones((3, 1))),
        (RNG.standard_normal((1, 1)), RNG.standard_normal((1, 7))),
        (np.zeros((0, 2)), RNG.standard_normal((2, 3))),
    ]
    for a, b in cases:
        a, b = a.astype(np.float32), b.astype(np.float32)
        out = srv(a=a, b=b)
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(out["s"], a @ b, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(out["m"], a.max(1, initial=-np.inf) if a.size else np.zeros(0))
        for key in ("a", "twice"):
            np.testing.assert_array_equal(out[key], a * 2)
        np.testing.assert_array_equal(out["same"], a)
    with pytest.raises(sg.FeedError, match="symbol k cannot be both"):
        srv(a=np.ones((2, 3), np.float32), b=np.ones((4, 2), np.float32))  # k disagrees


def test_vjp_gradients_equal_jax_grad(weightless):
    _, srv = weightless
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 4), F32, name="x")
        w = sg.placeholder((4, 3), F32, name="w")
        b = sg.placeholder((3,), F32, name="b")
        c = sg.placeholder(("n", 3), F32, name="c")
        loss = (srv(x, w, b)["p"] * c).sum()  # the exported call
        grads = sg.gradients(loss, [x, w, b])
    jgrads = jax.jit(jax.grad(lambda x, w, b, c: (jax_net(x, w, b) * c).sum(), argnums=(0, 1, 2)))
    with sg.Session(g) as sess:
        for n in (1, 5):
            xs = RNG.standard_normal((n, 4)).astype(np.float32)
            xs[0, :2] = [0.0, -0.0]
            cs = RNG.standard_normal((n, 3)).astype(np.float32)
            got = sess.run(grads, {x: xs, w: W, b: B, c: cs})
            for g_got, g_want in zip(got, jgrads(xs, W, B, cs)):
                np.testing.assert_allclose(g_got, g_want, rtol=1e-4, atol=1e-6)
    with g, pytest.raises(sg.GraphError, match="has no exported vjp") as info:
        sg.gradients(grads[0].sum(), [x])  # one level is exported: no second derivative
    assert f"test_export_stablehlo.py:{line_of(__file__, '# the exported call')}" in str(info.value)


def test_without_vjp_the_gradient_says_to_export_with_vjp():
    srv = sg.export(lambda x: {"y": snp.sin(x)}, sg.TensorType(("n",), F32))
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), F32)
        with pytest.raises(sg.GraphError, match="exported without vjp=True") as info:
            sg.gradients(srv(x)["y"].sum(), [x])  # no vjp
    assert f"test_export_stablehlo.py:{line_of(__file__, '[x])  # no vjp')}" in str(info.value)


def test_vectorizing_an_export_twice_is_an_error_at_the_users_line():
    srv = sg.export(lambda x: {"y": snp.sin(x)}, sg.TensorType(("n",), F32))
    g = sg.Graph()
    with g, pytest.raises(sg.GraphError, match="has no exported batched form") as info:
        sg.vectorize(sg.vectorize(lambda t: srv(t)["y"]))(sg.placeholder((2, 3, 4), F32))  # twice
    assert f"test_export_stablehlo.py:{line_of(__file__, '# twice')}" in str(info.value)


def test_vectorizing_a_loaded_export_equals_a_loop(weightless):
    _, srv = weightless
    # a program that mixes its batch rows: vectorizing must not flatten the new axis into the batch
    centered = sg.export(lambda x: {"y": x - x.mean(0)}, sg.TensorType(("batch", 2), F32))
    per_example_grad = sg.vectorize(
        sg.grad(
            sg.function(lambda v, w: srv(v[None], w, B)["p"][0, 0], [sg.TensorType((4,), F32), TYPES[1]])
        ),
        in_axes=(0, None),
    )
    g = sg.Graph()
    with g:
        xb = sg.placeholder((3, "n", 4), F32, name="xb")
        zb = sg.placeholder((3, 5, 2), F32, name="zb")
        v = sg.placeholder((6, 4), F32, name="v")
        probs = sg.vectorize(lambda x: srv(x, W, B)["p"])(xb)
        ys = sg.vectorize(lambda z: centered(z)["y"])(zb)
        gv = per_example_grad(v, W)
        (gxb,) = sg.gradients(probs[..., 0].sum(), [xb])  # through the vectorized program's own vjp
    xs = RNG.standard_normal((3, 2, 4)).astype(np.float32)
    zs = RNG.standard_normal((3, 5, 2)).astype(np.float32)
    vs = RNG.standard_normal((6, 4)).astype(np.float32)
    vs[0] = [0.0, -0.0, 30.0, -30.0]
    with sg.Session(g) as sess:
        got_p, got_y, got_g, got_gxb = sess.run([probs, ys, gv, gxb], {xb: xs, zb: zs, v: vs})
    np.testing.assert_allclose(got_p, np.stack([srv(x, W, B)["p"] for x in xs]), rtol=1e-6)
    np.testing.assert_allclose(got_y, np.stack([z - z.mean(0) for z in zs]), rtol=1e-5, atol=1e-6)
    want_g = jax.jit(jax.vmap(jax.grad(lambda u: jax_net(u[None], W, B)[0, 0])))(vs)  # a loop in jax
    np.testing.assert_allclose(got_g, want_g, rtol=1e-4, atol=1e-6)
    want_gxb = jax.jit(jax.grad(lambda xs: jax.vmap(lambda x: jax_net(x, W, B))(xs)[..., 0].sum()))(xs)
    np.testing.assert_allclose(got_gxb, want_gxb, rtol=1e-4, atol=1e-6)


def _v1_file(path, header: dict, arrays: dict) -> None:
    """A file in the version 1 layout (the program as a stablegraph graph): written by hand."""
    entries, blob, offset = {}, b"", 0
    for name, arr in arrays.items():
        data = np.ascontiguousarray(arr).tobytes()
        entries[name] = {
            "dtype": arr.dtype.name,
            "shape": list(arr.shape),
            "offset": offset,
            "nbytes": len(data),
        }
        blob, offset = blob + data, offset + len(data)
    head = json.dumps({**header, "arrays": entries}).encode()
    body = b"SGEXPORT" + struct.pack("<IQ", 1, len(head)) + head + blob
    path.write_bytes(body + hashlib.sha256(body).digest())


def test_a_version_1_file_still_loads_and_runs_as_stablehlo(tmp_path):
    g = sg.Graph("old")
    with g:
        x = sg.placeholder(("batch", 4), F32, name="x")
        w = sg.placeholder((4, 3), F32, name="fc/w")
        b = sg.placeholder((3,), F32, name="fc/b")
        p = net(x, w, b)
    port = lambda name, shape: {"name": name, "shape": shape, "dtype": "float32", "sharding": None}  # noqa: E731
    header = {
        "format": "stablegraph.exported", "name": "old", "vjp": False, "mesh": None,
        "inputs": [port("x", ["batch", 4])], "outputs": [port("probs", ["batch", 3])],
        "variables": [port("fc/w", [4, 3]), port("fc/b", [3])],
        "tensors": [[x.name, w.name, b.name], [p.name]], "program": g.to_json(),
    }  # fmt: skip
    _v1_file(tmp_path / "v1.sgx", header, {"fc/w": W, "fc/b": B})
    srv = sg.load_exported(tmp_path / "v1.sgx")
    assert str(srv.signature) == "x: f32[batch, 4] -> probs: f32[batch, 3]"
    assert "tensor<?x4xf32>" in srv.call.module
    for n in (2, 0):
        xs = RNG.standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(srv(x=xs)["probs"], NET(xs, W, B), rtol=1e-5, atol=1e-6)
    assert srv.vjp and srv.call.vjp_call is not None  # version 1 exports were all differentiable


def test_a_damaged_artifact_or_a_disagreeing_header_is_an_export_error(weightless, tmp_path):
    path, _ = weightless
    _, header, arrays, blobs = export_file.read(path)
    key = header["program"]["module"]["artifact"]
    bad = tmp_path / "garbage.sgx"
    export_file.write(bad, header, arrays, {**blobs, key: b"ML\xefR" + b"\x00" * 40})
    with pytest.raises(sg.ExportError, match=f"{bad}.*StableHLO artifact does not load"):
        sg.load_exported(bad)
    wrong = tmp_path / "wrong.sgx"
    header["inputs"][0]["dtype"] = "float64"
    export_file.write(wrong, header, arrays, blobs)
    with pytest.raises(sg.ExportError, match=f"{wrong} is corrupt: its program takes"):
        sg.load_exported(wrong)
    newer = tmp_path / "newer_stablehlo.sgx"
    header["inputs"][0]["dtype"] = "float32"
    header["program"]["module"]["stablehlo_version"] = "99.0.0"
    export_file.write(newer, header, arrays, blobs)
    with pytest.raises(
        sg.ExportError, match=f"{newer} cannot be read here: its program is StableHLO 99.0.0; this jaxlib"
    ):
        sg.load_exported(newer)
    header["program"]["module"]["stablehlo_version"] = hlo.artifact_version()
    missing = tmp_path / "missing_blob.sgx"
    export_file.write(missing, header, arrays, {})
    with pytest.raises(sg.ExportError, match=f"{missing} is corrupt"):
        sg.load_exported(missing)


def test_a_mesh_export_takes_gradients_in_a_mesh_session(tmp_path):
    mesh = sg.make_mesh((4,), ("data",))
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), F32, name="x", sharding=sg.PartitionSpec("data", None))
        w = sg.Variable(sg.nn.initializers.zeros, (4, 3), name="w")
        p = net(x, w, B)
    with sg.Session(g, mesh=mesh) as sess:
        sess.set(w, W)
        srv = sg.load_exported(sess.export({"p": p}, {"x": x}, vjp=True).save(tmp_path / "m.sgx"))
    h = sg.Graph()
    with h:
        x = sg.placeholder(("batch", 4), F32, name="x", sharding=sg.PartitionSpec("data", None))
        out = srv(x)["p"]
        (gx,) = sg.gradients(out[:, 1].sum(), [x])
    xs = RNG.standard_normal((8, 4)).astype(np.float32)
    with sg.Session(h, mesh=mesh) as sess:
        got, got_g = sess.run([out, gx], {x: xs})
    np.testing.assert_allclose(got, NET(xs, W, B), rtol=1e-5, atol=1e-6)
    want = jax.jit(jax.grad(lambda u: jax_net(u, W, B)[:, 1].sum()))(xs)
    np.testing.assert_allclose(got_g, want, rtol=1e-4, atol=1e-6)


def seq(x):
    """Dims that are functions of n: a difference (n - 1), a concatenation (2n), a flattening (3n),
    a padding (n + 2) and an unbiased variance (divides by n - 1)."""
    d = x[1:] - x[:-1]
    both = snp.concatenate([x, x * 2])
    flat = snp.reshape(x, (-1,))
    padded = snp.pad(x, ((1, 1), (0, 0)))
    return {"d": d, "both": both, "flat": flat, "padded": padded, "var": x.var(0, ddof=1)}


def jax_seq(x):
    return {
        "d": x[1:] - x[:-1], "both": jnp.concatenate([x, x * 2]), "flat": x.reshape(-1),
        "padded": jnp.pad(x, ((1, 1), (0, 0))), "var": x.var(0, ddof=1),
    }  # fmt: skip


def test_dims_that_are_functions_of_the_batch_stay_symbolic(tmp_path):
    srv = sg.load_exported(sg.export(seq, sg.TensorType(("n", 3), F32), vjp=True).save(tmp_path / "seq.sgx"))
    assert str(srv.signature) == (
        "x: f32[n, 3] -> d: f32[n - 1, 3], both: f32[2*n, 3], flat: f32[3*n], padded: f32[n + 2, 3], var: f32[3]"
    )
    want_fn = jax.jit(jax_seq)
    for n in (2, 5, 1):
        xs = RNG.standard_normal((n, 3)).astype(np.float32)
        xs[0, 0] = -0.0
        got, want = srv(x=xs), want_fn(xs)
        for key in want:
            with np.errstate(invalid="ignore", divide="ignore"):  # n = 1: the variance divides by 0
                np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6, err_msg=key)
    jexp = jax.export.deserialize(srv.to_jax())  # the same module, for jax
    xs = RNG.standard_normal((4, 3)).astype(np.float32)
    for key, value in jexp.call(xs).items():
        np.testing.assert_allclose(value, jax_seq(xs)[key], rtol=1e-5, atol=1e-6, err_msg=key)
    g = sg.Graph()
    with g:
        x = sg.placeholder(("m", 3), F32, name="x")
        out = srv(x=x)
        loss = (out["d"] ** 2).sum() + out["both"].sum() + (out["flat"] * 3).sum() + out["var"].sum()
        (gx,) = sg.gradients(loss, [x])

    def jloss(x):
        o = jax_seq(x)
        return (o["d"] ** 2).sum() + o["both"].sum() + (o["flat"] * 3).sum() + o["var"].sum()

    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(gx, {x: xs}), jax.jit(jax.grad(jloss))(xs), rtol=1e-4, atol=1e-5)


def test_dims_computed_from_a_symbol_stay_symbolic_in_an_export(tmp_path):
    """Strided slices ((n + 1) // 2, n // 2), padding, concatenation and an outer product (n*n)
    export with n symbolic; the loaded program gives numpy's values at odd and even n."""

    def fn(x):
        evens, odds = x[::2], x[1::2]
        return {"evens": evens * 2, "mean": evens.mean(), "odds": odds.sum(), "padded": snp.pad(x, (3, 2)),
                "joined": snp.concatenate([evens, odds]), "outer": snp.outer(x, x).reshape(-1)}  # fmt: skip

    exp = sg.load_exported(sg.export(fn, sg.TensorType(("n",), F32)).save(tmp_path / "computed.sgx"))
    assert str(exp.signature.outputs[0].type.shape[0]) == "(n + 1) // 2"
    rng = np.random.default_rng(8)
    for n in (1, 2, 5, 6):
        xv = rng.standard_normal(n).astype(np.float32)
        got = exp(xv)
        want = {"evens": xv[::2] * 2, "mean": xv[::2].mean(), "odds": xv[1::2].sum(), "padded": np.pad(xv, (3, 2)),
                "joined": np.concatenate([xv[::2], xv[1::2]]), "outer": np.outer(xv, xv).reshape(-1)}  # fmt: skip
        for key, value in want.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-6, atol=1e-6, err_msg=f"{key} at n={n}")


def test_a_program_whose_shapes_cannot_stay_symbolic_refuses_export():
    with pytest.raises(
        sg.GraphError, match="export: the program depends on the value of 'n'.*concrete shapes"
    ):
        sg.export(lambda x: {"y": snp.cumsum(x)}, sg.TensorType(("n",), F32))  # a padding attribute of n - 1
    exp = sg.export(lambda x: {"y": snp.cumsum(x)}, sg.TensorType((5,), F32))  # concrete shapes export
    np.testing.assert_array_equal(exp(np.arange(5, dtype=np.float32))["y"], [0, 1, 3, 6, 10])


def test_a_program_that_needs_its_mesh_to_lower_says_export_lowers_without_one():
    mesh = sg.make_mesh((4,), ("data",))
    g = sg.Graph()
    with g:
        x = sg.placeholder((8,), F32, name="x", sharding=sg.PartitionSpec("data"))
        total = sg.spmd(
            lambda a: sg.psum(a.sum(), "data"), mesh, sg.PartitionSpec("data"), sg.PartitionSpec()
        )(x)
    with (
        sg.Session(g, mesh=mesh) as sess,
        pytest.raises(sg.GraphError, match="without a mesh.*sg.spmd region") as e,
    ):
        sess.export({"total": total}, {"x": x})  # where the export is
    line = line_of(__file__, "# where the export is")
    assert f"test_export_stablehlo.py:{line}:" in str(e.value)


def test_vectorizing_an_export_shares_its_variables_instead_of_copying_them():
    def fn(x):
        return {"y": snp.tanh(x @ sg.Variable(sg.nn.initializers.ones, (3, 2), name="w"))}

    exp = sg.export(fn, sg.TensorType(("n", 3), F32), vjp=True)
    assert [p.name for p in exp.variables] == ["w"] and exp.call.batched_args == (0,)
    assert exp.call.batched_call.in_shapes[1] == (3, 2)  # the weights stay unbatched
    g = sg.Graph()
    with g:
        xb = sg.placeholder((4, "n", 3), F32, name="xb")
        yb = sg.vectorize(lambda x: exp(x)["y"])(xb)
        (gx,) = sg.gradients(yb.sum(), [xb])
    xs = RNG.standard_normal((4, 2, 3)).astype(np.float32)
    with sg.Session(g) as sess:
        got, got_g = sess.run([yb, gx], {xb: xs})
    z = xs.astype(np.float64) @ np.ones((3, 2))
    np.testing.assert_allclose(got, np.tanh(z), rtol=1e-6)
    sech2 = 1 / np.cosh(z) ** 2  # d tanh / dz, summed over the two outputs, for each of the 3 inputs
    np.testing.assert_allclose(got_g, np.repeat(sech2.sum(-1)[..., None], 3, -1), rtol=1e-5, atol=1e-6)
    with g, pytest.raises(sg.GraphError, match="takes argument 1 unbatched"):  # per-example weights
        sg.vectorize(lambda w: exp.apply([xb[0], w])[0])(sg.constant(np.ones((2, 3, 2), np.float32)))
