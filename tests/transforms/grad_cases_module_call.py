"""Finite-difference gradient cases of module_call (read by test_grad_registry.py): a jax function
inlined by sg.from_jax, whose first and second derivatives come from jax's exported vjps. Reverse
mode only: forward mode transposes those vjps once more per order, so its second order needs
from_jax(order=4), 16 exports at build time (the documented limit; not checked here)."""

import jax.numpy as jnp
import numpy as np

import stablegraph as sg

R = np.random.default_rng(12)


def _from_jax(x, y):
    return sg.from_jax(lambda a, b: jnp.sin(a) * b + a**2, x, y)


CASES = {"module_call": [(_from_jax, [R.normal(size=(2, 3)), R.normal(size=(2, 3))], {"modes": ("rev",)})]}
