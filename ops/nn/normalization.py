"""Normalization: jax.nn.standardize and flax-style norm layers (sg.nn, ops layer).

``standardize`` is jax.nn's function. ``layer_norm``, ``rms_norm``,
``group_norm`` and ``batch_norm`` are layers as in flax.linen: each makes its
Variables (``<name>/scale``, ``<name>/bias``) under its own name scope, which
is its library call (one line in a listing), and computes its statistics in
at least float32 with flax's fast variance ``mean(x**2) - mean(x)**2``
(clipped at 0).

``batch_norm`` keeps non-trainable ``<name>/moving_mean`` and
``<name>/moving_variance``. The graph's ``training()`` switch (or its
``training=`` argument) picks the batch's statistics (training) or the moving
ones (inference). In training the layer also notes two assigns,
``moving = momentum * moving + (1 - momentum) * batch statistic`` (flax's
convention), as pending updates (updates.py): ``Optimizer.minimize(loss)``
puts the updates of the layers ``loss`` goes through into its train op, so
``sess.run([loss, train])`` moves the statistics in the same run. With the
switch fed False the assigns write the old values back (no change).
"""

from __future__ import annotations

import numbers

from ...graph import Tensor, dtypes, library
from ...graph.library import returns
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error, normalize_axis
from ..state import Variable, assign
from . import initializers
from .layers import training_flag
from .reuse import layer_call
from .updates import add_update

__all__ = ["batch_norm", "group_norm", "layer_norm", "rms_norm", "standardize"]


def _floating(x) -> Tensor:
    x = asarray(x)
    return x if x.dtype.is_floating else x.astype(dtypes.float32)


def _axes(axis, ndim: int, who: str) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    out = tuple(sorted({normalize_axis(int(a), ndim, f"{who} axis") for a in axes}))
    if len(out) != len(axes):
        raise error(f"{who} got a repeated axis in {axis!r}")
    return out


def _mean(x: Tensor, axes: tuple, where=None) -> Tensor:
    """The mean over ``axes`` (kept), of the entries ``where`` picks when given."""
    if where is None:
        return snp.mean(x, axis=axes, keepdims=True)
    picked = snp.broadcast_to(asarray(where).astype(dtypes.bool_), x.shape)
    total = snp.sum(snp.where(picked, x, 0.0), axis=axes, keepdims=True)
    return total / snp.sum(picked.astype(x.dtype), axis=axes, keepdims=True)


def _fast_variance(x: Tensor, mean: Tensor, axes: tuple, where=None) -> Tensor:
    return snp.maximum(_mean(x * x, axes, where) - mean * mean, 0.0)


@library()
def standardize(
    x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *, algorithm="fast"
) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) over ``axis`` (an int, a tuple, None for all), as jax.nn.

    ``mean``/``variance`` default to x's over ``axis`` (of the entries
    ``where`` picks); ``algorithm="fast"`` takes the variance as
    mean(x**2) - mean**2 clipped at 0 (jax's default), ``"stable"`` as
    mean((x - mean)**2).
    """
    x = _floating(x)
    axes = _axes(axis, x.ndim, "standardize")
    if algorithm not in ("fast", "stable"):
        raise error(f"standardize: algorithm must be 'fast' or 'stable', got {algorithm!r}")
    mean = _mean(x, axes, where) if mean is None else asarray(mean)
    if variance is None:
        if algorithm == "fast":
            variance = _fast_variance(x, mean, axes, where)
        else:
            centered = x - mean
            variance = _mean(centered * centered, axes, where)
    return (x - mean) * snp.rsqrt(asarray(variance) + epsilon)


# -- layers ---------------------------------------------------------------------------
def _stats_input(x: Tensor) -> Tensor:
    """``x`` in at least float32, the precision statistics are taken in."""
    return x.astype(dtypes.float32) if x.dtype.np.itemsize < 4 else x


def _feature_shape(x: Tensor, feature_axes: tuple, who: str) -> tuple:
    shape = tuple(x.shape[a] for a in feature_axes)
    if not all(isinstance(d, int) for d in shape):
        raise error(f"{who} wants static feature dims (axes {feature_axes}), got {x.type}")
    return shape


def _along(v: Tensor, ndim: int, axes: tuple) -> Tensor:
    """``v`` (of the dims of ``axes``, in order) reshaped to broadcast against a rank-``ndim`` tensor."""
    shape = [1] * ndim
    for a, d in zip(axes, v.shape):
        shape[a] = d
    return snp.reshape(v, tuple(shape))


def _scale_and_shift(y, features, axes, dtype, use_scale, use_bias, scale_init, bias_init) -> Tensor:
    """``y * scale + bias`` with Variables ``scale`` and ``bias`` of shape ``features`` (as used)."""
    if use_scale:
        y = y * _along(Variable(scale_init, features, dtype, name="scale"), y.ndim, axes)
    if use_bias:
        y = y + _along(Variable(bias_init, features, dtype, name="bias"), y.ndim, axes)
    return y


def layer_norm(
    x,
    epsilon=1e-6,
    *,
    use_bias: bool = True,
    use_scale: bool = True,
    reduction_axes=-1,
    feature_axes=-1,
    scale_init=initializers.ones,
    bias_init=initializers.zeros,
    name: str = "layer_norm",
    reuse=None,
) -> Tensor:
    """Layer normalization (flax.linen.LayerNorm): standardize over ``reduction_axes``, then
    ``* scale + bias`` (Variables ``<name>/scale``, ``<name>/bias`` of the ``feature_axes`` dims).

    ``h = sg.nn.layer_norm(h, name="ln1")``
    """
    x = _floating(x)
    reduce = _axes(reduction_axes, x.ndim, "layer_norm")
    features = _axes(feature_axes, x.ndim, "layer_norm")
    shape = _feature_shape(x, features, "layer_norm")
    with layer_call("layer_norm", name, reuse) as call:
        xs = _stats_input(x)
        mean = _mean(xs, reduce)
        y = ((xs - mean) * snp.rsqrt(_fast_variance(xs, mean, reduce) + epsilon)).astype(x.dtype)
        y = _scale_and_shift(y, shape, features, x.dtype, use_scale, use_bias, scale_init, bias_init)
        returns(call, y)
    return y


def rms_norm(
    x,
    epsilon=1e-6,
    *,
    use_scale: bool = True,
    reduction_axes=-1,
    feature_axes=-1,
    scale_init=initializers.ones,
    name: str = "rms_norm",
    reuse=None,
) -> Tensor:
    """RMS normalization (flax.linen.RMSNorm): ``x / sqrt(mean(x**2) + epsilon) * scale`` over
    ``reduction_axes``; no centering and no bias.
    """
    x = _floating(x)
    reduce = _axes(reduction_axes, x.ndim, "rms_norm")
    features = _axes(feature_axes, x.ndim, "rms_norm")
    shape = _feature_shape(x, features, "rms_norm")
    with layer_call("rms_norm", name, reuse) as call:
        xs = _stats_input(x)
        y = (xs * snp.rsqrt(_mean(xs * xs, reduce) + epsilon)).astype(x.dtype)
        y = _scale_and_shift(y, shape, features, x.dtype, use_scale, False, scale_init, None)
        returns(call, y)
    return y


def group_norm(
    x,
    num_groups: int | None = 32,
    *,
    group_size: int | None = None,
    epsilon=1e-6,
    use_bias: bool = True,
    use_scale: bool = True,
    scale_init=initializers.ones,
    bias_init=initializers.zeros,
    name: str = "group_norm",
    reuse=None,
) -> Tensor:
    """Group normalization (flax.linen.GroupNorm) of ``x`` shaped (batch, ..., channels).

    The channels split into ``num_groups`` groups (or groups of ``group_size``;
    give one of the two); each example's group is standardized over its
    channels and every middle axis; then ``* scale + bias`` per channel.
    """
    x = _floating(x)
    if x.ndim < 2:
        raise error(f"group_norm wants (batch, ..., channels), got {x.type}")
    channels = x.shape[-1]
    if not isinstance(channels, int):
        raise error(f"group_norm wants a static channel dim, got {x.type}")
    if (num_groups is None) == (group_size is None):
        raise error(
            f"group_norm wants exactly one of num_groups and group_size, got {num_groups}, {group_size}"
        )
    groups = num_groups if group_size is None else channels // group_size
    if not isinstance(groups, numbers.Integral) or groups < 1 or channels % groups:
        raise error(
            f"group_norm: {channels} channels do not split into groups ({num_groups=}, {group_size=})"
        )
    groups = int(groups)
    with layer_call("group_norm", name, reuse) as call:
        xs = _stats_input(x)
        grouped = snp.reshape(xs, (*x.shape[:-1], groups, channels // groups))
        reduce = (*range(1, x.ndim - 1), x.ndim)
        mean = _mean(grouped, reduce)
        y = (grouped - mean) * snp.rsqrt(_fast_variance(grouped, mean, reduce) + epsilon)
        y = snp.reshape(y, x.shape).astype(x.dtype)
        y = _scale_and_shift(
            y, (channels,), (x.ndim - 1,), x.dtype, use_scale, use_bias, scale_init, bias_init
        )
        returns(call, y)
    return y


def batch_norm(
    x,
    momentum=0.99,
    epsilon=1e-5,
    *,
    axis=-1,
    use_scale: bool = True,
    use_bias: bool = True,
    training=None,
    scale_init=initializers.ones,
    bias_init=initializers.zeros,
    name: str = "batch_norm",
    reuse=None,
) -> Tensor:
    """Batch normalization (flax.linen.BatchNorm) over every axis but ``axis`` (the features).

    Variables: ``<name>/scale``, ``<name>/bias`` (trainable) and
    ``<name>/moving_mean`` (zeros), ``<name>/moving_variance`` (ones), not
    trainable. ``training``: None follows the graph's ``training()`` switch,
    or a Python bool, or a bool scalar Tensor. Training normalizes with the
    batch's mean and (biased) variance and notes the updates
    ``moving = momentum * moving + (1 - momentum) * batch``, which
    ``minimize(loss)`` runs in its train op (see updates.py; for a train op
    built otherwise, group in ``sg.nn.update_ops()``). Inference normalizes
    with the moving statistics.

        h = sg.nn.batch_norm(h, name="bn1")
        loss_v, _ = sess.run([loss, train], feeds)              # moves bn1's statistics
        acc_v = sess.run(acc, feeds)  # no train op, so the switch is off: uses them
    """
    x = _floating(x)
    features = (normalize_axis(int(axis), x.ndim, "batch_norm axis"),)
    shape = _feature_shape(x, features, "batch_norm")
    if not 0 <= momentum <= 1:
        raise error(f"batch_norm wants a momentum in [0, 1], got {momentum!r}")
    reduce = tuple(a for a in range(x.ndim) if a not in features)
    with layer_call("batch_norm", name, reuse) as call:
        flag = training_flag(training, "batch_norm")
        moving_mean = Variable(initializers.zeros, shape, x.dtype, name="moving_mean", trainable=False)
        moving_var = Variable(initializers.ones, shape, x.dtype, name="moving_variance", trainable=False)
        mean, var = moving_mean, moving_var
        if flag is not False:
            mean, var = _batch_statistics(x, reduce, shape, momentum, flag, moving_mean, moving_var)
        xs = _stats_input(x)
        scale = snp.rsqrt(_along(var, x.ndim, features).astype(xs.dtype) + epsilon)
        y = ((xs - _along(mean, x.ndim, features).astype(xs.dtype)) * scale).astype(x.dtype)
        y = _scale_and_shift(y, shape, features, x.dtype, use_scale, use_bias, scale_init, bias_init)
        returns(call, y)
    return y


def _batch_statistics(x, reduce, shape, momentum, flag, moving_mean, moving_var):
    """The (mean, variance) to normalize with in training, noting the moving averages' updates."""
    xs = _stats_input(x)
    batch_mean = _mean(xs, reduce)
    batch_var = _fast_variance(xs, batch_mean, reduce)
    batch_mean = snp.reshape(batch_mean, shape).astype(x.dtype)
    batch_var = snp.reshape(batch_var, shape).astype(x.dtype)
    for moving, batch in ((moving_mean, batch_mean), (moving_var, batch_var)):
        new = momentum * moving + (1.0 - momentum) * batch
        add_update(assign(moving, new if flag is True else snp.where(flag, new, moving)), batch)
    if flag is True:
        return batch_mean, batch_var
    return snp.where(flag, batch_mean, moving_mean), snp.where(flag, batch_var, moving_var)
