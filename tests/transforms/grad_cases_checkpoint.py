"""Finite-difference gradient cases of sg.checkpoint's primitives (read by test_grad_registry.py):
the checkpoint node under each kind of policy, optimization_barrier, checkpoint_name."""

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.ops.primitives.remat import optimization_barrier

R = np.random.default_rng(5)
cp = sg.checkpoint_policies


def _layer(x, w):
    h = sg.checkpoint_name(snp.tanh(x @ w), "h")
    return snp.sin(h) * snp.exp(0.3 * x @ w), h.sum()


def _remat(policy):
    return lambda x, w: sg.checkpoint(_layer, policy=policy)(x, w)


CASES = {
    "checkpoint": [
        (_remat(None), [R.normal(size=(2, 3)), R.normal(size=(3, 3))]),
        (_remat(cp.dots_saveable), [R.normal(size=(2, 3)), R.normal(size=(3, 3))]),
        (_remat(cp.save_only_these_names("h")), [R.normal(size=(2, 3)), R.normal(size=(3, 3))]),
        (_remat(cp.everything_saveable), [R.normal(size=(2, 3)), R.normal(size=(3, 3))]),
    ],
    "optimization_barrier": [
        (
            lambda x, y: [snp.sin(v) for v in optimization_barrier([x * y, y])],
            [R.normal(size=3), R.normal(size=3)],
        )
    ],
    "checkpoint_name": [(lambda x: snp.cos(sg.checkpoint_name(x * x, "sq")), [R.normal(size=(2, 3))])],
}
