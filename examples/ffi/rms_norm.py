"""A C++ RMS-norm kernel (rms_norm.cc) called from a graph through XLA's FFI, with its gradient.

    python examples/ffi/rms_norm.py          # trains a small model whose hidden layer is normalized
                                             # by the kernel, and checks the kernel against numpy

``load()`` builds the kernel with g++ (cached: a second call loads the library built before) and
registers its three handlers; on a machine with nvcc and a GPU it builds rms_norm.cu too and
registers the CUDA handlers under the same target names. ``rms_norm(x)`` is the forward alone;
``rms_norm_with_vjp(x)`` wraps the forward-with-residual and backward kernels in sg.custom_vjp,
so sg.grad and the optimizers differentiate through the kernel.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

HERE = Path(__file__).resolve().parent
EPS = 1e-5


def load(gpu: bool = False, extra_flags=()):
    """Build and register the kernels (CPU; the CUDA ones too with ``gpu``); the CPU library.
    ``extra_flags`` go to g++ (the tests pass -O0: it compiles faster). Once per process: XLA
    keeps a target's first handler, so later calls give the library loaded first."""
    if LOADED:
        return LOADED[0]
    lib = sg.ffi.build("rms_norm", [HERE / "rms_norm.cc"], extra_flags=extra_flags)
    for target, symbol in TARGETS.items():
        sg.ffi.register(target, lib.handler(symbol), platform="cpu")
    if gpu and shutil.which("nvcc"):
        gpu_lib = sg.ffi.build("rms_norm_cuda", [HERE / "rms_norm.cu"])
        for target, symbol in TARGETS.items():
            sg.ffi.register(target, gpu_lib.handler(symbol + "Cuda"), platform="cuda")
    LOADED.append(lib)
    return lib


LOADED: list = []  # the library load() registered, once it has
TARGETS = {"rms_norm": "RmsNorm", "rms_norm_fwd": "RmsNormFwd", "rms_norm_bwd": "RmsNormBwd"}


def rms_norm(x, eps=EPS):
    """x / sqrt(mean(x^2, last axis) + eps), by the kernel; vectorize passes the batch to it."""
    return sg.ffi_call("rms_norm", sg.TensorType(x.shape, x.dtype), x, eps=np.float32(eps),
                       vmap_method="broadcast_all")  # fmt: skip


def _forward(x, eps):
    """The kernel's y and its residual r = 1 / sqrt(mean(x^2) + eps), one per row."""
    y, r = sg.ffi_call(
        "rms_norm_fwd", [sg.TensorType(x.shape, x.dtype), sg.TensorType(x.shape[:-1], x.dtype)], x,
        eps=np.float32(eps), vmap_method="broadcast_all",
    )  # fmt: skip
    return y, r


def _backward(r, x, ct, eps):
    return sg.ffi_call("rms_norm_bwd", sg.TensorType(x.shape, x.dtype), r, x, ct, eps=np.float32(eps),
                       vmap_method="broadcast_all")  # fmt: skip


@sg.custom_vjp
def rms_norm_with_vjp(x):
    """rms_norm whose gradient is the backward kernel's (the documented pattern)."""
    return rms_norm(x)


def _rms_norm_fwd(x):
    y, r = _forward(x, EPS)
    return y, (r, x)


def _rms_norm_bwd(residuals, ct):
    r, x = residuals
    return (_backward(r, x, ct, EPS),)


rms_norm_with_vjp.defvjp(_rms_norm_fwd, _rms_norm_bwd)


def build_model(width: int = 16):
    """A graph: x -> dense -> rms_norm (the kernel) -> tanh -> dense, an MSE loss and an Adam step."""
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 8), sg.float32, name="x")
        y = sg.placeholder(("batch", 1), sg.float32, name="y")
        h = snp.tanh(rms_norm_with_vjp(sg.nn.dense(x, width, name="fc1")))
        pred = sg.nn.dense(h, 1, name="fc2")
        loss = ((pred - y) ** 2).mean()
        train = sg.optim.adam(3e-2).minimize(loss)
    return g, x, y, loss, train


def main(steps: int = 200, seed: int = 0) -> dict:
    """Train on a smooth target; the losses per step."""
    load()
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(256, 8)).astype(np.float32)
    Y = np.sin(X[:, :1] * 2.0) + 0.5 * X[:, 1:2]
    g, x, y, loss, train = build_model()
    losses = []
    with sg.Session(g, seed=seed) as sess:
        for _ in range(steps):
            value, _ = sess.run([loss, train], {x: X, y: Y})
            losses.append(float(value))
    return {"losses": losses}


if __name__ == "__main__":
    result = main()
    print(f"loss: {result['losses'][0]:.4f} -> {result['losses'][-1]:.4f}")
