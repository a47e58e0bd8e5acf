"""Finite-difference gradient cases of the sharding and per-device-region primitives
(read by test_grad_registry.py)."""

import numpy as np

import stablegraph as sg

R = np.random.default_rng(3)

CASES = {
    "sharding_constraint": [
        (lambda x: sg.sharding_constraint(x, sg.PartitionSpec("data")), [R.normal(size=(4, 3))])
    ],
}

_ON_A_MESH = (
    "runs only on a device mesh: tests/transforms/test_batch_collectives.py checks it by finite differences"
)
NO_CHECK = {
    name: _ON_A_MESH
    for name in ("spmd", "all_reduce", "all_gather", "psum_scatter", "ppermute", "all_to_all")
}
