"""Batch rule of sharding_constraint: vectorize equals a loop over lanes (values), and the
vectorized constraint leaves the batch dim unsplit (None inserted at the batch axis)."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph.test_util import check_vectorize

P = sg.PartitionSpec


def test_sharding_constraint_batch_rule_matches_a_loop():
    def fn(x, y):
        return sg.sharding_constraint(x * 2, P("data")), sg.sharding_constraint(x + y, P(None, "model"))

    check_vectorize(fn, [np.ones((4, 2), np.float32), np.ones((4, 2), np.float32)])


def test_sharding_constraint_batch_rule_inserts_none_at_the_batch_axis():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 4, 2), sg.float32, name="x")
        at0 = sg.vmap(lambda r: sg.sharding_constraint(r, P("data", "model")))(x)
        sg.vmap(lambda r: sg.sharding_constraint(r, P("data")), in_axes=1)(x)
    specs = [n.attrs.spec for n in g.nodes if n.op.name == "sharding_constraint"]
    assert at0.node.op.name == "sharding_constraint"
    # batch axis 0: None in front; batch axis 1 (the rule keeps it there): the spec padded, None inserted
    assert specs == [(None, "data", "model"), ("data", None, None)]
