"""Finite-difference gradient cases of the primitives issue 26's sg.lax functions added
(read by test_grad_registry.py): dce_sink beside differentiable work changes no derivative."""

import numpy as np

import stablegraph.lax as slax
import stablegraph.numpy as snp

R = np.random.default_rng(26)


def _sunk(x):
    slax.dce_sink(x * 2)
    return snp.sin(x)


CASES = {"dce_sink": [(_sunk, [R.normal(size=(2, 3))])]}
NO_CHECK = {
    "pvary": "runs only on a device mesh: tests/transforms/test_batch_lax_rest.py checks it by finite differences",
}
