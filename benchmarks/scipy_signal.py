"""sg.scipy.signal's fftconvolve and stft of 2^20 samples and sg.scipy.linalg's expm and sqrtm of a
512 x 512 matrix in a Session, beside jax.jit (issue 26's benchmark).

Both sides run the same calls on the same float32 numpy input: fftconvolve
of a 2^20-sample signal with a 1001-tap kernel (mode 'same'), stft of
the signal (hann window, nperseg 256, half overlap), expm of a 512 x 512
Gaussian matrix scaled by 1/sqrt(512) (spectral radius about 1) and sqrtm of
that matrix plus 2 I,
results given back as numpy. stablegraph builds each into a graph run by
``sess.run``; jax runs ``jax.jit`` of jax.scipy's functions. Repeats are
interleaved; each function's median is printed, and the last line is the
geometric mean of the four ratios (goal: <= 1.05): a sum of medians would
be the sqrtm of both sides alone, whose LAPACK Schur decomposition takes
seconds (jax's gees of the matrix made complex; stablegraph's of the real
matrix, then rsf2csf, as scipy). The matrix functions run
``--matrix-calls`` calls per repeat. Run with ``python benchmarks/scipy_signal.py`` (not signal.py: a file of
that name in benchmarks/ would stand in for Python's own signal module in every script there).
"""

from __future__ import annotations

import argparse
import math

import jax
import jax.scipy.linalg as jsl
import jax.scipy.signal as jss
import numpy as np
from timing import measure

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
    parser.add_argument("--matrix-size", type=int, default=512)
    parser.add_argument(
        "--matrix-calls", type=int, default=1, help="calls per timed repeat of expm and sqrtm"
    )
    parser.add_argument("--matrix-repeats", type=int, default=3, help="interleaved repeats of expm and sqrtm")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.normal(size=2**args.log2_samples).astype(np.float32)
    k = rng.normal(size=args.taps).astype(np.float32)
    nperseg = args.nperseg
    size = args.matrix_size
    a = (rng.normal(size=(size, size)) / math.sqrt(size)).astype(np.float32)
    # sqrtm's input has no eigenvalue on sqrt's branch cut (the negative axis), where the root taken
    # (X or conj(X)) follows the rounding of the Schur form and the two sides may differ
    shifted = a + 2 * np.eye(size, dtype=np.float32)

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
    jax_expm, jax_sqrtm = jax.jit(jsl.expm), jax.jit(jsl.sqrtm)
    matrix_cases = {
        "expm": (stablegraph_runner(sg.scipy.linalg.expm, a), lambda: np.asarray(jax_expm(a))),
        "sqrtm": (stablegraph_runner(sg.scipy.linalg.sqrtm, shifted), lambda: np.asarray(jax_sqrtm(shifted))),
    }
    print(f"sg.scipy.signal beside jax.scipy.signal: {x.size} float32 samples "
          f"(fftconvolve with {k.size} taps, mode 'same'; stft with nperseg {nperseg})")  # fmt: skip
    print(f"and expm, sqrtm of a {size} x {size} float32 matrix")
    print(f"(median of {args.repeats} x {args.calls} calls, matrix functions {args.matrix_repeats} x "
          f"{args.matrix_calls}; numpy in and out)")  # fmt: skip
    ratios = []
    for group, calls, repeats in ((cases, args.calls, args.repeats),
                                  (matrix_cases, args.matrix_calls, args.matrix_repeats)):  # fmt: skip
        for name, (ours, theirs) in group.items():
            np.testing.assert_allclose(ours(), theirs(), rtol=2e-3, atol=2e-3, err_msg=name)  # compiles both
            fns = {"stablegraph": ours, "jax": theirs}
            med = measure(fns, calls, repeats)
            ratios.append(med["stablegraph"] / med["jax"])
            print(f"  {name:<12} stablegraph {med['stablegraph'] * 1e3:8.2f} ms   jax {med['jax'] * 1e3:8.2f} ms   "
                  f"ratio {ratios[-1]:.2f}")  # fmt: skip
    print(f"ratio stablegraph/jax: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")


if __name__ == "__main__":
    main()
