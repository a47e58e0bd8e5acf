"""What 1F1 and 2F1's values (hypergeometric.py) and their parameter slopes
(hypergeometric_params.py) share: series lengths, the Gamma helpers they take apart and the
choice of 2F1's way on [0, 1) (ops layer). A module of its own so that the slopes do not import
the module whose custom rules call them."""

from __future__ import annotations

from .. import numpy_like as snp
from ..primitives import transcendental as tr
from ..primitives.registry import bind

_1F1_TERMS = 500
_1F1_ASYMPTOTIC_TERMS = 40
_2F1_TERMS = 3000
_2F1_NEAR_TERMS = 200  # x <= 1/2: 2^-200
_2F1_MIDDLE = 0.95
_2F1_MIDDLE_TERMS = 1000  # 0.95^1000 = 5e-23
_FINITE_TERMS = 60  # the finite sum's terms: integer c - a - b up to 60


def _lgamma(x):
    return bind(tr.lgamma, x)


def _nonpositive_integer(v):
    return (v <= 0) & (v == snp.floor(v))


def _gamma_sign(x):
    """The sign of Gamma(x) off its poles: -1 on (-2k-1, -2k), else 1 (floor(x) odd where it is
    not twice floor(x / 2): a few ops, where remainder's sign rules take sixty)."""
    negative_odd = (x < 0) & (snp.floor(x) != 2 * snp.floor(x / 2))
    return snp.where(negative_odd, -1.0, 1.0)


def _near_integer(v):
    return snp.abs(v - snp.rint(v)) < 1e-9


def unit_interval_branches(a, b, c, x):
    """Which of _unit_interval's ways each point of 0 <= x < 1 takes beyond the series' reach
    (the value's and its parameter slopes' choice): (far: x past the middle,
    poles: a Gamma ratio of the 1 - x transformation has a pole, transformed: that
    transformation, limit: its digamma limit where c - a - b is an integer)."""
    poles = (
        _nonpositive_integer(a)
        | _nonpositive_integer(b)
        | _nonpositive_integer(c - a)
        | _nonpositive_integer(c - b)
    )
    integer_d = _near_integer(c - a - b)
    far = x > _2F1_MIDDLE
    transformed = far & ~integer_d & ~poles
    limit = far & integer_d & ~poles & (snp.abs(c - a - b) <= _FINITE_TERMS)
    return far, poles, transformed, limit
