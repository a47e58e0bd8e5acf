"""The fft primitive and snp.fft: values vs numpy.fft, vjps vs jax (transposes incl. RFFT/IRFFT), errors."""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.ops.primitives import fft as fft_prim

R = np.random.default_rng(7)


@contextlib.contextmanager
def enable_x64():
    """jax computes in float64 inside (its switch is global: put back after)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


# (snp call, numpy call) on a real x of shape (3, 4, 5, 6) and a complex z of that shape
CASES = [
    ("fft", lambda m, x, z: m.fft.fft(z)),
    ("fft n axis", lambda m, x, z: m.fft.fft(x, n=8, axis=1)),
    ("ifft ortho", lambda m, x, z: m.fft.ifft(z, n=3, axis=0, norm="ortho")),
    ("fftn 4 axes", lambda m, x, z: m.fft.fftn(z)),
    ("ifftn forward", lambda m, x, z: m.fft.ifftn(z, norm="forward")),
    ("ifftn backward", lambda m, x, z: m.fft.ifftn(z, axes=(1, 3))),
    ("rfft", lambda m, x, z: m.fft.rfft(x, axis=2)),
    ("rfftn", lambda m, x, z: m.fft.rfftn(x)),
    ("rfftn axes", lambda m, x, z: m.fft.rfftn(x, axes=(0, 2, 1, 3))),
    ("irfftn", lambda m, x, z: m.fft.irfftn(z)),
    ("irfftn s axes", lambda m, x, z: m.fft.irfftn(z, s=(3, 4, 7), axes=(3, 0, 1))),
    ("irfft", lambda m, x, z: m.fft.irfft(z, n=9, axis=1, norm="ortho")),
    ("rfft2", lambda m, x, z: m.fft.rfft2(x, s=(3, 5))),
    ("irfft2", lambda m, x, z: m.fft.irfft2(z)),
    ("fft2", lambda m, x, z: m.fft.fft2(z, axes=(0, 2))),
    ("ifft2", lambda m, x, z: m.fft.ifft2(z)),
    ("hfft", lambda m, x, z: m.fft.hfft(z, n=7, axis=2)),
    ("ihfft", lambda m, x, z: m.fft.ihfft(x, axis=0, norm="forward")),
    ("fftshift", lambda m, x, z: m.fft.fftshift(x, axes=(1, 2))),
    ("ifftshift", lambda m, x, z: m.fft.ifftshift(x)),
]


@pytest.mark.parametrize("real_dt", [np.float32, np.float64])
def test_snp_fft_matches_numpy(run, real_dt):
    x = R.normal(size=(3, 4, 5, 6)).astype(real_dt)
    z = (x + 1j * R.normal(size=x.shape)).astype(np.result_type(real_dt, np.complex64))
    extra = [
        lambda m: m.fft.fftfreq(7, 0.5),
        lambda m: m.fft.rfftfreq(8),
        lambda m: m.fft.fftfreq(5, dtype="float64"),
    ]
    got = run(lambda a, c: [f(snp, a, c) for _, f in CASES] + [f(snp) for f in extra], x, z)
    want = [f(np, x, z) for _, f in CASES] + [
        f(np) if k < 2 else np.fft.fftfreq(5) for k, f in enumerate(extra)
    ]
    for (name, _), g, w in zip(CASES + [("freq", 0)] * 3, got, want):
        tol = 1e-4 if real_dt == np.float32 or g.dtype == np.float32 else 1e-12
        assert g.shape == w.shape, name
        if g.dtype.kind == "c":
            assert g.dtype == z.dtype, name  # complex64 stays complex64 (jax's rule, not numpy's)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * 10, err_msg=name)


def test_primitive_types_and_shapes(run):
    z = R.normal(size=(2, 4, 6)) + 1j * R.normal(size=(2, 4, 6))
    x = R.normal(size=(2, 4, 6))
    got = run(
        lambda c, r, d: [
            snp.fft.fftfreq(6, d), snp.fft.rfftfreq(5, d),
            fft_prim.fft(c, "FFT", (4, 6)), fft_prim.fft(c, "IFFT", (2, 4, 6)), fft_prim.fft(r, "RFFT", (6,)),
            fft_prim.fft(fft_prim.fft(r, "RFFT", (4, 6)), "IRFFT", (4, 6)),
        ],
        z, x, np.float32(0.25),
    )  # fmt: skip
    want = [
        np.fft.fftfreq(6, 0.25),
        np.fft.rfftfreq(5, 0.25),
        np.fft.fft2(z),
        np.fft.ifftn(z),
        np.fft.rfft(x),
        x,
    ]
    for g, w in zip(got, want):
        tol = 1e-6 if g.dtype == np.float32 else 1e-12  # a float32 spacing gives float32 frequencies
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


# vjps: formulas written against xp (snp or jnp), compared with jax.vjp in float64
VJP_CASES = {
    "FFT": (lambda xp, x, z: xp.fft.fft(z * x), "c"),
    "IFFT 2d": (lambda xp, x, z: xp.fft.ifft2(z), "c"),
    "RFFT even": (lambda xp, x, z: xp.fft.rfft(x), "c"),
    "RFFT odd": (lambda xp, x, z: xp.fft.rfft(x, n=5), "c"),
    "RFFT 2d": (lambda xp, x, z: xp.fft.rfft2(x * x), "c"),
    "IRFFT even": (lambda xp, x, z: xp.fft.irfft(z), "r"),
    "IRFFT odd": (lambda xp, x, z: xp.fft.irfft(z, n=7), "r"),
    "IRFFT 2d": (lambda xp, x, z: xp.fft.irfft2(z * z), "r"),
    "hfft": (lambda xp, x, z: xp.fft.hfft(z, n=6), "r"),
    "ihfft ortho": (lambda xp, x, z: xp.fft.ihfft(x, norm="ortho"), "c"),
    "fftn 4 axes": (lambda xp, x, z: xp.fft.fftn(xp.reshape(z, (2, 1, 2, 3, 1))), "c"),
    "real of fft": (lambda xp, x, z: xp.real(xp.fft.fft(x)) * xp.imag(xp.fft.ifft(z)), "r"),
}


def test_vjps_match_jax():
    x = R.normal(size=(3, 4))
    z = R.normal(size=(3, 4)) + 1j * R.normal(size=(3, 4))
    g = sg.Graph()
    fetch, cts = {}, {}
    with g:
        px, pz = sg.placeholder((3, 4), sg.float64), sg.placeholder((3, 4), sg.complex128)
        for name, (f, kind) in VJP_CASES.items():
            out, vjp_fn = sg.vjp(lambda a, c, f=f: f(snp, a, c), px, pz)
            ct = R.normal(size=out.shape)
            cts[name] = ct + 1j * R.normal(size=out.shape) if kind == "c" else ct
            fetch[name] = vjp_fn(sg.constant(cts[name]))
    with sg.Session(g) as sess:
        got = sess.run(fetch, {px: x, pz: z})
    with enable_x64():
        for name, (f, _) in VJP_CASES.items():
            _, jax_vjp = jax.vjp(lambda a, c, f=f: f(jnp, a, c), x, z)
            for k, want in enumerate(jax_vjp(cts[name])):
                np.testing.assert_allclose(
                    got[name][k], want, rtol=1e-10, atol=1e-10, err_msg=f"{name} arg {k}"
                )


def test_forward_mode_is_the_op_on_tangents():
    x, t = R.normal(size=(2, 6)), R.normal(size=(2, 6))
    g = sg.Graph()
    with g:
        px = sg.placeholder((2, 6), sg.float64)
        _, tangent = sg.jvp(lambda a: snp.fft.irfft(snp.fft.rfft(a) ** 2), [px], [sg.constant(t)])
    with sg.Session(g) as sess:
        got = sess.run(tangent, {px: x})
    with enable_x64():
        _, want = jax.jvp(lambda a: jnp.fft.irfft(jnp.fft.rfft(a) ** 2), (x,), (t,))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_bad_calls_are_clear_errors():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 6), sg.float32)
        z = sg.placeholder((4, 6), sg.complex64)
        with pytest.raises(sg.GraphError, match=r"test_fft.py:\d+ \(node fft\): fft FFT wants a complex64"):
            fft_prim.fft(x, "FFT", (6,))
        with pytest.raises(
            sg.GraphError, match=r"fft IRFFT with fft_length \(6,\) wants trailing dims \(4,\)"
        ):
            fft_prim.fft(z, "IRFFT", (6,))
        with pytest.raises(sg.GraphError, match="fft wants 1 to 3 positive fft_length entries"):
            fft_prim.fft(z, "FFT", (1, 4, 6, 1))
        with pytest.raises(sg.GraphError, match="fft_type"):
            fft_prim.fft(z, "DCT", (6,))
        with pytest.raises(sg.GraphError, match="norm must be one of"):
            snp.fft.fft(z, norm="unitary")
        with pytest.raises(sg.GraphError, match="wants real input"):
            snp.fft.rfft(z)
        batch = sg.placeholder(("n", 6), sg.float32)
        with pytest.raises(sg.GraphError, match=r"test_fft.py:\d+: fft RFFT wants static sizes .* \('n',\)"):
            snp.fft.rfft(batch, axis=0)  # a symbolic length: a GraphError, not a raw ValueError
        assert snp.fft.rfft(batch).type.shape == ("n", 4)  # a symbolic batch axis is fine
