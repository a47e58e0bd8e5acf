"""Session.save / Session.restore: round trips, mismatch reports, atomic writes, kept steps, the file format."""

import os
import pathlib

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.backend.checkpoint as ckpt


def _model(w_shape=(3, 4), b_shape=(4,), step_dtype=sg.int32, extra=False):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        with sg.name_scope("fc1"):
            w = sg.Variable(lambda k, s, d: sg.random.normal(k, s, d), w_shape, name="kernel")
            b = sg.Variable(np.zeros(b_shape, np.float32), name="bias")
        step = sg.Variable(0, (), step_dtype, name="step", trainable=False)
        if extra:
            sg.Variable(np.ones(2, np.float32), name="extra")
        loss = ((x @ w + b) ** 2).mean() if w_shape == (3, 4) and b_shape == (4,) else None
        train = None
        if loss is not None:
            gw, gb = sg.gradients(loss, [w, b])
            train = sg.group(w.assign_sub(0.1 * gw), b.assign_sub(0.1 * gb), step.assign_add(1))
    return g, x, loss, train, [w, b, step]


X = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)


def test_save_restore_into_a_new_session_gives_the_same_values_and_loss(tmp_path):
    g, x, loss, train, variables = _model()
    with sg.Session(g, seed=0) as a:
        for _ in range(3):
            a.run(train, {x: X})
        saved = a.get(variables)
        loss_a = a.run(loss, {x: X})
        path = a.save(str(tmp_path / "model"))
    assert path == str(tmp_path / "model.npz") and saved[2] == 3
    with sg.Session(g, seed=1) as b:
        assert not np.allclose(b.get(variables[0]), saved[0])  # another seed: other initial values
        assert b.restore(str(tmp_path / "model")) == path
        for got, want in zip(b.get(variables), saved):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        assert b.run(loss, {x: X}) == loss_a
        b.run(train, {x: X})  # restored buffers train on
        assert b.get(variables[2]) == 4


def test_the_file_is_a_plain_npz(tmp_path):
    g, _, _, _, variables = _model()
    with sg.Session(g, seed=0) as sess:
        sess.set(variables[1], np.arange(4))
        path = sess.save(str(tmp_path / "m"))
        values = sess.get(variables)
    with np.load(path, allow_pickle=False) as data:
        assert sorted(data.files) == ["fc1/bias", "fc1/kernel", "step"]
        for v, want in zip(variables, values):
            np.testing.assert_array_equal(data[v.var_name], want)
            assert data[v.var_name].dtype == want.dtype


def test_shape_and_dtype_mismatches_are_all_listed_and_nothing_is_restored(tmp_path):
    g, _, _, _, _ = _model()
    with sg.Session(g, seed=0) as sess:
        sess.save(str(tmp_path / "m"))
    g2, _, _, _, (w2, b2, step2) = _model(w_shape=(3, 5))
    with sg.Session(g2, seed=5) as sess:
        before = sess.get([w2, b2, step2])
        with pytest.raises(sg.CheckpointError) as e:
            sess.restore(str(tmp_path / "m"))
        msg = str(e.value)
        assert "fc1/kernel" in msg and "(3, 4)" in msg and "(3, 5)" in msg
        assert "fc1/bias" not in msg and "step" not in msg.split("\n", 1)[1]  # only the mismatch
        sess.set(b2, np.full(4, 9.0))
        with pytest.raises(sg.CheckpointError):
            sess.restore(str(tmp_path / "m"))
        np.testing.assert_array_equal(sess.get(w2), before[0])
        np.testing.assert_array_equal(sess.get(b2), np.full(4, 9.0))  # matched, yet not restored
    g3, _, _, _, _ = _model(w_shape=(2, 4), b_shape=(5,), step_dtype=sg.float32)
    with sg.Session(g3) as sess, pytest.raises(sg.CheckpointError) as e:
        sess.restore(str(tmp_path / "m.npz"))
    lines = str(e.value).splitlines()
    assert any("fc1/kernel" in ln and "(3, 4)" in ln and "(2, 4)" in ln for ln in lines)
    assert any("fc1/bias" in ln and "(4,)" in ln and "(5,)" in ln for ln in lines)
    assert any("step" in ln and "int32" in ln and "float32" in ln for ln in lines)


def test_a_variable_missing_from_the_file_is_reported(tmp_path):
    g, _, _, _, _ = _model()
    with sg.Session(g) as sess:
        sess.save(str(tmp_path / "m"))
    g2, _, _, _, (w2, _, _) = _model(extra=True)
    with sg.Session(g2, seed=9) as sess:
        before = sess.get(w2)
        with pytest.raises(sg.CheckpointError, match=r"extra: not in the checkpoint"):
            sess.restore(str(tmp_path / "m"))
        np.testing.assert_array_equal(sess.get(w2), before)
        sess.restore(str(tmp_path / "m"), var_list=[w2])  # a subset that is there restores
        assert not np.array_equal(sess.get(w2), before)
    with pytest.raises(sg.CheckpointError, match="no checkpoint"):
        sg.Session(g).restore(str(tmp_path / "nothing"))


def test_a_save_that_fails_halfway_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    g, _, _, _, (w, b, _) = _model()
    prefix = str(tmp_path / "m")
    with sg.Session(g, seed=0) as sess:
        sess.save(prefix)
        first = sess.get([w, b])
        sess.set(b, np.ones(4))

        def broken_savez(file, **arrays):
            file.write(b"PK\x03\x04 half a zip file")
            raise OSError("disk full")

        monkeypatch.setattr(ckpt.np, "savez", broken_savez)
        with pytest.raises(sg.CheckpointError, match="disk full"):
            sess.save(prefix)
        with pytest.raises(sg.CheckpointError, match="disk full"):
            sess.save(prefix, step=7)
        monkeypatch.undo()
        assert sorted(os.listdir(tmp_path)) == ["m.npz"]  # no temporary files, no step file
        sess.restore(prefix)
        for got, want in zip(sess.get([w, b]), first):
            np.testing.assert_array_equal(got, want)


def test_steps_keep_the_newest_files_and_restore_takes_the_newest(tmp_path):
    g, _, _, _, (_, b, _) = _model()
    prefix = str(tmp_path / "run" / "m")  # the folder is made
    with sg.Session(g) as sess:
        for step in [1, 2, 5, 9, 10, 11]:  # 9 -> 10: numeric order, not text order
            sess.set(b, np.full(4, float(step)))
            path = sess.save(prefix, step=step, keep=3)
            assert path == f"{prefix}-{step}.npz"
        assert sorted(os.listdir(tmp_path / "run")) == ["m-10.npz", "m-11.npz", "m-9.npz"]
        sess.set(b, np.zeros(4))
        assert sess.restore(prefix) == f"{prefix}-11.npz"
        np.testing.assert_array_equal(sess.get(b), np.full(4, 11.0))
        sess.restore(f"{prefix}-9.npz")
        np.testing.assert_array_equal(sess.get(b), np.full(4, 9.0))
        sess.save(str(tmp_path / "run" / "m-best"), step=1, keep=1)  # another prefix: no pruning of m-*
        assert len(os.listdir(tmp_path / "run")) == 4
        assert sess.restore(prefix) == f"{prefix}-11.npz"


def test_variables_named_like_savez_parameters_round_trip(tmp_path):
    g = sg.Graph()
    with g:
        a = sg.Variable(np.arange(3.0, dtype=np.float32), name="file")
        b = sg.Variable(np.ones(2, np.int32), name="allow_pickle")
    with sg.Session(g) as sess:
        sess.save(str(tmp_path / "odd"))
        sess.set(a, np.zeros(3))
        sess.set(b, np.zeros(2, np.int32))
        sess.restore(str(tmp_path / "odd"))
        np.testing.assert_array_equal(sess.get(a), np.arange(3.0))
        np.testing.assert_array_equal(sess.get(b), np.ones(2))


def test_tf1_argument_names_for_steps(tmp_path):
    g, _, _, _, (_, b, _) = _model()
    prefix = str(tmp_path / "m")
    with sg.Session(g) as sess:
        for step in (3, 4):
            sess.set(b, np.full(4, float(step)))
            sess.save(prefix, global_step=step, max_to_keep=1)
        assert os.listdir(tmp_path) == ["m-4.npz"]
        sess.set(b, np.zeros(4))
        sess.restore(prefix)
        np.testing.assert_array_equal(sess.get(b), np.full(4, 4.0))


def test_save_and_restore_take_path_objects(tmp_path):
    g = sg.Graph("paths")
    with g:
        v = sg.Variable(sg.nn.initializers.ones, (2,), sg.float32, name="v")
    with sg.Session(g) as sess:
        sess.set(v, np.array([3.0, 4.0], np.float32))
        written = sess.save(pathlib.Path(tmp_path) / "ckpt")
        other = sg.Session(g)
        other.restore(pathlib.Path(written))
        np.testing.assert_array_equal(other.get(v), [3.0, 4.0])
