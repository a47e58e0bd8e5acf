"""Finite-difference gradient cases of the host-callback primitives (read by test_grad_registry.py):
a debug_callback (sg.debug.callback) beside differentiable work changes no derivative, to second
order, in forward and reverse mode; pure_callback has no vjp of its own (its reason says to use
sg.custom_vjp, which test_host_callbacks.py checks)."""

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

R = np.random.default_rng(11)


def _watched(x):
    sg.debug.callback(lambda v: None, x * 2)
    return snp.sin(x) * x


CASES = {"debug_callback": [(_watched, [R.normal(size=(2, 3))])]}
