"""The convolution primitive: one OpDef with its infer, lower, vjp and batch rules (ops layer).

Dimension numbers are integer permutations, as in jax's ConvDimensionNumbers:
``lhs_spec = (batch, feature, *spatial)`` of the input, ``rhs_spec = (out
feature, in feature, *spatial)`` of the kernel, ``out_spec = (batch, feature,
*spatial)`` of the output; spatial dims pair up in spec order. Padding is
explicit ``(lo, hi)`` pairs of ints (the builders in ops/convolution.py
resolve "SAME"/"VALID"). Forward mode comes from the BILINEAR trait. The
cotangents are convolutions again (the grouping algebra follows
jax/_src/lax/convolution.py):

    forward       [m, g*j] [j, g*k] -> [m, g*k]    (feature groups g)
    d lhs         [m, g*k] [k, g*j] -> [m, g*j]    feature groups; the kernel's group moves to its I dim
    d rhs         [g*j, m] [m, g*k] -> [j, g*k]    batch groups
    forward       [g*m, j] [j, g*k] -> [m, g*k]    (batch groups g)
    d lhs         feature groups, then the output's group moves from feature into batch
    d rhs         feature groups
"""

from __future__ import annotations

import numpy as np

from ...graph import BILINEAR, Attrs, DTypeAttr, GraphError, OpDef, TensorType, dims, dtypes
from . import ad_util, hlo, prims
from .registry import bind_node, lookup

PRECISIONS = ("DEFAULT", "HIGH", "HIGHEST")


class ConvAttrs(Attrs):
    window_strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]
    feature_group_count: int = 1
    batch_group_count: int = 1
    # (lhs, rhs) precision names among PRECISIONS, sent to XLA as precision_config (None: the
    # platform's default; on CPU every choice computes in full precision)
    precision: tuple[str, str] | None = None
    preferred_element_type: DTypeAttr | None = None


# -- infer ---------------------------------------------------------------------
def _check_attrs(attrs: ConvAttrs, lhs: TensorType, rhs: TensorType) -> None:
    rank, n = lhs.ndim, lhs.ndim - 2
    where = f"lhs {lhs} and rhs {rhs}"
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise GraphError(f"convolution wants lhs and rhs of one rank >= 2, got {where}")
    for name in ("lhs_spec", "rhs_spec", "out_spec"):
        if sorted(getattr(attrs, name)) != list(range(rank)):
            raise GraphError(
                f"convolution {name} must be a permutation of range({rank}), got {getattr(attrs, name)} "
                f"for {where}"
            )
    for name in ("window_strides", "padding", "lhs_dilation", "rhs_dilation"):
        if len(getattr(attrs, name)) != n:
            raise GraphError(
                f"convolution wants {n} {name} (one per spatial dim), got {getattr(attrs, name)} for {where}"
            )
    for name in ("window_strides", "lhs_dilation", "rhs_dilation"):
        if any(v < 1 for v in getattr(attrs, name)):
            raise GraphError(f"convolution wants positive {name}, got {getattr(attrs, name)}")
    if attrs.feature_group_count < 1 or attrs.batch_group_count < 1:
        raise GraphError(
            f"convolution wants positive group counts, got feature_group_count={attrs.feature_group_count}"
            f" and batch_group_count={attrs.batch_group_count}"
        )
    if attrs.feature_group_count > 1 and attrs.batch_group_count > 1:
        raise GraphError(
            "convolution allows at most one of feature_group_count and batch_group_count above 1, got "
            f"{attrs.feature_group_count} and {attrs.batch_group_count}"
        )
    if attrs.precision is not None and any(p not in PRECISIONS for p in attrs.precision):
        raise GraphError(f"convolution precision must be among {PRECISIONS}, got {attrs.precision}")


def _check_dtypes(attrs: ConvAttrs, lhs: TensorType, rhs: TensorType):
    if lhs.dtype is not rhs.dtype:
        raise GraphError(f"convolution wants lhs and rhs of one dtype, got lhs {lhs} and rhs {rhs}")
    if lhs.dtype.kind == "b":
        raise GraphError(f"convolution wants numeric operands, got lhs {lhs} and rhs {rhs}")
    want, have = attrs.preferred_element_type, lhs.dtype
    if want is None:
        return have
    ok = (have.kind in "iu" and want.kind == "f") or (
        have.kind == want.kind or (have.kind == "u" and want.kind == "i")
    )
    if not ok or want.bits < have.bits:
        raise GraphError(
            f"convolution cannot accumulate {have.name} operands in preferred_element_type {want.name}: "
            "it must be of the same kind (or floating for integers) and not narrower"
        )
    return want


def _divides(k: int, d) -> bool:
    """False when ``d`` is decidably not a multiple of ``k`` (a symbolic d is taken to be one)."""
    rest = dims.mod(d, k)
    return not isinstance(rest, int) or rest == 0


def _quotient(d, k: int):
    q = dims.div(d, k)
    return q if q is not None else dims.floordiv(d, k)


def dilated(size, dilation: int):
    """The size of ``size`` elements with ``dilation - 1`` holes between neighbours."""
    return 0 if size == 0 else dims.add(dims.mul(dims.sub(size, 1), dilation), 1)


def _out_size(size, window, stride: int, lo: int, hi: int, lhs_dilation: int, rhs_dilation: int):
    span = dims.sub(dims.add(dilated(size, lhs_dilation), lo + hi), dilated(window, rhs_dilation))
    if isinstance(span, int):
        return span // stride + 1 if span >= 0 else 0
    return dims.add(dims.floordiv(span, stride), 1)


def _convolution_infer(attrs: ConvAttrs, lhs: TensorType, rhs: TensorType) -> TensorType:
    _check_attrs(attrs, lhs, rhs)
    dtype = _check_dtypes(attrs, lhs, rhs)
    ls, rs, os_ = attrs.lhs_spec, attrs.rhs_spec, attrs.out_spec
    fgc, bgc = attrs.feature_group_count, attrs.batch_group_count
    batch, features = lhs.shape[ls[0]], lhs.shape[ls[1]]
    out_features, in_features = rhs.shape[rs[0]], rhs.shape[rs[1]]
    where = f"lhs {lhs} (dims {ls}) and rhs {rhs} (dims {rs})"
    if not _divides(fgc, features):
        raise GraphError(f"convolution feature_group_count={fgc} must divide the lhs features, got {where}")
    if _quotient(features, fgc) != in_features:
        raise GraphError(
            f"convolution wants lhs features / feature_group_count ({features} / {fgc}) == rhs input "
            f"features ({in_features}), got {where}"
        )
    for k, name in ((fgc, "feature_group_count"), (bgc, "batch_group_count")):
        if not _divides(k, out_features):
            raise GraphError(f"convolution {name}={k} must divide the rhs output features, got {where}")
    if not _divides(bgc, batch):
        raise GraphError(f"convolution batch_group_count={bgc} must divide the lhs batch, got {where}")
    out = [None] * lhs.ndim
    out[os_[0]], out[os_[1]] = _quotient(batch, bgc), out_features
    for i, (stride, (lo, hi)) in enumerate(zip(attrs.window_strides, attrs.padding)):
        size, window = lhs.shape[ls[2 + i]], rhs.shape[rs[2 + i]]
        out[os_[2 + i]] = _out_size(
            size, window, stride, lo, hi, attrs.lhs_dilation[i], attrs.rhs_dilation[i]
        )
    return TensorType(tuple(out), dtype)


# -- lower ---------------------------------------------------------------------
def _convolution_lower(ctx, attrs: ConvAttrs, lhs, rhs):
    out_ty = ctx.out_types[0]
    if out_ty.dtype.is_complex and ctx.platform != "cpu":  # XLA's GPU convolutions are real only
        return _complex_from_real(out_ty, attrs, lhs, rhs)
    return _emit(out_ty, attrs, lhs, rhs)


def _complex_from_real(out_ty: TensorType, attrs: ConvAttrs, lhs, rhs):
    """A complex convolution as three real ones: with lhs = a + ib and rhs = c + id,
    k1 = (a + b) * c, k2 = a * (d - c), k3 = b * (c + d); the result is k1 - k3 + i (k1 + k2)."""
    sh = hlo.sh
    a, b, c, d = sh.real(lhs), sh.imag(lhs), sh.real(rhs), sh.imag(rhs)
    real_ty = out_ty.with_dtype(dtypes.real_part(out_ty.dtype))
    k1 = _emit(real_ty, attrs, sh.add(a, b), c)
    k2 = _emit(real_ty, attrs, a, sh.subtract(d, c))
    k3 = _emit(real_ty, attrs, b, sh.add(c, d))
    return sh.complex(sh.subtract(k1, k3), sh.add(k1, k2))


def _emit(out_ty: TensorType, attrs: ConvAttrs, lhs, rhs):
    ls, rs, os_ = attrs.lhs_spec, attrs.rhs_spec, attrs.out_spec
    numbers = hlo.sh.ConvDimensionNumbers.get(
        input_batch_dimension=ls[0], input_feature_dimension=ls[1], input_spatial_dimensions=list(ls[2:]),
        kernel_output_feature_dimension=rs[0], kernel_input_feature_dimension=rs[1],
        kernel_spatial_dimensions=list(rs[2:]),
        output_batch_dimension=os_[0], output_feature_dimension=os_[1],
        output_spatial_dimensions=list(os_[2:]),
    )  # fmt: skip
    precision = None
    if attrs.precision is not None:
        precision = hlo.ir.ArrayAttr.get([hlo.sh.PrecisionAttr.get(p) for p in attrs.precision])
    return hlo.sh.convolution(
        hlo.tensor_type(out_ty), lhs, rhs, numbers,
        attrs.feature_group_count, attrs.batch_group_count,
        window_strides=list(attrs.window_strides),
        padding=np.asarray(attrs.padding, np.int64).reshape(-1, 2),
        lhs_dilation=list(attrs.lhs_dilation), rhs_dilation=list(attrs.rhs_dilation),
        precision_config=precision,
    )  # fmt: skip


# -- axis helpers (shared with the batch rule) ---------------------------------
def merge_axis(x, src: int, dst: int):
    """Move axis ``src`` of x next to (major of) axis ``dst`` (numbered without src) and merge them."""
    perm = [d for d in range(x.ndim) if d != src]
    perm.insert(dst, src)
    moved = prims.transpose(x, perm)
    shape = [x.shape[d] for d in range(x.ndim) if d != src]
    shape[dst] = dims.mul(shape[dst], x.shape[src])
    return prims.reshape(moved, tuple(shape))


def split_axis(x, src: int, major):
    """Split axis ``src`` of x into (``major``, the rest)."""
    rest = dims.div(x.shape[src], major)
    if rest is None:
        raise GraphError(f"convolution cannot split a dim of size {x.shape[src]} into {major} parts")
    return prims.reshape(x, (*x.shape[:src], major, rest, *x.shape[src + 1 :]))


def _apply(lhs, rhs, attrs: ConvAttrs, **changes):
    return bind_node(convolution_op, [lhs, rhs], attrs.model_copy(update=changes)).outputs[0]


# -- vjp -----------------------------------------------------------------------
def _static_spatial(ty, spec) -> list[int]:
    sizes = [ty.shape[d] for d in spec[2:]]
    if any(not isinstance(s, int) for s in sizes):
        raise GraphError(f"the gradient of convolution needs static spatial sizes, got {ty.type}")
    return sizes


def _swap01(spec):
    return (spec[1], spec[0], *spec[2:])


def _lhs_cotangent(attrs: ConvAttrs, ct, lhs, rhs):
    ls, rs, os_ = attrs.lhs_spec, attrs.rhs_spec, attrs.out_spec
    groups = max(attrs.feature_group_count, attrs.batch_group_count)
    kernel = rhs
    if groups > 1:  # the kernel's output-feature groups become groups of its input features
        kernel = merge_axis(split_axis(kernel, rs[0], groups), rs[0], rs[1])
    sizes, windows, outs = (_static_spatial(t, s) for t, s in ((lhs, ls), (rhs, rs), (ct, os_)))
    padding = []
    for i, (lo, _) in enumerate(attrs.padding):
        window = dilated(windows[i], attrs.rhs_dilation[i])
        before = window - lo - 1
        after = (
            dilated(sizes[i], attrs.lhs_dilation[i]) + window - 1 - dilated(outs[i], attrs.window_strides[i])
        )
        padding.append((before, after - before))
    kernel = prims.convert(bind_node(lookup("rev"), [kernel], dimensions=tuple(rs[2:])).outputs[0], ct.dtype)
    out = _apply(
        ct, kernel, attrs,
        window_strides=attrs.lhs_dilation, padding=tuple(padding), lhs_dilation=attrs.window_strides,
        lhs_spec=os_, rhs_spec=_swap01(rs), out_spec=ls,
        feature_group_count=groups, batch_group_count=1, preferred_element_type=None,
    )  # fmt: skip
    if attrs.batch_group_count > 1:  # the groups ran along features: they belong to the batch
        out = merge_axis(split_axis(out, ls[1], attrs.batch_group_count), ls[1], ls[0])
    return prims.convert(out, lhs.dtype)


def _rhs_cotangent(attrs: ConvAttrs, ct, lhs, rhs):
    ls, rs, os_ = attrs.lhs_spec, attrs.rhs_spec, attrs.out_spec
    sizes, windows, outs = (_static_spatial(t, s) for t, s in ((lhs, ls), (rhs, rs), (ct, os_)))
    if 0 in outs:  # no output element: the kernel's cotangent is zero (and the conv would be degenerate)
        return ad_util.zeros_like(rhs)
    padding = []
    for i, (lo, _) in enumerate(attrs.padding):
        from_lhs = dilated(outs[i], attrs.window_strides[i]) - dilated(sizes[i], attrs.lhs_dilation[i])
        padding.append((lo, from_lhs + dilated(windows[i], attrs.rhs_dilation[i]) - lo - 1))
    out = _apply(
        prims.convert(lhs, ct.dtype), ct, attrs,
        window_strides=attrs.rhs_dilation, padding=tuple(padding), rhs_dilation=attrs.window_strides,
        lhs_spec=_swap01(ls), rhs_spec=_swap01(os_), out_spec=_swap01(rs),
        feature_group_count=attrs.batch_group_count, batch_group_count=attrs.feature_group_count,
        preferred_element_type=None,
    )  # fmt: skip
    return prims.convert(out, rhs.dtype)


def _convolution_vjp(ctx, attrs: ConvAttrs, xs, ys, cts):
    lhs, rhs = xs
    return [_lhs_cotangent(attrs, cts[0], lhs, rhs), _rhs_cotangent(attrs, cts[0], lhs, rhs)]


# -- batch ---------------------------------------------------------------------
def _static_size(size) -> int:
    if not isinstance(size, int):
        raise GraphError(f"vectorizing convolution over both operands needs a static batch size, got {size}")
    return size


def _convolution_batch(ctx, attrs: ConvAttrs, xs, bdims):
    # The vmapped axis folds into a dim the convolution already has: the lhs batch (lhs batched),
    # the kernel's output features (rhs batched), or both with one feature group per lane.
    (lhs, rhs), (bl, br) = xs, bdims
    ls, rs, os_ = attrs.lhs_spec, attrs.rhs_spec, attrs.out_spec
    fgc, bgc = attrs.feature_group_count, attrs.batch_group_count
    size = ctx.size
    if bl is not None and br is not None:
        lanes = _static_size(size)
        if bgc > 1:
            lhs, changes = merge_axis(lhs, bl, ls[0]), {"batch_group_count": bgc * lanes}
        else:
            lhs, changes = merge_axis(lhs, bl, ls[1]), {"feature_group_count": fgc * lanes}
        out = _apply(lhs, merge_axis(rhs, br, rs[0]), attrs, **changes)
        return [split_axis(out, os_[1], size)], [os_[1]]
    if bl is not None:
        if bgc == 1:
            out = _apply(merge_axis(lhs, bl, ls[0]), rhs, attrs)
        else:  # the lanes go inside each batch group
            at = ls[0] + (bl <= ls[0])
            lhs = split_axis(lhs, at, bgc)
            lhs = merge_axis(lhs, bl + (ls[0] < bl), ls[0] + 1)
            out = _apply(merge_axis(lhs, ls[0], ls[0]), rhs, attrs)
        return [split_axis(out, os_[0], size)], [os_[0]]
    if fgc == 1 and bgc == 1:
        out = _apply(lhs, merge_axis(rhs, br, rs[0]), attrs)
        return [split_axis(out, os_[1], size)], [os_[1]]
    groups = max(fgc, bgc)  # the lanes go inside each output-feature group, and come out in front
    at = rs[0] + (br <= rs[0])
    rhs = merge_axis(split_axis(rhs, at, groups), br + (rs[0] < br), rs[0] + 1)
    out = _apply(lhs, merge_axis(rhs, rs[0], rs[0]), attrs)
    out = split_axis(split_axis(out, os_[1], groups), os_[1] + 1, size)
    return [merge_axis(out, os_[1], os_[1] + 1)], [os_[1]]


convolution_op = OpDef(
    "convolution",
    _convolution_infer,
    _convolution_lower,
    attrs=ConvAttrs,
    vjp=_convolution_vjp,
    batch=_convolution_batch,
    traits=BILINEAR,
    doc="N-d convolution with strides, padding, dilations and feature/batch groups; stablehlo.convolution.",
)
