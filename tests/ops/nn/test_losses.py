"""sg.nn losses: values against numpy references of optax's formulas, gradients against jax.grad."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

RNG = np.random.default_rng(1)
B, C = 6, 5
LOGITS = RNG.normal(0, 2, (B, C)).astype(np.float32)
LOGITS[4] = [1e3, -1e3, 0.0, 999.0, 5.0]  # large logits: values and gradients must stay finite
LOGITS[5] = [-1e3, 1e3, 2e3, -2e3, 0.0]
LABELS = np.array([0, 3, 4, 1, 2, 0], np.int32)
PROBS = RNG.dirichlet(np.ones(C), B).astype(np.float32)
BIN_LOGITS = np.concatenate([RNG.normal(0, 3, 10), [1e3, -1e3, 100.0, -100.0]]).astype(np.float32)
BIN_LABELS = np.concatenate([RNG.uniform(0, 1, 10), [0.0, 1.0, 1.0, 0.0]]).astype(np.float32)
PRED = RNG.normal(0, 2, (4, 3)).astype(np.float32)
TARGET = RNG.normal(0, 2, (4, 3)).astype(np.float32)


def _np_log_softmax(z):
    z = z.astype(np.float64)
    m = z.max(-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(-1, keepdims=True))


def _np_log_sigmoid(x):
    x = x.astype(np.float64)
    return -(np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x))))


def _np_huber(e, delta):
    a = np.abs(e)
    return np.where(a <= delta, 0.5 * e**2, delta * (a - 0.5 * delta))


def _losses(lib, logits, labels, probs, bl, by, pred, target):
    """The same losses in jax (for jax.grad) or sg (under test)."""
    if lib == "jax":
        log_p = jax.nn.log_softmax(logits)
        out = {
            "ce_int": -jnp.take_along_axis(log_p, labels[:, None], -1)[:, 0],
            "ce": -jnp.sum(probs * log_p, -1),
            "bce": -by * jax.nn.log_sigmoid(bl) - (1 - by) * jax.nn.log_sigmoid(-bl),
            "sq": (pred - target) ** 2,
            "l2": 0.5 * (pred - target) ** 2,
            "mse": jnp.mean((pred - target) ** 2),
            "huber": jnp.where(
                jnp.abs(pred - target) <= 0.7,
                0.5 * (pred - target) ** 2,
                0.7 * (jnp.abs(pred - target) - 0.35),
            ),
        }
    else:
        out = {
            "ce_int": sg.nn.softmax_cross_entropy_with_integer_labels(logits, labels),
            "ce": sg.nn.softmax_cross_entropy(logits, probs),
            "bce": sg.nn.sigmoid_binary_cross_entropy(bl, by),
            "sq": sg.nn.squared_error(pred, target),
            "l2": sg.nn.l2_loss(pred, target),
            "mse": sg.nn.mse(pred, target),
            "huber": sg.nn.huber_loss(pred, target, delta=0.7),
        }
    return out


W = {k: RNG.normal(size=s).astype(np.float32) for k, s in
     [("ce_int", (B,)), ("ce", (B,)), ("bce", BIN_LOGITS.shape), ("sq", PRED.shape), ("l2", PRED.shape),
      ("mse", ()), ("huber", PRED.shape)]}  # fmt: skip
DIFF_ARG = {"ce_int": 0, "ce": 0, "bce": 3, "sq": 5, "l2": 5, "mse": 5, "huber": 5}
ARGS = (LOGITS, LABELS, PROBS, BIN_LOGITS, BIN_LABELS, PRED, TARGET)


@pytest.fixture(scope="module")
def results():
    g = sg.Graph()
    with g:
        phs = [sg.placeholder(a.shape, sg.dtype(a.dtype), name=f"a{i}") for i, a in enumerate(ARGS)]
        losses = _losses("sg", *phs)
        losses["ce_int_top"] = sg.nn.softmax_cross_entropy_with_integer_labels(phs[0][4], 0)
        grads = {k: sg.gradients((losses[k] * W[k]).sum(), [phs[i]])[0] for k, i in DIFF_ARG.items()}
    with sg.Session(g) as sess:
        return sess.run((losses, grads), dict(zip(phs, ARGS)))


@jax.jit
def _jax_grads(*args):
    out = {}
    for k, i in DIFF_ARG.items():

        def f(a, k=k, i=i):
            full = list(args)
            full[i] = a
            return jnp.sum(_losses("jax", *full)[k] * W[k])

        out[k] = jax.grad(f)(args[i])
    return out


def test_values_match_numpy_references(results):
    got, _ = results
    log_p = _np_log_softmax(LOGITS)
    np.testing.assert_allclose(got["ce_int"], -log_p[np.arange(B), LABELS], rtol=1e-5, atol=1e-5)
    assert got["ce_int"].shape == (B,)
    np.testing.assert_allclose(got["ce"], -(PROBS * log_p).sum(-1), rtol=1e-5, atol=1e-5)
    want_bce = -BIN_LABELS * _np_log_sigmoid(BIN_LOGITS) - (1 - BIN_LABELS) * _np_log_sigmoid(-BIN_LOGITS)
    np.testing.assert_allclose(got["bce"], want_bce, rtol=1e-5, atol=1e-6)
    e = PRED.astype(np.float64) - TARGET
    np.testing.assert_allclose(got["sq"], e**2, rtol=1e-5)
    np.testing.assert_allclose(got["l2"], 0.5 * e**2, rtol=1e-5)
    assert got["mse"].shape == ()
    np.testing.assert_allclose(got["mse"], np.mean(e**2), rtol=1e-5)
    np.testing.assert_allclose(got["huber"], _np_huber(e, 0.7), rtol=1e-5, atol=1e-6)
    assert got["ce_int"][0] != got["ce_int"][4]
    # logits 1e3 and 999 dominate: the loss of label 0 on that row is log(1 + e**-1), to float32 precision
    np.testing.assert_allclose(got["ce_int_top"], np.log1p(np.exp(-1.0)), rtol=1e-6)


@pytest.mark.parametrize("name", list(DIFF_ARG))
def test_gradients_match_jax(results, name):
    _, grads = results
    want = _jax_grads(*(jnp.asarray(a) for a in ARGS))[name]
    assert np.all(np.isfinite(grads[name])), name
    np.testing.assert_allclose(grads[name], np.asarray(want), rtol=1e-4, atol=1e-5, err_msg=name)


def test_integer_label_gradient_is_softmax_minus_one_hot(results):
    _, grads = results
    p = np.exp(_np_log_softmax(LOGITS))
    want = (p - np.eye(C)[LABELS]) * W["ce_int"][:, None]
    np.testing.assert_allclose(grads["ce_int"], want, rtol=1e-4, atol=1e-6)


def test_shape_checks():
    with sg.Graph(), pytest.raises(sg.GraphError, match="logits.shape"):
        sg.nn.softmax_cross_entropy_with_integer_labels(
            sg.constant(np.zeros((3, 4), np.float32)), sg.constant(np.zeros((4,), np.int32))
        )
    with sg.Graph(), pytest.raises(sg.GraphError, match="integer labels"):
        sg.nn.softmax_cross_entropy_with_integer_labels(
            sg.constant(np.zeros((3, 4), np.float32)), sg.constant(np.zeros((3,), np.float32))
        )
