"""Convolution layers, channels last, as flax.linen.Conv and ConvTranspose (sg.nn, ops layer).

``conv`` and ``conv_transpose`` take inputs (batch..., spatial..., features)
(no batch dim, one, or several: flattened into one as flax does), with one spatial dim per entry of ``kernel_size`` (1-D,
2-D or 3-D and beyond), and make ``<name>/kernel`` of shape
kernel_size + (in_features // feature_group_count, features) and
``<name>/bias`` (features,) under their own name scope (their library call).
They are ops/lax_convolution.py's ``conv_general_dilated`` / ``conv_transpose``
in the layout (N, spatial..., C) x (spatial..., I, O) with flax's padding
words: "SAME", "SAME_LOWER", "VALID", "CIRCULAR" (wrap-around), "CAUSAL"
(1-D, all padding on the left), an int, ints or (lo, hi) pairs.
"""

from __future__ import annotations

import math
import numbers

from ...graph import Tensor, dtypes
from ...graph.library import returns
from .. import numpy_like as snp
from ..lax_convolution import ConvDimensionNumbers, conv_general_dilated
from ..lax_convolution import conv_transpose as lax_conv_transpose
from ..numpy_like.core import asarray, error
from ..state import Variable
from . import initializers
from .reuse import layer_call

__all__ = ["conv", "conv_transpose"]


def _ints(value, n: int, what: str, who: str) -> tuple:
    if value is None:
        return (1,) * n
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise error(f"{who} wants {what} of {n} ints (one per kernel dim), got {value}")
    return value


def _layout(n: int) -> ConvDimensionNumbers:
    """(N, spatial..., C) inputs and outputs, (spatial..., I, O) kernels."""
    spatial = tuple(range(1, n + 1))
    return ConvDimensionNumbers((0, n + 1, *spatial), (n + 1, n, *range(n)), (0, n + 1, *spatial))


def _batched(x, n: int, who: str) -> tuple[Tensor, tuple]:
    """``x`` with exactly one batch dim, and the batch dims it had (none, one or several: flattened)."""
    if x.ndim < n + 1:
        raise error(
            f"{who} with a {n}-d kernel wants inputs (batch..., {n} spatial dims, features), got {x.type}"
        )
    lead = tuple(x.shape[: x.ndim - n - 1])
    if len(lead) == 1:
        return x, lead
    return snp.reshape(x, (math.prod(lead), *x.shape[len(lead) :])), lead


def _unbatched(y: Tensor, lead: tuple) -> Tensor:
    """``y`` with the batch dims its input had."""
    return y if len(lead) == 1 else snp.reshape(y, (*lead, *y.shape[1:]))


def _pairs(padding, n: int, who: str):
    """flax's padding spellings as a string or (lo, hi) pairs."""
    if isinstance(padding, str):
        return padding.upper()
    if isinstance(padding, numbers.Integral):
        return ((int(padding),) * 2,) * n
    padding = tuple(padding)
    if len(padding) != n:
        raise error(f"{who} wants one padding entry per spatial dim ({n}), got {padding!r}")
    return tuple(
        (int(p), int(p)) if isinstance(p, numbers.Integral) else tuple(int(q) for q in p) for p in padding
    )


def _wrap_or_causal(x, padding: str, kernel_size, kernel_dilation, who: str) -> Tensor:
    """``x`` padded for "CIRCULAR" (wrapped around, SAME-sized) or "CAUSAL" (zeros on the left)."""
    n = len(kernel_size)
    windows = [(k - 1) * d + 1 for k, d in zip(kernel_size, kernel_dilation)]
    if padding == "CAUSAL":
        if n != 1:
            raise error(f"{who}: CAUSAL padding is for 1-d convolutions, got a {n}-d kernel")
        return snp.pad(x, [(0, 0), (windows[0] - 1, 0), (0, 0)])
    return snp.pad(x, [(0, 0), *[((w - 1) // 2, w // 2) for w in windows], (0, 0)], mode="wrap")


def _setup(x, features, kernel_size, who):
    x = asarray(x)
    if not x.dtype.is_floating:
        x = x.astype(dtypes.float32)
    if isinstance(kernel_size, numbers.Integral):
        raise error(f"{who} wants kernel_size as a tuple (e.g. (3, 3) for 2-d), got {kernel_size!r}")
    kernel_size = tuple(int(k) for k in kernel_size)
    if not kernel_size or any(k < 1 for k in kernel_size):
        raise error(f"{who} wants a kernel_size of positive ints, got {kernel_size}")
    if not isinstance(features, numbers.Integral) or isinstance(features, bool) or features < 1:
        raise error(f"{who} wants a positive int number of features, got {features!r}")
    x, lead = _batched(x, len(kernel_size), who)
    in_features = x.shape[-1]
    if not isinstance(in_features, int):
        raise error(f"{who} wants a static feature dim, got {x.type}")
    return x, lead, kernel_size, in_features


def conv(
    x,
    features: int,
    kernel_size,
    strides=1,
    padding="SAME",
    input_dilation=1,
    kernel_dilation=1,
    feature_group_count: int = 1,
    use_bias: bool = True,
    kernel_init=None,
    bias_init=initializers.zeros,
    name: str = "conv",
    reuse=None,
) -> Tensor:
    """A convolution layer (flax.linen.Conv): ``conv_general_dilated(x, kernel) + bias``, channels last.

    ``kernel_size`` is a tuple (its length picks 1-d, 2-d or 3-d); ``strides``,
    ``input_dilation`` and ``kernel_dilation`` an int or one per spatial dim;
    ``feature_group_count`` splits the input features into groups (depthwise:
    as many groups as input features). With ``input_dilation`` the padding must
    be explicit (ints or pairs), as in jax.lax. ``kernel_init`` defaults to lecun_normal().
    ``reuse=True`` shares the variables of the layer ``name`` made before (as dense).
    ``h = sg.nn.relu(sg.nn.conv(x, 32, kernel_size=(3, 3), name="conv1"))``
    """
    x, lead, kernel_size, in_features = _setup(x, features, kernel_size, "conv")
    n = len(kernel_size)
    strides = _ints(strides, n, "strides", "conv")
    input_dilation = _ints(input_dilation, n, "input_dilation", "conv")
    kernel_dilation = _ints(kernel_dilation, n, "kernel_dilation", "conv")
    groups = int(feature_group_count)
    if groups < 1 or in_features % groups or features % groups:
        raise error(
            f"conv: feature_group_count {feature_group_count} must divide the input features ({in_features}) "
            f"and the output features ({features})"
        )
    padding = _pairs(padding, n, "conv")
    kernel_init = initializers.lecun_normal() if kernel_init is None else kernel_init
    with layer_call("conv", name, reuse) as call:
        if padding in ("CIRCULAR", "CAUSAL"):
            x = _wrap_or_causal(x, padding, kernel_size, kernel_dilation, "conv")
            padding = "VALID"
        kernel = Variable(
            kernel_init, (*kernel_size, in_features // groups, int(features)), x.dtype, name="kernel"
        )
        y = conv_general_dilated(
            x, kernel, strides, padding, lhs_dilation=input_dilation, rhs_dilation=kernel_dilation,
            dimension_numbers=_layout(n), feature_group_count=groups,
        )  # fmt: skip
        if use_bias:
            y = y + Variable(bias_init, (int(features),), x.dtype, name="bias")
        y = _unbatched(y, lead)
        returns(call, y)
    return y


def conv_transpose(
    x,
    features: int,
    kernel_size,
    strides=None,
    padding="SAME",
    kernel_dilation=None,
    use_bias: bool = True,
    transpose_kernel: bool = False,
    kernel_init=None,
    bias_init=initializers.zeros,
    name: str = "conv_transpose",
    reuse=None,
) -> Tensor:
    """A transposed convolution layer (flax.linen.ConvTranspose), channels last.

    The kernel is kernel_size + (in_features, features) (swapped when
    ``transpose_kernel``, which then gives exactly the gradient of ``conv``
    with that kernel). "SAME" padding makes the output ``in * stride``; "VALID"
    ``(in - 1) * stride + window``; "CIRCULAR" wraps the output around as
    flax does. ``reuse=True`` shares the variables of the layer ``name`` made before (as dense).
    ``h = sg.nn.conv_transpose(z, 16, (4, 4), strides=(2, 2), name="up1")``
    """
    x, lead, kernel_size, in_features = _setup(x, features, kernel_size, "conv_transpose")
    n = len(kernel_size)
    strides = _ints(strides, n, "strides", "conv_transpose")
    kernel_dilation = _ints(kernel_dilation, n, "kernel_dilation", "conv_transpose")
    padding = _pairs(padding, n, "conv_transpose")
    if padding == "CAUSAL" or (isinstance(padding, str) and padding not in ("SAME", "VALID", "CIRCULAR")):
        raise error(f"conv_transpose wants padding SAME, VALID, CIRCULAR, ints or pairs, got {padding!r}")
    kernel_init = initializers.lecun_normal() if kernel_init is None else kernel_init
    shape = (
        (*kernel_size, int(features), in_features)
        if transpose_kernel
        else (*kernel_size, in_features, int(features))
    )
    with layer_call("conv_transpose", name, reuse) as call:
        kernel = Variable(kernel_init, shape, x.dtype, name="kernel")
        y = lax_conv_transpose(
            x, kernel, strides, "VALID" if padding == "CIRCULAR" else padding, rhs_dilation=kernel_dilation,
            dimension_numbers=_layout(n), transpose_kernel=transpose_kernel,
        )  # fmt: skip
        if padding == "CIRCULAR":
            y = _fold_circular(y, x.shape[1:-1], strides, transpose_kernel)
        if use_bias:
            y = y + Variable(bias_init, (int(features),), x.dtype, name="bias")
        y = _unbatched(y, lead)
        returns(call, y)
    return y


def _fold_circular(y: Tensor, in_sizes, strides, transpose_kernel: bool) -> Tensor:
    """flax's circular transposed convolution: the VALID result wrapped onto ``in * stride`` per dim.

    As flax does: pad the full result to an odd number of periods (``in * stride``), the odd
    element on the left (on the right with ``transpose_kernel``), and sum the periods.
    """
    for i, (size, stride) in enumerate(zip(in_sizes, strides)):
        if not isinstance(size, int):
            raise error(f"conv_transpose: CIRCULAR padding wants static spatial dims, got {y.type}")
        axis = i + 1
        period, full = size * stride, y.shape[axis]
        total = -(full - period) % (2 * period)
        lo = total // 2 if transpose_kernel else (total + 1) // 2
        pads = [(0, 0)] * y.ndim
        pads[axis] = (lo, total - lo)
        padded = snp.pad(y, pads)
        count = padded.shape[axis] // period
        y = snp.sum(
            snp.reshape(padded, (*padded.shape[:axis], count, period, *padded.shape[axis + 1 :])), axis=axis
        )
    return y
