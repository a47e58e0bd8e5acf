"""What every sg.scipy.stats distribution shares: the namespace object and argument promotion (ops layer).

A distribution is a read-only namespace of functions (``sg.scipy.stats.norm.logpdf``),
as jax.scipy.stats' modules are; each function is one library call in a
listing (``norm.logpdf``). Arguments are promoted together as numpy would,
Python scalars staying weak, and integer data become float32.
"""

from __future__ import annotations

import numpy as np

from ....graph import Tensor, dtypes, library
from ... import numpy_like as snp
from ...numpy_like.core import asarray, result_dtype


def _nan_in_nan_out(fn):
    """``fn`` of elementwise arguments whose result is nan wherever an argument is (as scipy's):
    the support and parameter checks compare, and a comparison with nan is False, so without
    this a nan k or loc would land on the -inf or 0 of "off the support"."""

    def wrapped(*args, **kwargs):
        out = fn(*args, **kwargs)
        nan = None
        for a in (*args, *kwargs.values()):
            if isinstance(a, Tensor | np.ndarray | float) and not isinstance(a, bool):
                a = asarray(a)
                if a.dtype.is_inexact:
                    nan = snp.isnan(a) if nan is None else nan | snp.isnan(a)
        return out if nan is None else snp.where(nan, const(np.nan, out), out)

    wrapped.__doc__ = fn.__doc__
    return wrapped


class Distribution:
    """A named set of a distribution's functions: ``norm.logpdf(x, loc, scale)`` etc. Elementwise
    ones (``elementwise=True``) answer nan wherever an argument is nan."""

    def __init__(self, name: str, doc: str, elementwise: bool = True, **methods):
        self.__name__ = name
        self.__doc__ = doc
        self._methods = tuple(methods)
        for method, fn in methods.items():
            fn = _nan_in_nan_out(fn) if elementwise else fn
            wrapped = library(fn=f"{name}.{method}", name=f"{name}_{method}")(fn)
            wrapped.__name__ = wrapped.__qualname__ = method
            wrapped.__doc__ = f"scipy.stats.{name}.{method}: {fn.__doc__ or ''}".strip()
            object.__setattr__(self, method, wrapped)

    def __setattr__(self, name, value):
        if hasattr(self, "_methods"):
            raise AttributeError(f"sg.scipy.stats.{self.__name__} is read-only")
        object.__setattr__(self, name, value)

    def __dir__(self):
        return list(self._methods)

    def __repr__(self) -> str:
        return f"<sg.scipy.stats.{self.__name__}: {', '.join(self._methods)}>"


def floats(*xs):
    """``xs`` as Tensors of one inexact dtype (their numpy join; float32 for integers)."""
    dt = result_dtype(*xs)
    if not dt.is_inexact:
        dt = dtypes.float32
    return [asarray(x, dt) for x in xs]


def const(value, like) -> np.ndarray:
    """A numpy scalar of ``like``'s dtype (so a constant never widens float32 math)."""
    return np.asarray(value, like.dtype.np)


def nan_where(bad, x):
    """``x`` with nan where ``bad`` holds (invalid parameters, as scipy answers)."""
    return snp.where(bad, const(np.nan, x), x)


def clamp(x, lo, hi=None):
    """``x`` held in [lo, hi] (no upper end for hi None) with its whole slope at the ends: a value on
    the support's end is a point of the support, where clip's and maximum's tie rule (the slope
    split in half, as jax's clip) would halve the derivative."""
    x = snp.where(x < lo, lo, x)
    return x if hi is None else snp.where(x > hi, hi, x)


def mirror(x):
    """-x, with +0 for x = 0 (scipy's isf(1/2), expon's ppf(-0) are +0; -x would give -0)."""
    return const(0.0, x) - x


def standardize(x, loc, scale):
    """``(x - loc) / scale`` and the promoted ``scale``."""
    x, loc, scale = floats(x, loc, scale)
    return (x - loc) / scale, scale


def exp_of(fn, mass: bool = False, doc: str | None = None):
    """``exp(fn(...))`` as a method: pdf from logpdf, pmf from logpmf (``mass``), or another
    probability from its log (say which in ``doc``)."""

    def exp_fn(*args, **kwargs):
        return snp.exp(fn(*args, **kwargs))

    exp_fn.__doc__ = doc or ("the probability mass, exp(logpmf)" if mass else "the density, exp(logpdf)")
    return exp_fn


def log1m(q):
    """log(1 - q) for 0 <= q <= 1 within 2 ulps: log1p(-q) below 0.3, log(1 - q) above, where
    XLA's log1p is up to 126 ulps off (log1p(-0.39347) = -0.4999999999999964 for -0.5)."""
    low = q < const(0.3, q)
    return snp.where(
        low,
        snp.log1p(-snp.where(low, q, const(0.0, q))),
        snp.log(const(1.0, q) - snp.where(low, const(0.5, q), q)),
    )


def log_tail(fn, other):
    """log(fn(...)) as a method (logcdf with fn the cdf and other the sf, logsf the other way),
    taken as log(1 - other) where fn passes 1/2: log of a probability near 1 turns its last digit
    into many of the log's (the cdf 0.94 one ulp off is 16 ulps of logcdf -0.06). Each branch sees
    a stand-in where the other is taken, so its slope stays finite there."""

    def log_fn(*args, **kwargs):
        p, q = fn(*args, **kwargs), other(*args, **kwargs)
        zero, one = const(0.0, q), const(1.0, p)
        near_one = q < const(0.5, q)
        out = snp.where(near_one, log1m(snp.where(near_one, q, zero)), snp.log(snp.where(near_one, one, p)))
        # log 1 is +0 (log1p(-0) is -0); 0 - q keeps the slope -1 of log(1 - q) at q = 0
        return snp.where(q == zero, zero - q, out)

    log_fn.__doc__ = "the log of the probability, from the complement where the probability is near 1"
    return log_fn


__all__ = [
    "Distribution",
    "clamp",
    "const",
    "exp_of",
    "floats",
    "log1m",
    "log_tail",
    "nan_where",
    "standardize",
]
