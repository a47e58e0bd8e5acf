"""Candidate samplers for sampled losses, as TF1's tf.random (tf.nn) has them (sg.random, ops layer).

``log_uniform_candidate_sampler`` draws classes from the log-uniform
(Zipfian) distribution over [0, range_max) that word2vec's sampled losses
assume of classes sorted by falling frequency:

    P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)

(a draw is ``floor(exp(u * log(range_max + 1))) - 1`` for u uniform in
[0, 1)). ``uniform_candidate_sampler`` draws every class alike, P(c) =
1 / range_max. Both return TF1's triple: the ``num_sampled`` candidates
(int64), and the expected count of each true class and of each candidate in
such a sample, which sampled losses subtract (as logs) from their logits.
Drawing ``num_sampled`` times with replacement, a class is expected
``P(c) * num_sampled`` times. With ``unique=True`` draws repeat until
``num_sampled`` distinct classes came, after ``tries`` draws, and a class
is expected ``1 - (1 - P(c))**tries`` times (at most once); that loop is one
``while_loop`` that takes ``num_sampled`` draws per step and keeps, in draw
order, the ones not seen yet, so ``tries`` counts draws as TF1's
one-at-a-time loop does.

Randomness: ``key=`` (a uint32[2] key) gives the same candidates for the
same key; otherwise ``seed=`` (an int, TF1's op seed) gives the sampler a
Generator of its own seeded with it, and without either it draws from the
graph's default Generator (as ``sg.nn.dropout`` does); both give fresh
candidates every run, reproducible from the seed (the Session's seed for
the default Generator).
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graph import Tensor, dtypes, library_call
from ...graph.library import returns
from .. import numpy_like as snp
from ..control_api import while_loop
from ..key_array import raw
from ..numpy_like.core import asarray, error
from ..numpy_like.ufuncs import xla_log1p
from ..primitives.elementwise import stop_gradient
from ..random_keys import fold_in
from .distributions import uniform
from .generator import Generator, default_generator

__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler"]


def _positive_int(value, what: str, who: str) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise error(f"{who} wants a positive int {what}, got {value!r}")
    return int(value)


def _draw_key(seed, key, who: str) -> Tensor:
    if key is not None:
        key = asarray(raw(key))
        if key.dtype is not dtypes.uint32 or tuple(key.shape) != (2,):
            raise error(f"{who} wants key= as a uint32[2] key, got {key.type}")
        return key
    if seed is not None:
        if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
            raise error(f"{who} wants an int seed, got {seed!r}")
        return Generator(int(seed), name=f"{who}_generator").key()
    return default_generator().key()


class _Distribution:
    """One sampler's class probabilities and draws, over [0, range_max)."""

    def __init__(self, kind: str, range_max: int):
        self.kind, self.range_max = kind, range_max

    def probability(self, classes: Tensor) -> Tensor:
        """P(class) in float64, for int classes."""
        if self.kind == "uniform":
            return snp.full(classes.shape, 1.0 / self.range_max, dtype=dtypes.float64)
        c = classes.astype(dtypes.float64)
        return xla_log1p(1.0 / (c + 1.0)) / np.log(self.range_max + 1.0)

    def draw(self, key: Tensor, n: int) -> Tensor:
        """``n`` independent draws, int64."""
        u = uniform(key, (n,), dtypes.float64)
        if self.kind == "uniform":
            c = snp.floor(u * self.range_max)
        else:
            c = snp.floor(snp.exp(u * np.log(self.range_max + 1.0))) - 1.0
        return snp.clip(c, 0, self.range_max - 1).astype(dtypes.int64)


def _unique_draws(dist: _Distribution, key: Tensor, n: int) -> tuple[Tensor, Tensor]:
    """``n`` distinct classes drawn in order (repeats skipped) and the number of draws it took."""
    earlier = asarray(np.tri(n, k=-1, dtype=bool))  # [j, i]: draw i came before draw j

    def more(state):
        return state[1] < n

    def step(state):
        samples, count, tries, i = state
        draws = dist.draw(fold_in(key, i), n)
        seen = snp.any(draws[:, None] == samples[None, :], axis=1)
        repeat = snp.any((draws[:, None] == draws[None, :]) & earlier, axis=1)
        new = ~seen & ~repeat
        slot = count + snp.cumsum(new.astype(dtypes.int32)) - 1
        samples = samples.at[snp.where(new & (slot < n), slot, n)].set(
            draws
        )  # slot n is out of bounds: dropped
        last = new & (slot == n - 1)  # the draw that completes the sample
        tries = tries + snp.where(snp.any(last), snp.argmax(last).astype(dtypes.int32) + 1, n)
        count = snp.minimum(count + snp.sum(new.astype(dtypes.int32)), n)
        return samples, count, tries, i + 1

    start = (snp.full((n,), -1, dtype=dtypes.int64), asarray(0), asarray(0), asarray(0))
    samples, _, tries, _ = while_loop(more, step, start)
    return samples, tries


def _expected_count(p: Tensor, n: int, tries: Tensor) -> Tensor:
    """How often a class of probability ``p`` is expected in the sample, as float32."""
    if tries is None:
        return (p * n).astype(dtypes.float32)
    t = tries.astype(dtypes.float64)
    at_most_once = -snp.expm1(t * xla_log1p(-p))
    return snp.where(tries == n, p * n, at_most_once).astype(dtypes.float32)


def _sample(kind, true_classes, num_true, num_sampled, unique, range_max, seed, key, who):
    classes = asarray(true_classes)
    num_true = _positive_int(num_true, "num_true", who)
    num_sampled = _positive_int(num_sampled, "num_sampled", who)
    range_max = _positive_int(range_max, "range_max", who)
    if classes.dtype.kind not in "iu" or classes.ndim != 2 or classes.shape[1] != num_true:
        raise error(
            f"{who} wants true_classes of ints shaped (batch, num_true={num_true}), got {classes.type}"
        )
    if unique is not True and unique is not False:
        raise error(f"{who} wants unique=True or False, got {unique!r}")
    if unique and num_sampled > range_max:
        raise error(
            f"{who}: {num_sampled} distinct candidates (unique=True) cannot come from {range_max} classes"
        )
    dist = _Distribution(kind, range_max)
    k = _draw_key(seed, key, who)
    if unique:
        sampled, tries = _unique_draws(dist, k, num_sampled)
    else:
        sampled, tries = dist.draw(k, num_sampled), None
    true_expected = _expected_count(dist.probability(classes), num_sampled, tries)
    sampled_expected = _expected_count(dist.probability(sampled), num_sampled, tries)
    return stop_gradient(sampled), stop_gradient(true_expected), stop_gradient(sampled_expected)


def log_uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None, *, key=None
) -> tuple[Tensor, Tensor, Tensor]:
    """``num_sampled`` classes from the log-uniform (Zipfian) distribution over [0, range_max) (TF1's).

    Returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``:
    int64[num_sampled], float32 of ``true_classes``' shape (batch, num_true)
    and float32[num_sampled]; see the module docstring for the distribution,
    ``unique`` and the randomness (``seed=``, ``key=``).
    ``sampled, true_ec, sampled_ec = sg.random.log_uniform_candidate_sampler(labels, 1, 64, True, 50000)``
    """
    who = "log_uniform_candidate_sampler"
    with library_call(who, name or who) as call:
        out = _sample("log_uniform", true_classes, num_true, num_sampled, unique, range_max, seed, key, who)
        returns(call, out)
    return out


def uniform_candidate_sampler(
    true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None, *, key=None
) -> tuple[Tensor, Tensor, Tensor]:
    """``num_sampled`` classes drawn uniformly from [0, range_max) (TF1's); returns as
    ``log_uniform_candidate_sampler``."""
    who = "uniform_candidate_sampler"
    with library_call(who, name or who) as call:
        out = _sample("uniform", true_classes, num_true, num_sampled, unique, range_max, seed, key, who)
        returns(call, out)
    return out
