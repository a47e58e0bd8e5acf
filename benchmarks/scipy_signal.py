"""sg.scipy.signal's fftconvolve and stft of 2^20 samples in a Session, beside jax.jit.

Both sides run the same calls on the same float32 numpy input: fftconvolve
of a 2^20-sample signal with a 1001-tap kernel (mode 'same') and stft of
the signal (hann window, nperseg 256, half overlap), results given back as
numpy. stablegraph builds each into a graph run by ``sess.run``; jax runs
``jax.jit`` of jax.scipy.signal's functions. Repeats are interleaved; each
function's median is printed, and the last line is the ratio of the summed
medians (goal: <= 1.05). Issue 26 also asks for expm/sqrtm of a 512 x 512
matrix in this benchmark: those belong to the linalg part of the issue and
are not measured here. Run with ``python benchmarks/scipy_signal.py`` (not signal.py: a file of
that name in benchmarks/ would stand in for Python's own signal module in every script there).
"""

from __future__ import annotations

import argparse

import jax
import jax.scipy.signal as jss
import numpy as np
from timing import measure, per_call

import stablegraph as sg  # noqa: E402


def stablegraph_runner(fn, *arrays):
    """A function of no arguments that runs ``fn`` on placeholders fed with ``arrays``."""
    g = sg.Graph(fn.__name__)
    with g:
        phs = [sg.placeholder(a.shape, sg.dtype(a.dtype)) for a in arrays]
        out = fn(*phs)
    sess = sg.Session(g)
    feeds = dict(zip(phs, arrays))
    return lambda: sess.run(out, feeds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2-samples", type=int, default=20)
    parser.add_argument("--taps", type=int, default=1001)
    parser.add_argument("--nperseg", type=int, default=256)
    parser.add_argument("--calls", type=int, default=3, help="calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=9, help="interleaved repeats")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=2**args.log2_samples).astype(np.float32)
    k = rng.normal(size=args.taps).astype(np.float32)
    nperseg = args.nperseg

    def fftconvolve(a, b):
        return sg.scipy.signal.fftconvolve(a, b, mode="same")

    def stft(a):
        return sg.scipy.signal.stft(a, nperseg=nperseg)[2]

    jax_fftconvolve = jax.jit(lambda a, b: jss.fftconvolve(a, b, mode="same"))
    jax_stft = jax.jit(lambda a: jss.stft(a, nperseg=nperseg)[2])
    cases = {
        "fftconvolve": (stablegraph_runner(fftconvolve, x, k), lambda: np.asarray(jax_fftconvolve(x, k))),
        "stft": (stablegraph_runner(stft, x), lambda: np.asarray(jax_stft(x))),
    }
    print(f"sg.scipy.signal beside jax.scipy.signal: {x.size} float32 samples "
          f"(fftconvolve with {k.size} taps, mode 'same'; stft with nperseg {nperseg})")  # fmt: skip
    print(f"(median of {args.repeats} x {args.calls} calls, numpy in and out)")
    total = {"stablegraph": 0.0, "jax": 0.0}
    for name, (ours, theirs) in cases.items():
        np.testing.assert_allclose(ours(), theirs(), rtol=2e-3, atol=2e-3, err_msg=name)  # compiles both
        fns = {"stablegraph": ours, "jax": theirs}
        for fn in fns.values():
            per_call(fn, 1)
        med = measure(fns, args.calls, args.repeats)
        for side, seconds in med.items():
            total[side] += seconds
        print(f"  {name:<12} stablegraph {med['stablegraph'] * 1e3:8.2f} ms   jax {med['jax'] * 1e3:8.2f} ms   "
              f"ratio {med['stablegraph'] / med['jax']:.2f}")  # fmt: skip
    print(f"ratio stablegraph/jax: {total['stablegraph'] / total['jax']:.2f}")


if __name__ == "__main__":
    main()
