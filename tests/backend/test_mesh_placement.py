"""Placing values on a mesh and reading them back: every kind of spec round-trips through
sharded device arrays, the layouts requested are the layouts XLA compiles, and a fetch split
unevenly (XLA pads the last piece) assembles to the right value."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph.backend import pjrt
from stablegraph.backend.placement import slices, tiling

P = sg.PartitionSpec
MESH = sg.make_mesh((2, 4), ("a", "b"))
SPECS = [P(), P("a"), P(None, "b"), P(("a", "b")), P(("b", "a")), P("b", "a"), P(None, ("a", "b"))]
X = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)


def test_every_spec_round_trips_and_compiles_as_requested():
    g = sg.Graph()
    with g:
        phs = [sg.placeholder((16, 8), sg.float32, name=f"x{i}", sharding=s) for i, s in enumerate(SPECS)]
        outs = [sg.sharding_constraint(p + 0, s) for p, s in zip(phs, SPECS)]
        uneven = sg.sharding_constraint(phs[0][1:], P("b"))  # 15 rows over 4 devices
    feeds = {p: X + i for i, p in enumerate(phs)}
    with sg.Session(g, mesh=MESH) as sess:
        got = sess.run([*outs, uneven], feeds)
        compiled = sess.lower([*outs, uneven], feeds).compile()
    for i, value in enumerate(got[:-1]):
        np.testing.assert_array_equal(value, X + i)
    np.testing.assert_array_equal(got[-1], X[1:])
    assert compiled.input_shardings() == [sg.NamedSharding(MESH, s) for s in SPECS]
    assert compiled.output_shardings()[:-1] == [sg.NamedSharding(MESH, s) for s in SPECS]


def test_device_pieces_are_the_slices_of_the_tiling():
    spec = P("b", "a")
    where = pjrt.placed(MESH.device_list, tiling(spec, MESH, 2))
    array = pjrt.put(X, where)
    pieces = [pjrt.to_numpy(p) for p in array._arrays]
    for device_id, (piece, cut) in enumerate(zip(pieces, slices((16, 8), tiling(spec, MESH, 2), 8))):
        a_pos, b_pos = divmod(device_id, 4)  # the device's place on the mesh: (a, b), row-major
        np.testing.assert_array_equal(piece, X[b_pos * 4 : b_pos * 4 + 4, a_pos * 4 : a_pos * 4 + 4])
        np.testing.assert_array_equal(piece, X[cut])
    np.testing.assert_array_equal(pjrt.to_numpy(array), X)
