"""Complex-number primitives: real, imag, complex and conj (ops layer).

All four are elementwise and linear over the reals, so forward mode applies
the op to the tangents (trait LINEAR). Their vjp rules follow JAX's
convention for complex cotangents (the cotangent of a real-to-complex map is
the transpose over R^2, written as a complex number): a real part's real
cotangent ``ct`` goes back as ``ct + 0j``, an imaginary part's as ``-ct j``,
``complex(x, y)``'s complex cotangent as ``(Re ct, -Im ct)``, and conj's as
``conj(ct)``. Primitives are strict: real, imag and conj take complex
operands (sg.numpy handles real ones), complex takes two float32 or two
float64 operands of one shape.
"""

from __future__ import annotations

from ...graph import ELEMENTWISE, LINEAR, GraphError, OpDef, Tensor, TensorType, dtypes
from . import ad_util as ad
from . import batching, hlo
from .registry import bind

_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}
_NO_FOLD = "moves parts of complex numbers only; the simplify fold table covers none of them"
_TRAITS = ELEMENTWISE | LINEAR


def real_dtype(dt: dtypes.DType) -> dtypes.DType:
    """float32 for complex64, float64 for complex128."""
    return dtypes.real_part(dt)


def complex_dtype(dt: dtypes.DType) -> dtypes.DType:
    """complex64 for float32, complex128 for float64."""
    return _COMPLEX_OF[dt.name]


def _want_complex(name: str, x: TensorType) -> None:
    if not x.dtype.is_complex:
        raise GraphError(f"{name} wants a complex operand (complex64 or complex128), got {x}")


# -- real ----------------------------------------------------------------------
def _real_infer(attrs, x: TensorType) -> TensorType:
    _want_complex("real", x)
    return x.with_dtype(real_dtype(x.dtype))


def _real_vjp(ctx, attrs, xs, ys, cts):
    return [bind(complex_op, cts[0], ad.zeros_like(cts[0]))]


real_op = OpDef(
    "real", _real_infer, lambda ctx, attrs, x: hlo.sh.real(x), vjp=_real_vjp,
    batch=batching.elementwise_batch, reasons={"fold": _NO_FOLD}, traits=_TRAITS,
    doc="the real part of a complex tensor; stablehlo.real",
)  # fmt: skip


# -- imag ----------------------------------------------------------------------
def _imag_infer(attrs, x: TensorType) -> TensorType:
    _want_complex("imag", x)
    return x.with_dtype(real_dtype(x.dtype))


def _imag_vjp(ctx, attrs, xs, ys, cts):
    return [bind(complex_op, ad.zeros_like(cts[0]), ad.neg(cts[0]))]


imag_op = OpDef(
    "imag", _imag_infer, lambda ctx, attrs, x: hlo.sh.imag(x), vjp=_imag_vjp,
    batch=batching.elementwise_batch, reasons={"fold": _NO_FOLD}, traits=_TRAITS,
    doc="the imaginary part of a complex tensor; stablehlo.imag",
)  # fmt: skip


# -- complex -------------------------------------------------------------------
def _complex_infer(attrs, x: TensorType, y: TensorType) -> TensorType:
    if x.shape != y.shape or x.dtype is not y.dtype or x.dtype.name not in _COMPLEX_OF:
        raise GraphError(f"complex wants two float32 or two float64 operands of one shape, got {x} and {y}")
    return x.with_dtype(complex_dtype(x.dtype))


def _complex_vjp(ctx, attrs, xs, ys, cts):
    ct = cts[0]
    return [bind(real_op, ct), ad.neg(bind(imag_op, ct))]


complex_op = OpDef(
    "complex", _complex_infer, lambda ctx, attrs, x, y: hlo.sh.complex(x, y), vjp=_complex_vjp,
    batch=batching.elementwise_batch, reasons={"fold": _NO_FOLD}, traits=_TRAITS,
    doc="x + y j from real and imaginary parts; stablehlo.complex",
)  # fmt: skip


# -- conj ----------------------------------------------------------------------
def _conj_infer(attrs, x: TensorType) -> TensorType:
    _want_complex("conj", x)
    return x


def _conj_lower(ctx, attrs, x):
    return hlo.sh.complex(hlo.sh.real(x), hlo.sh.negate(hlo.sh.imag(x)))


conj_op = OpDef(
    "conj", _conj_infer, _conj_lower, vjp=lambda ctx, attrs, xs, ys, cts: [bind(conj_op, cts[0])],
    batch=batching.elementwise_batch, reasons={"fold": _NO_FOLD}, traits=_TRAITS,
    doc="the complex conjugate x - y j; stablehlo.complex of real and negated imag",
)  # fmt: skip


# -- builders ------------------------------------------------------------------
def real(x: Tensor) -> Tensor:
    """The real part of a complex tensor (float32 for complex64). ``real(z) == (z + conj(z)) / 2``."""
    return bind(real_op, x)


def imag(x: Tensor) -> Tensor:
    """The imaginary part of a complex tensor (float32 for complex64)."""
    return bind(imag_op, x)


def complex(x: Tensor, y: Tensor) -> Tensor:  # noqa: A001
    """``x + y * 1j`` from two float32 (-> complex64) or float64 (-> complex128) tensors of one shape."""
    return bind(complex_op, x, y)


def conj(x: Tensor) -> Tensor:
    """The complex conjugate of a complex tensor."""
    return bind(conj_op, x)


__all__ = ["real", "imag", "complex", "conj", "real_dtype", "complex_dtype"]
