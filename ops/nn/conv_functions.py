"""Functional convolution as TF1 spells it: ``sg.nn.conv2d(input, filter, strides, padding)`` (ops layer).

No Variables: the filter is a tensor the caller made (``sg.Variable``), in
TF's layout: input NHWC (or NCHW with ``data_format``), filter HWIO, output
like the input. ``strides`` and ``dilations`` are an int, or lists of 1, 2
or 4 ints (4: one per input dim, with 1 at the batch and channel dims, as
TF asks); ``padding`` is "SAME", "VALID" or explicit (lo, hi) pairs (TF's
four pairs, zero at batch and channels, or one pair per spatial dim). An
input with more channels than the filter's in-channels convolves them in
groups (TF2's grouped convolution). One ``convolution`` primitive
(ops/lax_convolution.py's ``conv_general_dilated``), so its gradient and batch
rules are that primitive's.
"""

from __future__ import annotations

import numbers
from contextlib import nullcontext

from ...graph import Tensor, dtypes, name_scope
from ..lax_convolution import conv_general_dilated
from ..numpy_like.core import asarray, error

__all__ = ["conv2d"]

_FORMATS = {"NHWC": ("NHWC", "HWIO", "NHWC"), "NCHW": ("NCHW", "HWIO", "NCHW")}


def _spatial_ints(value, data_format: str, what: str) -> tuple[int, int]:
    """TF's strides or dilations (an int, or 1, 2 or 4 ints) as (height, width)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),) * 2
    try:
        ints = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise error(f"conv2d wants {what} as an int or a list of 1, 2 or 4 ints, got {value!r}") from None
    if len(ints) == 1:
        return ints * 2
    if len(ints) == 2:
        return ints
    if len(ints) == 4:
        h, w = data_format.index("H"), data_format.index("W")
        n, c = data_format.index("N"), data_format.index("C")
        if ints[n] != 1 or ints[c] != 1:
            raise error(f"conv2d {what} {list(ints)} must be 1 at the batch and channel dims ({data_format})")
        return ints[h], ints[w]
    raise error(f"conv2d wants {what} as an int or a list of 1, 2 or 4 ints, got {list(ints)}")


def _padding(padding, data_format: str):
    """TF's padding as conv_general_dilated takes it: "SAME", "VALID" or two (lo, hi) pairs."""
    if isinstance(padding, str):
        word = padding.upper()
        if word not in ("SAME", "VALID"):
            raise error(f"conv2d wants padding 'SAME', 'VALID' or explicit pairs, got {padding!r}")
        return word
    try:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise error(f"conv2d wants padding 'SAME', 'VALID' or (lo, hi) int pairs, got {padding!r}") from None
    if len(pairs) == 4:
        n, c = data_format.index("N"), data_format.index("C")
        if pairs[n] != (0, 0) or pairs[c] != (0, 0):
            raise error(
                f"conv2d padding {padding!r} must be (0, 0) at the batch and channel dims ({data_format})"
            )
        pairs = (pairs[data_format.index("H")], pairs[data_format.index("W")])
    if len(pairs) != 2 or any(p < 0 for pair in pairs for p in pair):
        raise error(f"conv2d wants 4 (TF) or 2 non-negative (lo, hi) padding pairs, got {padding!r}")
    return pairs


def conv2d(
    input,  # noqa: A002  (TF1's argument names)
    filter=None,  # noqa: A002
    strides=None,
    padding=None,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations=1,
    name: str | None = None,
    filters=None,
) -> Tensor:
    """2-d convolution of ``input`` with ``filter`` (TF1's tf.nn.conv2d; ``filters=`` as TF2 names it).

    ``y[b, i, j, o] = sum_{di, dj, c} x[b, s_h*i + d_h*di - pad_top, s_w*j + d_w*dj - pad_left, c]
    * filter[di, dj, c, o]`` for NHWC input and HWIO filter; "SAME" gives
    ``ceil(in / stride)`` outputs with the extra padding at the bottom/right,
    "VALID" ``ceil((in - (k - 1) * d) / stride)``. ``use_cudnn_on_gpu`` is
    accepted and ignored (XLA picks the kernels).
    ``h = sg.nn.relu(sg.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME") + b)``
    """
    if (filter is None) == (filters is None):
        raise error("conv2d wants the filter exactly once: as filter (TF1) or filters= (TF2)")
    if strides is None or padding is None:
        raise error("conv2d wants strides and padding (e.g. strides=1, padding='SAME')")
    fmt = data_format.upper() if isinstance(data_format, str) else data_format
    if fmt not in _FORMATS:
        raise error(f"conv2d wants data_format 'NHWC' or 'NCHW', got {data_format!r}")
    x, w = asarray(input), asarray(filter if filter is not None else filters)
    if x.ndim != 4 or w.ndim != 4:
        raise error(f"conv2d wants a 4-d input ({fmt}) and a 4-d filter (HWIO), got {x.type} and {w.type}")
    if not x.dtype.is_floating:
        x = x.astype(dtypes.float32)
    if w.dtype is not x.dtype:
        w = w.astype(x.dtype)
    channels, in_channels = x.shape[fmt.index("C")], w.shape[2]
    if not isinstance(channels, int) or not isinstance(in_channels, int) or channels % in_channels:
        raise error(
            f"conv2d: the input's {channels} channels ({fmt}) must be a multiple of the filter's "
            f"in-channels {in_channels} (filter {w.type}, HWIO)"
        )
    groups = channels // in_channels
    if w.shape[3] % groups:
        raise error(f"conv2d: {groups} groups must divide the filter's {w.shape[3]} out-channels")
    stride_hw = _spatial_ints(strides, fmt, "strides")
    dilation_hw = _spatial_ints(dilations, fmt, "dilations")
    pads = _padding(padding, fmt)
    with name_scope(name) if name else nullcontext():
        return conv_general_dilated(
            x, w, stride_hw, pads, rhs_dilation=dilation_hw, dimension_numbers=_FORMATS[fmt],
            feature_group_count=groups,
        )  # fmt: skip
