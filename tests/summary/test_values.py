"""sg.summary.FileWriter's values read back with TensorBoard's own reader (EventAccumulator):
scalars, histograms, images (decoded by Pillow), text, at random and edge values, and the errors
bad values get. One writer per test writes every case; each test reads its directory once."""

from __future__ import annotations

import io
import math
import os
import subprocess
import sys
import textwrap

import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.plugin_event_accumulator import (
    EventAccumulator as ServedAccumulator,
)
from tensorboard.util.tensor_util import make_ndarray

import stablegraph as sg


def _read(logdir) -> EventAccumulator:
    acc = EventAccumulator(str(logdir), size_guidance={"tensors": 0})  # 0: keep every event
    acc.Reload()
    return acc


def _values(acc, tag) -> list[tuple[int, np.ndarray]]:
    return [(e.step, make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def _plugin(acc, tag) -> str:
    return acc.SummaryMetadata(tag).plugin_data.plugin_name


@pytest.mark.filterwarnings("error")  # -1e300 becomes -inf without an overflow warning
def test_scalars_read_back_as_float32_at_their_steps(tmp_path, rng):
    losses = rng.standard_normal(20) * 10.0 ** rng.integers(-30, 30, 20)
    edges = {
        "zero": 0.0,
        "neg_zero": -0.0,
        "nan": float("nan"),
        "inf": math.inf,
        "neg_inf": -math.inf,
        "tiny": 1e-45,
        "past_f32": -1e300,
        "huge": 3.4e38,
        "int": np.int64(7),
        "bool": True,
        "0d": np.array(2.5),
        "one_element": np.array([[1.25]], np.float64),
        "f16": np.float16(0.1),
        "bf16": ml_dtypes.bfloat16(0.1),
        "device": jnp.asarray(0.75),
    }  # fmt: skip  (a device array: jaxlib's, as prefetched feeds are)
    with sg.summary.FileWriter(tmp_path) as writer:
        for step, loss in enumerate(losses):
            writer.scalar("loss", loss, step=step)
        writer.scalars(edges, step=100)
        writer.scalar("big_step", 1.0, step=2**40)
    acc = _read(tmp_path)
    got = _values(acc, "loss")
    assert [s for s, _ in got] == list(range(20)) and _plugin(acc, "loss") == "scalars"
    np.testing.assert_array_equal([v for _, v in got], losses.astype(np.float32))
    for tag, value in edges.items():
        ((step, v),) = _values(acc, tag)
        with np.errstate(over="ignore"):
            want = np.float32(np.asarray(value, np.float64).reshape(()))
        assert step == 100 and v.shape == () and v.dtype == np.float32, tag
        assert (np.isnan(v) and np.isnan(want)) or (v == want and np.signbit(v) == np.signbit(want)), tag
    assert _values(acc, "big_step")[0][0] == 2**40


def test_histograms_count_every_value_in_its_bucket(tmp_path, rng):
    cases = {
        "normal": rng.standard_normal((40, 25)),
        "ints": rng.integers(-5, 6, 300),
        "bools": np.array([True, False, True]),
        "ends": np.array([np.finfo(np.float32).min, np.finfo(np.float32).max], np.float32),
        "bf16": rng.standard_normal(50).astype(ml_dtypes.bfloat16),
        "past_float64": np.array([-1.7e308, 0.0, 1.7e308]),  # max - min overflows
        "ulps": np.array([1.0, np.nextafter(1.0, 2.0), np.nextafter(np.nextafter(1.0, 2.0), 2.0)]),
    }
    with sg.summary.FileWriter(tmp_path) as writer:
        for tag, values in cases.items():
            writer.histogram(tag, values, step=3)
        writer.histogram("empty", np.zeros((0, 4)), step=3)
        writer.histogram("constant", np.full(7, 5.0), step=3)
        writer.histogram("one", np.array([-0.0]), step=3)
        writer.histogram("bins", rng.uniform(size=50), step=4, bins=4)
    acc = _read(tmp_path)
    for tag, values in cases.items():
        ((step, table),) = _values(acc, tag)
        flat = np.asarray(values, np.float64).ravel()
        left, right, counts = table.T
        assert step == 3 and table.shape == (30, 3) and _plugin(acc, tag) == "histograms", tag
        assert np.all(np.isfinite(table)) and np.all(left <= right), tag
        assert np.array_equal(left[1:], right[:-1]), tag  # the buckets tile [min, max]
        assert left[0] == flat.min() and right[-1] == flat.max() and counts.sum() == flat.size, tag
        inside = [np.sum((flat >= lo) & ((flat < hi) | ((i == len(left) - 1) & (flat <= hi))))
                  for i, (lo, hi) in enumerate(zip(left, right))]  # fmt: skip
        np.testing.assert_array_equal(counts, inside, err_msg=tag)
    np.testing.assert_allclose(
        _values(acc, "normal")[0][1][:, 1] - _values(acc, "normal")[0][1][:, 0], np.ptp(cases["normal"]) / 30
    )  # fmt: skip  (equal widths)
    # as TensorBoard's own writer: no values, empty buckets; one value, buckets [v, v], the last full
    np.testing.assert_array_equal(_values(acc, "empty")[0][1], np.zeros((30, 3)))
    np.testing.assert_array_equal(_values(acc, "constant")[0][1], [[5.0, 5.0, 0.0]] * 29 + [[5.0, 5.0, 7.0]])
    assert _values(acc, "one")[0][1][-1, 2] == 1
    ((_, four),) = _values(acc, "bins")
    assert four.shape == (4, 3) and four[:, 2].sum() == 50


def _png_pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)))


def test_images_decode_to_the_pixels_written(tmp_path, rng):
    gray = rng.integers(0, 256, (5, 7), dtype=np.uint8)
    levels = rng.integers(0, 256, (4, 6, 3))
    rgb = levels / 255.0  # exact levels: k / 255 is written as k
    rgb[0, 0] = [-0.5, 1.5, 0.0]  # out of [0, 1]: clipped to 0 and 255
    rgba = rng.integers(0, 256, (3, 2, 4), dtype=np.uint8)
    batch = rng.integers(0, 256, (5, 2, 3, 1), dtype=np.uint8)
    with sg.summary.FileWriter(tmp_path) as writer:
        writer.image("gray", gray, step=1)
        writer.image("rgb", rgb, step=1)
        writer.image("rgba", rgba, step=1)
        writer.image("batch", batch, step=2, max_images=3)
        writer.image("one_pixel", np.ones((1, 1), np.float32), step=1)
        writer.image("bf16", np.array([[0.0, 0.5, 1.0]], ml_dtypes.bfloat16), step=1)
    acc = _read(tmp_path)

    def images(tag):
        ((_, strings),) = _values(acc, tag)
        assert _plugin(acc, tag) == "images"
        return int(strings[0]), int(strings[1]), [_png_pixels(s) for s in strings[2:]]

    w, h, (got,) = images("gray")
    assert (w, h) == (7, 5) and np.array_equal(got, gray)
    levels[0, 0] = [0, 255, 0]
    assert np.array_equal(images("rgb")[2][0], levels.astype(np.uint8))
    assert np.array_equal(images("rgba")[2][0], rgba)
    w, h, got = images("batch")
    assert (w, h) == (3, 2) and len(got) == 3
    for i in range(3):
        assert np.array_equal(got[i], batch[i, :, :, 0])
    assert np.array_equal(images("one_pixel")[2][0], [[255]])
    assert np.array_equal(images("bf16")[2][0], [[0, 128, 255]])  # 127.5 rounds to even


def test_text_reads_back_as_written(tmp_path):
    texts = {"plain": "step 10: loss 0.25", "unicode": "ünïcödé **bold** — ∑", "empty": ""}
    with sg.summary.FileWriter(tmp_path) as writer:
        for tag, text in texts.items():
            writer.text(tag, text, step=10)
    acc = _read(tmp_path)
    for tag, text in texts.items():
        ((step, value),) = _values(acc, tag)
        assert step == 10 and value.shape == () and value.item().decode() == text
        assert _plugin(acc, tag) == "text"


def test_a_start_marks_where_a_resumed_run_goes_on(tmp_path):
    """TensorBoard drops the steps at and after a later START that were written before it (what a
    killed run logged after its last checkpoint), keeping the resumed run's values."""
    with sg.summary.FileWriter(tmp_path) as first:
        first.add_session_log("start", step=0)  # the run's first start: nothing to drop
        for step in range(6):
            first.scalar("loss", float(step), step=step)
    with sg.summary.FileWriter(tmp_path) as resumed:
        resumed.add_session_log("start", step=3)
        for step in range(3, 5):
            resumed.scalar("loss", 10.0 + step, step=step)
        resumed.add_session_log("checkpoint", step=4)
        resumed.add_session_log("stop", step=4)
    served = ServedAccumulator(str(tmp_path))  # the reader TensorBoard's server uses: it purges tensors
    served.Reload()
    got = [(e.step, float(make_ndarray(e.tensor_proto))) for e in served.Tensors("loss")]
    assert got == [(0, 0.0), (1, 1.0), (2, 2.0), (3, 13.0), (4, 14.0)]
    with pytest.raises(ValueError, match="status is one of"):
        sg.summary.FileWriter(tmp_path).add_session_log("begin", step=0)


def test_event_files_sort_in_the_order_they_were_made(tmp_path):
    """TensorBoard reads a run's files in name order and skips one that sorts before a file it
    read: writers made one after another (past ten, in one second) must sort as they were made."""
    paths = []
    for step in range(12):
        with sg.summary.FileWriter(tmp_path) as writer:
            writer.scalar("loss", float(step), step=step)
            paths.append(os.path.basename(writer.path))
    assert sorted(paths) == paths and len(set(paths)) == 12
    assert all(p.startswith("events.out.tfevents.") for p in paths)
    served = ServedAccumulator(str(tmp_path))
    served.Reload()
    assert [e.step for e in served.Tensors("loss")] == list(range(12))


def test_bad_values_are_errors_naming_the_tag_and_the_users_line(tmp_path):
    writer = sg.summary.FileWriter(tmp_path / "logs")
    with sg.Graph():
        loss = sg.placeholder((), sg.float32, name="loss")
    cases = [
        (lambda: writer.scalar("loss", np.ones(3), step=1), ValueError, "'loss'.*shape \\(3,\\)"),
        (lambda: writer.scalar("loss", np.zeros((0,)), step=1), ValueError, "'loss'.*shape \\(0,\\)"),
        (lambda: writer.scalar("z", 1 + 2j, step=1), TypeError, "'z'.*not a real number"),
        (lambda: writer.scalar("s", "1.0", step=1), TypeError, "'s'.*not a real number type"),
        (lambda: writer.scalar("loss", 1.0, step=1.5), TypeError, "step is an integer"),
        (lambda: writer.scalar("loss", 1.0, step=True), TypeError, "step is an integer"),
        (lambda: writer.scalar("", 1.0, step=1), TypeError, "non-empty string"),
        (lambda: writer.scalars([1.0], step=1), TypeError, "mapping"),
        (lambda: writer.histogram("w", [1.0, np.nan, np.inf], step=1), ValueError, "'w'.*1 nan and 1 inf"),
        (lambda: writer.histogram("w", [1j], step=1), TypeError, "'w'.*not real numbers"),
        (lambda: writer.histogram("w", [1.0], step=1, bins=0), ValueError, "'w'.*bins"),
        (lambda: writer.image("im", np.zeros((2, 2, 5)), step=1), ValueError, "'im'.*shape \\(2, 2, 5\\)"),
        (lambda: writer.image("im", np.zeros((0, 2)), step=1), ValueError, "'im'.*no empty side"),
        (lambda: writer.image("im", np.zeros((2, 2), np.int32), step=1), TypeError, "'im'.*int32"),
        (lambda: writer.image("im", np.full((2, 2), np.nan), step=1), ValueError, "'im'.*4 nan"),
        (lambda: writer.text("t", 3, step=1), TypeError, "'t'.*str, not int"),
        (lambda: writer.scalar("loss", loss, step=1), TypeError, "'loss'.*graph tensor.*sess.run"),
        (lambda: writer.histogram("w", loss, step=1), TypeError, "'w'.*graph tensor"),
        (lambda: writer.add_graph("g"), TypeError, "sg.Graph, not str"),
        (lambda: writer.add_profile({}, step=1), TypeError, "sess.profile"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message) as caught:
            call()
        assert str(caught.value).startswith(f"test_values.py:{call.__code__.co_firstlineno}: ")  # its line
    writer.close()
    writer.close()  # closing twice does nothing
    with pytest.raises(ValueError, match="closed"):
        writer.scalar("loss", 1.0, step=2)
    with pytest.raises(TypeError, match="logdir is a path"):
        sg.summary.FileWriter(3)
    (tmp_path / "a_file").write_text("")
    with pytest.raises(OSError, match="test_values.py:.*cannot write an event file in .*a_file"):
        sg.summary.FileWriter(tmp_path / "a_file")
    assert _read(tmp_path / "logs").Tags()["tensors"] == []  # nothing half-written


def test_writing_summaries_never_imports_tensorflow(tmp_path):
    """A TensorFlow on the path that fails when imported: tensorboard reaches for it through
    tensorboard.compat.tf whenever one is installed, and sg.summary must not. (``import
    stablegraph`` does not load tensorboard at all: the first FileWriter does.)"""
    fake = tmp_path / "fake" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise RuntimeError('tensorflow was imported')\n")
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import stablegraph as sg
        from stablegraph.backend.profiling import NodeTime, Profile
        assert not [m for m in sys.modules if m.startswith("tensorboard")], "imported with stablegraph"
        g = sg.Graph()
        with g:
            x = sg.placeholder((2,), sg.float32, name="x")
            y = sg.numpy.tanh(x)
        profile = Profile([NodeTime(y.node.name, "tanh", None, None, 3.0, 1.0)], 1, 3e3, {{}}, [])
        with sg.summary.FileWriter({str(tmp_path / "logs")!r}, graph=g) as w:
            w.scalar("a", 1.0, step=0); w.histogram("h", [1.0, 2.0], step=0)
            w.image("i", np.zeros((2, 2)), step=0); w.text("t", "x", step=0)
            w.add_profile(profile, step=0); w.flush()
        assert "tensorflow" not in sys.modules, "tensorflow was imported"
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "fake"), *sys.path]))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
