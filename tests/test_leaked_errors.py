"""Mistakes that once leaked a raw Python, numpy or pydantic error are typed errors at the user's line.

Each case asserts the error's type, that its message starts with this file's
name and the line of the call, and the words that say what was wrong and
what to do. The oracle for the values that must keep working is numpy.
Control-flow bodies, optimizers and drawings have their own files
(tests/ops/test_control_arity.py, tests/train/optim/test_optim_errors.py,
tests/viz/test_draw_expand.py).
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import sys

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

FILE = os.path.basename(__file__)


def _raises(kind, fn, *words):
    """``fn()`` (a one-line lambda) raises ``kind``, its message led by this file and fn's line, with ``words``."""
    with pytest.raises(kind) as e:
        fn()
    message = str(e.value)
    lead = f"{FILE}:{fn.__code__.co_firstlineno}"
    assert message.startswith(lead + ":") or message.startswith(lead + " "), (lead, message)
    for word in words:
        assert word in message, (word, message)
    return e.value


@pytest.fixture
def g():
    graph = sg.Graph("leaks")
    with graph:
        yield graph


# -- pickling and copying -------------------------------------------------------------------------
def test_graphs_tensors_functions_and_sessions_refuse_pickling_and_say_how_to_save():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        v = sg.Variable(np.ones(3, np.float32), name="v")
        y = (x * v).sum()
    f = sg.function(lambda a: a * 2, [sg.TensorType((3,), sg.float32)])
    kinds = sg.GraphError, TypeError  # a TypeError too, as Python's own "cannot pickle"
    for kind in kinds:
        _raises(kind, lambda: pickle.dumps(g), "Graph cannot be pickled", "to_json", "from_json", "sess.save")
    _raises(sg.GraphError, lambda: pickle.dumps(y), "Tensor cannot be pickled", "to_json", "sess.run")
    _raises(sg.GraphError, lambda: pickle.dumps(v), "cannot be pickled", "to_json")
    _raises(sg.GraphError, lambda: pickle.dumps(y.node), "Node cannot be pickled", "to_json")
    _raises(sg.GraphError, lambda: pickle.dumps(f), "Function cannot be pickled", "to_json")
    _raises(sg.GraphError, lambda: pickle.dumps({"model": [y]}, protocol=2), "Tensor cannot be pickled")
    with sg.Session(g) as sess:
        _raises(
            sg.GraphError, lambda: pickle.dumps(sess), "Session cannot be pickled", "sess.save", "restore"
        )
        _raises(sg.GraphError, lambda: copy.deepcopy(sess), "Session cannot be pickled or copied")


def test_tensors_and_functions_copy_as_themselves_and_a_graph_copies_through_json():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        y = snp.tanh(x) * 2
    f = sg.function(lambda a: a * 2, [sg.TensorType((3,), sg.float32)])
    nest = copy.deepcopy({"y": [y], "f": f})
    assert nest["y"][0] is y and nest["f"] is f and copy.copy(y) is y and copy.deepcopy(y.node) is y.node
    # a deep copy of the graph used to give nodes with copied op definitions, which no Session could run
    _raises(sg.GraphError, lambda: copy.deepcopy(g), "Graph cannot be pickled or copied", "from_json")
    g2 = sg.Graph.from_json(g.to_json())  # the way to copy, which the message names
    with g:
        z = f(nest["y"][0])
    xs = np.array([-1.0, 0.5, 2.0], np.float32)
    with sg.Session(g) as sess, sg.Session(g2) as sess2:
        np.testing.assert_allclose(sess.run(z, {x: xs}), np.tanh(xs) * 4, rtol=1e-6)
        np.testing.assert_allclose(sess2.run(y.name, {"x": xs}), np.tanh(xs) * 2, rtol=1e-6)


# -- a Tensor has no value while the graph is built -------------------------------------------------
def test_asking_a_tensor_for_its_value_points_to_sess_run(g):
    x = sg.placeholder((3,), sg.float32, name="x")
    s = x.sum()
    for kind in (sg.GraphError, TypeError):  # TypeError: what code that tries float(v) catches
        _raises(kind, lambda: float(s), "float() of Tensor reduce_sum", "f32[]", "sess.run")
    _raises(sg.GraphError, lambda: np.asarray(x), "np.asarray() of Tensor x", "sess.run", "sg.numpy")
    _raises(sg.GraphError, lambda: np.array([x, x]), "np.asarray() of Tensor x", "sess.run")
    _raises(sg.GraphError, lambda: np.float32(1.0) + np.asarray(s), "np.asarray() of Tensor", "sess.run")
    _raises(sg.GraphError, lambda: int(s), "int() of Tensor reduce_sum", "sess.run")
    _raises(sg.GraphError, lambda: complex(s), "complex() of Tensor", "sess.run")
    _raises(sg.GraphError, lambda: bool(s), "bool() of Tensor", "sess.run", "sg.cond", "where")

    def branch_on_a_tensor():
        if x[0] > 0:  # the habit the message is for
            return x
        return -x

    with pytest.raises(sg.GraphError) as e:
        branch_on_a_tensor()
    line = branch_on_a_tensor.__code__.co_firstlineno + 1
    assert str(e.value).startswith(f"{FILE}:{line}:") and "sg.cond" in str(e.value)
    # numpy arithmetic with a Tensor still builds ops (numpy defers to the Tensor)
    assert (np.ones(3, np.float32) + x).shape == (3,) and (np.float32(2) * s).shape == ()


def test_len_of_a_symbolic_or_scalar_dim_says_why(g):
    x = sg.placeholder(("batch", 3), sg.float32, name="x")
    _raises(sg.GraphError, lambda: len(x), "len() of Tensor x", "symbol batch", "x.shape[0]")
    _raises(TypeError, lambda: list(x), "len() of Tensor x", "symbol batch")
    _raises(sg.GraphError, lambda: len(x.sum()), "len() of Tensor", "a scalar has no length")
    assert len(sg.placeholder((4, 2), sg.float32)) == 4  # a known first dim still has a length


# -- constants that do not fit ----------------------------------------------------------------------
def test_python_ints_too_big_for_their_dtype_are_graph_errors(g):
    _raises(sg.GraphError, lambda: sg.constant(2**70), "1180591620717411303424", "int64", "float")
    _raises(sg.GraphError, lambda: sg.constant(-(2**70)), "-1180591620717411303424", "int64")
    _raises(sg.GraphError, lambda: sg.constant([1, 2**70]), "1180591620717411303424", "int64")
    _raises(sg.GraphError, lambda: sg.constant(2**40, sg.int32), "1099511627776", "int32", "-2147483648")
    _raises(sg.GraphError, lambda: sg.constant(-1, sg.uint8), "-1", "uint8")
    xi = sg.placeholder((2,), sg.int32, name="xi")
    _raises(sg.GraphError, lambda: xi + 2**40, "1099511627776", "does not fit", "int32", "int64")
    _raises(sg.GraphError, lambda: sg.constant("abc"), "constant holds numbers", "str 'abc'")
    _raises(sg.GraphError, lambda: sg.constant(None, sg.int32), "constant holds numbers", "None")
    # what fits keeps working, float64 included
    big = [sg.constant(2**40), sg.constant(1e300, sg.float64), sg.constant(np.float64(-1e-300)),
           sg.constant(2**70, sg.float32), xi + (2**31 - 1), sg.constant(2**64 - 1, sg.uint64)]  # fmt: skip
    assert [t.dtype for t in big] == [sg.int64, sg.float64, sg.float64, sg.float32, sg.int32, sg.uint64]
    with sg.Session(g) as sess:
        got = sess.run(big, {xi: np.array([0, -1], np.int32)})
    np.testing.assert_array_equal(got[0], np.int64(2**40))
    assert got[1] == np.float64(1e300) and got[2] == np.float64(-1e-300)
    assert got[3] == np.float32(2.0**70) and got[5] == np.uint64(2**64 - 1)
    np.testing.assert_array_equal(got[4], np.array([0, -1], np.int32) + np.int32(2**31 - 1))


# -- gradients' arguments -------------------------------------------------------------------------
def test_gradients_of_or_with_respect_to_non_tensors(g):
    x = sg.placeholder((3,), sg.float32, name="x")
    loss = (x * x).sum()
    _raises(
        sg.GraphError, lambda: sg.gradients(loss, [1.0]), "xs as Tensors", "float 1.0 at xs[0]", "Variable"
    )
    _raises(sg.GraphError, lambda: sg.gradients(loss, [x, None]), "NoneType None at xs[1]")
    _raises(sg.GraphError, lambda: sg.gradients(loss, None), "xs as a Tensor or a list of Tensors")
    _raises(sg.GraphError, lambda: sg.gradients(1.0, [x]), "ys as a Tensor or a list of Tensors", "float")
    _raises(sg.GraphError, lambda: sg.gradients([loss, 2.0], [x]), "ys as Tensors", "at ys[1]")
    _raises(sg.GraphError, lambda: sg.gradients(loss, x, [1.0, 2.0]), "one grad_ys entry per y", "2 grad_ys")
    _raises(sg.GraphError, lambda: sg.gradients(loss, x, np.ones(3)), "grad_ys entry shaped like its y")
    i = sg.placeholder((), sg.int32, name="i")
    made = f"i was made at {FILE}:{sys._getframe().f_lineno - 1}"
    _raises(sg.GraphError, lambda: sg.gradients(loss * i.astype(np.float32), [i]), "i32[]", made)
    _raises(sg.GraphError, lambda: sg.grad(lambda a: a * 2.0)(i), "integer and bool values carry none")
    # the right spellings: a Tensor, a list, a tuple, a generator of them
    grads = [sg.gradients(loss, x)[0], sg.gradients([loss], (x,))[0], sg.gradients(loss, (t for t in [x]))[0]]
    xs = np.array([1.0, -2.0, 0.5], np.float32)
    with sg.Session(g) as sess:
        for got in sess.run(grads, {x: xs}):
            np.testing.assert_allclose(got, 2 * xs)


# -- calling a Function with the wrong argument types -----------------------------------------------
def test_a_function_called_with_a_wrong_shape_or_dtype_names_the_parameter(g):
    f = sg.function(
        lambda a, scale: a * scale, [sg.TensorType((3,), sg.float32), sg.TensorType((), sg.float32)]
    )
    x = sg.placeholder((3,), sg.float32, name="x")
    x4 = sg.placeholder((4,), sg.float32, name="x4")
    xi = sg.placeholder((3,), sg.int32, name="xi")
    _raises(sg.GraphError, lambda: f(x4, 2.0), "argument 0 (a) wants f32[3], got f32[4]")
    _raises(sg.GraphError, lambda: f(xi, 2.0), "argument 0 (a) wants f32[3], got i32[3]")
    _raises(sg.GraphError, lambda: f(x, x), "argument 1 (scale) wants f32[], got f32[3]")
    _raises(sg.GraphError, lambda: f(x), "takes 2 arguments, got 1")
    sym = sg.function(lambda a, b: a + b, [sg.TensorType(("n",), sg.float32)] * 2)
    _raises(sg.GraphError, lambda: sym(x, x4), "symbol n is 3 and 4")
    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(f(x, 2.0), {x: np.arange(3, dtype=np.float32)}), [0.0, 2.0, 4.0])


# -- names --------------------------------------------------------------------------------------------
def test_control_characters_in_names_and_scopes_are_graph_errors(g):
    _raises(sg.GraphError, lambda: sg.constant(1.0, name="a\nb"), "bad node name 'a\\nb'", "U+000A")
    _raises(sg.GraphError, lambda: sg.placeholder((2,), name="x\t"), "bad node name", "U+0009")
    _raises(sg.GraphError, lambda: sg.Variable(np.ones(2), name="v\x00"), "bad name scope", "U+0000")
    _raises(sg.GraphError, lambda: sg.name_scope("s\nt").__enter__(), "bad name scope 's\\nt'", "U+000A")
    _raises(sg.GraphError, lambda: sg.constant(1.0, name="zero\u200bwidth"), "U+200B")
    assert len(g.nodes) == 0  # nothing half-built was left behind
    ok = [sg.constant(1.0, name="a b"), sg.constant(2.0, name="größe")]
    assert [t.name for t in ok] == ["a b", "größe"]


def test_a_json_document_with_a_shape_given_as_a_string_names_the_node():
    src = sg.Graph("doc")
    with src:
        x = sg.placeholder((2, 3), sg.float32, name="x")
        x.reshape((3, 2))
    doc = json.loads(src.to_json())
    for value in ["(2, 3)", "ab", 6]:  # "ab" once loaded as the shape (a, b)
        doc["nodes"][0]["attrs"]["shape"] = value
        text = json.dumps(doc)
        _raises(
            sg.GraphError,
            lambda text=text: sg.Graph.from_json(text),
            "node 0 (x)",
            "shape is a JSON list",
            repr(value),
        )
    doc["nodes"][0]["attrs"]["shape"] = [2, 3]
    doc["nodes"][1]["attrs"]["shape"] = "3, 2"
    text = json.dumps(doc)
    _raises(sg.GraphError, lambda: sg.Graph.from_json(text), "node 1 (reshape)", "shape is a JSON list")


# -- a symbol name with letters beyond ASCII works end to end --------------------------------------
def test_a_unicode_symbol_name_works_in_listings_json_and_feeds():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("bätch", 3), sg.float32, name="x")
        z = sg.placeholder(("bätch",), sg.float32, name="z")
        y = (x * 2).sum(axis=1) + z
        tail = x[1:]
    assert x.shape == ("bätch", 3) and tail.shape == ("bätch - 1", 3)
    assert "f32[bätch,3]" in str(g) and "f32[bätch - 1,3]" in str(g)
    g2 = sg.Graph.from_json(g.to_json())
    assert str(g2) == str(g)
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    with sg.Session(g2) as sess:
        got, rows = sess.run([y.name, tail.name], {"x": xs, "z": np.ones(4, np.float32)})
        np.testing.assert_allclose(got, (xs * 2).sum(axis=1) + 1)
        assert rows.shape == (3, 3)
        with pytest.raises(sg.FeedError, match="symbol bätch cannot be both"):
            sess.run(y.name, {"x": xs, "z": np.ones(5, np.float32)})


# -- Session devices, checkpoint paths, meshes, data -----------------------------------------------
def test_a_session_on_zero_or_negative_devices_says_how_many_there_are():
    g = sg.Graph()
    with g:
        sg.placeholder((2,), sg.float32)
    for n in (0, -1):
        _raises(
            sg.GraphError,
            lambda n=n: sg.Session(g, devices=n),
            f"devices=N with N >= 1, got {n}",
            "cpu",
            "1024",
        )
    _raises(sg.GraphError, lambda: sg.Session(g, devices=2.5), "got 2.5")
    _raises(sg.GraphError, lambda: sg.Session(g, devices=5000), "devices=5000", "at most 1024")
    with sg.Session(g, devices=2) as sess:
        assert len(sess.devices) == 2


def test_saving_to_an_empty_path_or_a_folder_is_a_checkpoint_error(tmp_path):
    g = sg.Graph()
    with g:
        v = sg.Variable(np.arange(3, dtype=np.float32), name="v")
    folder = str(tmp_path)
    with sg.Session(g) as sess:
        _raises(sg.CheckpointError, lambda: sess.save(""), "cannot save a checkpoint to ''", "empty", "model")
        _raises(sg.CheckpointError, lambda: sess.save(folder), repr(folder), "a folder", "/model.npz")
        _raises(sg.CheckpointError, lambda: sess.save(folder + "/"), "a folder", "model")
        _raises(sg.CheckpointError, lambda: sess.save(folder + "/.npz"), "no file name before .npz")
        _raises(sg.CheckpointError, lambda: sess.save(None), "a str or a pathlib.Path", "NoneType")
        _raises(sg.CheckpointError, lambda: sess.restore(""), "restore a checkpoint from ''")
        _raises(sg.CheckpointError, lambda: sess.restore(folder), "no checkpoint at")
        assert sorted(os.listdir(folder)) == []  # nothing hidden was written
        path = sess.save(tmp_path / "ok")
        sess.set(v, np.zeros(3, np.float32))
        sess.restore(path)
        np.testing.assert_array_equal(sess.get(v), np.arange(3, dtype=np.float32))


def test_make_mesh_with_zero_negative_or_mismatched_sizes():
    _raises(sg.GraphError, lambda: sg.make_mesh((0, 2), ("a", "b")), "int >= 1", "(0, 2)", "size 0")
    _raises(sg.GraphError, lambda: sg.make_mesh((-1, 2), ("a", "b")), "int >= 1", "size -1")
    _raises(sg.GraphError, lambda: sg.make_mesh((2, 2.0), ("a", "b")), "size 2.0")
    _raises(sg.GraphError, lambda: sg.make_mesh((1, 1), ("a",)), "one axis name per size", "2 axes", "has 1")
    _raises(sg.GraphError, lambda: sg.make_mesh((2,), ("a", "a")), "distinct axis names")
    _raises(sg.GraphError, lambda: sg.make_mesh((2000,), ("a",)), "at most 1024")
    mesh = sg.make_mesh((2, 1), ("data", "model"))
    assert mesh.shape == {"data": 2, "model": 1}


def test_data_argument_errors_are_graph_errors_at_the_call():
    X, Y = np.ones((4, 2), np.float32), np.ones(5, np.float32)
    for kind in (sg.GraphError, ValueError):
        _raises(
            kind, lambda: sg.data.batches((X, X[:, 0]), 0), "batch_size must be a positive integer", "got 0"
        )
    _raises(sg.GraphError, lambda: sg.data.batches((X, Y), 2), "differ in length", "[0] has 4, [1] has 5")
    _raises(sg.GraphError, lambda: sg.data.batches({"x": X, "y": Y}, 2), "'x' has 4, 'y' has 5")
    _raises(sg.GraphError, lambda: sg.data.batches(X, 2, epochs=-1), "epochs")
    _raises(sg.GraphError, lambda: sg.data.batches({"x": [[1, 2], [3]]}, 1), "'x' is not a rectangular array")
    _raises(sg.GraphError, lambda: sg.data.split((X, X), 1.5), "fraction", "1.5")
    _raises(sg.GraphError, lambda: sg.data.split((X, X), "half"), "fraction", "'half'")
    batches = list(sg.data.batches((np.arange(5), np.arange(5) * 2), 2))
    assert [b[0].tolist() for b in batches] == [[0, 1], [2, 3], [4]]
