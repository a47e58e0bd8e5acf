"""sg.scipy.spatial.transform: Rotation and Slerp, as jax.scipy.spatial.transform (ops layer).

A Rotation holds one quaternion (4,) or a stack (N, 4) in scipy's
scalar-last order; a Slerp holds its key times and the rotation vectors
between neighbouring keys. Each constructor, conversion and operation is a
library call (one line in listings). Both are NamedTuples, so they pass through
sg.vectorize, sg.grad and Session.run fetches as nests of Tensors. The
quaternion arithmetic is in quaternions.py.
"""

from __future__ import annotations

import re
import typing

import numpy as np

from ....graph import Tensor, library
from ... import numpy_like as snp
from ...numpy_like.core import error
from ...random_keys import bits
from ..inexact import as_inexact
from . import quaternions as quat_ops


def _float(x):
    (t,) = as_inexact(x)
    return t


def _sequence(seq: str) -> tuple[list[int], bool]:
    """The basis indices of an Euler sequence and whether it is extrinsic (lower case)."""
    if not isinstance(seq, str) or not 1 <= len(seq) <= 3:
        raise error(f"Euler sequences are 1 to 3 axes, got {seq!r}")
    if not (re.fullmatch(r"[xyz]{1,3}", seq) or re.fullmatch(r"[XYZ]{1,3}", seq)):
        raise error(f"Euler sequences are all of 'xyz' (extrinsic) or all of 'XYZ' (intrinsic), got {seq!r}")
    if any(a == b for a, b in zip(seq, seq[1:])):
        raise error(f"Euler sequences may not repeat an axis twice in a row, got {seq!r}")
    return ["xyz".index(c) for c in seq.lower()], seq.islower()


class _RotationFields(typing.NamedTuple):
    quat: Tensor


class Rotation(_RotationFields):
    """A rotation in 3 dimensions, or a stack of them, held as unit quaternions (x, y, z, w)."""

    __slots__ = ()

    # -- construction ---------------------------------------------------------
    @classmethod
    @library(fn="Rotation.from_quat", name="from_quat")
    def from_quat(cls, quat, scalar_first: bool = False):
        """From quaternions (4,) or (N, 4), normalized; scalar-last unless ``scalar_first``."""
        q = _float(quat)
        if q.ndim not in (1, 2) or q.shape[-1] != 4:
            raise error(f"Rotation.from_quat wants shape (4,) or (N, 4), got {q.type}")
        if scalar_first:
            q = snp.roll(q, -1, axis=-1)
        return cls(quat_ops.normalized(q))

    @classmethod
    @library(fn="Rotation.from_matrix", name="from_matrix")
    def from_matrix(cls, matrix):
        """From rotation matrices (3, 3) or (N, 3, 3)."""
        m = _float(matrix)
        if m.ndim not in (2, 3) or tuple(m.shape[-2:]) != (3, 3):
            raise error(f"Rotation.from_matrix wants shape (3, 3) or (N, 3, 3), got {m.type}")
        return cls(quat_ops.from_matrix(m))

    @classmethod
    @library(fn="Rotation.from_rotvec", name="from_rotvec")
    def from_rotvec(cls, rotvec, degrees: bool = False):
        """From rotation vectors (3,) or (N, 3): axis times angle (radians unless ``degrees``)."""
        v = _float(rotvec)
        if v.ndim not in (1, 2) or v.shape[-1] != 3:
            raise error(f"Rotation.from_rotvec wants shape (3,) or (N, 3), got {v.type}")
        return cls(quat_ops.from_rotvec(snp.deg2rad(v) if degrees else v))

    @classmethod
    @library(fn="Rotation.from_mrp", name="from_mrp")
    def from_mrp(cls, mrp):
        """From modified Rodrigues parameters (3,) or (N, 3): axis times tan(angle / 4)."""
        p = _float(mrp)
        if p.ndim not in (1, 2) or p.shape[-1] != 3:
            raise error(f"Rotation.from_mrp wants shape (3,) or (N, 3), got {p.type}")
        return cls(quat_ops.from_mrp(p))

    @classmethod
    @library(fn="Rotation.from_euler", name="from_euler")
    def from_euler(cls, seq: str, angles, degrees: bool = False):
        """From Euler angles about the axes of ``seq`` ('xyz' extrinsic, 'XYZ' intrinsic)."""
        axes, extrinsic = _sequence(seq)
        a = _float(angles)
        if degrees:
            a = snp.deg2rad(a)
        n = len(axes)
        single = a.ndim == (0 if n == 1 else 1)
        if n == 1 and a.ndim <= 1:  # one axis: a scalar, or one angle per rotation
            a = a[..., None]
        elif a.ndim == 1 and a.shape[0] != n or a.ndim not in (1, 2) or a.shape[-1] != n:
            raise error(f"Rotation.from_euler wants angles ({n},) or (N, {n}) for {seq!r}, got {a.type}")
        out = quat_ops.elementary(axes[0], a[..., 0])
        for idx in range(1, n):
            step = quat_ops.elementary(axes[idx], a[..., idx])
            out = quat_ops.product(step, out) if extrinsic else quat_ops.product(out, step)
        return cls(out[0] if single and out.ndim == 2 else out)

    @classmethod
    @library(fn="Rotation.identity", name="identity")
    def identity(cls, num: int | None = None, dtype=None):
        """The identity rotation (or ``num`` of them)."""
        one = np.array([0.0, 0.0, 0.0, 1.0])
        q = one if num is None else np.tile(one, (num, 1))
        return cls(snp.asarray(q, snp.float32 if dtype is None or dtype is float else dtype))

    @classmethod
    @library(fn="Rotation.random", name="random")
    def random(cls, random_key, num: int | None = None):
        """Uniformly distributed rotations drawn with ``random_key`` (Shoemake's three uniforms;
        jax has no sampler to match, scipy draws from numpy's generators)."""
        words = bits(random_key, (3,) if num is None else (num, 3))
        u = snp.asarray(snp.right_shift(words, 8), snp.float32) * (2.0**-24)  # [0, 1)
        u1, u2, u3 = u[..., 0], u[..., 1] * (2 * np.pi), u[..., 2] * (2 * np.pi)
        low, high = snp.sqrt(1 - u1), snp.sqrt(u1)
        return cls(
            snp.stack([low * snp.sin(u2), low * snp.cos(u2), high * snp.sin(u3), high * snp.cos(u3)], -1)
        )

    @classmethod
    @library(fn="Rotation.concatenate", name="concatenate")
    def concatenate(cls, rotations):
        """One stack of all of ``rotations`` (single ones count as stacks of one)."""
        quats = [r.quat if r.quat.ndim == 2 else r.quat[None] for r in rotations]
        return cls(snp.concatenate(quats, axis=0))

    # -- conversion -----------------------------------------------------------
    @library(fn="Rotation.as_quat", name="as_quat")
    def as_quat(self, canonical: bool = False, scalar_first: bool = False):
        """The quaternions; ``canonical`` picks the sign with w >= 0."""
        q = quat_ops.canonical(self.quat) if canonical else self.quat
        return snp.roll(q, 1, axis=-1) if scalar_first else q

    @library(fn="Rotation.as_matrix", name="as_matrix")
    def as_matrix(self):
        """The rotation matrices, (3, 3) or (N, 3, 3)."""
        return quat_ops.to_matrix(self.quat)

    @library(fn="Rotation.as_rotvec", name="as_rotvec")
    def as_rotvec(self, degrees: bool = False):
        """The rotation vectors, angles in [0, pi] (radians unless ``degrees``)."""
        v = quat_ops.to_rotvec(self.quat)
        return snp.rad2deg(v) if degrees else v

    @library(fn="Rotation.as_mrp", name="as_mrp")
    def as_mrp(self):
        """The modified Rodrigues parameters (norm at most 1)."""
        return quat_ops.to_mrp(self.quat)

    @library(fn="Rotation.as_euler", name="as_euler")
    def as_euler(self, seq: str, degrees: bool = False):
        """The Euler angles about the axes of ``seq``; the third is 0 at gimbal lock, as scipy."""
        axes, extrinsic = _sequence(seq)
        if len(axes) != 3:
            raise error(f"Rotation.as_euler wants a sequence of 3 axes, got {seq!r}")
        a = quat_ops.to_euler(self.quat, axes, extrinsic)
        return snp.rad2deg(a) if degrees else a

    # -- algebra --------------------------------------------------------------
    @library(fn="Rotation.apply", name="apply")
    def apply(self, vectors, inverse: bool = False):
        """The vectors (3,) or (N, 3) rotated (by the inverse rotation if ``inverse``)."""
        m = self.as_matrix()
        if inverse:
            m = snp.swapaxes(m, -1, -2)
        v = snp.asarray(vectors, m.dtype)
        return snp.squeeze(snp.matmul(m, v[..., None]), -1)

    @library(fn="Rotation.inv", name="inv")
    def inv(self):
        """The inverse rotations."""
        return Rotation(quat_ops.conjugate(self.quat))

    @library(fn="Rotation.magnitude", name="magnitude")
    def magnitude(self):
        """The rotation angles, in [0, pi]."""
        return 2 * snp.arctan2(quat_ops.norm(self.quat[..., :3]), snp.abs(self.quat[..., 3]))

    @library(fn="Rotation.mean", name="mean")
    def mean(self, weights=None):
        """The (weighted) mean rotation: the top eigenvector of sum_i w_i q_i q_i^T (Markley)."""
        q = self.quat if self.quat.ndim == 2 else self.quat[None]
        w = snp.ones(q.shape[:1], q.dtype) if weights is None else snp.asarray(weights, q.dtype)
        if w.ndim != 1 or w.shape[0] != q.shape[0]:
            raise error(f"Rotation.mean wants one weight per rotation ({q.shape[0]}), got {w.type}")
        k = snp.matmul(snp.swapaxes(q * w[:, None], 0, 1), q)
        _, vectors = snp.linalg.eigh(k)
        return Rotation(vectors[:, -1])

    @library(fn="Rotation.compose", name="compose")
    def __mul__(self, other):
        """The composition: ``other`` first, then ``self``."""
        if not isinstance(other, Rotation):
            return NotImplemented
        return Rotation(quat_ops.product(self.quat, other.quat))

    def __getitem__(self, indexer):
        if self.single:
            raise error("a single Rotation is not subscriptable")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise error("a single Rotation has no len()")
        return self.quat.shape[0]

    @property
    def single(self) -> bool:
        """Whether this holds one rotation (quat (4,)) rather than a stack."""
        return self.quat.ndim == 1


class _SlerpFields(typing.NamedTuple):
    times: Tensor
    timedelta: Tensor
    rotations: Rotation
    rotvecs: Tensor


class Slerp(_SlerpFields):
    """Spherical linear interpolation between key rotations at increasing key times.

    ``Slerp.init(times, rotations)`` (jax's spelling) or ``Slerp(times,
    rotations)`` (scipy's); calling it with times gives the interpolated
    Rotation. Times outside the keys extrapolate from the end intervals (a
    graph cannot raise on a value).
    """

    __slots__ = ()

    def __new__(cls, times, timedelta, rotations=None, rotvecs=None):
        if rotations is None and rotvecs is None:
            return cls.init(times, timedelta)
        return super().__new__(cls, times, timedelta, rotations, rotvecs)

    @classmethod
    @library(fn="Slerp.init", name="slerp_init")
    def init(cls, times, rotations: Rotation):
        """The interpolator of ``rotations`` (a stack of at least 2) at key ``times`` (1-d, increasing)."""
        if not isinstance(rotations, Rotation):
            raise error(f"Slerp wants a Rotation stack, got {type(rotations).__name__}")
        if rotations.single or rotations.quat.shape[0] < 2:
            raise error(f"Slerp wants at least 2 rotations, got quat {rotations.quat.type}")
        t = snp.asarray(times, rotations.quat.dtype)
        if t.ndim != 1 or t.shape[0] != rotations.quat.shape[0]:
            raise error(f"Slerp wants 1-d times, one per rotation ({rotations.quat.shape[0]}), got {t.type}")
        delta = snp.diff(t)
        rotvecs = (rotations[:-1].inv() * rotations[1:]).as_rotvec()
        return super().__new__(cls, t, delta, rotations, rotvecs)

    @library(fn="Slerp", name="slerp")
    def __call__(self, times):
        """The interpolated rotations at ``times`` (a scalar gives a single Rotation)."""
        t = snp.asarray(times, self.times.dtype)
        if t.ndim > 1:
            raise error(f"Slerp wants times of at most 1 dimension, got {t.type}")
        flat = snp.atleast_1d(t)
        n = self.times.shape[0]
        ind = snp.clip(snp.searchsorted(self.times, flat) - 1, 0, n - 2)
        alpha = (flat - snp.take(self.times, ind)) / snp.take(self.timedelta, ind)
        step = Rotation.from_rotvec(snp.take(self.rotvecs, ind, axis=0) * alpha[:, None])
        out = self.rotations[ind] * step
        return out[0] if t.ndim == 0 else out


__all__ = ["Rotation", "Slerp"]
