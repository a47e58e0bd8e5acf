"""check_grads and check_vectorize: user-facing test helpers.

check_grads compares derivatives against central finite differences;
check_vectorize compares ``sg.vectorize(fn)`` against ``fn`` applied lane by
lane in a Python loop and stacked, for every choice of batch axes.

It sits on top of the layers (it builds graphs, differentiates them and runs
them in a Session) and is offered to users as ``sg.test_util``::

    from stablegraph.test_util import check_grads
    check_grads(lambda x, y: snp.tanh(x) * y, [np.ones((2, 3)), np.ones(3)], order=2)

What is checked, for a function ``f`` and random directions ``v`` (one per
floating argument) and ``u`` (one per floating output):

- "fwd": ``jvp(f)(x; v)`` equals ``(f(x + eps v) - f(x - eps v)) / 2 eps``
  elementwise;
- "rev": ``<v, vjp(f)(x)(u)> == <u, (f(x + eps v) - f(x - eps v)) / 2 eps>``
  (the transpose identity ``v . J^T u == u . J v``);
- ``order=2`` checks the derivative functions ``x -> jvp(f)(x; v')`` and
  ``x -> vjp(f)(x)(u')`` the same way (and so on for higher orders).

Each argument is perturbed on its own, so a failure names the argument.
Complex values follow JAX's convention: ``vjp(f)(x)(u)`` is ``u * f'(x)`` for
a holomorphic ``f`` (no conjugate), and the inner products are
``Re(sum(a * b))``. Integer and bool arguments are held fixed; integer and
bool outputs are ignored.

Everything is built into ONE graph and compiled once: every derivative
function is built on its own copy of the inputs, ``x + t * v``, where ``t``
is a scalar placeholder, so the finite differences are the same program run
with ``t = +eps`` and ``t = -eps``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .backend import Session
from .graph import Function, Graph, Tensor, dtypes, flatten, placeholder
from .ops import constant
from .transforms import jvp, vectorize, vjp

__all__ = ["check_grads", "check_vectorize", "line_of", "run_graph"]

# eps and default (atol, rtol) by the real itemsize of the arguments' precision
_DEFAULTS = {8: (1e-6, 1e-5, 1e-5), 4: (3e-3, 2e-2, 2e-2), 2: (3e-2, 1e-1, 1e-1)}
_MODES = ("fwd", "rev")


@dataclass
class _Probe:
    """One function whose first derivatives are checked, and its fetched values."""

    label: str  # "f", "jvp of f", "vjp of jvp of f", ...
    order: int  # the order of the derivatives checked here
    directions: list[np.ndarray]  # v: one per floating argument
    cotangents: list[np.ndarray] = field(default_factory=list)  # u: one per output
    outs: list[Tensor] = field(default_factory=list)
    touts: list[Tensor] = field(default_factory=list)
    cts: list[Tensor] = field(default_factory=list)


class _Builder:
    """Builds the probes of every derivative function into one graph.

    Each probe reads its own shifted inputs ``x + t * v`` (``t``: the shift
    placeholders) and gets the jvp tangents ``s * v`` (``s``: the pick
    placeholders), so one program serves every run of check_grads.
    """

    def __init__(self, modes, order: int, rng: np.random.Generator, xs, shifts, picks):
        self.modes, self.order, self.rng = modes, order, rng
        self.xs, self.shifts, self.picks = xs, shifts, picks
        self.probes: list[_Probe] = []

    def random(self, ty) -> np.ndarray:
        shape, dt = tuple(ty.shape), ty.dtype
        x = self.rng.normal(size=shape)
        if dt.is_complex:
            x = x + 1j * self.rng.normal(size=shape)
        return np.asarray(x, dt.np)

    def visit(self, fn, label: str, order: int) -> None:
        """Probe ``fn`` (floating-argument tensors -> list of output tensors), then its derivatives."""
        probe = _Probe(label, order, [self.random(x.type) for x in self.xs])
        vs = [constant(v) for v in probe.directions]
        shifted = [x + t * v for x, t, v in zip(self.xs, self.shifts, vs)]
        if "fwd" in self.modes:
            probe.outs, probe.touts = jvp(fn, shifted, [s * v for s, v in zip(self.picks, vs)])
        if "rev" in self.modes:
            outs, vjp_fn = vjp(fn, *shifted)
            probe.cotangents = [self.random(o.type) for o in outs]
            probe.cts = list(vjp_fn([constant(u) for u in probe.cotangents]))
            probe.outs = probe.outs or outs
        self.probes.append(probe)
        if order < self.order:
            self.derivatives(fn, probe)

    def derivatives(self, fn, probe: _Probe) -> None:
        """Probe x -> jvp(fn)(x; v') and x -> vjp(fn)(x)(u') for fixed random v', u'."""
        if "fwd" in self.modes:
            tangents = [constant(self.random(x.type)) for x in self.xs]
            self.visit(
                lambda *ys: list(jvp(fn, list(ys), tangents)[1]), f"jvp of {probe.label}", probe.order + 1
            )
        if "rev" in self.modes:
            cotangents = [constant(self.random(o.type)) for o in probe.outs]
            self.visit(
                lambda *ys: list(vjp(fn, *ys)[1](cotangents)), f"vjp of {probe.label}", probe.order + 1
            )


def check_grads(
    fn, args, order: int = 2, modes=_MODES, eps=None, atol=None, rtol=None, seed: int = 0, mesh=None
):
    """Check fn's derivatives up to ``order`` against central finite differences.

    Args:
        fn: a Python callable on Tensors (or an sg.Function) returning a Tensor or
            a nest of them.
        args: numpy arrays (or Python numbers). Floating ones are cast to float64,
            complex ones to complex128 (for an sg.Function: to its parameters'
            dtypes, so declare it float64 for a tight check); integer and bool
            ones are held fixed.
        order: how many times to differentiate (1 or more).
        modes: "fwd" (jvp) and/or "rev" (vjp).
        eps: the finite-difference step (1e-6 in float64).
        atol, rtol: the tolerance (1e-5 each in float64); a slack for the
            rounding error of the differences, ``8 * machine eps * |f| / eps``, is added.
        seed: seeds the random directions.
        mesh: the device mesh to run on (an sg.Mesh; needed when fn holds sg.spmd regions).

    Raises AssertionError listing every failed check with its mode, order,
    derivative function, argument, and the two numbers compared.
    """
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    if not modes or any(m not in _MODES for m in modes) or order < 1:
        raise ValueError(f"check_grads wants order >= 1 and modes among {_MODES}, got {order} and {modes}")
    arrays = _cast_args(fn, args)
    diff = [i for i, a in enumerate(arrays) if a.dtype.kind in "fc"]
    if not diff:
        raise ValueError("check_grads wants at least one floating or complex argument")
    itemsize = min(np.finfo(arrays[i].dtype).dtype.itemsize for i in diff)
    d_eps, d_atol, d_rtol = _DEFAULTS.get(itemsize, _DEFAULTS[2])
    tol = (d_atol if atol is None else atol, d_rtol if rtol is None else rtol)
    run = _build(fn, arrays, diff, order, modes, np.random.default_rng(seed), mesh)
    eps = d_eps if eps is None else eps
    failures = []
    for j in range(len(diff)):
        base, plus, minus = run(j, 0.0), run(j, eps), run(j, -eps)
        failures += _compare(run.probes, j, diff[j], base, plus, minus, eps, tol)
    if failures:
        name = getattr(fn, "name", None) or getattr(fn, "__name__", "fn")
        raise AssertionError(
            f"check_grads of {name} failed ({len(failures)} checks):\n  " + "\n  ".join(failures)
        )


def _cast_args(fn, args) -> list[np.ndarray]:
    arrays = [np.asarray(a) for a in args]
    if isinstance(fn, Function):
        if len(arrays) != len(fn.params):
            raise ValueError(f"check_grads: {fn.name} takes {len(fn.params)} arguments, got {len(arrays)}")
        return [a.astype(p.dtype.np) if a.dtype.kind in "fc" else a for a, p in zip(arrays, fn.params)]
    wide = {"f": np.float64, "c": np.complex128}
    return [a.astype(wide[a.dtype.kind]) if a.dtype.kind in wide else a for a in arrays]


class _Runner:
    """Runs the probe graph with argument ``j`` shifted by ``t`` (its tangent picked)."""

    def __init__(self, graph, probes, phs, shifts, picks, arrays, mesh=None):
        self.sess = Session(graph, mesh=mesh)
        self.probes = probes
        self.fetches = [t for p in probes for t in (*p.outs, *p.touts, *p.cts)]
        self.phs, self.shifts, self.picks, self.arrays = phs, shifts, picks, arrays

    def __call__(self, j: int, t: float) -> list[np.ndarray]:
        feeds = dict(zip(self.phs, self.arrays))
        for k, (s, p) in enumerate(zip(self.shifts, self.picks)):
            feeds[s] = np.asarray(t if k == j else 0, s.dtype.np)
            feeds[p] = np.asarray(1 if k == j else 0, p.dtype.np)
        return list(self.sess.run(self.fetches, feeds))


def _build(fn, arrays, diff, order, modes, rng, mesh=None) -> _Runner:
    graph = Graph("check_grads")
    with graph:
        phs = [placeholder(a.shape, dtypes.dtype(a.dtype), name=f"arg{i}") for i, a in enumerate(arrays)]
        shifts = [placeholder((), phs[i].dtype, name=f"shift{i}") for i in diff]
        picks = [placeholder((), phs[i].dtype, name=f"pick{i}") for i in diff]

        def f(*xs):
            full = list(phs)
            for i, x in zip(diff, xs):
                full[i] = x
            leaves, _ = flatten(fn(*full))
            outs = [o for o in leaves if isinstance(o, Tensor) and o.dtype.is_inexact]
            if not outs:
                raise ValueError("check_grads wants a function with a floating or complex output")
            return outs

        builder = _Builder(modes, order, rng, [phs[i] for i in diff], shifts, picks)
        builder.visit(f, "f", 1)
    return _Runner(graph, builder.probes, phs, shifts, picks, arrays, mesh)


def _compare(probes, j, arg, base, plus, minus, eps, tol) -> list[str]:
    """Failure messages of every probe's checks for floating argument ``j`` (argument ``arg``)."""
    failures, pos = [], 0
    for p in probes:
        n_out, n_t, n_c = len(p.outs), len(p.touts), len(p.cts)
        fd = [(a - b) / (2 * eps) for a, b in zip(plus[pos : pos + n_out], minus[pos : pos + n_out])]
        slack = [
            _rounding_slack(a, b, eps) for a, b in zip(plus[pos : pos + n_out], minus[pos : pos + n_out])
        ]
        where = f"order {p.order} ({p.label}), argument {arg}"
        for k, (t, d, s) in enumerate(zip(base[pos + n_out : pos + n_out + n_t], fd, slack)):
            msg = _elementwise(t, d, s, tol)
            if msg:
                failures.append(f"fwd, {where}, output {k}{msg}")
        if n_c:
            ct = base[pos + n_out + n_t + j]
            lhs = _inner(p.directions[j], ct)
            rhs = sum(_inner(d, u) for d, u in zip(fd, p.cotangents))
            scale = sum(_inner(np.abs(s), np.abs(u)) for s, u in zip(slack, p.cotangents))
            if not _close(lhs, rhs, scale, tol):
                failures.append(
                    f"rev, {where}: <v, vjp(u)> = {lhs:.10g} but <u, (f(x+eps v) - f(x-eps v)) / 2eps> = "
                    f"{rhs:.10g} (difference {abs(lhs - rhs):.3g})"
                )
        pos += n_out + n_t + n_c
    return failures


def _inner(a, b) -> float:
    """Re(sum(a * b)): the real inner product, JAX's convention for complex values."""
    return float(np.real(np.sum(np.asarray(a) * np.asarray(b))))


def _rounding_slack(a, b, eps) -> np.ndarray:
    """How much rounding in f alone can move a central difference."""
    finfo = np.finfo(np.asarray(a).dtype)
    return 8 * float(finfo.eps) * np.maximum(np.abs(a), np.abs(b)) / eps


def _close(a, b, slack, tol) -> bool:
    atol, rtol = tol
    if np.isnan(a) or np.isnan(b):
        return bool(np.isnan(a) and np.isnan(b))
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b)) + slack


def _elementwise(got, want, slack, tol) -> str:
    """'' when ``got`` (the jvp) matches ``want`` (the differences), else where and how not."""
    got, want = np.asarray(got), np.asarray(want)
    atol, rtol = tol
    nan_ok = np.isnan(got) & np.isnan(want)
    with np.errstate(invalid="ignore"):
        excess = np.abs(got - want) - (atol + rtol * np.abs(want) + slack)
    bad = ~nan_ok & ~(excess <= 0)
    if not bad.any():
        return ""
    idx = np.unravel_index(
        int(np.argmax(np.where(bad, np.nan_to_num(excess, nan=np.inf), -np.inf))), bad.shape
    )
    return (
        f" at index {tuple(int(i) for i in idx)} ({int(bad.sum())} of {bad.size} elements off): jvp gives "
        f"{got[idx]:.10g}, central differences give {want[idx]:.10g}"
    )


def check_vectorize(
    fn, args, size: int = 3, seed: int = 0, atol: float = 1e-6, rtol: float = 1e-6, mesh=None
):
    """Check ``vectorize(fn, in_axes)`` against a loop over lanes, for every in_axes choice.

    ``args`` are example arguments of one lane (numpy arrays; their shapes and
    dtypes are what matters). Each argument is either unbatched (None) or
    batched at each of its possible axes; every combination with at least
    one batched argument is checked, all in one graph and one run. Random
    lanes are drawn like the examples (integers within their range, bools
    at random); ``fn`` returns a Tensor or a nest of them. ``mesh``: the device
    mesh to run on (needed when fn holds sg.spmd regions).
    """
    rng = np.random.default_rng(seed)
    examples = [np.asarray(a) for a in args]
    # Lanes are drawn once per argument, so the loop depends only on which arguments are batched:
    # one loop per such subset serves every combination of axes (the loops dominate compile time).
    lanes = [[_like(a, rng) for _ in range(size)] for a in examples]
    combos = [c for c in _axis_choices([a.ndim for a in examples]) if any(b is not None for b in c)]
    g = Graph("check_vectorize")
    gots, loops, feeds = [], {}, {}
    with g:
        for k, combo in enumerate(combos):
            values = [a if b is None else np.stack(ls, axis=b) for a, ls, b in zip(examples, lanes, combo)]
            phs = [
                placeholder(v.shape, dtypes.dtype(v.dtype), name=f"c{k}_in{i}") for i, v in enumerate(values)
            ]
            feeds.update(zip(phs, values))
            gots.append(flatten(vectorize(fn, in_axes=tuple(combo))(*phs))[0])
            batched = tuple(b is not None for b in combo)
            if batched not in loops:
                loops[batched] = [_lane(fn, examples, lanes, batched, j) for j in range(size)]
    keys = list(loops)
    with Session(g, mesh=mesh) as sess:
        got_values, loop_values = sess.run([gots, [loops[key] for key in keys]], feeds)
    wants = dict(zip(keys, loop_values))
    for combo, got in zip(combos, got_values):
        per_lane = wants[tuple(b is not None for b in combo)]
        for i, out in enumerate(got):
            want = np.stack([lane[i] for lane in per_lane])
            np.testing.assert_allclose(
                out, want, atol=atol, rtol=rtol, err_msg=f"in_axes={combo}, output {i}"
            )


def _lane(fn, examples, lanes, batched, j: int) -> list:
    """fn's outputs on lane j: the lane's draw of each batched argument, the example of the others."""
    return flatten(fn(*[constant(ls[j] if on else a) for a, ls, on in zip(examples, lanes, batched)]))[0]


def _axis_choices(ndims) -> list[tuple]:
    if not ndims:
        return [()]
    rest = _axis_choices(ndims[1:])
    return [(b, *r) for b in (None, *range(ndims[0] + 1)) for r in rest]


def _like(a: np.ndarray, rng) -> np.ndarray:
    """A random array of a's shape and dtype, within the range of a's values for integers."""
    if a.dtype == np.bool_:
        return rng.random(a.shape) < 0.5
    if a.dtype.kind in "iu":
        lo, hi = (int(a.min()), int(a.max()) + 1) if a.size else (0, 1)
        return rng.integers(lo, max(hi, lo + 1), a.shape).astype(a.dtype)
    if a.dtype.kind == "c":
        return (rng.normal(size=a.shape) + 1j * rng.normal(size=a.shape)).astype(a.dtype)
    return rng.normal(size=a.shape).astype(a.dtype)


def run_graph(fn, *inputs, symbolic: dict | None = None):
    """Run ``fn(*placeholders)`` once, feeding ``inputs`` (numpy arrays).

    ``fn`` returns a Tensor or any nest of Tensors; the result has the same
    nest of numpy arrays. ``symbolic`` maps an input index to a tuple of dims
    (e.g. {0: ("batch", 3)}) to give that placeholder symbolic dims.
    """
    symbolic = symbolic or {}
    g = Graph("run_graph")
    with g:
        phs = [
            placeholder(symbolic.get(i, np.shape(a)), dtypes.dtype(np.asarray(a).dtype), name=f"in{i}")
            for i, a in enumerate(inputs)
        ]
        out = fn(*phs)
    with Session(g) as sess:
        return sess.run(out, {p: np.asarray(a) for p, a in zip(phs, inputs)})


def line_of(path: str, text: str) -> int:
    """The first line of the file ``path`` holding ``text`` (tests find the user's line in messages)."""
    with open(path) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)
