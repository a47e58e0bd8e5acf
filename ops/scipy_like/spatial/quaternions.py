"""Quaternion arithmetic behind sg.scipy.spatial.transform (ops layer).

Quaternions are arrays of shape (..., 4) in scipy's scalar-last order
(x, y, z, w); every function maps over the leading axes, so a single
rotation and a stack of them take one code path.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp


def parts(q):
    """The four components of q (each of shape q.shape[:-1])."""
    return q[..., 0], q[..., 1], q[..., 2], q[..., 3]


def norm(v):
    return snp.sqrt(snp.sum(v * v, axis=-1))


def normalized(q):
    return q / norm(q)[..., None]


def product(p, q):
    """The Hamilton product p q: the rotation q, then p."""
    px, py, pz, pw = parts(p)
    qx, qy, qz, qw = parts(q)
    return snp.stack([
        pw * qx + qw * px + py * qz - pz * qy,
        pw * qy + qw * py + pz * qx - px * qz,
        pw * qz + qw * pz + px * qy - py * qx,
        pw * qw - px * qx - py * qy - pz * qz,
    ], axis=-1)  # fmt: skip


def conjugate(q):
    return q * snp.asarray(np.array([-1.0, -1.0, -1.0, 1.0]), q.dtype)


def to_matrix(q):
    """(..., 4) -> (..., 3, 3): the rotation matrix of a unit quaternion."""
    x, y, z, w = parts(q)
    rows = [
        [x * x - y * y - z * z + w * w, 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), -x * x + y * y - z * z + w * w, 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), -x * x - y * y + z * z + w * w],
    ]
    return snp.stack([snp.stack(r, axis=-1) for r in rows], axis=-2)


def from_matrix(m):
    """(..., 3, 3) -> (..., 4): Shepperd's method, from the largest of trace and diagonal."""
    d0, d1, d2 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = d0 + d1 + d2
    choice = snp.argmax(snp.stack([d0, d1, d2, trace], axis=-1), axis=-1)
    candidates = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i] = 1 - trace + 2 * m[..., i, i]
        q[j] = m[..., j, i] + m[..., i, j]
        q[k] = m[..., k, i] + m[..., i, k]
        q[3] = m[..., k, j] - m[..., j, k]
        candidates.append(snp.stack(q, axis=-1))
    candidates.append(snp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                                 m[..., 1, 0] - m[..., 0, 1], 1 + trace], axis=-1))  # fmt: skip
    out = candidates[3]
    for i in range(3):
        out = snp.where((choice == i)[..., None], candidates[i], out)
    return normalized(out)


def from_rotvec(v):
    """(..., 3) -> (..., 4): axis * sin(angle / 2), cos(angle / 2); a series below 1e-3."""
    angle = norm(v)
    a2 = angle * angle
    small = 0.5 - a2 / 48 + a2 * a2 / 3840
    safe = snp.where(angle <= 1e-3, snp.ones_like(angle), angle)
    scale = snp.where(angle <= 1e-3, small, snp.sin(safe / 2) / safe)
    return snp.concatenate([v * scale[..., None], snp.cos(angle / 2)[..., None]], axis=-1)


def positive_w(q):
    return snp.where((q[..., 3] < 0)[..., None], -q, q)


def to_rotvec(q):
    """(..., 4) -> (..., 3): the rotation vector, angle in [0, pi]; a series below 1e-3."""
    q = positive_w(q)
    angle = 2 * snp.arctan2(norm(q[..., :3]), q[..., 3])
    a2 = angle * angle
    small = 2 + a2 / 12 + 7 * a2 * a2 / 2880
    safe = snp.where(angle <= 1e-3, snp.ones_like(angle), angle)
    scale = snp.where(angle <= 1e-3, small, safe / snp.sin(safe / 2))
    return q[..., :3] * scale[..., None]


def to_mrp(q):
    q = positive_w(q)
    return q[..., :3] / (1 + q[..., 3])[..., None]


def from_mrp(p):
    s = snp.sum(p * p, axis=-1)[..., None]
    return snp.concatenate([2 * p, 1 - s], axis=-1) / (1 + s)


def canonical(q):
    """q or -q, whichever has w > 0 (or, where w is 0, the first nonzero of x, y, z positive)."""
    x, y, z, w = parts(q)
    flip = snp.logical_or(w < 0, snp.logical_and(w == 0, snp.logical_or(
        x < 0, snp.logical_and(x == 0, snp.logical_or(y < 0, snp.logical_and(y == 0, z < 0))))))  # fmt: skip
    return snp.where(flip[..., None], -q, q)


def elementary(axis: int, angle):
    """The quaternions of rotations by ``angle`` (any shape) about basis axis ``axis``."""
    zero = snp.zeros_like(angle)
    comps = [zero, zero, zero, snp.cos(angle / 2)]
    comps[axis] = snp.sin(angle / 2)
    return snp.stack(comps, axis=-1)


def to_euler(q, axes: list[int], extrinsic: bool):
    """(..., 4) -> (..., 3): Euler angles of the sequence ``axes`` (Bernardes and Viollet's
    direct method); at gimbal lock the third angle is 0, as scipy."""
    i, j, k = axes if extrinsic else axes[::-1]
    symmetric = i == k
    if symmetric:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    c = parts(q)
    if symmetric:
        a, b, cc, d = c[3], c[i], c[j], c[k] * sign
    else:
        a, b, cc, d = c[3] - c[j], c[i] + c[k] * sign, c[j] + c[3], c[k] * sign - c[i]
    middle = 2 * snp.arctan2(snp.hypot(cc, d), snp.hypot(a, b))
    eps = 1e-7
    at_zero = snp.abs(middle) <= eps
    at_pi = snp.abs(middle - np.pi) <= eps
    half_sum, half_diff = snp.arctan2(b, a), snp.arctan2(d, cc)
    locked = snp.logical_or(at_zero, at_pi)
    outer = snp.where(at_zero, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
    turn = 1 if symmetric else sign  # the angle about the third axis turns with the axes' handedness
    zero = snp.zeros_like(middle)
    # an extrinsic sequence reads (sum - diff, middle, sum + diff), an intrinsic one the reverse;
    # at gimbal lock the first angle takes the whole turn and the last is 0
    if extrinsic:
        first = snp.where(locked, outer, half_sum - half_diff)
        last = snp.where(locked, zero, half_sum + half_diff) * turn
    else:
        first = snp.where(locked, outer, half_sum + half_diff) * turn
        last = snp.where(locked, zero, half_sum - half_diff)
    if not symmetric:
        middle = middle - np.pi / 2
    wrap = lambda t: snp.remainder(t + np.pi, 2 * np.pi) - np.pi  # noqa: E731
    return snp.stack([wrap(first), middle, wrap(last)], axis=-1)  # the middle is in range already, as scipy
