"""JAX's lax-level convolution API on the convolution primitive (ops layer).

``conv_general_dilated`` and its wrappers (``conv``, ``conv_with_general_padding``,
``conv_transpose``) take JAX's arguments: dimension numbers as strings such as
``("NHWC", "HWIO", "NHWC")`` or a ``ConvDimensionNumbers`` of permutations,
padding as "SAME"/"SAME_LOWER"/"VALID" or ``(lo, hi)`` pairs. They resolve
both into the explicit attributes of the primitive, defined with its rules in
ops/primitives/convolution.py. sg.lax and sg.nn.conv build on exactly these names.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..graph import GraphError, Tensor, dims, dtypes, located, user_location
from .primitives import constants, prims
from .primitives.convolution import PRECISIONS, ConvAttrs, convolution_op, dilated
from .primitives.registry import bind, lookup

__all__ = [
    "ConvDimensionNumbers", "ConvAttrs", "convolution_op", "conv_dimension_numbers", "padtype_to_pads",
    "conv_general_dilated", "conv", "conv_with_general_padding", "conv_transpose",
]  # fmt: skip


class ConvDimensionNumbers(NamedTuple):
    """Where each role sits, as dim numbers: ``lhs_spec = (batch, feature, *spatial)``,
    ``rhs_spec = (out feature, in feature, *spatial)``, ``out_spec = (batch, feature, *spatial)``."""

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, three spec strings or a ConvDimensionNumbers) as permutations.

    None means the layout ``("NC...", "OI...", "NC...")``. In strings, N/C name the batch and
    feature dims of lhs and out, O/I the kernel's output and input features, and any other
    letters the spatial dims, which pair up by letter in the kernel's order.
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise _error(
            f"convolution wants lhs and rhs of one rank, got shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}"
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, tuple | list) or len(dimension_numbers) != 3:
        raise _error(f"convolution dimension_numbers must be three specs, got {dimension_numbers!r}")
    if all(isinstance(s, tuple | list) for s in dimension_numbers):
        return ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers))
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise _error(f"convolution dimension_numbers must be three strings, got {dimension_numbers!r}")
    return ConvDimensionNumbers(*_permutations(dimension_numbers, len(lhs_shape)))


def _permutations(specs, rank: int):
    lhs, rhs, out = specs
    roles = (("N", "C"), ("O", "I"), ("N", "C"))
    for spec, (a, b) in zip(specs, roles):
        if len(spec) != rank or len(set(spec)) != rank or spec.count(a) != 1 or spec.count(b) != 1:
            raise _error(
                f"convolution dimension_numbers {tuple(specs)}: {spec!r} must name {rank} distinct dims "
                f"with '{a}' and '{b}' once each"
            )
    spatial = [set(spec) - set(pair) for spec, pair in zip(specs, roles)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise _error(f"convolution dimension_numbers {tuple(specs)} must share their spatial letters")
    order = [c for c in rhs if c not in "OI"]
    return tuple(
        (spec.index(a), spec.index(b), *(spec.index(c) for c in order)) for spec, (a, b) in zip(specs, roles)
    )


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """(lo, hi) pads per spatial dim for "VALID" (none), "SAME" (output size ceil(in / stride),
    an odd pad's extra element at the end) or "SAME_LOWER" (the extra element at the start)."""
    kind = str(padding).upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise _error(f"padding must be 'SAME', 'SAME_LOWER', 'VALID' or (lo, hi) pairs, got {padding!r}")
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
        out = dims.floordiv(dims.add(size, stride - 1), stride)
        total = dims.sub(dims.add(dims.mul(dims.sub(out, 1), stride), window), size)
        if not isinstance(total, int):
            raise _error(
                f"{kind} padding of a spatial dim of symbolic size {size} with stride {stride} "
                "depends on its value: give explicit (lo, hi) pads"
            )
        total = max(total, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == "SAME" else (large, small))
    return pads


def _precision(precision) -> tuple[str, str] | None:
    """JAX's precision argument (None, a name, a lax.Precision, or a pair) as two names."""
    if precision is None:
        return None
    if isinstance(precision, tuple | list):
        if len(precision) != 2:
            raise _error(f"convolution precision pair must have two entries, got {precision!r}")
        return tuple(_precision_name(p) for p in precision)
    name = _precision_name(precision)
    return (name, name)


_PRECISION_ALIASES = {
    "FASTEST": "DEFAULT",
    "BFLOAT16": "DEFAULT",
    "TENSORFLOAT32": "HIGH",
    "FLOAT32": "HIGHEST",
}


def _precision_name(p) -> str:
    name = str(getattr(p, "name", p)).upper()
    name = _PRECISION_ALIASES.get(name, name)
    if name not in PRECISIONS:
        raise _error(f"convolution precision must be one of {PRECISIONS} (or jax's aliases), got {p!r}")
    return name


def _error(message: str) -> GraphError:
    """A GraphError raised by a builder, located at the user's line."""
    return GraphError(located(message, user_location()))


def _as_tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else constants.constant(np.asarray(x))


def conv_general_dilated(
    lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
    feature_group_count=1, batch_group_count=1, precision=None, preferred_element_type=None,
):  # fmt: skip
    """N-d convolution of ``lhs`` (input) with ``rhs`` (kernel), as jax.lax.conv_general_dilated.

    ``window_strides``, ``lhs_dilation`` (transposed convolution) and ``rhs_dilation`` (atrous
    convolution) give one int per spatial dim, in the kernel spec's order; ``padding`` is
    "SAME", "SAME_LOWER", "VALID" or (lo, hi) pairs. ``feature_group_count`` splits the
    features into groups convolved separately (depthwise: one group per feature);
    ``batch_group_count`` does so for the batch. ``precision`` goes to XLA as its
    precision_config; ``preferred_element_type`` is the dtype to accumulate and return in.
    Lowers to stablehlo.convolution. Example (TensorFlow's layout)::

        y = conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    """
    lhs, rhs = _as_tensor(lhs), _as_tensor(rhs)
    numbers = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    n = lhs.ndim - 2
    lhs_dilation = (1,) * n if lhs_dilation is None else tuple(int(d) for d in lhs_dilation)
    rhs_dilation = (1,) * n if rhs_dilation is None else tuple(int(d) for d in rhs_dilation)
    window_strides = tuple(int(s) for s in window_strides)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise _error(
                "convolution: string padding is not defined with lhs_dilation (a transposed convolution): "
                "give (lo, hi) pairs or use conv_transpose"
            )
        sizes = [lhs.shape[d] for d in numbers.lhs_spec[2:]]
        windows = [dilated(rhs.shape[d], r) for d, r in zip(numbers.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads(sizes, windows, window_strides, padding)
    try:
        padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise _error(f"convolution padding must be a string or (lo, hi) int pairs, got {padding!r}") from None
    preferred = None if preferred_element_type is None else dtypes.dtype(preferred_element_type)
    return bind(
        convolution_op, lhs, rhs,
        window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
        lhs_spec=tuple(numbers.lhs_spec), rhs_spec=tuple(numbers.rhs_spec), out_spec=tuple(numbers.out_spec),
        feature_group_count=int(feature_group_count), batch_group_count=int(batch_group_count),
        precision=_precision(precision), preferred_element_type=preferred,
    )  # fmt: skip


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """conv_general_dilated in the layout (N, C, spatial...) x (O, I, spatial...), as jax.lax.conv."""
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, precision=precision, preferred_element_type=preferred_element_type
    )


def conv_with_general_padding(
    lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=None, preferred_element_type=None
):
    """conv with dilations, as jax.lax.conv_with_general_padding."""
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
        precision=precision, preferred_element_type=preferred_element_type,
    )  # fmt: skip


_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                      5: ("NHWDC", "HWDIO", "NHWDC")}  # fmt: skip


def transpose_pads(window: int, stride: int, padding) -> tuple[int, int]:
    """(lo, hi) pads of the dilated input that make a transposed convolution the gradient of a
    forward one padded with ``padding`` ("SAME", "VALID" or a pair) of the same window and stride."""
    if padding == "SAME":
        total = window + stride - 2
        lo = window - 1 if stride > window - 1 else -(-total // 2)
    elif padding == "VALID":
        total = window + stride - 2 + max(window - stride, 0)
        lo = window - 1
    else:
        lo, hi = (window - p - 1 for p in padding)
        total = lo + hi
    return lo, total - lo


def conv_transpose(
    lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None, transpose_kernel=False,
    precision=None, preferred_element_type=None,
):  # fmt: skip
    """The "transpose" of a strided convolution (a fractionally strided one), as jax.lax.conv_transpose.

    ``padding`` "SAME" or "VALID" is the padding of the forward convolution this one transposes
    (the output is ``in * stride`` for "SAME"); (lo, hi) pairs pad the dilated input directly.
    The default layout is TensorFlow's (NHWC, HWIO, NHWC). ``transpose_kernel=True`` flips the
    kernel's spatial dims and swaps its I and O, giving the gradient of conv for the same kernel.
    """
    lhs, rhs = _as_tensor(lhs), _as_tensor(rhs)
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise _error(f"conv_transpose wants lhs and rhs of one rank >= 2, got {lhs.type} and {rhs.type}")
    if dimension_numbers is None:
        if lhs.ndim not in _TRANSPOSE_LAYOUTS:
            raise _error(f"conv_transpose has no default layout for rank {lhs.ndim}: give dimension_numbers")
        dimension_numbers = _TRANSPOSE_LAYOUTS[lhs.ndim]
    numbers = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    n = lhs.ndim - 2
    rhs_dilation = (1,) * n if rhs_dilation is None else tuple(int(d) for d in rhs_dilation)
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise _error(f"conv_transpose padding must be 'SAME', 'VALID' or (lo, hi) pairs, got {padding!r}")
        windows = [dilated(rhs.shape[d], r) for d, r in zip(numbers.rhs_spec[2:], rhs_dilation)]
        padding = [transpose_pads(k, int(s), padding) for k, s in zip(windows, strides)]
    if transpose_kernel:
        rhs = bind(lookup("rev"), rhs, dimensions=tuple(numbers.rhs_spec[2:]))
        perm = list(range(rhs.ndim))
        perm[numbers.rhs_spec[0]], perm[numbers.rhs_spec[1]] = numbers.rhs_spec[1], numbers.rhs_spec[0]
        rhs = prims.transpose(rhs, perm)
    return conv_general_dilated(
        lhs, rhs, (1,) * n, padding, lhs_dilation=strides, rhs_dilation=rhs_dilation,
        dimension_numbers=numbers, precision=precision, preferred_element_type=preferred_element_type,
    )  # fmt: skip
