"""The comparison rules of the sweep: ours against jax (same dtype) and a float64 reference.

For floating results, point by point:
- "nan": ours is nan exactly where jax's is;
- "inf": ours is +inf (-inf) exactly where jax's is;
- "ulps": where both are finite, ours lies within ``bound`` ulps of the reference rounded to the
  dtype, or no farther from the reference than jax's value (never worse than jax), or within
  ``bound`` ulps of jax's value, or within
  FLUSH_EDGE smallest normals of it (XLA flushes subnormals to zero on CPU); where the reference is
  nan but jax's value is not, jax's value is the reference;
- "zero sign": a zero where jax has one has jax's sign (values only).
A point that breaks a rule is still right where ours agrees with the reference itself (the same
nan or infinity, or within the bound, zeros of its sign): there jax is the one that is off
(e.g. jax's nan for a second derivative whose float64 value rounds to 0), and the point is
counted as "better than jax" instead.
Integer and bool results equal jax's exactly ("exact"). Complex results are compared as their
real and imaginary parts.
"""

from __future__ import annotations

import numpy as np

_INT_OF = {2: np.int16, 4: np.int32, 8: np.int64}


def ordered(x: np.ndarray) -> np.ndarray:
    """Floats mapped to integers that count ulps: adjacent floats differ by 1, -0 == +0."""
    bits = np.ascontiguousarray(x).view(_INT_OF[x.dtype.itemsize]).astype(np.int64).reshape(x.shape)
    low = np.iinfo(_INT_OF[x.dtype.itemsize]).min
    return np.where(bits < 0, low - bits, bits)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many representable floats apart a and b are (same dtype; infinities are one past max)."""
    oa, ob = ordered(a), ordered(b)
    same_sign = (oa >= 0) == (ob >= 0)
    with np.errstate(over="ignore"):
        near = np.abs(oa - ob).astype(np.float64)  # exact in int64 when the signs agree
    far = np.abs(oa).astype(np.float64) + np.abs(ob).astype(np.float64)
    return np.where(same_sign, near, far)


FLUSH_EDGE = 16  # results this many smallest normals apart count as equal: XLA flushes subnormals


def _close(a: np.ndarray, b: np.ndarray, bound: float) -> np.ndarray:
    """Finite a within ``bound`` ulps of b, or within FLUSH_EDGE smallest normals of it (XLA
    flushes subnormals to zero on CPU, so results at the edge of the normal range lose digits
    to intermediate flushes)."""
    finite = np.isfinite(a) & np.isfinite(b)
    a0, b0 = np.where(finite, a, 0), np.where(finite, b, 0)
    edge = FLUSH_EDGE * np.finfo(a.dtype).tiny
    return finite & ((ulp_distance(a0, b0) <= bound) | (np.abs(a0.astype(np.float64) - b0) <= edge))


def agree(a: np.ndarray, b: np.ndarray, bound: float) -> np.ndarray:
    """Per point: both nan, the same infinity, or close."""
    return (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b)) | _close(a, b, bound)


def float_rules(ours, theirs, ref, bound: float, values: bool) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The points where each rule fails, as boolean masks, and the points where ours is right by
    the reference though jax is not (see the module docstring)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    have_ref = ref is not None
    raw = np.broadcast_to(np.asarray(ref if have_ref else theirs, np.float64), ours.shape)
    r64 = np.where(np.isnan(raw), theirs, raw)  # for the ulps rule: jax's value where the reference has none
    with np.errstate(all="ignore"):
        r = r64.astype(ours.dtype)
        ours_err, their_err = np.abs(ours - r64), np.abs(theirs - r64)
    pattern = {
        "nan": np.isnan(ours) != np.isnan(theirs),
        "inf": ((ours == np.inf) != (theirs == np.inf)) | ((ours == -np.inf) != (theirs == -np.inf)),
    }
    finite = np.isfinite(ours) & np.isfinite(theirs)
    pattern["ulps"] = finite & ~(
        _close(ours, r, bound) | _close(ours, theirs, bound) | (ours_err <= their_err)
    )
    if values:
        zeros = (ours == 0) & (theirs == 0)
        pattern["zero sign"] = zeros & (np.signbit(ours) != np.signbit(theirs))
    with np.errstate(all="ignore"):
        exact = raw.astype(ours.dtype)
    right = agree(ours, exact, bound) if have_ref else np.zeros(ours.shape, bool)
    if have_ref and values:
        right &= ~((ours == 0) & (exact == 0) & (np.signbit(ours) != np.signbit(exact)))
    bad = {rule: mask & ~right for rule, mask in pattern.items()}
    better = right & np.any([mask for mask in pattern.values()], axis=0)
    return {rule: mask for rule, mask in bad.items() if mask.any()}, better


def leaf_rules(ours, theirs, ref, bound: float, values: bool) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Rule failures of one result leaf (shape and kind are checked first), and where ours is
    right by the reference though jax is not."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    none = np.zeros((), bool)
    if ours.shape != theirs.shape:
        return {f"shape {ours.shape} != jax's {theirs.shape}": np.ones((), bool)}, none
    if _kind(ours) != _kind(theirs) or (_kind(ours) in "fc" and ours.dtype.itemsize != theirs.dtype.itemsize):
        return {f"dtype {ours.dtype} != jax's {theirs.dtype}": np.ones((), bool)}, none
    if ref is not None and np.shape(ref) != ours.shape:
        ref = None
    if _kind(ours) == "c":
        bad, better = {}, np.zeros(ours.shape, bool)
        for part, label in [(np.real, "real "), (np.imag, "imag ")]:
            r = None if ref is None else part(np.asarray(ref))
            part_bad, part_better = float_rules(part(ours), part(theirs), r, bound, values)
            bad.update({label + rule: mask for rule, mask in part_bad.items()})
            better |= part_better
        return bad, better
    if _kind(ours) == "f":
        return float_rules(ours, theirs, ref, bound, values)
    bad = ours != theirs
    if ref is not None:
        bad &= ours != np.asarray(ref)  # jax's differs from the reference, ours is the reference's
    return ({"exact": bad} if bad.any() else {}), none


def _kind(x: np.ndarray) -> str:
    k = x.dtype.kind
    return "i" if k in "iu" else k
