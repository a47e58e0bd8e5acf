"""Vectorize (and, on a mesh, grad) through the primitives issue 26's sg.lax functions added:
rng_bit_generator (one generator per lane, as a loop over keys), dce_sink, and pvary inside sg.spmd
on 4 CPU devices (sg.lax.pcast), each against a loop over lanes and finite differences."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
import stablegraph.lax as slax
from stablegraph import numpy as snp
from stablegraph.test_util import check_grads, check_vectorize

P = sg.PartitionSpec
R = np.random.default_rng(26)


def test_rng_bit_generator_and_dce_sink_vectorize():
    def draw(key, x):
        new_key, bits = slax.rng_bit_generator(key, (3,), algorithm=slax.RandomAlgorithm.RNG_THREE_FRY)
        slax.dce_sink(x * 2)
        return new_key, bits, snp.sin(x)

    key = np.array([1, 2, 3, 4], np.uint32)
    check_vectorize(draw, [key, R.normal(size=(2,)).astype(np.float32)], size=2)


def test_pvary_vectorizes_and_differentiates_on_a_mesh():
    mesh = sg.make_mesh((4,), ("x",))
    region = sg.spmd(
        lambda a, w: snp.tanh(slax.pcast(w, "x", to="varying") * a),
        mesh,
        in_specs=(P("x"), P()),
        out_specs=P("x"),
    )
    args = [R.normal(size=(8, 3)), R.normal(size=(2, 3))]
    check_vectorize(region, args, size=2, atol=1e-6, rtol=1e-6, mesh=mesh)
    check_grads(region, args, order=1, mesh=mesh)
