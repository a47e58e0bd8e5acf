"""Running a sweep's cases on both sides: stablegraph (many cases in one graph, one Session run
per chunk) and jax (the same cases in one jitted function per chunk).

Each case has up to three parts: "value" (the result's leaves), "d1" (the gradient of the sum of
its floating leaves with respect to each floating argument) and "d2" (for each of those, the
gradient of its sum with respect to that argument and the ones after it: for an elementwise
function, the Hessian's upper triangle point by point). A part
that raises while it is built (traced) is recorded as that exception; a chunk whose program
fails to compile or run is split in halves until the failing parts are found.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

from .points import flush_subnormals

PARTS = ("value", "d1", "d2")


class NoDerivative(Exception):
    """The case has no floating result or argument to differentiate (on either side)."""


def detached(e: Exception) -> Exception:
    """``e`` as a result, without the frames its traceback holds (and its chain's): they hold the
    chunk's graph, Session and program, so each failed part kept a whole chunk alive (the stats
    sweep grew by about half a gigabyte a chunk, to 18 GB)."""
    chain, link = set(), e
    while link is not None and id(link) not in chain:
        chain.add(id(link))
        link.__traceback__ = None
        link = link.__cause__ or link.__context__
    return e


def leaves(x) -> list:
    return [u for v in x for u in leaves(v)] if isinstance(x, tuple | list) else [x]


@dataclass(frozen=True)
class Side:
    """What the parts need of one library: its namespace, grad, a total, which leaves are real."""

    ns: Any
    grad: Any
    total: Any
    is_real: Any


def _ours_real(t) -> bool:
    return isinstance(t, sg.Tensor) and t.dtype.is_floating


def _jax_real(t) -> bool:
    return jnp.issubdtype(jnp.result_type(t), jnp.floating)


def ours_side(ns) -> Side:
    return Side(ns, sg.grad, snp.sum, _ours_real)


def jax_side(ns) -> Side:
    return Side(ns, jax.grad, jnp.sum, _jax_real)


def _loss(case, side: Side):
    def loss(*args):
        totals = [side.total(v) for v in leaves(case.call(side.ns, *args)) if side.is_real(v)]
        if not totals:
            raise NoDerivative(case.key)
        return sum(totals[1:], totals[0])

    return loss


def _first(case, side: Side):
    return side.grad(_loss(case, side), argnums=case.diff)


def _second(case, side: Side, args) -> list:
    """Row by row, the gradient of the total of the i-th first derivative with respect to the
    arguments from the i-th on: the Hessian's entries (i, j), j >= i, of an elementwise function,
    each on its own (a sum over a row would mix terms such as inf - inf that the two libraries may
    add in a different order)."""
    rows = []
    for i in range(len(case.diff)):

        def total_of_first(*xs, i=i):
            return side.total(_first(case, side)(*xs)[i])

        rows += list(side.grad(total_of_first, argnums=case.diff[i:])(*args))
    return rows


def build_part(case, side: Side, part: str, args) -> list:
    """The leaves of one part of a case, built (traced) on ``args``."""
    if part == "value":
        return leaves(case.call(side.ns, *args))
    if not case.diff or case.sig.order < PARTS.index(part):
        raise NoDerivative(case.key)
    if part == "d1":
        return list(_first(case, side)(*args))
    return _second(case, side, args)


def upcast_flushed(a: np.ndarray) -> np.ndarray:
    """A float argument in float64 for a reference, its subnormals flushed as XLA flushes them."""
    return flush_subnormals(a.astype(np.float64), a.dtype) if a.dtype.kind == "f" else a


def _unique_inputs(cases) -> list[np.ndarray]:
    seen: dict[int, np.ndarray] = {}
    for case in cases:
        for a in case.inputs:
            seen.setdefault(id(a), a)
    return list(seen.values())


# -- stablegraph ----------------------------------------------------------------------------------
def run_ours(ns, cases, chunk: int = 40) -> dict:
    """{(case key, part): list of numpy leaves, or the exception building or running it raised}."""
    results: dict = {}
    for start in range(0, len(cases), chunk):
        results.update(_run_ours_chunk(ns, cases[start : start + chunk]))
    return results


def _run_ours_chunk(ns, cases) -> dict:
    side, results, fetches = ours_side(ns), {}, {}
    g = sg.Graph()
    with g:
        holders = {id(a): sg.placeholder(a.shape, sg.dtype(a.dtype)) for a in _unique_inputs(cases)}
        feeds = {holders[id(a)]: a for a in _unique_inputs(cases)}
        for case in cases:
            args = [holders[id(a)] for a in case.inputs]
            for part in PARTS:
                try:
                    built = build_part(case, side, part, args)
                    fetches[(case.key, part)] = [
                        v if isinstance(v, sg.Tensor) else snp.asarray(v) for v in built
                    ]
                except Exception as e:  # noqa: BLE001  (a part that does not build is a finding, not a crash)
                    results[(case.key, part)] = detached(e)
    with sg.Session(g) as sess:
        results.update(_fetch(sess, fetches, feeds))
    return results


def _fetch(sess, fetches: dict, feeds: dict) -> dict:
    """Run every fetch at once; on a failure split the fetches until the failing ones are alone."""
    if not fetches:
        return {}
    try:
        got = sess.run(list(fetches.values()), feeds)
    except Exception as e:  # noqa: BLE001
        if len(fetches) == 1:
            return {next(iter(fetches)): detached(e)}
        items = list(fetches.items())
        half = len(items) // 2
        return {**_fetch(sess, dict(items[:half]), feeds), **_fetch(sess, dict(items[half:]), feeds)}
    return {key: [np.asarray(v) for v in vs] for key, vs in zip(fetches, got)}


# -- jax ---------------------------------------------------------------------------------------------
# the float64 reference programs skip LLVM's optimizations (about half of the compile time); the
# same-dtype programs keep them where they matter to numerics (elementwise functions: LLVM's
# contractions move tanh's last digits, and a derivative like (1 - y)(1 + y) amplifies them)
_REFERENCE_COMPILE = {"xla_backend_optimization_level": 0}


def run_jax(ns, cases, x64: bool, upcast: bool = False, chunk: int = 40, optimize: bool = True) -> dict:
    """The same parts from jax, jitted per chunk; ``upcast`` runs on the inputs cast to float64;
    ``optimize=False`` skips LLVM's optimizations (as the references do)."""
    results: dict = {}
    with jax.enable_x64(x64):
        for start in range(0, len(cases), chunk):
            results.update(_run_jax_chunk(ns, cases[start : start + chunk], upcast, optimize and not upcast))
    return results


def _run_jax_chunk(ns, cases, upcast: bool, optimize: bool) -> dict:
    side, errors, names = jax_side(ns), {}, []
    inputs = _unique_inputs(cases)
    index = {id(a): k for k, a in enumerate(inputs)}
    arrays = [upcast_flushed(a) if upcast else a for a in inputs]

    def everything(*xs):
        out = []
        for case in cases:
            args = [xs[index[id(a)]] for a in case.inputs]
            for part in PARTS:
                try:
                    out.append(build_part(case, side, part, args))
                    names.append((case.key, part))
                except Exception as e:  # noqa: BLE001
                    errors[(case.key, part)] = detached(e)
        return out

    got = jax.jit(everything).lower(*arrays).compile(None if optimize else _REFERENCE_COMPILE)(*arrays)
    results = {key: [np.asarray(v) for v in vs] for key, vs in zip(names, got)}
    return {**results, **errors}
