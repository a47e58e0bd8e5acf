"""Complex primitives real, imag, complex, conj and snp's complex ufuncs: values vs numpy, vjps vs jax.

Cotangents follow JAX's convention, so each vjp is compared with jax.vjp of the
same formula (written once against ``xp``: snp or jax.numpy), in one graph.
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.ops.primitives import complex_parts as cp

R = np.random.default_rng(5)


@contextlib.contextmanager
def enable_x64():
    """jax computes in float64 inside (its switch is global: put back after)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


def cplx(*shape, dtype=np.complex128):
    return (R.normal(size=shape) + 1j * R.normal(size=shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_primitive_and_ufunc_values(run, dtype):
    real_dt = np.finfo(dtype).dtype
    z, w = cplx(2, 3, dtype=dtype), cplx(3, dtype=dtype)
    x, y = R.normal(size=(2, 3)).astype(real_dt), R.normal(size=(2, 3)).astype(real_dt)
    got = run(
        lambda z, w, x, y: [
            cp.real(z), cp.imag(z), cp.conj(z), cp.complex(x, y),
            snp.real(z), snp.imag(z), snp.conj(z), snp.conjugate(w), snp.real(x), snp.imag(x), snp.conj(x),
            snp.angle(z), snp.angle(x, deg=True), snp.iscomplex(z * snp.real(z)), snp.isreal(x),
            snp.iscomplex(snp.real(z) + 0j), snp.isreal(snp.conj(w)), snp.vdot(w, w * 2j - 1),
        ],
        z, w, x, y,
    )  # fmt: skip
    want = [
        z.real, z.imag, np.conj(z), x + 1j * y,
        z.real, z.imag, np.conj(z), np.conjugate(w), x, np.zeros_like(x), x,
        np.angle(z), np.angle(x, deg=True), np.iscomplex(z * z.real), np.isreal(x),
        np.iscomplex(z.real + 0j), np.isreal(np.conj(w)), np.vdot(w, w * 2j - 1),
    ]  # fmt: skip
    for k, (g, wv) in enumerate(zip(got, want)):
        assert g.dtype == np.asarray(wv).dtype, k
        np.testing.assert_allclose(g, wv, rtol=1e-6, atol=1e-6, err_msg=f"output {k}")


def test_build_time_predicates():
    g = sg.Graph()
    with g:
        z = sg.placeholder((2,), sg.complex64)
        x = sg.placeholder((2,), sg.float32)
        assert snp.iscomplexobj(z) and not snp.iscomplexobj(x)
        assert snp.isrealobj(x) and not snp.isrealobj(z)
        assert snp.iscomplexobj(np.ones(2, np.complex64)) and snp.isrealobj([1.0, 2.0])


FORMULAS = {
    "real": lambda xp, z, x: xp.real(z) * x,
    "imag": lambda xp, z, x: xp.imag(z) ** 2 + x,
    "complex": lambda xp, z, x: (x + 1j * (x * x)) * z,
    "conj": lambda xp, z, x: xp.conj(z) * z * x,
    "mixed": lambda xp, z, x: xp.real(xp.conj(z) * xp.exp(z)) + xp.imag(z * z) * x,
    "angle": lambda xp, z, x: xp.angle(z) * x,
}


def _complex_of_parts(xp, x, y):
    return x + 1j * y if xp is jnp else cp.complex(x, y)


def test_vjps_match_jax():
    z, x = cplx(4), R.normal(size=4)
    cts = {name: R.normal(size=4) for name in FORMULAS}
    for name in ("complex", "conj"):
        cts[name] = cplx(4)
    g = sg.Graph()
    with g:
        pz, px = sg.placeholder((4,), sg.complex128), sg.placeholder((4,), sg.float64)
        fetch = {}
        for name, f in FORMULAS.items():
            out, vjp_fn = sg.vjp(lambda a, b, f=f: f(snp, a, b), pz, px)
            fetch[name] = vjp_fn(sg.constant(cts[name].astype(out.dtype.np)))
        parts_out, parts_vjp = sg.vjp(lambda a, b: _complex_of_parts(snp, a, b), px, px * 2)
        fetch["parts"] = parts_vjp(sg.constant(cts["complex"]))
    with sg.Session(g) as sess:
        got = sess.run(fetch, {pz: z, px: x})
    with enable_x64():
        for name, f in FORMULAS.items():
            _, jax_vjp = jax.vjp(lambda a, b, f=f: f(jnp, a, b), z, x)
            want = jax_vjp(cts[name])
            for k in range(2):
                np.testing.assert_allclose(
                    got[name][k], want[k], rtol=1e-10, atol=1e-12, err_msg=f"{name} {k}"
                )
        _, jax_vjp = jax.vjp(lambda a, b: jax.lax.complex(a, b), x, x * 2)
        for k, want in enumerate(jax_vjp(cts["complex"])):
            np.testing.assert_allclose(got["parts"][k], want, rtol=1e-12, err_msg=f"complex {k}")


def test_forward_mode_through_complex_parts():
    z, t = cplx(3), cplx(3)
    g = sg.Graph()
    with g:
        pz = sg.placeholder((3,), sg.complex128)
        _, tangent = sg.jvp(lambda a: cp.real(a) * cp.imag(cp.conj(a)), [pz], [sg.constant(t)])
    with sg.Session(g) as sess:
        got = sess.run(tangent, {pz: z})
    with enable_x64():
        _, want = jax.jvp(lambda a: jnp.real(a) * jnp.imag(jnp.conj(a)), (z,), (t,))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_bad_operands_are_clear_errors():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float32)
        y = sg.placeholder((3,), sg.float32)
        with pytest.raises(
            sg.GraphError, match=r"test_complex.py:\d+ \(node real\): real wants a complex operand"
        ):
            cp.real(x)
        with pytest.raises(sg.GraphError, match="conj wants a complex operand"):
            cp.conj(x)
        with pytest.raises(
            sg.GraphError, match="complex wants two float32 or two float64 operands of one shape"
        ):
            cp.complex(x, y)
