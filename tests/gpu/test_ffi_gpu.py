"""The CUDA RMS norm of examples/ffi (rms_norm.cu, built with nvcc) through sg.ffi_call on a GPU.

Needs a GPU, the cuda12/cuda13 extra and nvcc on PATH (the gpu mark: `make test-gpu`). The same
targets as on the CPU get CUDA handlers (platform="cuda"); results and the custom_vjp gradient
are checked against numpy's closed forms, and vectorize passes the batch to the kernel.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import stablegraph as sg

pytestmark = pytest.mark.gpu
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ffi" / "rms_norm.py"


def _reference(x, w, eps=1e-5):
    """y = x r with r = 1/sqrt(mean(x^2) + eps), and d/dx sum(y * w), in float64."""
    x = np.asarray(x, np.float64)
    r = 1 / np.sqrt((x**2).mean(-1, keepdims=True) + eps)
    dx = r * w - r**3 * x * (w * x).sum(-1, keepdims=True) / x.shape[-1]
    return x * r, dx


@pytest.fixture(scope="module")
def rn(tmp_path_factory):
    import os  # noqa: PLC0415

    os.environ.setdefault("STABLEGRAPH_FFI_CACHE", str(tmp_path_factory.mktemp("ffi-cache")))
    spec = importlib.util.spec_from_file_location("examples_ffi_rms_norm_gpu", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.load(gpu=True, extra_flags=["-O0"])  # as tests/backend/test_ffi.py builds it: one library
    return module


def test_the_cuda_kernel_and_its_gradient_equal_numpy(rn):
    mesh = sg.Mesh(sg.devices(platform="gpu")[:1], ("data",))
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", "width"), sg.float32, name="x")
        w = sg.placeholder(("width",), sg.float32, name="w")
        y = rn.rms_norm(x)
        dx = sg.grad(lambda v: (rn.rms_norm_with_vjp(v) * w).sum())(x)
        rows = sg.vmap(rn.rms_norm)(sg.numpy.stack([x, 2 * x]))  # broadcast_all: one call on the batch
    rng = np.random.default_rng(0)
    with sg.Session(g, mesh=mesh) as sess:
        for shape in [(7, 1000), (3, 5), (0, 4)]:
            xv = rng.normal(size=shape).astype(np.float32)
            wv = rng.normal(size=shape[-1:]).astype(np.float32)
            got_y, got_dx, got_rows = sess.run([y, dx, rows], {x: xv, w: wv})
            want_y, want_dx = _reference(xv, wv)
            np.testing.assert_allclose(got_y, want_y, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got_dx, want_dx, rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(
                got_rows, np.stack([want_y, _reference(2 * xv, wv)[0]]), rtol=1e-5, atol=1e-5
            )


def test_a_cuda_kernel_error_is_an_execution_error(rn):
    mesh = sg.Mesh(sg.devices(platform="gpu")[:1], ("data",))
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32, name="x")
        bad = rn.rms_norm(x, eps=-1.0)
        good = rn.rms_norm(x)
    with sg.Session(g, mesh=mesh) as sess:
        with pytest.raises(sg.ExecutionError, match="eps must be >= 0"):
            sess.run(bad, {x: np.ones((2, 3), np.float32)})
        np.testing.assert_allclose(
            sess.run(good, {x: np.ones((2, 3), np.float32)}), np.ones((2, 3)), rtol=1e-5
        )
