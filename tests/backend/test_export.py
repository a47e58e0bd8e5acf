"""sg.Exported: export / save / load round trips equal a numpy oracle (symbolic batch, several shapes,
variables, a mesh of 4 CPU devices), inside another graph as one library call (grad and vectorize
through it), and every damaged file is an ExportError naming it."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import line_of

RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 3)).astype(np.float32)
B = RNG.standard_normal(3).astype(np.float32)


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def oracle(x):
    return softmax(np.tanh(x) @ W + B)


def model(mesh=None, spec=None):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x", sharding=spec)
        w = sg.Variable(sg.nn.initializers.zeros, (4, 3), name="fc/w")
        b = sg.Variable(sg.nn.initializers.zeros, (3,), name="fc/b")
        z = snp.tanh(x) @ w + b
        probs = snp.exp(z - z.max(-1, keepdims=True))
        probs = probs / probs.sum(-1, keepdims=True)
    sess = sg.Session(g, mesh=mesh)
    sess.set(w, W)
    sess.set(b, B)
    return sess, x, probs


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    sess, x, probs = model()
    with sess:
        exp = sess.export({"probs": probs}, feeds={"x": x}, vjp=True)
    path = tmp_path_factory.mktemp("export") / "model.sgx"
    exp.save(path)
    return exp, path


def test_saved_model_answers_every_batch_size(saved):
    exp, path = saved
    srv = sg.load_exported(path)
    assert str(srv.signature) == "x: f32[batch, 4] -> probs: f32[batch, 3]"
    assert str(exp.signature) == str(srv.signature)
    edge = np.array([[0.0, -0.0, np.inf, -np.inf], [1e30, -1e30, 0.5, 2.0]], np.float32)
    for x in [RNG.standard_normal((5, 4)).astype(np.float32), edge, np.zeros((0, 4), np.float32)]:
        out = srv(x=x)
        assert set(out) == {"probs"} and out["probs"].shape == (len(x), 3)
        np.testing.assert_allclose(out["probs"], oracle(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srv(edge)["probs"], oracle(edge), rtol=1e-5, atol=1e-6)  # by position
    np.testing.assert_allclose(exp(x=edge)["probs"], oracle(edge), rtol=1e-5, atol=1e-6)  # before saving


def test_without_variables_they_are_inputs():
    sess, x, probs = model()
    with sess:
        exp = sess.export({"probs": probs}, {"x": x}, include_variables=False)
    assert str(exp.signature) == "x: f32[batch, 4], fc/w: f32[4, 3], fc/b: f32[3] -> probs: f32[batch, 3]"
    xs = RNG.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(exp(xs, W, B)["probs"], oracle(xs), rtol=1e-5, atol=1e-6)


def test_inside_a_graph_it_is_one_library_call_that_grad_and_vectorize_see_through(saved):
    _, path = saved
    srv = sg.load_exported(path)
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 4), sg.float32, name="x")
        p = srv(x=x)["probs"]
        loss = (p[:, 0] * 2.0).sum()
        (gx,) = sg.gradients(loss, [x])
    assert "exported = exported(x) : f32[n,3]" in g.listing()
    xs = RNG.standard_normal((3, 4)).astype(np.float32)
    with sg.Session(g) as sess:
        got, got_g = sess.run([p, gx], {x: xs})
    np.testing.assert_allclose(got, oracle(xs), rtol=1e-5, atol=1e-6)
    eps, fd = 1e-3, np.zeros_like(xs, np.float64)  # central differences in float64
    f = lambda v: 2 * oracle(v.astype(np.float64))[:, 0].sum()  # noqa: E731
    for i in np.ndindex(xs.shape):
        d = np.zeros_like(xs, np.float64)
        d[i] = eps
        fd[i] = (f(xs + d) - f(xs - d)) / (2 * eps)
    np.testing.assert_allclose(got_g, fd, rtol=2e-3, atol=2e-4)
    row = sg.vectorize(sg.function(lambda v: srv(x=v[None])["probs"][0], [sg.TensorType((4,), sg.float32)]))
    g2 = sg.Graph()
    with g2:
        xb = sg.placeholder((3, 4), sg.float32)
        yb = row(xb)
    with sg.Session(g2) as sess:
        np.testing.assert_allclose(sess.run(yb, {xb: xs}), oracle(xs), rtol=1e-5, atol=1e-6)


def test_sg_export_of_a_python_function():
    exp = sg.export(
        lambda x, y: {"s": x * y + 1.0}, sg.TensorType(("n",), sg.float32), np.zeros(1, np.float32)
    )
    assert str(exp.signature) == "x: f32[n], y: f32[1] -> s: f32[n]"
    a, b = np.array([0.0, -0.0, 2.0, np.nan], np.float32), np.array([-3.0], np.float32)
    np.testing.assert_array_equal(exp(a, b)["s"], a * b + 1)


def test_mesh_of_4_devices_round_trips(tmp_path):
    mesh = sg.make_mesh((4,), ("data",))
    sess, x, probs = model(mesh, sg.PartitionSpec("data", None))
    with sess:
        xs = RNG.standard_normal((8, 4)).astype(np.float32)
        ref = sess.run(probs, {x: xs})
        exp = sess.export({"probs": probs}, {"x": x})
    exp.save(tmp_path / "m.sgx")
    srv = sg.load_exported(tmp_path / "m.sgx")
    assert srv.signature.mesh == {"data": 4}
    assert srv.signature.inputs[0].sharding == ("data", None)
    assert srv.signature.outputs[0].sharding[:1] == ("data",)  # as the run laid it out
    np.testing.assert_allclose(srv(x=xs)["probs"], ref, rtol=1e-6)
    np.testing.assert_allclose(ref, oracle(xs), rtol=1e-5, atol=1e-6)


def test_host_callbacks_refuse_export():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        y = sg.pure_callback(lambda v: v * 2, sg.TensorType((3,), sg.float32), x)
        z = x * 2
        sg.debug.print("z = {}", z)
    with sg.Session(g) as sess, pytest.raises(sg.GraphError, match="host callbacks.*pure_callback") as e:
        sess.export({"y": y}, {"x": x})  # the line the error names
    line = line_of(__file__, "# the line the error names")
    assert f"test_export.py:{line}" in str(e.value)
    with sg.Session(g) as sess, pytest.raises(sg.GraphError, match="host callbacks.*debug_callback"):
        sess.export({"z": z}, {"x": x})


def _damaged(path, tmp_path, name, edit):
    data = bytearray(path.read_bytes())
    out = tmp_path / name
    out.write_bytes(bytes(edit(data)))
    return out


def test_every_damaged_file_is_an_export_error_naming_it(saved, tmp_path):
    _, path = saved
    size = path.stat().st_size

    def flip(data, at):
        data[at] ^= 0xFF
        return data

    cases = {
        "truncated.sgx": lambda d: d[: size // 2],
        "tiny.sgx": lambda d: d[:5],
        "empty.sgx": lambda d: d[:0],
        "flipped_header.sgx": lambda d: flip(d, 30),
        "flipped_values.sgx": lambda d: flip(d, size - 40),
        "foreign.sgx": lambda d: b"PK\x03\x04" + d[4:],
        "newer.sgx": lambda d: d[:8] + struct.pack("<I", 99) + d[12:],
    }
    for name, edit in cases.items():
        bad = _damaged(path, tmp_path, name, edit)
        with pytest.raises(sg.ExportError, match=str(bad).replace(".", r"\.")) as e:
            sg.load_exported(bad)
        if name == "newer.sgx":
            assert "version 99" in str(e.value)
    with pytest.raises(sg.ExportError, match="missing.sgx"):
        sg.load_exported(tmp_path / "missing.sgx")


def test_save_is_atomic_and_leaves_no_temporary_files(saved, tmp_path):
    exp, _ = saved
    target = tmp_path / "out.sgx"
    target.write_bytes(b"old")
    exp.save(target)
    assert sorted(os.listdir(tmp_path)) == ["out.sgx"]
    assert sg.load_exported(target).signature.outputs[0].name == "probs"
    with pytest.raises(sg.ExportError, match="cannot write exported model .*out.sgx"):
        exp.save(tmp_path / "out.sgx" / "inside.sgx")  # a file is no directory
    with pytest.raises(sg.ExportError, match="cannot read exported model"):
        sg.load_exported(tmp_path)


def test_to_jax_runs_in_jax_with_the_batch_symbolic(saved):
    import jax

    _, path = saved
    exp = jax.export.deserialize(sg.load_exported(path).to_jax())
    for n in (1, 6):
        x = RNG.standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(exp.call(x)["probs"], oracle(x), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(jax.jit(exp.call)(x)["probs"], oracle(x), rtol=1e-5, atol=1e-6)
