"""cosine_similarity/distance, kl_divergence, hinge_loss and sigmoid_focal_loss against numpy re-writes
of optax's formulas, with gradients against jax."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(4)
P = RNG.normal(size=(5, 4)).astype(np.float32)
T = RNG.normal(size=(5, 4)).astype(np.float32)
T[2] = 0.0  # a zero vector: its norm is replaced by epsilon
PROBS = RNG.dirichlet(np.ones(4), 5).astype(np.float32)
PROBS[1, 2] = 0.0  # a zero target contributes nothing
PROBS[1] /= PROBS[1].sum()
LOGP = np.log(RNG.dirichlet(np.ones(4), 5)).astype(np.float32)
SIGNS = np.sign(RNG.normal(size=(5, 4))).astype(np.float32)
LOGITS = (RNG.normal(0, 3, (5, 4))).astype(np.float32)
LABELS = (RNG.random((5, 4)) < 0.4).astype(np.float32)
ROWS = [0, 2, 3, 4]  # the rows of PROBS without a zero


def _unit(x, eps):
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(n, eps)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _focal(logits, labels, alpha, gamma):
    x, y = logits.astype(np.float64), labels.astype(np.float64)
    p = _sigmoid(x)
    ce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    loss = ce * (1 - (p * y + (1 - p) * (1 - y))) ** gamma
    return loss if alpha is None else (alpha * y + (1 - alpha) * (1 - y)) * loss


def _kl(logp, t):
    return np.sum(t * (np.where(t == 0, 0, np.log(np.where(t == 0, 1, t))) - logp), -1)


WANT = {
    "cos": np.sum(_unit(P, 1e-3) * _unit(T, 1e-3), -1),
    "cos0": np.sum(_unit(P.T, 0) * _unit(P.T[::-1], 0), -1),
    "cos_axis0": np.sum(_unit(P.T, 0).T * _unit(P.T[::-1], 0).T, 0),
    "cosd": 1 - np.sum(_unit(P, 1e-3) * _unit(T, 1e-3), -1),
    "kl": _kl(LOGP, PROBS),
    "kl_log": np.sum(PROBS[ROWS] * (np.log(PROBS[ROWS]) - LOGP[ROWS])),
    "hinge": np.maximum(0, 1 - P * SIGNS),
    "focal": _focal(LOGITS, LABELS, None, 2.0),
    "focal_alpha": _focal(LOGITS, LABELS, 0.25, 1.5),
}


@pytest.fixture(scope="module")
def results():
    g = sg.Graph()
    with g:
        p, t = sg.placeholder(P.shape, sg.float32, name="p"), sg.placeholder(T.shape, sg.float32, name="t")
        logits = sg.placeholder(LOGITS.shape, sg.float32, name="logits")
        logp = sg.placeholder(LOGP.shape, sg.float32, name="logp")
        out = {
            "cos": sg.nn.cosine_similarity(p, t, epsilon=1e-3),
            "cos0": sg.nn.cosine_similarity(p.T, p.T[::-1]),
            "cos_axis0": sg.nn.cosine_similarity(p, p[:, ::-1], axis=0),
            "cosd": sg.nn.cosine_distance(p, t, epsilon=1e-3),
            "kl": sg.nn.kl_divergence(logp, sg.constant(PROBS)),
            "kl_log": sg.nn.kl_divergence_with_log_targets(
                sg.constant(LOGP[ROWS]), sg.constant(np.log(PROBS[ROWS]))
            ).sum(),
            "hinge": sg.nn.hinge_loss(p, sg.constant(SIGNS)),
            "focal": sg.nn.sigmoid_focal_loss(logits, sg.constant(LABELS)),
            "focal_alpha": sg.nn.sigmoid_focal_loss(logits, sg.constant(LABELS), alpha=0.25, gamma=1.5),
        }
        out["d_cos"] = sg.gradients(out["cos"].sum(), [p, t])
        out["d_kl"] = sg.gradients(out["kl"].sum(), [logp])[0]
        out["d_focal"] = sg.gradients(out["focal_alpha"].sum(), [logits])[0]
    with sg.Session(g) as sess:
        return sess.run(out, {p: P, t: T, logits: LOGITS, logp: LOGP})


@pytest.mark.parametrize("name", sorted(WANT))
def test_losses_match_optax_formulas(results, name):
    got = results[name]
    assert got.dtype == np.float32 and got.shape == np.shape(WANT[name]), name
    np.testing.assert_allclose(got, WANT[name], rtol=2e-5, atol=1e-6, err_msg=name)


def test_gradients_match_jax(results):
    def unit(x, eps):
        n = jnp.linalg.norm(x, axis=-1, keepdims=True)
        return x / jnp.maximum(n, eps)

    def focal(x):
        p = jax.nn.sigmoid(x)
        ce = -(LABELS * jax.nn.log_sigmoid(x) + (1 - LABELS) * jax.nn.log_sigmoid(-x))
        loss = ce * (1 - (p * LABELS + (1 - p) * (1 - LABELS))) ** 1.5
        return jnp.sum((0.25 * LABELS + 0.75 * (1 - LABELS)) * loss)

    with jax.enable_x64(False):
        # jnp.linalg.norm has a NaN gradient at T's zero row (optax's safe norm does not): checked apart
        dp, dt = jax.grad(lambda p, t: jnp.sum(unit(p, 1e-3) * unit(t, 1e-3)), (0, 1))(P, T)
        dkl = jax.grad(lambda lp: jnp.sum(_kl_jax(lp)))(LOGP)
        dfocal = jax.grad(focal)(LOGITS)
    np.testing.assert_allclose(results["d_cos"][0], dp, rtol=1e-4, atol=1e-5)
    keep = np.arange(5) != 2
    np.testing.assert_allclose(results["d_cos"][1][keep], np.asarray(dt)[keep], rtol=1e-4, atol=1e-5)
    # through the zero row the norm is the constant epsilon: d/dt <unit_p, t / eps> = unit_p / eps
    np.testing.assert_allclose(results["d_cos"][1][2], _unit(P, 1e-3)[2] / 1e-3, rtol=1e-5)
    np.testing.assert_allclose(results["d_kl"], dkl, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results["d_focal"], dfocal, rtol=1e-4, atol=1e-6)


def _kl_jax(logp):
    return jnp.sum(PROBS * (jnp.where(PROBS == 0, 0, jnp.log(jnp.where(PROBS == 0, 1, PROBS))) - logp), -1)
