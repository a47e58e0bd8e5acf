"""Shared table runners of issue 26's sg.scipy namespace tests: every case of a table is built
into one graph and checked from one run (each XLA compile costs tens of ms)."""

from __future__ import annotations

import numpy as np

import stablegraph as sg


def run_cases(cases: dict) -> dict:
    """cases: name -> (function of Tensors, numpy arguments); returns name -> fetched values."""
    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (fn, args) in cases.items():
            phs = [sg.placeholder(np.shape(a), sg.dtype(np.asarray(a).dtype)) for a in args]
            feeds.update(zip(phs, [np.asarray(a) for a in args]))
            fetches[name] = fn(*phs)
    with sg.Session(g) as sess:
        return sess.run(fetches, feeds)


def assert_matches(got, want, name: str, rtol: float = 1e-9, atol: float = 1e-9, dtype=None):
    """got and want (arrays or tuples of them) agree in shape and value (and dtype, if given)."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want), f"{name}: {len(got)} outputs, want {len(want)}"
    for k, (a, b) in enumerate(zip(got, want)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, f"{name} output {k}: shape {a.shape}, want {b.shape}"
        if dtype is not None and k == len(got) - 1:
            assert a.dtype == dtype, f"{name}: dtype {a.dtype}, want {dtype}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{name} output {k}")


def weighted_total(np_like, outs):
    """A scalar that weighs every output entry differently (real and imaginary parts alike)."""
    outs = outs if isinstance(outs, tuple) else (outs,)
    acc = 0.0
    for k, o in enumerate(outs):
        w = np.cos(np.arange(int(np.prod(o.shape))).reshape(o.shape) + k)
        acc = acc + np_like.sum(np_like.real(o) * w) + np_like.sum(np_like.imag(o) * w * 0.5)
    return acc


def grads_against_jax(table: dict, sg_module, jax_module, rtol=1e-7, atol=1e-9):
    """table: name -> (float64 arguments, f(module, *xs)); sg.grad of weighted_total against jax.grad."""
    import jax  # noqa: PLC0415  (the oracle, imported where it is used)
    import jax.numpy as jnp  # noqa: PLC0415

    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (args, f) in table.items():
            phs = [sg.placeholder(np.shape(a), sg.dtype(np.asarray(a).dtype)) for a in args]
            feeds.update(zip(phs, args))
            argnums = tuple(range(len(args)))
            total = lambda *xs, f=f: weighted_total(sg.numpy, f(sg_module, *xs))  # noqa: E731
            fetches[name] = sg.grad(total, argnums=argnums)(*phs)
    with sg.Session(g) as sess:
        got = sess.run(fetches, feeds)

    @jax.jit  # one compile for every case: jax's functions run slowly op by op
    def jax_grads(all_args):
        out = {}
        for (name, (_, f)), args in zip(table.items(), all_args):
            total = lambda *xs, f=f: weighted_total(jnp, f(jax_module, *xs))  # noqa: E731
            out[name] = jax.grad(total, argnums=tuple(range(len(args))))(*args)
        return out

    want_all = jax_grads([args for args, _ in table.values()])
    for name in table:
        want = want_all[name]
        for k, (a, w) in enumerate(zip(got[name], want)):
            np.testing.assert_allclose(a, np.asarray(w), rtol=rtol, atol=atol, err_msg=f"{name} argument {k}")
