"""sg.scipy.spatial.transform's Rotation and Slerp against scipy (float64 values: every
conversion both ways, Euler sequences intrinsic/extrinsic/symmetric at gimbal lock, composition,
apply, mean, Slerp), jax (gradients) and a loop (vectorize). Each table is one graph and one run."""

from __future__ import annotations

import warnings

import jax.scipy.spatial.transform as jst
import numpy as np
import pytest
from scipy.spatial.transform import Rotation as R
from scipy.spatial.transform import Slerp as ScipySlerp

import stablegraph as sg
from stablegraph.scipy.spatial.transform import Rotation, Slerp
from stablegraph.test_util import check_grads, check_vectorize, line_of

from .tables import assert_matches, grads_against_jax, run_cases

pytestmark = pytest.mark.usefixtures("jax_x64")
RNG = np.random.default_rng(263)
SEQS = ("xyz", "ZXZ", "xyx", "YXY", "XZY")  # extrinsic and intrinsic, Tait-Bryan and proper Euler
Q = RNG.normal(size=(6, 4))
Q[0], Q[1], Q[2] = [0, 0, 0, 1], [1e-5, 0, 0, 1], [0, 0, 0, -1]  # identity, tiny angle, w < 0
V = RNG.normal(size=(5, 3))
V[0], V[1] = 0.0, [1e-4, 0, 0]  # zero and tiny rotation vectors
LOCK = np.array([[0.3, 0.0, 0.0], [0.3, np.pi, 0.2], [0.2, np.pi / 2, 0.4], [0.1, -np.pi / 2, 0.7]])


def _scipy(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gimbal lock warnings
        return fn(*args)


def test_conversions_and_algebra_match_scipy():
    r = R.from_quat(Q)
    m = r.as_matrix()
    m[3], m[4], m[5] = (
        np.diag([1, -1, -1.0]),
        np.diag([-1, 1, -1.0]),
        np.diag([-1, -1, 1.0]),
    )  # 180-degree turns
    w = RNG.uniform(size=6)
    fq = Rotation.from_quat
    cases = {
        "as_quat": (lambda q: fq(q).as_quat(), (Q,), r.as_quat()),
        "canonical": (lambda q: fq(q).as_quat(canonical=True), (Q,), r.as_quat(canonical=True)),
        "scalar first": (lambda q: fq(q, scalar_first=True).as_quat(scalar_first=True), (Q,),
                         R.from_quat(Q, scalar_first=True).as_quat(scalar_first=True)),
        "as_matrix": (lambda q: fq(q).as_matrix(), (Q,), r.as_matrix()),
        "from_matrix": (lambda a: Rotation.from_matrix(a).as_matrix(), (m,), R.from_matrix(m).as_matrix()),
        "as_rotvec": (lambda q: fq(q).as_rotvec(), (Q,), r.as_rotvec()),
        "from_rotvec": (lambda v: Rotation.from_rotvec(v).as_quat(), (V,), R.from_rotvec(V).as_quat()),
        "degrees": (lambda v: Rotation.from_rotvec(v, degrees=True).as_rotvec(degrees=True), (50 * V,),
                    R.from_rotvec(50 * V, degrees=True).as_rotvec(degrees=True)),
        "as_mrp": (lambda q: fq(q).as_mrp(), (Q,), r.as_mrp()),
        "from_mrp": (lambda v: Rotation.from_mrp(v).as_quat(), (0.3 * V,), R.from_mrp(0.3 * V).as_quat()),
        "magnitude": (lambda q: fq(q).magnitude(), (Q,), r.magnitude()),
        "inv": (lambda q: fq(q).inv().as_matrix(), (Q,), r.inv().as_matrix()),
        "compose": (lambda q: (fq(q)[:3] * fq(q)[3:]).as_matrix(), (Q,), (r[:3] * r[3:]).as_matrix()),
        "apply": (lambda q, v: fq(q)[:5].apply(v), (Q, V), r[:5].apply(V)),
        "apply inverse": (lambda q, v: fq(q)[:5].apply(v, inverse=True), (Q, V), r[:5].apply(V, inverse=True)),
        "apply single": (lambda q, v: fq(q)[2].apply(v), (Q, V), r[2].apply(V)),
        "mean": (lambda q, w: fq(q).mean(w).as_matrix(), (Q, w), r.mean(w).as_matrix()),
        "identity": (lambda: Rotation.identity(3).as_quat(), (), R.identity(3).as_quat()),
        "concatenate": (lambda q: Rotation.concatenate([fq(q[0]), fq(q[1:])]).as_quat(), (Q,),
                        R.concatenate([r[0], r[1:]]).as_quat()),
        "single euler axis": (lambda a: Rotation.from_euler("z", a).as_quat(), (np.array(0.4),), R.from_euler("z", 0.4).as_quat()),
    }  # fmt: skip
    angles = RNG.uniform(-3, 3, size=(4, 3))
    for seq in SEQS:
        cases[f"as_euler {seq}"] = (lambda q, s=seq: fq(q).as_euler(s), (Q,), _scipy(r.as_euler, seq))
        cases[f"from_euler {seq}"] = (
            lambda a, s=seq: Rotation.from_euler(s, a).as_quat(),
            (angles,),
            R.from_euler(seq, angles).as_quat(),
        )
        cases[f"from_euler degrees {seq}"] = (
            lambda a, s=seq: Rotation.from_euler(s, a, degrees=True).as_quat(),
            (40 * angles[0],),
            R.from_euler(seq, 40 * angles[0], degrees=True).as_quat(),
        )
        locked = R.from_euler(seq, LOCK)
        cases[f"gimbal lock {seq}"] = (lambda q, s=seq: fq(q).as_euler(s), (locked.as_quat(),), _scipy(locked.as_euler, seq))  # fmt: skip
    times, keys = np.array([0.0, 1.0, 2.5, 4.0]), R.from_quat(Q[2:6])
    at = np.array([0.0, 0.3, 1.0, 2.0, 3.9, 4.0])
    cases["slerp"] = (
        lambda t, q, s: Slerp.init(t, fq(q))(s).as_quat(),
        (times, Q[2:6], at),
        ScipySlerp(times, keys)(at).as_quat(),
    )
    cases["slerp scipy spelling, scalar time"] = (lambda t, q, s: Slerp(t, fq(q))(s).as_matrix(), (times, Q[2:6], np.array(1.7)),
                                                   ScipySlerp(times, keys)(1.7).as_matrix())  # fmt: skip
    got = run_cases({k: (f, args) for k, (f, args, _) in cases.items()})
    for key, (_, _, want) in cases.items():
        assert_matches(got[key], want, key, rtol=1e-7, atol=1e-9 if "lock" not in key else 1e-6)


def test_random_rotations_are_unit_and_spread():
    got = run_cases({"r": (lambda: Rotation.random(sg.random.PRNGKey(3), 4000).as_quat(), ())})["r"]
    assert got.shape == (4000, 4) and np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)
    m = R.from_quat(got).as_matrix()  # uniform on SO(3): E[R] = 0, E[trace R] = 0
    assert np.abs(m.mean(axis=0)).max() < 0.05 and abs(np.trace(m, axis1=1, axis2=2).mean()) < 0.1


def test_gradients_match_jax():
    angles, q, v = RNG.uniform(-1, 1, size=(3, 3)), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 3))
    times = np.array([0.0, 1.0, 3.0])
    table = {
        "from_quat apply": ((q, v), lambda m, a, b: m.Rotation.from_quat(a).apply(b)),
        "rotvec both ways": ((v,), lambda m, a: m.Rotation.from_rotvec(a).as_rotvec()),
        "slerp": ((q,), lambda m, a: m.Slerp.init(times, m.Rotation.from_quat(a))(np.array([0.5, 2.0])).as_matrix()),
    }  # fmt: skip
    grads_against_jax(table, sg.scipy.spatial.transform, jst, rtol=1e-6, atol=1e-8)

    # Euler angles both ways: jax's jitted gradient is off by up to 0.13 here (its eager one and
    # finite differences of scipy agree with ours), so the oracle is finite differences
    # (and for matrices, MRPs and magnitudes, to keep jax's compile of them out of the suite's time)
    def others(a, e):
        r = Rotation.from_quat(a)
        return (
            Rotation.from_euler("xyz", e).as_euler("ZXZ"),
            Rotation.from_matrix(r.as_matrix()).as_quat(),
            r.as_mrp(),
            r.magnitude(),
        )

    check_grads(others, [q, angles], order=1, modes="rev")


def test_vectorize_matches_a_loop():
    v = RNG.normal(size=(3,))

    def many(q):
        r = Rotation.from_quat(q)
        return r.apply(v), r.as_euler("zyx"), (r * r).as_rotvec(), Rotation.from_rotvec(q[:3]).as_matrix()

    check_vectorize(many, [RNG.normal(size=(4,))], size=2)


def test_bad_arguments_name_the_users_line():
    g = sg.Graph()
    with g:
        q = sg.placeholder((2, 3), sg.float64)
        with pytest.raises(sg.GraphError, match=r"\(N, 4\)") as e1:
            Rotation.from_quat(q)  # three components
        with pytest.raises(sg.GraphError, match="repeat") as e2:
            Rotation.from_euler("xxy", q)  # repeated axis
        with pytest.raises(sg.GraphError, match="at least 2") as e3:
            Slerp.init([0.0], Rotation.identity(1))  # one key
    for e, text in ((e1, "# three components"), (e2, "# repeated axis"), (e3, "# one key")):
        assert f"test_spatial_transform.py:{line_of(__file__, text)}" in str(e.value)
