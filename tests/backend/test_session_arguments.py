"""Bad arguments to a Session and its checkpoints are typed errors at the user's line, not raw
ValueErrors or silently ignored or truncated values; a node name may not hold ':' (the output
index separator of ``g.tensor("node:1")``)."""

import numpy as np
import pytest

import stablegraph as sg

HERE = "test_session_arguments.py:"


def _graph():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.float32(1.0), name="v")
    return g, v


def test_bad_session_arguments_are_typed_errors_at_the_users_line():
    g, _ = _graph()
    mesh = sg.make_mesh((2,), ("data",))
    cases = [
        (lambda: sg.Session(g, mesh, devices=2), sg.GraphError, "both a mesh"),
        (lambda: sg.Session(g, seed=1.5), TypeError, "seed is an int"),
        (lambda: sg.Session(g, seed="0"), TypeError, "seed is an int"),
        (lambda: sg.Session("g"), TypeError, "takes a Graph"),
        (lambda: sg.Session(g, mesh="data"), TypeError, "mesh is an sg.Mesh"),
    ]
    for make, kind, words in cases:
        with pytest.raises(kind, match=words) as info:
            make()
        assert isinstance(info.value, sg.GraphError) and HERE in str(info.value)
    with sg.Session(g, seed=np.int64(3)) as sess:  # numpy ints are seeds too
        assert sess.get("v") == 1.0


def test_a_checkpoint_step_must_be_a_whole_number(tmp_path):
    g, _ = _graph()
    with sg.Session(g) as sess:
        for step in ("a", 1.5, -1, True):
            with pytest.raises(sg.CheckpointError, match="step must be an int") as info:
                sess.save(str(tmp_path / "m"), step=step)
            assert HERE in str(info.value)
        assert not list(tmp_path.iterdir())
        written = sess.save(str(tmp_path / "m"), step=np.array(7, np.int32))  # a fetched global_step
        assert written.endswith("m-7.npz")


def test_a_node_name_may_not_hold_a_colon():
    with sg.Graph() as g:
        with pytest.raises(sg.GraphError, match="':' is kept for output indices") as info:
            sg.placeholder((2,), sg.float32, name="x:1")
        assert HERE in str(info.value) and len(g.nodes) == 0
