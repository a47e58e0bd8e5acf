"""Every vjp rule against finite differences: one case table over the op registry.

``PRIMITIVES`` maps each primitive with a vjp rule to sample applications;
``NO_CHECK`` names the ones finite differences cannot judge, with why. A new
primitive with a rule and no entry fails ``test_primitive_grads``, and one
without a rule must say why in its OpDef's reasons. ``NUMPY`` does the same
for the differentiable sg.numpy functions. All cases of one entry are checked
by one check_grads call (one compile), to first and second order, forward
and reverse; a failure is rerun case by case to name the case.
"""

from __future__ import annotations

import importlib.util
import pathlib
from dataclasses import dataclass, field

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph.opdef import all_ops
from stablegraph.ops.primitives import (
    compare,
    constants,
    cumulative,
    dot_general,
    indexing,
    reduce,
    shape,
    slicing,
    sort,
)
from stablegraph.ops.primitives import elementwise as ew
from stablegraph.ops.primitives.registry import bind
from stablegraph.test_util import check_grads

HERE = pathlib.Path(__file__).resolve().parent
R = np.random.default_rng(0)


def normal(*shape):
    return R.normal(size=shape)


def positive(*shape):
    return R.uniform(0.5, 2.0, size=shape)


def small(*shape):
    return R.uniform(-0.9, 0.9, size=shape)


def cplx(*shape):
    return R.normal(size=shape) + 1j * R.normal(size=shape)


def with_zero(*shape):
    """Positive values with an exact 0 at the first element (prod's rule must not divide by it)."""
    x = positive(*shape)
    x.flat[0] = 0.0
    return x


def distinct(*shape):
    """Values far apart (for sort, max, argmax: no ties within eps)."""
    return R.permutation(np.prod(shape, dtype=int)).reshape(shape) * 0.5 + R.uniform(0, 0.1, size=shape)


@dataclass
class Case:
    """``build(*tensors)`` applied to ``args``; ``opts`` go to check_grads."""

    build: object
    args: list
    opts: dict = field(default_factory=dict)


def un(op, *arrays):
    return [Case(lambda x: bind(op, x), [a]) for a in arrays]


def bin_(op, *pairs):
    return [Case(lambda x, y: bind(op, x, y), list(p)) for p in pairs]


# -- the primitive table ---------------------------------------------------------
def _custom_softplus():
    @sg.custom_vjp
    def softplus(x):
        return snp.log1p(snp.exp(x))

    softplus.defvjp(lambda x: (softplus.fun(x), snp.sigmoid(x)), lambda s, g: (g * s,))
    return softplus


def _custom_log1pexp():
    @sg.custom_jvp
    def log1pexp(x, y):
        return snp.log1p(snp.exp(x)) * y

    @log1pexp.defjvp
    def _(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return log1pexp(x, y), tx * snp.sigmoid(x) * y + ty * snp.log1p(snp.exp(x))

    return log1pexp


def _reduce(kind, x, axes):
    return Case(lambda v: reduce.reduce(v, kind, axes), [x])


def _cumulative(kind, x, axis, reverse):
    return Case(lambda v: cumulative.cumulative(v, kind, axis, reverse), [x])


_idx = np.array([[2], [0], [3]])  # unique row indices for gather / scatter
_GATHER = dict(
    offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1, slice_sizes=(1, 3)
)
_SCATTER = dict(update_window_dims=(1,), inserted_window_dims=(0,), scattered_dims_to_operand_dims=(0,),
                index_vector_dim=1)  # fmt: skip


def _scatter(kind, idx=_idx, unique=True):
    return Case(
        lambda x, i, u: indexing.scatter(x, i, u, unique_indices=unique, kind=kind, **_SCATTER),
        [distinct(4, 3) if kind in ("min", "max") else normal(4, 3), idx,
         distinct(len(idx), 3) + 0.25 if kind in ("min", "max") else normal(len(idx), 3)],
    )  # fmt: skip


PRIMITIVES = {
    "neg": un(ew.neg, normal(2, 3), cplx(2)),
    "abs": un(ew.abs_, normal(2, 3), cplx(3)),
    "sign": un(ew.sign, normal(2, 3)),
    "floor": un(ew.floor, normal(2, 3) * 3),
    "ceil": un(ew.ceil, normal(2, 3) * 3),
    "round": un(ew.round_, normal(2, 3) * 3),
    "exp": un(ew.exp, normal(2, 3), cplx(2)),
    "expm1": un(ew.expm1, normal(2, 3), cplx(2)),
    "log": un(ew.log, positive(2, 3), cplx(2)),
    "log1p": un(ew.log1p, positive(2, 3) - 0.4, cplx(2)),
    "sqrt": un(ew.sqrt, positive(2, 3), cplx(2)),
    "rsqrt": un(ew.rsqrt, positive(2, 3), cplx(2)),
    "cbrt": un(ew.cbrt, positive(2, 3) * R.choice([-1, 1], (2, 3))),
    "sin": un(ew.sin, normal(2, 3), cplx(2)),
    "cos": un(ew.cos, normal(2, 3), cplx(2)),
    "tan": un(ew.tan, small(2, 3), cplx(2) * 0.3),
    "tanh": un(ew.tanh, normal(2, 3), cplx(2) * 0.5),
    "logistic": un(ew.logistic, normal(2, 3), cplx(2) * 0.5),
    "erf": un(ew.erf, normal(2, 3)),
    "erf_inv": un(ew.erf_inv, np.linspace(-0.8, 0.8, 6).reshape(2, 3)),
    "add": bin_(ew.add, (normal(2, 3), normal(2, 3)), (cplx(2), cplx(2))),
    "sub": bin_(ew.sub, (normal(2, 3), normal(2, 3)), (cplx(2), cplx(2))),
    "mul": bin_(ew.mul, (normal(2, 3), normal(2, 3)), (cplx(2), cplx(2))),
    "div": bin_(ew.div, (normal(2, 3), positive(2, 3)), (cplx(2), cplx(2))),
    "rem": bin_(ew.rem, (normal(2, 3) * 3, positive(2, 3))),
    "pow": bin_(ew.pow_, (positive(2, 3), normal(2, 3)), (cplx(2), cplx(2) * 0.5)),
    "max": bin_(ew.max_, (normal(2, 3), normal(2, 3))),
    "min": bin_(ew.min_, (normal(2, 3), normal(2, 3))),
    "atan2": bin_(ew.atan2, (normal(2, 3), normal(2, 3))),
    "select": [
        Case(compare.select, [R.random((2, 3)) > 0.5, normal(2, 3), normal(2, 3)]),
        Case(compare.select, [np.array(True), normal(3), normal(3)]),
    ],
    "clamp": [
        Case(compare.clamp, [np.full((2, 3), -0.5), normal(2, 3), np.full((2, 3), 0.5) + small(2, 3) * 0.1]),
        Case(compare.clamp, [np.array(-0.3), normal(4), np.array(0.4)]),
    ],
    "convert": [
        Case(lambda x: compare.convert(x, sg.complex128), [normal(2, 3)]),
        Case(lambda x: compare.convert(x, sg.float64), [cplx(3)]),
        Case(lambda x: compare.convert(x, sg.float32), [normal(3)], dict(eps=1e-2, atol=1e-3, rtol=1e-2)),
    ],
    "custom_vjp_call": [Case(lambda x: _custom_softplus()(x), [normal(2, 3)])],
    "custom_jvp_call": [Case(lambda x, y: _custom_log1pexp()(x, y), [normal(2, 3), normal(2, 3)])],
    "placeholder_with_default": [Case(lambda x: snp.sin(sg.placeholder_with_default(x)), [normal(2, 3)])],
    "cond": [  # both branches taken; a captured tensor (w); more in tests/transforms/test_control_grad.py
        Case(
            lambda x, w: sg.cond(w > 0, lambda v: snp.sin(v) * w, lambda v: v * v, x),
            [normal(2, 3), np.array(0.7)],
        ),
        Case(lambda x, w: sg.switch(0, [lambda v: v * v * w, snp.tanh], x), [normal(3), np.array(1.3)]),
    ],
    "scan": [  # a captured tensor (w), reversed; more in tests/transforms/test_scan_grad.py
        Case(
            lambda h, xs, w: sg.scan(lambda c, x: (snp.sin(c * w + x), c * x), h, xs, reverse=True),
            [normal(3), normal(2, 3), np.array(0.7)],
        ),
    ],
    "reduce": [
        _reduce("sum", normal(2, 3, 2), (1,)),
        _reduce("sum", normal(2, 3, 2), (0, 2)),
        _reduce("prod", positive(2, 3), (1,)),
        _reduce("prod", with_zero(2, 3), (1,)),
        _reduce("max", distinct(2, 3, 2), (0, 2)),
        _reduce("min", distinct(2, 3), (0,)),
    ],
    "cumulative": [
        _cumulative("sum", normal(2, 4), 1, False),
        _cumulative("sum", normal(3, 2), 0, True),
        _cumulative("prod", positive(2, 4), 1, False),
        _cumulative("max", distinct(2, 4), 1, False),
        _cumulative("min", distinct(4, 2), 0, True),
    ],
    "dot_general": [
        Case(lambda x, y: dot_general.dot_general(x, y, ((1,), (0,))), [normal(2, 3), normal(3, 4)]),
        Case(
            lambda x, y: dot_general.dot_general(x, y, ((2,), (1,)), ((0,), (0,))),
            [normal(2, 3, 4), normal(2, 4, 2)],
        ),
        Case(lambda x, y: dot_general.dot_general(x, y, ((0, 1), (1, 0))), [normal(2, 3), normal(3, 2)]),
        Case(lambda x, y: dot_general.dot_general(x, y, ((1,), (0,))), [cplx(2, 3), cplx(3, 2)]),
    ],
    "broadcast_in_dim": [
        Case(lambda x: shape.broadcast_in_dim(x, (2, 3), (1,)), [normal(3)]),
        Case(lambda x: shape.broadcast_in_dim(x, (2, 4, 3), (0, 2)), [normal(1, 3)]),
        Case(lambda x: shape.broadcast_in_dim(x, (2, 2), ()), [normal()]),
    ],
    "reshape": [
        Case(lambda x: shape.reshape(x, (3, 2)), [normal(2, 3)]),
        Case(lambda x: shape.reshape(x, ()), [normal(1, 1)]),
    ],  # fmt: skip
    "transpose": [Case(lambda x: shape.transpose(x, (2, 0, 1)), [normal(2, 3, 4)])],
    "slice": [
        Case(lambda x: slicing.slice(x, (1, 0), (3, 3)), [normal(4, 3)]),
        Case(lambda x: slicing.slice(x, (0, 1), (4, 5), (2, 3)), [normal(4, 6)]),
    ],
    "rev": [Case(lambda x: slicing.rev(x, (0, 1)), [normal(2, 3)])],
    "pad": [
        Case(lambda x, v: slicing.pad(x, v, (1, 0), (0, 2), (1, 0)), [normal(2, 3), normal()]),
        Case(lambda x, v: slicing.pad(x, v, (-1,), (1,)), [normal(4), normal()]),
    ],
    "concatenate": [
        Case(lambda x, y, z: slicing.concatenate([x, y, z], 1), [normal(2, 1), normal(2, 3), normal(2, 2)])
    ],
    "dynamic_slice": [
        Case(
            lambda x, i, j: slicing.dynamic_slice(x, [i, j], (2, 2)), [normal(4, 3), np.int32(1), np.int32(1)]
        )
    ],
    "dynamic_update_slice": [
        Case(
            lambda x, u, i, j: slicing.dynamic_update_slice(x, u, [i, j]),
            [normal(4, 3), normal(2, 2), np.int32(2), np.int32(0)],
        )
    ],  # fmt: skip
    "gather": [
        Case(lambda x, i: indexing.gather(x, i, **_GATHER), [normal(4, 3), _idx]),
        Case(lambda x, i: indexing.gather(x, i, **_GATHER), [normal(4, 3), np.array([[1], [1], [3], [1]])]),
    ],
    "scatter": [_scatter(k) for k in ("set", "add", "mul", "min", "max")]
    + [_scatter("add", np.array([[1], [1], [3]]), unique=False)],
    "sort": [
        Case(lambda x: sort.sort(x, dimension=1), [distinct(2, 4)]),
        Case(lambda x, y: sort.sort((x, y), dimension=0, descending=True), [distinct(4, 2), normal(4, 2)]),
        Case(lambda x: sort.sort((x, constants.iota(sg.int32, (2, 4), 1)), dimension=1), [distinct(2, 4)]),
    ],
}
NO_CHECK = {
    "stop_gradient": "its derivative is zero by definition, not that of its value (test_grad_vs_jax checks it)",
}


def _family_tables():
    """The tables newer families keep beside this file, so each family owns its cases: a module
    ``grad_cases_<family>.py`` with ``CASES = {op name: [(build, args) or (build, args, opts), ...]}``
    and optionally ``NO_CHECK = {op name: why}``."""
    for path in sorted(HERE.glob("grad_cases_*.py")):
        spec = importlib.util.spec_from_file_location(f"stablegraph_tests_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name, cases in module.CASES.items():
            assert name not in PRIMITIVES, f"{path.name} repeats the cases of {name}"
            PRIMITIVES[name] = [Case(*c) for c in cases]
        NO_CHECK.update(getattr(module, "NO_CHECK", {}))


_family_tables()


def _batch(cases):
    """One function and argument list running every case side by side."""
    sizes = [len(c.args) for c in cases]

    def fn(*xs):
        out, start = [], 0
        for c, n in zip(cases, sizes):
            out.append(c.build(*xs[start : start + n]))
            start += n
        return out

    return fn, [a for c in cases for a in c.args]


def check_cases(cases, label) -> None:
    """check_grads of every case, batched by options; a failure is localized to its case."""
    groups: dict = {}
    for c in cases:
        groups.setdefault(tuple(sorted(c.opts.items())), []).append(c)
    for opts, group in groups.items():
        fn, args = _batch(group)
        try:
            check_grads(fn, args, **{"order": 2, "modes": ("fwd", "rev"), **dict(opts)})
        except (AssertionError, sg.GraphError):
            errors = []
            for k, c in enumerate(group):
                try:
                    check_grads(c.build, c.args, **{"order": 2, "modes": ("fwd", "rev"), **c.opts})
                except (AssertionError, sg.GraphError) as e:
                    shapes = ", ".join(f"{np.asarray(a).dtype}{list(np.shape(a))}" for a in c.args)
                    errors.append(f"{label} case {k} ({shapes}): {e}")
            pytest.fail("\n".join(errors) or f"{label}: the batch failed but no case alone does")


@pytest.mark.parametrize("name", sorted(all_ops()))
def test_primitive_grads(name):
    op = all_ops()[name]
    if op.vjp is None:
        why = op.reasons.get("vjp", "")
        assert why and why != "not written yet", f"op {name} has no vjp rule and no reason why"
        assert name not in PRIMITIVES, f"op {name} has a test case but no vjp rule"
        return
    if name in NO_CHECK:
        return
    assert name in PRIMITIVES, f"op {name} has a vjp rule but no case in PRIMITIVES: add one"
    check_cases(PRIMITIVES[name], name)


def test_tables_name_only_registered_ops():
    assert set(PRIMITIVES) | set(NO_CHECK) <= set(all_ops())


# -- the sg.numpy table ----------------------------------------------------------
NUMPY = {
    "sum": [Case(lambda x: snp.sum(x, axis=1), [normal(2, 3)]), Case(lambda x: x.sum(), [normal(3)])],
    "mean": [Case(lambda x: snp.mean(x, axis=0, keepdims=True), [normal(2, 3)])],
    "var": [
        Case(lambda x: snp.var(x, axis=1), [normal(2, 3)]),
        Case(lambda x: snp.var(x, ddof=1), [normal(4)]),
    ],
    "std": [Case(lambda x: snp.std(x, axis=(0, 1)), [normal(2, 3)])],
    "max": [Case(lambda x: snp.max(x, axis=1), [distinct(2, 3)]), Case(lambda x: x.max(), [distinct(4)])],
    "min": [Case(lambda x: snp.min(x, axis=0, keepdims=True), [distinct(2, 3)])],
    "prod": [Case(lambda x: snp.prod(x, axis=1), [positive(2, 3)])],
    "matmul": [
        Case(snp.matmul, [normal(2, 3), normal(3, 2)]),
        Case(lambda a, b: a @ b, [normal(2, 2, 3), normal(3, 2)]),
        Case(snp.matmul, [normal(3), normal(3, 2)]),
    ],
    "einsum": [
        Case(lambda a, b: snp.einsum("bij,bjk->bik", a, b), [normal(2, 2, 3), normal(2, 3, 2)]),
        Case(lambda a: snp.einsum("ii->", a), [normal(3, 3)]),
    ],
    "tensordot": [
        Case(lambda a, b: snp.tensordot(a, b, axes=([1, 2], [0, 1])), [normal(2, 3, 2), normal(3, 2, 2)])
    ],
    "outer": [Case(snp.outer, [normal(3), normal(2)])],
    "trace": [Case(snp.trace, [normal(3, 3)])],
    "where": [
        Case(lambda c, x, y: snp.where(c, x, y), [R.random((2, 3)) > 0.5, normal(2, 3), normal(3)]),
        Case(lambda c, x: snp.where(c, x, 0.0), [R.random(3) > 0.5, normal(2, 3)]),
    ],
    "clip": [
        Case(lambda x: snp.clip(x, -0.5, 0.5), [normal(2, 3)]),
        Case(lambda x, lo: snp.clip(x, lo, None), [normal(2, 3), normal(3) * 0.3]),
    ],  # fmt: skip
    "concatenate": [Case(lambda a, b: snp.concatenate([a, b], axis=0), [normal(2, 3), normal(1, 3)])],
    "stack": [Case(lambda a, b: snp.stack([a, b], axis=1), [normal(2, 3), normal(2, 3)])],
    "take": [
        Case(lambda x, i: snp.take(x, i, axis=0), [normal(4, 3), np.array([3, 0, 0])]),
        Case(lambda x, i: snp.take_along_axis(x, i, axis=1), [normal(2, 3), np.array([[2, 0], [1, 1]])]),
    ],
    "getitem": [
        Case(lambda x: x[1:, ::-1], [normal(3, 4)]),
        Case(lambda x: x[:, None, 2], [normal(3, 4)]),
        Case(lambda x, i: x[i], [normal(4, 3), np.array([2, 0, 2])]),
        Case(lambda x, i: x[i, 1:], [normal(4, 3), np.array([[1, 3]])]),
    ],
    "at": [
        Case(lambda x, v: x.at[1].add(v), [normal(3, 2), normal(2)]),
        Case(lambda x, i, v: x.at[i].add(v), [normal(4, 2), np.array([0, 2, 0]), normal(3, 2)]),
        Case(lambda x, v: x.at[:, 1].set(v), [normal(3, 2), normal(3)]),
        Case(lambda x, v: x.at[2].multiply(v), [normal(3), normal()]),
    ],
    "sort": [Case(lambda x: snp.sort(x, axis=0), [distinct(3, 2)])],
    "cumsum": [Case(lambda x: snp.cumsum(x, axis=1), [normal(2, 3)]), Case(snp.cumsum, [normal(2, 2)])],
    "cumprod": [Case(lambda x: snp.cumprod(x, axis=0), [positive(3, 2)])],
    "cummax": [Case(lambda x: snp.cummax(x, axis=1), [distinct(2, 4)])],
    "transpose": [
        Case(lambda x: x.T, [normal(2, 3)]),
        Case(lambda x: snp.moveaxis(x, 0, -1), [normal(2, 1, 3)]),
    ],
    "reshape": [Case(lambda x: x.reshape(3, 2), [normal(2, 3)]), Case(snp.ravel, [normal(2, 3)])],
    "pad": [Case(lambda x: snp.pad(x, ((1, 0), (2, 1))), [normal(2, 3)])],
    "roll": [Case(lambda x: snp.roll(x, 2, axis=1), [normal(2, 3)])],
    "tile": [Case(lambda x: snp.tile(x, (2, 1)), [normal(2, 3)])],
    "repeat": [Case(lambda x: snp.repeat(x, 2, axis=0), [normal(2, 3)])],
    "flip": [Case(lambda x: snp.flip(x, axis=0), [normal(2, 3)])],
    "split": [Case(lambda x: snp.split(x, [1], axis=1), [normal(2, 3)])],
    "tril": [Case(snp.tril, [normal(3, 3)])],
    "ufuncs": [
        Case(lambda x, y: (x + y, x - y, x * y, x / y), [normal(2, 3), positive(3)]),
        Case(
            lambda x, y: (snp.power(x, y), snp.maximum(x, y), snp.arctan2(x, y)),
            [positive(2, 3), positive(3) + 0.1],
        ),
        Case(lambda x: (snp.sigmoid(x), snp.square(x), snp.reciprocal(x), x**2.5), [positive(3)]),
        Case(lambda x: x * 2 + 1.5, [normal(2, 3)]),
        Case(lambda x, y: x * y, [normal(2, 3), cplx(3)]),
    ],
}


@pytest.mark.parametrize("name", sorted(NUMPY))
def test_numpy_grads(name):
    check_cases(NUMPY[name], f"snp.{name}")
