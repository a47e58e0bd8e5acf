"""Batch rules of the calls into foreign code: ffi_call (examples/ffi's C++ RMS norm) under each
vmap_method and module_call (sg.from_jax: jax's exported vmap) equal a loop over lanes
(check_vectorize, every in_axes choice, one graph and one run each)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.test_util import check_vectorize

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rms_norm(ffi_cache):
    """examples/ffi/rms_norm.py with its kernel built (-O0: faster) into the process's build cache
    (conftest.py: the same library test_ffi.py builds, when both run in one process)."""
    spec = importlib.util.spec_from_file_location(
        "examples_ffi_rms_norm_batch", ROOT / "examples/ffi/rms_norm.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load(extra_flags=["-O0"])
    return module


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_ffi_call_batch_rule_matches_a_loop(rms_norm, method):
    def fn(x):
        return sg.ffi_call(
            "rms_norm", sg.TensorType(x.shape, x.dtype), x, eps=np.float32(1e-5), vmap_method=method
        )

    check_vectorize(fn, [np.ones((2, 5), np.float32)], size=3, rtol=1e-5, atol=1e-6)


def test_module_call_batch_rule_matches_a_loop():
    def fn(x):  # one argument: each in_axes choice exports a vmap of its own at build time
        return sg.from_jax(lambda a: jnp.tanh(a) * a.sum(), x, order=1)

    check_vectorize(fn, [np.ones((2, 3), np.float32)], size=3, rtol=1e-5)
