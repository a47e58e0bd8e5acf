"""Initializers as jax.nn.initializers: ``init(key, shape, dtype) -> Tensor`` (sg.nn, ops layer).

``zeros`` and ``ones`` are initializers; every other name is a factory that
returns one (``glorot_uniform()``, ``normal(0.02)``, ``constant(0.1)``).
sg.Variable calls an initializer with a key folded out of the Session's
seed, so ``sg.Variable(glorot_uniform(), (784, 128), name="w")`` is
reproducible from ``sg.Session(g, seed=...)``. The draws are sg.random's,
which follow jax.random's, so for one key the numbers agree with jax's
initializers up to float rounding. Each initializer carries the name listings
show for the variable's ``init`` call (``fc1/kernel/init = glorot_uniform(...)``);
those that draw nothing say ``uses_key = False``, so sg.Variable builds no key
for them.
"""

from __future__ import annotations

import math
import numbers
from typing import Protocol, runtime_checkable

from ...graph import Tensor, dtypes
from ...graph.dims import check_shape
from .. import numpy_like as snp
from .. import random
from ..control_api import fori_loop
from ..numpy_like.core import error, normalize_axis

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "kaiming_normal",
    "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal",
    "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros",
]  # fmt: skip

# The standard deviation of a unit normal truncated to (-2, 2): dividing by it
# gives the truncated draw the variance asked for.
_TRUNCATED_STDDEV = 0.87962566103423978


@runtime_checkable
class Initializer(Protocol):
    """What every initializer here is (jax.nn.initializers.Initializer): a callable
    ``init(key, shape, dtype) -> Tensor``, for annotations and isinstance checks."""

    def __call__(self, key, shape, dtype=None) -> Tensor: ...


def _shape(shape, who: str) -> tuple:
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    try:
        return check_shape(shape)
    except Exception as e:  # noqa: BLE001  (a bad dim: say which initializer)
        raise error(f"{who} wants a shape of ints, got {shape!r}") from e


def _float(dtype, who: str) -> dtypes.DType:
    dt = dtypes.dtype(dtype)
    if dt.kind != "f":
        raise error(f"{who} wants a real floating dtype, got {dt.name}")
    return dt


def _named(init, name: str, uses_key: bool = True):
    """``init`` named as listings show it, marked whether it draws from its key."""
    init.__name__ = init.__qualname__ = name
    init.uses_key = uses_key
    return init


def zeros(key, shape, dtype=dtypes.float32) -> Tensor:
    """All zeros (the key is not used)."""
    return snp.zeros(_shape(shape, "zeros"), dtypes.dtype(dtype))


def ones(key, shape, dtype=dtypes.float32) -> Tensor:
    """All ones (the key is not used)."""
    return snp.ones(_shape(shape, "ones"), dtypes.dtype(dtype))


zeros.uses_key = ones.uses_key = False


def constant(value, dtype=dtypes.float32):
    """An initializer filling every entry with ``value``. ``bias_init=constant(0.1)``"""

    def init(key, shape, dtype=dtype):
        return snp.full(_shape(shape, "constant"), value, dtypes.dtype(dtype))

    return _named(init, "constant", uses_key=False)


def normal(stddev=1e-2, dtype=dtypes.float32):
    """An initializer drawing N(0, stddev**2)."""

    def init(key, shape, dtype=dtype):
        dt = _float(dtype, "normal")
        return random.normal(key, _shape(shape, "normal"), dt) * stddev

    return _named(init, "normal")


def uniform(scale=1e-2, dtype=dtypes.float32):
    """An initializer drawing uniformly from [0, scale) (as jax's, not centred)."""

    def init(key, shape, dtype=dtype):
        dt = _float(dtype, "uniform")
        return random.uniform(key, _shape(shape, "uniform"), dt) * scale

    return _named(init, "uniform")


def truncated_normal(stddev=1e-2, dtype=dtypes.float32, lower=-2.0, upper=2.0):
    """An initializer drawing ``stddev`` times a unit normal truncated to (lower, upper)."""

    def init(key, shape, dtype=dtype):
        dt = _float(dtype, "truncated_normal")
        return random.truncated_normal(key, lower, upper, _shape(shape, "truncated_normal"), dt) * stddev

    return _named(init, "truncated_normal")


def _size(shape, axes, who: str) -> int:
    axes = (axes,) if isinstance(axes, numbers.Integral) else tuple(axes)
    return math.prod(shape[normalize_axis(int(a), len(shape), f"{who} axis")] for a in axes)


def _fans(shape, in_axis, out_axis, batch_axis, who: str) -> tuple[float, float]:
    """(fan_in, fan_out): the in/out sizes times the receptive field (every other non-batch dim)."""
    if not all(isinstance(d, int) for d in shape):
        raise error(f"{who} wants a static shape, got {shape}")
    if len(shape) < 2 and (in_axis == -2 or out_axis == -1):
        raise error(f"{who} cannot tell the fans of a {len(shape)}-d shape {shape} with the default axes")
    in_size = _size(shape, in_axis, who)
    out_size = _size(shape, out_axis, who)
    batch_size = _size(shape, batch_axis, who)
    total = math.prod(shape)
    receptive = total / in_size / out_size / batch_size if total else 0.0
    return in_size * receptive, out_size * receptive


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")


def variance_scaling(
    scale, mode: str, distribution: str, in_axis=-2, out_axis=-1, batch_axis=(), dtype=dtypes.float32
):
    """An initializer with variance ``scale / n``, n the fan chosen by ``mode``.

    mode: "fan_in", "fan_out", "fan_avg" (their mean) or "fan_geo_avg" (their
    geometric mean); the fans are the sizes of ``in_axis`` and ``out_axis``
    times the product of the other dims (a conv kernel's receptive field),
    leaving out ``batch_axis``. distribution: "truncated_normal" (within two
    standard deviations, rescaled to keep the variance), "normal" or
    "uniform" (on [-sqrt(3 var), sqrt(3 var))).
    """
    if mode not in _MODES:
        raise error(f"variance_scaling: mode must be one of {_MODES}, got {mode!r}")
    if distribution not in _DISTRIBUTIONS:
        raise error(f"variance_scaling: distribution must be one of {_DISTRIBUTIONS}, got {distribution!r}")

    def init(key, shape, dtype=dtype):
        shape = _shape(shape, "variance_scaling")
        dt = _float(dtype, "variance_scaling")
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis, "variance_scaling")
        n = {
            "fan_in": fan_in,
            "fan_out": fan_out,
            "fan_avg": (fan_in + fan_out) / 2,
            "fan_geo_avg": math.sqrt(fan_in * fan_out),
        }[mode]
        variance = scale / (n if n > 0 else 1.0)  # an empty shape: nothing to draw
        if distribution == "truncated_normal":
            unit = random.truncated_normal(key, -2.0, 2.0, shape, dt)
            return unit * (math.sqrt(variance) / _TRUNCATED_STDDEV)
        if distribution == "normal":
            return random.normal(key, shape, dt) * math.sqrt(variance)
        return random.uniform(key, shape, dt, -1.0, 1.0) * math.sqrt(3.0 * variance)

    return _named(init, "variance_scaling")


def _scaled(scale: float, mode: str, distribution: str, doc: str):
    def factory(in_axis=-2, out_axis=-1, batch_axis=(), dtype=dtypes.float32):
        init = variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)
        return _named(init, factory.__name__)

    factory.__doc__ = doc
    return factory


glorot_uniform = _scaled(1.0, "fan_avg", "uniform", "Glorot/Xavier uniform: variance 2 / (fan_in + fan_out).")
glorot_normal = _scaled(
    1.0, "fan_avg", "truncated_normal", "Glorot/Xavier truncated normal: variance 2 / (fan_in + fan_out)."
)
lecun_uniform = _scaled(1.0, "fan_in", "uniform", "LeCun uniform: variance 1 / fan_in.")
lecun_normal = _scaled(1.0, "fan_in", "truncated_normal", "LeCun truncated normal: variance 1 / fan_in.")
he_uniform = _scaled(2.0, "fan_in", "uniform", "He/Kaiming uniform: variance 2 / fan_in (for relu).")
he_normal = _scaled(2.0, "fan_in", "truncated_normal", "He/Kaiming truncated normal: variance 2 / fan_in.")
for _f, _n in ((glorot_uniform, "glorot_uniform"), (glorot_normal, "glorot_normal"),
               (lecun_uniform, "lecun_uniform"), (lecun_normal, "lecun_normal"),
               (he_uniform, "he_uniform"), (he_normal, "he_normal")):  # fmt: skip
    _f.__name__ = _f.__qualname__ = _n
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def _orthonormal_columns(a: Tensor) -> Tensor:
    """The Q of a = QR with R's diagonal positive, for a tall (m >= n) matrix ``a``.

    Gram-Schmidt, one column per loop step, each projected out twice (which
    keeps float32 columns orthogonal to rounding). The loop index picks the
    column through a one-hot vector, so every shape stays static.
    """
    m, n = a.shape
    columns = snp.arange(n)

    def step(i, q):
        pick = (columns == i).astype(a.dtype)
        v = snp.matmul(a, pick)
        for _ in range(2):
            v = v - snp.matmul(q, snp.matmul(v, q))
        v = v / snp.sqrt(snp.sum(v * v))
        return q + snp.expand_dims(v, 1) * pick

    return fori_loop(0, n, step, snp.zeros((m, n), a.dtype))


def orthogonal(scale=1.0, column_axis=-1, dtype=dtypes.float32):
    """An initializer whose matrix (``column_axis`` against all other dims flattened)
    has orthonormal columns, or rows when there are more columns than rows; times ``scale``.

    As jax's: the Q factor, signs fixed by R's diagonal, of a normal matrix.
    """

    def init(key, shape, dtype=dtype):
        shape = _shape(shape, "orthogonal")
        dt = _float(dtype, "orthogonal")
        if len(shape) < 2 or not all(isinstance(d, int) for d in shape):
            raise error(f"orthogonal wants a static shape of rank >= 2, got {shape}")
        axis = normalize_axis(int(column_axis), len(shape), "orthogonal column_axis")
        n_cols = shape[axis]
        n_rows = math.prod(shape) // n_cols if n_cols else 0
        wide = n_rows < n_cols
        a = random.normal(key, (n_cols, n_rows) if wide else (n_rows, n_cols), dt)
        q = _orthonormal_columns(a)
        if wide:
            q = snp.transpose(q)
        rest = tuple(d for i, d in enumerate(shape) if i != axis)
        q = snp.moveaxis(snp.reshape(q, (*rest, n_cols)), -1, axis)
        return q * scale

    return _named(init, "orthogonal")


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=dtypes.float32):
    """An initializer for 1-, 2- or 3-d convolution kernels (shape (*spatial, in, out), 3 to 5
    dims, in <= out): zero except at the spatial centre, which holds an ``orthogonal`` matrix
    (Xiao et al. 2018, "Dynamical isometry and a mean field theory of CNNs"); as jax's."""

    def init(key, shape, dtype=dtype):
        shape = _shape(shape, "delta_orthogonal")
        dt = _float(dtype, "delta_orthogonal")
        if len(shape) not in (3, 4, 5):
            raise error(f"delta_orthogonal wants a 3-d, 4-d or 5-d kernel shape, got {shape}")
        if shape[-1] < shape[-2]:
            raise error(f"delta_orthogonal wants fan_in <= fan_out (shape[-2] <= shape[-1]), got {shape}")
        centre = orthogonal(scale, column_axis, dt)(key, shape[-2:], dt)
        middle = tuple((k - 1) // 2 for k in shape[:-2])
        return snp.zeros(shape, dt).at[middle].set(centre)

    return _named(init, "delta_orthogonal")
