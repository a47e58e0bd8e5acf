"""Mesh, PartitionSpec, NamedSharding, make_mesh and devices: construction, equality, errors.

No program is compiled here; the devices come from CPU clients made on demand.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import stablegraph as sg

P = sg.PartitionSpec


def test_devices_come_on_demand_on_cpu():
    four = sg.devices(4)
    assert len(four) == 4 and len({d.id for d in four}) == 4
    assert all(d.platform == "cpu" for d in four)
    assert len(sg.devices()) >= 1
    with pytest.raises(sg.GraphError, match="device count >= 1"):
        sg.devices(0)


def test_gpu_devices_come_from_the_cuda_plugin_or_say_how_to_get_it():
    import importlib.util  # noqa: PLC0415

    try:
        installed = any(
            importlib.util.find_spec(f"jax_plugins.xla_cuda{v}") is not None for v in ("12", "13")
        )
    except ModuleNotFoundError:
        installed = False
    try:
        found = sg.devices(platform="gpu")
    except sg.GraphError as e:
        # without the plugin: how to install it; with it but no GPU: what the plugin said
        assert ("stablegraph[cuda13]" in str(e)) != installed, str(e)
        assert installed or "no CUDA plugin is installed" in str(e)
    else:
        assert installed and found and all(d.platform == "gpu" for d in found)
    with pytest.raises(sg.GraphError, match="no platform 'tpu'"):
        sg.devices(platform="tpu")
    with pytest.raises(sg.GraphError, match="100000 asked for"):
        sg.devices(100000)


def test_mesh_shapes_and_equality():
    mesh = sg.make_mesh((2, 2), ("data", "model"))
    assert mesh.shape == {"data": 2, "model": 2} and mesh.size == 4
    assert mesh.axis_names == ("data", "model")
    assert [d.id for d in mesh.device_list] == [0, 1, 2, 3]
    assert mesh.devices.shape == (2, 2) and mesh.devices[1, 0].id == 2
    same = sg.Mesh(sg.devices(4), ("data", "model"), shape=(2, 2))
    assert mesh == same and hash(mesh) == hash(same)
    assert mesh != sg.make_mesh((4, 1), ("data", "model"))
    nested = sg.Mesh(np.array(sg.devices(4), dtype=object).reshape(2, 2), ("a", "b"))
    assert nested.shape == {"a": 2, "b": 2}
    assert sg.Mesh(sg.devices(4), "x").shape == {"x": 4}
    assert "data=2, model=2" in repr(mesh)


def test_mesh_errors():
    with pytest.raises(sg.GraphError, match="do not fill a mesh of shape"):
        sg.Mesh(sg.devices(4), ("a", "b"), shape=(3, 2))
    with pytest.raises(sg.GraphError, match="distinct axis names"):
        sg.Mesh(sg.devices(4), ("a", "a"), shape=(2, 2))
    with pytest.raises(sg.GraphError, match="needs 6 devices, got 4"):
        sg.make_mesh((3, 2), ("a", "b"), devices=sg.devices(4))


def test_partition_spec_is_a_tuple_of_entries():
    spec = P("data", None, ("x", "y"))
    assert spec == ("data", None, ("x", "y")) and len(spec) == 3
    assert spec.axes == ("data", "x", "y")
    assert P(["x", "y"]) == (("x", "y"),)  # lists become tuples
    assert repr(P("data", None)) == "PartitionSpec('data', None)"
    assert P() == ()
    with pytest.raises(sg.GraphError, match="uses mesh axis 'data' twice"):
        P("data", "data")
    with pytest.raises(sg.GraphError, match="entries are None, an axis name or a tuple"):
        P(3)


def test_named_sharding_equality_ignores_trailing_none():
    mesh = sg.make_mesh((2, 2), ("data", "model"))
    a = sg.NamedSharding(mesh, P("data"))
    b = sg.NamedSharding(mesh, P("data", None))
    c = sg.NamedSharding(mesh, P(("data",), None))
    assert a == b == c and hash(a) == hash(b) == hash(c)
    assert a != sg.NamedSharding(mesh, P(None, "data"))
    assert a != sg.NamedSharding(sg.make_mesh((4, 1), ("data", "model")), P("data"))
    assert sg.NamedSharding(mesh, P(None, "model")).shard_shape((6, 8)) == (6, 4)
    with pytest.raises(sg.GraphError, match="names axis 'batch'"):
        sg.NamedSharding(mesh, P("batch"))


def test_annotations_in_the_graph_listing_and_json():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x", sharding=P("data", None))
        w = sg.Variable(np.ones((3, 2), np.float32), name="w", sharding=P(None, "model"))
        plain = sg.placeholder((2,), sg.float32, name="plain")
        sg.sharding_constraint(x @ w, P("data", "model"))
    text = g.listing()
    assert "x = placeholder[shape=(batch, 3), dtype=float32, sharding=(data, None)]" in text
    assert "plain = placeholder[shape=(2,), dtype=float32]()" in text  # unannotated: listed as before
    assert "sharding_constraint[spec=(data, model)]" in text
    doc = json.loads(g.to_json())
    attrs = {n["name"]: n["attrs"] for n in doc["nodes"]}
    assert attrs["x"]["sharding"] == ["data", None] and "sharding" not in attrs["plain"]
    back = sg.Graph.from_json(g.to_json())
    assert back.listing() == text
    assert back.tensor("w").node.attrs.sharding == (None, "model")
    assert plain.node.attrs == back.tensor("plain").node.attrs


def test_annotation_errors_point_at_the_user_line():
    g = sg.Graph()
    with g:
        with pytest.raises(
            sg.GraphError, match=r"test_mesh_types.py:\d+.*has 3 entries for a value of rank 2"
        ):
            sg.placeholder((4, 3), sg.float32, name="x", sharding=P("a", None, None))
        with pytest.raises(sg.GraphError, match="variable w: sharding"):
            sg.Variable(np.ones(3, np.float32), name="w", sharding=P("a", "b"))
        x = sg.placeholder((4, 3), sg.float32, name="y")
        with pytest.raises(sg.GraphError, match=r"test_mesh_types.py:\d+.*sharding_constraint"):
            sg.sharding_constraint(x, P("a", "b", "c"))


def test_session_mesh_argument():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x", sharding=P("data"))
    with pytest.raises(TypeError, match="sg.Session's mesh is an sg.Mesh"):
        sg.Session(g, mesh=(2, 2))
    with sg.Session(g) as sess:
        assert sess.sharding_of(x) is None  # no mesh: one device, annotations ignored
    mesh = sg.make_mesh((4,), ("data",))
    with sg.Session(g, mesh=mesh) as sess:
        assert sess.devices == mesh.device_list
        assert sess.sharding_of("x") == sg.NamedSharding(mesh, P("data"))
