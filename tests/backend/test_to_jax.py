"""to_jax_bytes: a lowered program as bytes jax.export.deserialize loads, checked by running them in jax.

The Session's module of a small MLP, its variables baked in, runs in jax (eagerly and jitted) with
numpy's results, in float32 and float64, at several batch sizes, with a 0-d and an integer result;
a module whose batch dim is dynamic stays one shape-polymorphic jax function; multi-platform files
carry the platform index; and every case jax could not run is a GraphError at the caller's line.
"""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.backend.jax_format import symbolic_module, to_jax_bytes
from stablegraph.backend.session_to_jax import session_to_jax
from stablegraph.test_util import line_of

jax = pytest.importorskip("jax")  # the test-only oracle (listed in the `test` extra: never absent in CI)

pytestmark = pytest.mark.usefixtures("jax_x64")


def _mlp_graph(dtype, rng):
    """x -> tanh(x W1 + b1) W2 + b2 -> (logits, their mean (0-d), argmax per row (int))."""
    g = sg.Graph()
    w1 = (rng.standard_normal((6, 5)) / 2).astype(dtype)
    b1 = rng.standard_normal(5).astype(dtype)
    w2 = (rng.standard_normal((5, 4)) / 2).astype(dtype)
    b2 = rng.standard_normal(4).astype(dtype)
    with g:
        x = sg.placeholder(("batch", 6), sg.float32 if dtype == np.float32 else sg.float64, name="x")
        variables = [sg.Variable(v, name=n) for v, n in zip((w1, b1, w2, b2), ("w1", "b1", "w2", "b2"))]
        h = snp.tanh(x @ variables[0] + variables[1])
        logits = h @ variables[2] + variables[3]
        fetches = [logits, logits.mean(), snp.argmax(logits, axis=1).astype(sg.int32)]
    return g, x, fetches, variables, (w1, b1, w2, b2)


def _oracle(xv, w1, b1, w2, b2):
    logits = np.tanh(xv @ w1 + b1) @ w2 + b2
    return logits, logits.mean(), np.argmax(logits, axis=1).astype(np.int32)


def _inputs(n, dtype, rng):
    """``n`` rows: random ones, and at the edges a row of zeros, one of -0 and one far beyond tanh's range."""
    xv = rng.uniform(-2, 2, (n, 6)).astype(dtype)
    edges = [np.zeros(6), np.full(6, -0.0), np.array([1e30, -1e30, 3e3, -3e3, 0.0, 1.0])]
    for i, row in enumerate(edges[: max(n - 1, 0)]):
        xv[i + 1] = row
    return xv


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_session_module_with_baked_variables_runs_in_jax(dtype):
    rng = np.random.default_rng(7)
    g, x, fetches, variables, weights = _mlp_graph(dtype, rng)
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    with sg.Session(g) as sess:
        values = dict(zip(("w1", "b1", "w2", "b2"), sess.run(variables)))
        for n in (1, 5):
            xv = _inputs(n, dtype, rng)
            lowered = sess.lower(fetches, {x: xv})
            arg_types, result_types = lowered._types
            # the Session's arguments: the feed, then the variables it reads (by their types here)
            positions = {
                name: next(i for i, t in enumerate(arg_types) if t[0] == values[name].shape)
                for name in values
            }
            blob = to_jax_bytes(
                str(lowered),
                list(arg_types),
                list(result_types),
                baked={positions[k]: v for k, v in values.items()},
            )
            exported = jax.export.deserialize(bytearray(blob))
            assert [tuple(a.shape) for a in exported.in_avals] == [(n, 6)]
            want = _oracle(xv.astype(np.float64), *(w.astype(np.float64) for w in weights))
            session = sess.run(fetches, {x: xv})
            for run in (exported.call, jax.jit(exported.call)):
                got = run(xv)
                assert [np.asarray(v).dtype for v in got] == [np.dtype(dtype), np.dtype(dtype), np.int32]
                assert np.asarray(got[1]).shape == ()
                np.testing.assert_allclose(np.asarray(got[0]), want[0], **tol)
                np.testing.assert_allclose(np.asarray(got[1]), want[1], **tol)
                np.testing.assert_array_equal(np.asarray(got[2]), want[2])
                for mine, theirs in zip(session, got):
                    np.testing.assert_array_equal(mine, np.asarray(theirs))  # the same program: the same bits


# What a lowering with a dynamic batch gives: @main's batch dims are `?` and every shape inside is
# computed from the argument's (the form jax's own shape-polymorphic modules take).
DYNAMIC_MLP = """
module {
  func.func public @main(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>)
      -> (tensor<?x3xf32>, tensor<f32>, tensor<?xi32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
    %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
    %c3 = stablehlo.constant dense<3> : tensor<1xi32>
    %shape = stablehlo.concatenate %n1, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %1 = stablehlo.dynamic_broadcast_in_dim %b, %shape, dims = [1] : (tensor<3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
    %2 = stablehlo.add %0, %1 : tensor<?x3xf32>
    %3 = stablehlo.tanh %2 : tensor<?x3xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<?x3xf32>, tensor<f32>) -> tensor<f32>
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %halves = stablehlo.dynamic_broadcast_in_dim %half, %shape, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
    %above = stablehlo.compare GT, %3, %halves : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xi1>
    %ones = stablehlo.convert %above : (tensor<?x3xi1>) -> tensor<?x3xi32>
    %none = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.reduce(%ones init: %none) applies stablehlo.add across dimensions = [1] : (tensor<?x3xi32>, tensor<i32>) -> tensor<?xi32>
    return %3, %4, %5 : tensor<?x3xf32>, tensor<f32>, tensor<?xi32>
  }
}
"""
F32 = np.float32
DYNAMIC_ARGS = [(("batch", 4), np.float32), ((4, 3), np.float32), ((3,), np.float32)]
DYNAMIC_RESULTS = [(("batch", 3), np.float32), ((), np.float32), (("batch",), np.int32)]


def test_a_dynamic_batch_stays_one_polymorphic_jax_function():
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    b = np.float32([0.1, -0.2, 0.3])
    blob = to_jax_bytes(
        DYNAMIC_MLP, DYNAMIC_ARGS, DYNAMIC_RESULTS, baked={1: w, 2: b}, result_names=["y", "total", "count"]
    )
    exported = jax.export.deserialize(bytearray(blob))
    assert str(exported.in_avals[0].shape) == "(batch, 4)"
    assert [str(a.shape) for a in exported.out_avals] == ["(batch,)", "()", "(batch, 3)"]  # count, total, y
    jitted = jax.jit(exported.call)
    rng = np.random.default_rng(3)
    for n in (1, 2, 7):
        xv = rng.uniform(-2, 2, (n, 4)).astype(np.float32)
        xv[0] = [0.0, -0.0, 1e30, -1e30]
        y = np.tanh(xv.astype(np.float64) @ w + b)
        for got in (exported.call(xv), jitted(xv)):
            assert sorted(got) == ["count", "total", "y"]
            np.testing.assert_allclose(np.asarray(got["y"]), y, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(np.asarray(got["total"]), y.sum(), rtol=1e-5)
            np.testing.assert_array_equal(np.asarray(got["count"]), (y > 0.5).sum(axis=1))
    with pytest.raises(ValueError, match="batch"):  # jax's symbolic dims are >= 1: an empty batch is refused
        exported.call(np.zeros((0, 4), np.float32))


def test_the_sessions_symbolic_batch_becomes_jax_shape_polymorphism():
    """symbolic_module makes the Session's concrete lowerings one module with a dynamic batch:
    one jax function then runs every batch size (eagerly and jitted) with the Session's bits."""
    rng = np.random.default_rng(11)
    g, x, fetches, variables, weights = _mlp_graph(np.float32, rng)
    with g:
        fetches = fetches + [sg.nn.softmax(fetches[0])]  # reshapes and broadcasts over the batch
    with sg.Session(g) as sess:
        lowered = sess.lower(fetches, {x: np.ones((2, 6), np.float32)})
        arg_types, _ = lowered._types
        arg_types = [(("batch", 6), np.float32)] + list(arg_types[1:])
        text = symbolic_module(
            lambda sizes: sess.lower(fetches, {x: np.zeros((sizes["batch"], 6), np.float32)}), arg_types
        )
        result_types = [(("batch", 4), F32), ((), F32), (("batch",), np.int32), (("batch", 4), F32)]
        values = sess.run(variables)
        baked = {next(i for i, t in enumerate(arg_types) if t[0] == v.shape): v for v in values}
        exported = jax.export.deserialize(bytearray(to_jax_bytes(text, arg_types, result_types, baked=baked)))
        assert str(exported.in_avals[0].shape) == "(batch, 6)"
        jitted = jax.jit(exported.call)
        for n in (1, 3, 10):
            xv = _inputs(n, np.float32, rng)
            want = sess.run(fetches, {x: xv})
            logits = _oracle(xv.astype(np.float64), *(w.astype(np.float64) for w in weights))[0]
            for got in (exported.call(xv), jitted(xv)):
                assert np.asarray(got[0]).shape == (n, 4)
                for mine, theirs in zip(want, got):
                    np.testing.assert_array_equal(mine, np.asarray(theirs))
                np.testing.assert_allclose(np.asarray(got[0]), logits, rtol=2e-5, atol=2e-5)


def test_dims_computed_from_the_batch_stay_jax_shape_polymorphism():
    """x[::2] is ((batch + 1) // 2, 3) and x[1::2] (batch // 2, 3): the program's own dims tell the
    module which sizes are which expression of the batch, so one jax function (its types spelled
    floordiv(batch + 1, 2)) runs every batch size, odd and even, with numpy's values."""
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        evens, odds = x[::2], x[1::2]
        fetches = [evens * 2, evens.mean(axis=0), odds.sum(axis=0), snp.concatenate([evens, odds])]
    with sg.Session(g) as sess:
        blob = session_to_jax(sess, fetches, [x])
    exported = jax.export.deserialize(bytearray(blob))
    assert str(exported.out_avals[0].shape) == "(floordiv(batch + 1, 2), 3)"
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 6):
        xv = rng.standard_normal((n, 3)).astype(np.float32)
        want = [xv[::2] * 2, xv[::2].mean(axis=0), xv[1::2].sum(axis=0), np.concatenate([xv[::2], xv[1::2]])]
        for got in (exported.call(xv), jax.jit(exported.call)(xv)):
            for mine, theirs in zip(got, want):
                np.testing.assert_allclose(np.asarray(mine), theirs, rtol=1e-6, atol=1e-6)


def test_a_program_that_uses_the_batch_size_itself_stays_concrete():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        running = snp.cumsum(x, axis=0)  # a window whose padding attribute is batch - 1
    with sg.Session(g) as sess:
        with pytest.raises(sg.GraphError, match="depends on the value of 'batch'") as info:
            symbolic_module(  # the user's line
                lambda sizes: sess.lower(running, {x: np.zeros((sizes["batch"], 3), np.float32)}),
                [(("batch", 3), np.float32)],
            )
    assert f"test_to_jax.py:{line_of(__file__, 'symbolic_module(  # the user')}" in str(info.value)


def test_session_to_jax_takes_the_feeds_and_returns_the_fetches_by_name():
    """The glue an Exported's to_jax is: feeds by name (a symbolic batch and an integer feed),
    fetches by name, variables baked in (the random generator's too: dropout's threefry, a private
    function over the batch, generalizes); a train op among the fetches is refused."""
    rng = np.random.default_rng(5)
    g, x, fetches, variables, weights = _mlp_graph(np.float64, rng)
    with g:
        shift = sg.placeholder((), sg.int32, name="shift")
        probs = sg.nn.softmax(sg.nn.dropout(fetches[0], 0.5))  # off here; its threefry is a private function
        label = (fetches[2] + shift).astype(sg.int32)
        train = sg.optim.sgd(0.1).minimize(fetches[1])
    with sg.Session(g) as sess:
        blob = session_to_jax(sess, {"probs": probs, "label": label}, {"x": x, "shift": shift})
        exported = jax.export.deserialize(bytearray(blob))
        assert [str(a.shape) for a in exported.in_avals] == ["(batch, 6)", "()"]
        for n in (2, 6):
            xv = _inputs(n, np.float64, rng)
            want = sess.run({"probs": probs, "label": label}, {x: xv, shift: 3})
            logits = _oracle(xv, *weights)[0]
            for got in (exported.call(xv, np.int32(3)), jax.jit(exported.call)(xv, np.int32(3))):
                assert sorted(got) == ["label", "probs"]
                np.testing.assert_array_equal(np.asarray(got["probs"]), want["probs"])
                e = np.exp(logits - logits.max(axis=1, keepdims=True))
                np.testing.assert_allclose(
                    np.asarray(got["probs"]), e / e.sum(axis=1, keepdims=True), rtol=1e-12
                )
                np.testing.assert_array_equal(np.asarray(got["label"]), np.argmax(logits, axis=1) + 3)
        with pytest.raises(sg.GraphError, match="the fetches train"):
            session_to_jax(sess, [fetches[1], train], [x])


def test_a_file_for_several_platforms_takes_the_platform_index():
    blob = to_jax_bytes(
        DYNAMIC_MLP,
        DYNAMIC_ARGS,
        DYNAMIC_RESULTS,
        baked={1: np.eye(4, 3, dtype=np.float32)},
        platforms=("cpu", "cuda"),
    )
    exported = jax.export.deserialize(bytearray(blob))
    assert exported.platforms == ("cpu", "cuda")
    xv = np.float32([[0.25, -1.0, 0.0, 2.0]])
    b = np.float32([1.0, 0.0, -1.0])
    y, total, count = exported.call(xv, b)
    np.testing.assert_allclose(np.asarray(y), np.tanh(xv[:, :3] + b), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(count), [1])


def _static_module():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        y = snp.sin(x).sum(axis=1)
    with sg.Session(g) as sess:
        return str(sess.lower(y, {x: np.ones((2, 3), np.float32)}))


def _callback_module():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        sg.debug.print("x {}", x)
        y = x * 2
    with sg.Session(g) as sess:
        return str(sess.lower(y, {x: np.ones(3, np.float32)}))


@pytest.mark.parametrize(
    "case, message",
    [
        ("symbolic", "the symbol 'batch' but the module was lowered with it concrete"),
        ("callback", "calls back into Python"),
        ("baked_shape", "the value baked into argument 1 is float32[3], the argument float32[4, 3]"),
        ("baked_symbolic", "argument 0 has symbolic dims"),
        ("only_in_result", "result 0's dim 'n' is in no argument's shape"),
        ("wrong_dtype", "argument 0 is tensor<?x4xf32> in the module but float64"),
        ("bad_symbol", "not a name jax's shape polymorphism accepts"),
        ("platforms_with_kernels", "custom calls"),
    ],
)
def test_what_jax_could_not_run_is_a_graph_error_at_the_callers_line(case, message):
    calls = {
        "symbolic": lambda: to_jax_bytes(_static_module(), [(("batch", 3), F32)], [(("batch",), F32)]),
        "callback": lambda: to_jax_bytes(_callback_module(), [((3,), F32)], [((3,), F32)]),
        "baked_shape": lambda: to_jax_bytes(
            DYNAMIC_MLP, DYNAMIC_ARGS, DYNAMIC_RESULTS, baked={1: np.ones(3, F32)}
        ),
        "baked_symbolic": lambda: to_jax_bytes(
            DYNAMIC_MLP, DYNAMIC_ARGS, DYNAMIC_RESULTS, baked={0: np.ones((2, 4), F32)}
        ),
        "only_in_result": lambda: to_jax_bytes(
            DYNAMIC_MLP, DYNAMIC_ARGS, [(("n", 3), F32), ((), F32), (("batch",), np.int32)]
        ),
        "wrong_dtype": lambda: to_jax_bytes(
            DYNAMIC_MLP, [(("batch", 4), np.float64)] + DYNAMIC_ARGS[1:], DYNAMIC_RESULTS
        ),
        "bad_symbol": lambda: to_jax_bytes(
            DYNAMIC_MLP,
            [(("2b", 4), F32)] + DYNAMIC_ARGS[1:],
            [(("2b", 3), F32), ((), F32), (("2b",), np.int32)],
        ),
        "platforms_with_kernels": lambda: to_jax_bytes(
            DYNAMIC_MLP.replace(
                "%4 = stablehlo.reduce",
                "%k = stablehlo.custom_call @lapack_sgetrf_ffi(%b) : (tensor<3xf32>) -> tensor<3xf32>\n    %4 = stablehlo.reduce",
            ),
            DYNAMIC_ARGS,
            DYNAMIC_RESULTS,
            platforms=("cpu", "cuda"),
        ),
    }
    with pytest.raises(sg.GraphError, match="to_jax: ") as info:
        calls[case]()
    assert message in str(info.value)
    line = line_of(__file__, '"' + case + '": lambda')
    assert f"test_to_jax.py:{line}" in str(info.value)


MESH_SCRIPT = """
import jax
jax.config.update("jax_num_cpu_devices", 4)
import numpy as np
import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.backend.jax_format import symbolic_module, to_jax_bytes
from stablegraph.backend.session_to_jax import session_to_jax

g = sg.Graph()
with g:
    x = sg.placeholder((8, 3), sg.float32, name="x", sharding=sg.PartitionSpec("data"))
    w = sg.Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2), name="w")
    y = snp.tanh(x @ w)
xv = np.linspace(-3, 3, 24, dtype=np.float32).reshape(8, 3)
with sg.Session(g, mesh=sg.make_mesh((4,), ("data",))) as sess:
    lowered = sess.lower(y, {x: xv})
    wv = sess.run(w)
blob = to_jax_bytes(str(lowered), *map(list, lowered._types), baked={1: wv}, nr_devices=4)
exported = jax.export.deserialize(bytearray(blob))
mesh = jax.make_mesh((4,), ("data",))
xs = jax.device_put(xv, jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("data")))
(got,) = jax.jit(exported.call)(xs)
assert exported.nr_devices == 4 and len(got.sharding.device_set) == 4, got.sharding
np.testing.assert_allclose(np.asarray(got), np.tanh(xv.astype(np.float64) @ wv), rtol=1e-6)
print("OK")
"""


def test_a_mesh_program_runs_in_jax_over_as_many_devices():
    """A Session's program over a mesh of 4 CPU devices (its Shardy annotations kept) runs jitted in
    a jax process with 4 CPU devices, sharded as jax placed its input (jax's device count is fixed
    per process, so a process of its own)."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    done = subprocess.run([sys.executable, "-c", MESH_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("OK"), done.stderr[-3000:]
