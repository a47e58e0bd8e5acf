"""Patch extraction and unshared (locally connected) convolution, as jax.lax's
conv_general_dilated_patches and conv_general_dilated_local (ops layer, library calls).

Both are convolutions with a constant kernel: the patches come from a grouped convolution
whose kernel is one-hot (output feature ``c * S + s`` reads spatial offset ``s`` of input
feature ``c``, ``S`` the window's size), so each output feature is one input element, exactly;
the local convolution contracts those patches with a kernel that has one weight set per output
position (a dot_general batched over the output's spatial dims). Gradients and vectorize come
from the convolution and dot_general primitives.
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import GraphError, library, located, user_location
from .lax_convolution import _as_tensor, conv_dimension_numbers, conv_general_dilated
from .primitives import prims
from .primitives.constants import constant
from .primitives.dot_general import dot_general

__all__ = ["conv_general_dilated_patches", "conv_general_dilated_local"]


def _patch_kernel(dtype, channels: int, filter_shape, rhs_spec) -> np.ndarray:
    """The one-hot kernel: (channels * S, 1, *filter_shape) with O and I moved where rhs_spec puts them."""
    size = math.prod(filter_shape)
    eye = np.broadcast_to(np.eye(size, dtype=dtype), (channels, size, size))
    kernel = eye.reshape(channels * size, 1, *filter_shape)
    return np.ascontiguousarray(np.moveaxis(kernel, (0, 1), (rhs_spec[0], rhs_spec[1])))


def _lhs_precision(precision):
    """The precision the patches' convolution is given: lhs's part of a pair, or the one name."""
    if isinstance(precision, tuple | list):
        return (precision[0], "DEFAULT") if precision[0] is not None else None
    return None if precision is None else (precision, "DEFAULT")


@library()
def conv_general_dilated_patches(
    lhs, filter_shape, window_strides, padding, lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
    precision=None, preferred_element_type=None,
):  # fmt: skip
    """The patches a convolution with a ``filter_shape`` window would read, flattened into the
    output's feature dim, as jax.lax.conv_general_dilated_patches.

    The output's feature dim ("C" of the out spec) holds ``channels * prod(filter_shape)``
    entries ordered channel first, then the window's spatial offsets in the kernel spec's
    order; the other arguments are conv_general_dilated's (``filter_shape`` in the kernel
    spec's spatial order). Built as a grouped convolution with a one-hot kernel
    (stablehlo.convolution), so each entry is an input element (or padding's zero).

    Example: ``conv_general_dilated_patches(x, (3, 3), (1, 1), "SAME")`` of an NCHW ``x`` has
    ``9 * C`` features.
    """
    lhs = _as_tensor(lhs)
    filter_shape = tuple(int(d) for d in filter_shape)
    if len(filter_shape) != lhs.ndim - 2:
        raise GraphError(
            located(
                f"conv_general_dilated_patches wants one filter size per spatial dim of {lhs.type}, got "
                f"filter_shape {filter_shape}",
                user_location(),
            )
        )
    numbers = conv_dimension_numbers(lhs.shape, (1, 1, *filter_shape), dimension_numbers)
    channels = lhs.shape[numbers.lhs_spec[1]]
    if not isinstance(channels, int):
        message = f"conv_general_dilated_patches wants a static feature dim, got {lhs.type}"
        raise GraphError(located(message, user_location()))
    kernel = constant(_patch_kernel(lhs.dtype.np, channels, filter_shape, numbers.rhs_spec))
    return conv_general_dilated(
        lhs, kernel, window_strides, padding, lhs_dilation, rhs_dilation, numbers,
        feature_group_count=channels, precision=_lhs_precision(precision),
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


@library()
def conv_general_dilated_local(
    lhs, rhs, window_strides, padding, filter_shape, lhs_dilation=None, rhs_dilation=None,
    dimension_numbers=None, precision=None,
):  # fmt: skip
    """An unshared convolution (a locally connected layer): a separate kernel at each output
    position, as jax.lax.conv_general_dilated_local.

    ``rhs`` has the kernel spec's layout with its spatial dims the OUTPUT's spatial sizes and
    its input-feature dim ``channels * prod(filter_shape)`` (the patches' features, see
    conv_general_dilated_patches); the other arguments are conv_general_dilated's. It is the
    patches contracted with ``rhs`` over the features, batched over the output positions
    (stablehlo.convolution, then stablehlo.dot_general).
    """
    lhs, rhs = _as_tensor(lhs), _as_tensor(rhs)
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
        precision[0] if isinstance(precision, tuple | list) else precision,
    )  # fmt: skip
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    # the output's spatial dims pair with the kernel's in spec order; dot_general puts them first,
    # in the order of the patches' dims
    order = sorted(range(len(out_spec) - 2), key=lambda k: out_spec[2 + k])
    patch_batch = tuple(out_spec[2 + k] for k in order)
    kernel_batch = tuple(rhs_spec[2 + k] for k in order)
    out = dot_general(patches, rhs, ((out_spec[1],), (rhs_spec[1],)), (patch_batch, kernel_batch))
    n = out.ndim  # (*spatial, batch, out features): move batch and features to the out spec's places
    perm = [None] * n
    perm[out_spec[0]], perm[out_spec[1]] = n - 2, n - 1
    spatial = iter(range(n - 2))
    perm = [p if p is not None else next(spatial) for p in perm]
    return prims.transpose(out, perm)
