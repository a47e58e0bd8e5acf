"""Custom kernels through XLA's FFI (sg.ffi, sg.ffi_call): the C++ RMS norm of examples/ffi and an
echo kernel, built once per test session with g++, against numpy, jax and Python loops.

Building a kernel costs seconds: the module's fixture builds both into one temporary cache and
registers them; every test reuses them.
"""

from __future__ import annotations

import ctypes
import importlib.util
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.test_util import line_of

ROOT = Path(__file__).resolve().parents[2]
ECHO = Path(__file__).resolve().parent / "ffi_kernels" / "echo.cc"
P = sg.PartitionSpec
EPS = 1e-5
QUICK = ["-O0"]  # the kernels compile about twice as fast unoptimized, and these sizes are small


def reference(x, eps=EPS):
    """RMS norm over the last axis, in float64."""
    x = np.asarray(x, np.float64)
    return x / np.sqrt((x**2).mean(-1, keepdims=True) + eps)


@pytest.fixture(scope="module")
def cache(ffi_cache):
    """The process's build cache (conftest.py), with both kernels built in it at once (g++ runs
    on two cores), so that the fixtures below find them there."""
    sources = [("rms_norm", ROOT / "examples" / "ffi" / "rms_norm.cc"), ("echo", ECHO)]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda named: sg.ffi.build(*named, extra_flags=QUICK), sources))
    return ffi_cache


@pytest.fixture(scope="module")
def rn(cache):
    """examples/ffi/rms_norm.py, its kernels built and registered."""
    spec = importlib.util.spec_from_file_location(
        "examples_ffi_rms_norm", ROOT / "examples" / "ffi" / "rms_norm.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load(extra_flags=QUICK)
    return module


@pytest.fixture(scope="module")
def echo(cache):
    lib = sg.ffi.build("echo", [ECHO], extra_flags=QUICK)
    sg.ffi.register("echo", lib.handler("Echo"), platform="cpu")
    sg.ffi.register("fail", ctypes.CDLL(str(lib.path)).Fail, platform="cpu")  # a ctypes pointer
    return lib


def test_rms_norm_results_and_gradients_equal_numpy_and_jax(rn):
    import jax  # noqa: PLC0415  (the gradient's oracle)
    import jax.numpy as jnp  # noqa: PLC0415

    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", "width"), sg.float32, name="x")
        w = sg.placeholder(("width",), sg.float32, name="w")
        y = rn.rms_norm(x)
        dx = sg.grad(lambda v: (rn.rms_norm_with_vjp(v) * w).sum())(x)
    rng = np.random.default_rng(0)
    edge = np.array([[0.0, 0.0, 0.0, 0.0], [1e-20, -0.0, 0.0, 0.0], [3e18, -3e18, 1.0, 2.0],
                     [1.0, 1.0, 1.0, 1.0]], np.float32)  # fmt: skip
    feeds = [rng.normal(size=(5, 7)).astype(np.float32), edge, np.zeros((0, 3), np.float32)]

    def jax_loss(v, wv):
        return (v / jnp.sqrt((v**2).mean(-1, keepdims=True) + EPS) * wv).sum()

    with sg.Session(g) as sess:
        for xv in feeds:  # symbolic dims bound from each feed
            wv = rng.normal(size=xv.shape[-1:]).astype(np.float32)
            got_y, got_dx = sess.run([y, dx], {x: xv, w: wv})
            assert got_y.shape == xv.shape and got_dx.shape == xv.shape
            np.testing.assert_allclose(got_y, reference(xv), rtol=2e-6, atol=1e-6)
            want_dx = np.asarray(jax.grad(jax_loss)(xv.astype(np.float64), wv.astype(np.float64)))
            np.testing.assert_allclose(got_dx, want_dx, rtol=1e-4, atol=1e-4 * np.abs(want_dx).max(initial=1))


def test_the_example_training_step_learns(rn):
    losses = rn.main(steps=60)["losses"]
    assert np.isfinite(losses).all()
    assert np.mean(losses[-5:]) < 0.2 * np.mean(losses[:3]), losses


def test_vectorize_follows_vmap_method_and_equals_a_loop(rn, echo):
    rng = np.random.default_rng(1)
    xv = rng.normal(size=(3, 4, 6)).astype(np.float32)
    sv = rng.normal(size=(6,)).astype(np.float32)
    g = sg.Graph()
    outs = {}
    with g:
        x = sg.placeholder(("n", 4, 6), sg.float32, name="x")
        s = sg.constant(sv)  # an operand no lane varies

        def lane(method):
            return lambda row: sg.ffi_call("rms_norm", sg.TensorType(row.shape, row.dtype), row * s,
                                           eps=np.float32(EPS), vmap_method=method)  # fmt: skip

        for method in ("sequential", "expand_dims", "broadcast_all"):
            outs[method] = sg.vmap(lane(method))(x)
            outs[method + " twice"] = sg.vmap(sg.vmap(lane(method)))(x)

        def backward(row):  # two results, then three operands of which one (s) no lane varies
            y, r = sg.ffi_call("rms_norm_fwd", [sg.TensorType(row.shape, row.dtype), sg.TensorType(row.shape[:-1], row.dtype)],
                               row, eps=np.float32(EPS), vmap_method="sequential")  # fmt: skip
            return sg.ffi_call("rms_norm_bwd", sg.TensorType(row.shape, row.dtype), r, row, s,
                               eps=np.float32(EPS), vmap_method="sequential")  # fmt: skip

        outs["backward"] = sg.vmap(backward)(x[:, 0])  # s is (6,): each lane's row is (6,) too
        # sequential: the kernel sees one lane at a time (echo's last written value is the sum of its operand)
        outs["echo"] = sg.vmap(lambda v: sg.ffi_call("echo", sg.TensorType((40,), sg.float64), v,
                                                     vmap_method="sequential", **_echo_attrs()))(
            sg.cast(x, sg.float64).reshape((-1, 24)))  # fmt: skip
        with pytest.raises(sg.GraphError) as refused:
            sg.vmap(lane(None))(x)
    call_line = line_of(__file__, 'return lambda row: sg.ffi_call("rms_norm"')
    where = f"{Path(__file__).name}:{call_line}"
    assert where in str(refused.value) and "vmap_method" in str(refused.value)
    assert "'rms_norm'" in str(refused.value)
    with sg.Session(g) as sess:
        got = sess.run(outs, {x: xv})
    loop = np.stack([reference(xv[i] * sv) for i in range(3)])
    for method in ("sequential", "expand_dims", "broadcast_all"):
        np.testing.assert_allclose(got[method], loop, rtol=2e-6, atol=1e-6, err_msg=method)
        np.testing.assert_allclose(got[method + " twice"], loop, rtol=2e-6, atol=1e-6, err_msg=method)
    rows = xv[:, 0].astype(np.float64)
    r = 1 / np.sqrt((rows**2).mean(-1, keepdims=True) + EPS)
    want_backward = r * sv - r**3 * rows * (sv * rows).sum(-1, keepdims=True) / 6  # d(y . s)/dx per row
    np.testing.assert_allclose(got["backward"], want_backward, rtol=1e-5, atol=1e-6)
    sums = got["echo"][:, 26]  # after the attributes (see test_every_attribute_type_reaches_the_kernel)
    np.testing.assert_allclose(sums, xv.reshape(3, 24).astype(np.float64).sum(1), rtol=1e-12)


def test_inside_spmd_the_kernel_runs_per_shard_and_under_a_mesh_it_is_replicated(rn):
    mesh = sg.make_mesh((4,), ("data",))
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 6), sg.float32, name="x", sharding=P("data"))
        # per device: each shard's rows, and the shard's own row count through a kernel on its shape
        per_device = sg.spmd(lambda a: rn.rms_norm(a), mesh, in_specs=P("data"), out_specs=P("data"))(x)
        shard_sums = sg.spmd(lambda a: rn.rms_norm(a.sum(0, keepdims=True)), mesh, in_specs=P("data"),
                             out_specs=P("data"))(x)  # fmt: skip
        replicated = rn.rms_norm(x.T).T  # the whole transposed value: columns span every shard
    xv = np.random.default_rng(2).normal(size=(8, 6)).astype(np.float32)
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run([per_device, shard_sums, replicated], {x: xv})
    np.testing.assert_allclose(got[0], reference(xv), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got[1], reference(xv.reshape(4, 2, 6).sum(1)), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got[2], reference(xv.T).T, rtol=2e-6, atol=1e-6)


def _rows(target, types, *args, rule):
    return sg.ffi_call(
        target, types, *args, eps=np.float32(EPS), vmap_method="broadcast_all", sharding_rule=rule
    )


def test_a_sharding_rule_runs_the_kernel_per_device_on_its_blocks(rn):
    mesh = sg.make_mesh((2, 2), ("data", "model"))
    rows = P(("data", "model"))  # the 8 rows split over all 4 devices
    g = sg.Graph()
    with g:
        x = sg.placeholder((8, 6), sg.float32, name="x", sharding=P("data"))
        ct = sg.placeholder((8, 6), sg.float32, name="ct")
        y = _rows("rms_norm", sg.TensorType(x.shape, x.dtype), x, rule=(rows, rows))
        y_half, r_half = _rows("rms_norm_fwd", [sg.TensorType(x.shape, x.dtype), sg.TensorType((8,), x.dtype)],
                               x, rule=(P("data"), (P("data"), P("data"))))  # fmt: skip
        dx = _rows(
            "rms_norm_bwd", sg.TensorType(x.shape, x.dtype), r_half, x, ct, rule=(P("model"), P("model"))
        )
        stacked = sg.placeholder((3, 8, 6), sg.float32, name="stacked")
        batched = sg.vmap(lambda v: _rows("rms_norm", sg.TensorType(v.shape, v.dtype), v, rule=(rows, rows)))(
            stacked
        )
    xv = np.random.default_rng(4).normal(size=(8, 6)).astype(np.float32)
    ctv = np.random.default_rng(5).normal(size=(8, 6)).astype(np.float32)
    sv = np.random.default_rng(6).normal(size=(3, 8, 6)).astype(np.float32)
    feeds = {x: xv, ct: ctv, stacked: sv}
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run([y, y_half, r_half, dx, batched], feeds)
        kernel_lines = [
            line for line in sess.lower(y, {x: xv}).compile().as_text().splitlines()
            if 'custom_call_target="rms_norm"' in line
        ]  # fmt: skip
    want_r = 1 / np.sqrt((xv.astype(np.float64) ** 2).mean(-1) + EPS)
    np.testing.assert_allclose(got[0], reference(xv), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got[1], reference(xv), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got[2], want_r, rtol=2e-6)
    # the backward kernel's rows: r (ct - y mean(ct y)), the RMS norm's vjp, with r split as the rule says
    yv = reference(xv)
    want_dx = want_r[:, None] * (ctv - yv * (ctv * yv).mean(-1, keepdims=True))
    np.testing.assert_allclose(got[3], want_dx, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[4], np.stack([reference(v) for v in sv]), rtol=2e-6, atol=1e-6)
    # each device's kernel reads its own 2 rows: no gather of the whole value before the call
    assert kernel_lines and all("f32[2,6]" in line.split("custom-call(")[0] for line in kernel_lines), (
        kernel_lines
    )


def test_sharding_rule_errors_name_the_call_and_the_line(rn):
    g = sg.Graph()
    with g:
        x = sg.placeholder((6, 6), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match=r"one PartitionSpec per operand \(1\)") as bad_arity:
            _rows("rms_norm", sg.TensorType(x.shape, x.dtype), x, rule=((P("data"), P("data")), P("data")))
        with pytest.raises(sg.GraphError, match="is \\(in_specs, out_specs\\)"):
            _rows("rms_norm", sg.TensorType(x.shape, x.dtype), x, rule=P("data"))
        uneven = sg.ffi_call(
            "rms_norm", sg.TensorType(x.shape, x.dtype), x, sharding_rule=(P("data"), P("data"))
        )
        uneven_line = line_of(__file__, "uneven = sg.ffi_call")
        elsewhere = sg.ffi_call("rms_norm", sg.TensorType(x.shape, x.dtype), x, eps=np.float32(EPS),
                                sharding_rule=(P("rows"), P("rows")))  # fmt: skip
        elsewhere_line = line_of(__file__, "elsewhere = sg.ffi_call")
    assert "test_ffi.py" in str(bad_arity.value)
    xv = np.ones((6, 6), np.float32)
    mesh = sg.make_mesh((4,), ("data",))
    with sg.Session(g, mesh=mesh) as sess:
        with pytest.raises(sg.GraphError, match="does not divide it") as e:
            sess.run(uneven, {x: xv})
        assert f"test_ffi.py:{uneven_line}" in str(e.value)
        with pytest.raises(sg.GraphError, match=r"mesh axes \['rows'\]") as e:
            sess.run(elsewhere, {x: xv})
        assert f"test_ffi.py:{elsewhere_line}" in str(e.value)
    with sg.Session(g) as sess:  # no mesh: the rule has nothing to split over
        np.testing.assert_allclose(sess.run(elsewhere, {x: xv}), reference(xv), rtol=2e-6)


def _echo_attrs() -> dict:
    return dict(
        i8=np.int8(-128), i16=np.int16(-300), i32=np.int32(2**31 - 1), i64=np.int64(-(2**40)),
        u8=np.uint8(255), u16=np.uint16(60000), u32=np.uint32(4_000_000_000), u64=np.uint64(2**64 - 1),
        f32=np.float32(0.1), f64=np.float64(-0.0), flag=True, py_int=2**62, py_float=0.1,
        label="é!", dtype=np.float32, ints=np.array([1, -2, 3], np.int32), floats=np.array([np.inf, 1e300]),
        bytes=np.array([], np.uint8),
    )  # fmt: skip


def test_every_attribute_type_reaches_the_kernel(echo):
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float64, name="x")
        out = sg.ffi_call("echo", sg.TensorType((40,), sg.float64), x, **_echo_attrs())
        flags = sg.ffi_call("echo", [sg.TensorType((40,), sg.float64)], x, **{
            **_echo_attrs(), "flag": np.bool_(False), "dtype": sg.int64, "label": "",
            "ints": np.array([], np.int32), "bytes": np.array([0, 7], np.uint8),
        })  # fmt: skip
    with sg.Session(g) as sess:
        got, (got_flags,) = sess.run([out, flags], {x: np.array([1.5, 2.0])})
    want = [-128, -300, 2**31 - 1, -(2**40), 255, 60000, 4e9, float(2**64 - 1),
            float(np.float32(0.1)), -0.0, 1, float(2**62), 0.1,
            3, 0xC3, 0xA9, ord("!"),  # "é!" as UTF-8 bytes
            1000 + 11,  # float32's XLA element type (11), seen by the kernel as ffi::DataType::F32
            3, 1, -2, 3, 2, np.inf, 1e300, 0, 3.5]  # fmt: skip
    np.testing.assert_array_equal(got[: len(want)], np.array(want, np.float64))
    assert np.signbit(got[9])  # -0.0 kept its sign as a double
    assert (got[len(want) :] == -1).all()
    # flag, the empty label's size, int64's element type (5), no ints, the floats, the two bytes, the sum
    want_flags = [0, 0, 5, 0, 2, np.inf, 1e300, 2, 0, 7, 3.5]
    np.testing.assert_array_equal(got_flags[[10, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]], want_flags)


def test_attributes_of_no_ffi_type_are_graph_errors_at_the_users_line():
    g = sg.Graph()
    with g:
        x = sg.constant(np.ones(3, np.float32))
        for bad, why in [([1, 2], "list"), (np.ones((2, 2)), "shape (2, 2)"), (np.array([True]), "dtype bool"),
                         (None, "NoneType"), (2**70, "int64")]:  # fmt: skip
            with pytest.raises(sg.GraphError, match=re.escape(why)) as e:
                sg.ffi_call("echo", sg.TensorType((3,), sg.float32), x, a=bad)
            assert f"{Path(__file__).name}:{line_of(__file__, 'x, a=bad)')}" in str(e.value)
        with pytest.raises(sg.GraphError, match="vmap_method must be one of"):
            sg.ffi_call("echo", sg.TensorType((3,), sg.float32), x, vmap_method="loop")


def test_an_unregistered_target_is_a_graph_error_when_the_session_compiles():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        y = sg.ffi_call("not_registered_anywhere", sg.TensorType((3,), sg.float32), x)
    line = line_of(__file__, 'y = sg.ffi_call("not_registered_anywhere"')
    with sg.Session(g) as sess, pytest.raises(sg.GraphError) as e:
        sess.run(y, {x: np.ones(3, np.float32)})
    message = str(e.value)
    assert f"{Path(__file__).name}:{line}" in message and y.node.name in message
    assert "'not_registered_anywhere' is not registered for cpu (registered for no platform)" in message


def test_a_handler_registered_through_jax_serves_too(echo):
    import jax  # noqa: PLC0415

    jax.ffi.register_ffi_target("echo_via_jax", echo.handler("Echo"), platform="cpu")
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float64, name="x")
        y = sg.ffi_call("echo_via_jax", sg.TensorType((40,), sg.float64), x, **_echo_attrs())
    with sg.Session(g) as sess:
        assert sess.run(y, {x: np.array([1.0, 2.5])})[26] == 3.5  # the operand's sum, after the attributes


def test_a_kernel_error_is_an_execution_error_and_the_session_goes_on(rn, echo):
    g = sg.Graph()
    with g:
        v = sg.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
        good = sg.assign(v, rn.rms_norm(v))
        bad = sg.assign(v, rn.rms_norm(v, eps=-1.0))
        failing = sg.ffi_call("fail", sg.TensorType((2, 3), sg.float32), v, message="the kernel says no")
        double = sg.ffi_call("rms_norm", sg.TensorType((2, 3), sg.float32), v, eps=1e-5)  # binds a float
    with sg.Session(g) as sess:
        start = sess.get(v)
        with pytest.raises(sg.ExecutionError) as e:
            sess.run(bad)
        message = str(e.value)
        # the node is built inside the example's rms_norm: its user line is the example's
        where = line_of(rn.__file__, 'return sg.ffi_call("rms_norm"')
        assert f"rms_norm.py:{where}" in message, message
        assert "sg.ffi_call('rms_norm') failed" in message and "eps must be >= 0, got -1" in message
        assert "(node rms_norm" in message  # the node is named after its target
        np.testing.assert_array_equal(sess.get(v), start)  # the failed run kept the variable's value
        with pytest.raises(sg.ExecutionError, match="the kernel says no"):
            sess.run(failing)
        with pytest.raises(sg.ExecutionError) as e:
            sess.run(double)
        assert "expected F32 but got F64" in str(e.value) and "attributes eps: f64 = 1e-05" in str(e.value)
        sess.run(good)  # still usable
        np.testing.assert_allclose(sess.get(v), reference(start), rtol=2e-6)


def test_build_caches_by_content_and_reports_compiler_errors(cache, tmp_path):
    source = tmp_path / "tiny.cc"
    source.write_text('extern "C" int Answer() { return 42; }\n')
    first = sg.ffi.build("tiny", [source])
    assert first.path.parent == cache and ctypes.CDLL(str(first.path)).Answer() == 42
    stamp = first.path.stat().st_mtime_ns
    again = sg.ffi.build("tiny", [str(source)])
    assert again.path == first.path and again.path.stat().st_mtime_ns == stamp  # not rebuilt
    source.write_text('extern "C" int Answer() { return 43; }\n')
    edited = sg.ffi.build("tiny", [source])
    assert edited.path != first.path and ctypes.CDLL(str(edited.path)).Answer() == 43
    flagged = sg.ffi.build("tiny", [source], extra_flags=["-DUNUSED=1"])
    assert flagged.path not in (first.path, edited.path)
    with pytest.raises(sg.GraphError, match="has no symbol 'Missing'"):
        edited.handler("Missing")
    source.write_text("this is not C++\n")
    with pytest.raises(sg.CompileError, match="sg.ffi.build\\('tiny'\\) failed") as e:
        sg.ffi.build("tiny", [source])
    assert "tiny.cc" in str(e.value)  # the compiler's own message
    with pytest.raises(sg.GraphError, match="no source file"):
        sg.ffi.build("tiny", [tmp_path / "absent.cc"])
    assert Path(sg.ffi.include_dir(), "xla", "ffi", "api", "ffi.h").is_file()


def test_register_checks_its_arguments(echo):
    with pytest.raises(sg.GraphError, match="platform must be one of"):
        sg.ffi.register("echo", echo.handler("Echo"), platform="tpu")
    with pytest.raises(sg.GraphError, match="the handler is a PyCapsule"):
        sg.ffi.register("echo", "Echo", platform="cpu")
    sg.ffi.register("echo", echo.handler("Echo"), platform="cpu")  # again: harmless
    sg.ffi.register("echo", sg.ffi.pycapsule(ctypes.CDLL(str(echo.path)).Echo), platform="cpu")  # the same
    with pytest.raises(sg.GraphError, match="'echo' already has another handler on cpu"):
        sg.ffi.register("echo", echo.handler("Fail"), platform="cpu")


def test_an_ffi_call_prints_and_round_trips_through_json(rn):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        rn.rms_norm(x)
        sg.ffi_call("echo", [sg.TensorType(("batch",), sg.float32)], x, edges=np.array([np.inf, -np.inf, -0.0]),
                    nan=np.float32(np.nan), big=np.uint64(2**64 - 1), kind=sg.bfloat16, flag=False)  # fmt: skip
    text = str(g)
    assert "  rms_norm = ffi_call[target='rms_norm'" in text, text
    assert "eps: f32 = 9.999999747378752e-06" in text, text
    assert "edges: array:f64 = (inf, -inf, -0.0)" in text and "kind: dtype = 16" in text, text
    assert str(sg.Graph.from_json(g.to_json())) == text


def test_forward_mode_through_custom_jvp_and_side_effecting_calls(rn):
    import jax  # noqa: PLC0415

    @sg.custom_jvp
    def rms(x):
        return rn.rms_norm(x)

    @rms.defjvp
    def rms_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y, r = rn._forward(x, EPS)
        return y, rn._backward(r, x, t, EPS)  # the Jacobian is symmetric: the vjp kernel gives the jvp

    rng = np.random.default_rng(3)
    xv, tv = rng.normal(size=(2, 4, 5)).astype(np.float32)
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 5), sg.float32, name="x")
        t = sg.placeholder((4, 5), sg.float32, name="t")
        y, dy = sg.jvp(rms, (x,), (t,))
        kept = [sg.ffi_call("rms_norm", sg.TensorType((4, 5), sg.float32), x, eps=np.float32(EPS),
                            has_side_effect=True) for _ in range(2)]  # fmt: skip
    with sg.Session(g) as sess:
        got_y, got_dy, *got_kept = sess.run([y, dy, *kept], {x: xv, t: tv})
        text = sess.lower(kept, {x: xv})
    want_y, want_dy = jax.jvp(lambda v: v / jax.numpy.sqrt((v**2).mean(-1, keepdims=True) + EPS),
                              (xv.astype(np.float64),), (tv.astype(np.float64),))  # fmt: skip
    np.testing.assert_allclose(got_y, want_y, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got_dy, want_dy, rtol=1e-4, atol=1e-5)
    for k in got_kept:
        np.testing.assert_allclose(k, want_y, rtol=2e-6, atol=1e-6)
    assert text.count("has_side_effect = true") == 2  # two calls: never merged into one
