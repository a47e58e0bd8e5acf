"""Every optimizer against a numpy implementation of optax's update rules.

One graph holds a small least-squares problem per configuration, each with
its own step counter, so a single program runs every train op at once.
"""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(7)
X = RNG.normal(size=(8, 3))
Y = RNG.normal(size=8) + 0.5
W0, B0 = np.array([0.3, -0.2, 0.1]), 0.25
STEPS = 4


def grads(params):
    w, b = params
    r = X @ w + b - Y
    return [2 * X.T @ r / len(Y), 2 * r.mean()]


def cosine(value, steps):
    return lambda k: value * 0.5 * (1 + np.cos(np.pi * min(k, steps) / steps))


# -- numpy reference: optax's math, one step of each rule -------------------------
def ref_sgd(lr, clip=None):
    def step(k, ps, gs, st):
        return [p - lr * g for p, g in zip(ps, gs)], st

    return step, clip


def ref_momentum(lr, m, nesterov):
    def step(k, ps, gs, st):
        st = [g + m * t for g, t in zip(gs, st)]
        us = [g + m * t for g, t in zip(gs, st)] if nesterov else st
        return [p - lr * u for p, u in zip(ps, us)], st

    return step, None


def ref_adam(lr_fn, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, decay=(True, True)):
    def step(k, ps, gs, st):
        mu = [b1 * m + (1 - b1) * g for m, g in zip(st[0], gs)]
        nu = [b2 * n + (1 - b2) * g * g for n, g in zip(st[1], gs)]
        out = []
        for p, m, n, d in zip(ps, mu, nu, decay):
            u = (m / (1 - b1 ** (k + 1))) / (np.sqrt(n / (1 - b2 ** (k + 1))) + eps)
            out.append(p - lr_fn(k) * (u + (wd * p if d else 0.0)))
        return out, (mu, nu)

    return step, None


def ref_rmsprop(lr, decay=0.9, eps=1e-8, centered=False, m=None, nesterov=False):
    def step(k, ps, gs, st):
        nu = [decay * n + (1 - decay) * g * g for n, g in zip(st["nu"], gs)]
        mu = [decay * a + (1 - decay) * g for a, g in zip(st["mu"], gs)]
        den = [n - a * a for n, a in zip(nu, mu)] if centered else nu
        us = [-lr * g / np.sqrt(d + eps) for g, d in zip(gs, den)]
        tr = st["trace"]
        if m is not None:
            tr = [u + m * t for u, t in zip(us, tr)]
            us = [u + m * t for u, t in zip(us, tr)] if nesterov else tr
        return [p + u for p, u in zip(ps, us)], {"nu": nu, "mu": mu, "trace": tr}

    return step, None


def ref_adagrad(lr, eps=1e-7):
    def step(k, ps, gs, st):
        st = [s + g * g for s, g in zip(st, gs)]
        return [p - lr * g / np.sqrt(s + eps) for p, g, s in zip(ps, gs, st)], st

    return step, None


def zeros_state(kind):
    z = [np.zeros(3), 0.0]
    return {
        "adam": ([np.zeros(3), 0.0], [np.zeros(3), 0.0]),
        "rms": {"nu": z, "mu": z, "trace": z},
        "adagrad": [np.full(3, 0.1), 0.1],
        "adagrad0": z,
    }.get(kind, z)


CASES = {
    "sgd": (lambda: sg.optim.sgd(0.1), ref_sgd(0.1), "plain"),
    "sgd_clip": (lambda: sg.optim.sgd(0.1, clip_norm=0.5), ref_sgd(0.1, clip=0.5), "plain"),
    "momentum": (lambda: sg.optim.momentum(0.05, 0.9), ref_momentum(0.05, 0.9, False), "plain"),
    "nesterov": (lambda: sg.optim.momentum(0.05, 0.8, nesterov=True), ref_momentum(0.05, 0.8, True), "plain"),
    "adam_cosine": (
        lambda: sg.optim.adam(sg.optim.cosine_decay(0.05, steps=6)),
        ref_adam(cosine(0.05, 6)),
        "adam",
    ),
    "adam_clip": (
        lambda: sg.optim.adam(0.05, b1=0.8, b2=0.99, eps=1e-3, clip_norm=0.3),
        (ref_adam(lambda k: 0.05, 0.8, 0.99, 1e-3)[0], 0.3),
        "adam",
    ),
    "adamw_mask": (
        lambda: sg.optim.adamw(0.05, weight_decay=0.5, mask=lambda v: v.ndim > 0),
        ref_adam(lambda k: 0.05, wd=0.5, decay=(True, False)),
        "adam",
    ),
    "adamw_dict": (
        lambda: sg.optim.adamw(0.05, weight_decay=0.5, mask={"adamw_dict/w": False, "adamw_dict/b": True}),
        ref_adam(lambda k: 0.05, wd=0.5, decay=(False, True)),
        "adam",
    ),
    "rmsprop": (lambda: sg.optim.rmsprop(0.01), ref_rmsprop(0.01), "rms"),
    "rmsprop_centered": (
        lambda: sg.optim.rmsprop(0.01, decay=0.8, eps=1e-2, centered=True, momentum=0.9),
        ref_rmsprop(0.01, decay=0.8, eps=1e-2, centered=True, m=0.9),
        "rms",
    ),
    "rmsprop_nesterov": (
        lambda: sg.optim.rmsprop(0.01, momentum=0.5, nesterov=True),
        ref_rmsprop(0.01, m=0.5, nesterov=True),
        "rms",
    ),
    "adagrad": (lambda: sg.optim.adagrad(0.1), ref_adagrad(0.1), "adagrad"),
    "adagrad_eps": (
        lambda: sg.optim.adagrad(0.1, initial_accumulator_value=0.0, eps=0.05),
        ref_adagrad(0.1, eps=0.05),
        "adagrad0",
    ),
}


def reference(case):
    (step, clip), kind = CASES[case][1], CASES[case][2]
    ps, st = [W0.copy(), B0], zeros_state(kind)
    for k in range(STEPS):
        gs = grads(ps)
        if clip is not None:
            norm = np.sqrt(sum(np.sum(np.square(g)) for g in gs))
            gs = [g * clip / max(norm, clip) for g in gs]
        ps, st = step(k, ps, gs, st)
    return ps


@pytest.fixture(scope="module")
def trained():
    g = sg.Graph()
    built = {}
    with g:
        x = sg.placeholder(X.shape, sg.float32, name="x")
        y = sg.placeholder(Y.shape, sg.float32, name="y")
        for case, (make, _, _) in CASES.items():
            with sg.name_scope(case):
                w = sg.Variable(W0.astype(np.float32), name="w")
                b = sg.Variable(np.float32(B0), name="b")
                step = sg.Variable(0, dtype=sg.int32, name="step", trainable=False)
                loss = snp.mean(snp.square(snp.matmul(x, w) + b - y))
            opt = make()
            built[case] = (w, b, step, opt, opt.minimize(loss, [w, b], global_step=step))
    feeds = {x: X.astype(np.float32), y: Y.astype(np.float32)}
    with sg.Session(g) as sess:
        train = [t for *_, t in built.values()]
        for _ in range(STEPS):
            assert sess.run(train, feeds) == [None] * len(built)
        yield (
            {case: (sess.get(w), sess.get(b), sess.get(s), opt) for case, (w, b, s, opt, _) in built.items()},
            g,
        )


@pytest.mark.parametrize("case", list(CASES))
def test_matches_numpy_reference(trained, case):
    got_w, got_b, steps, _ = trained[0][case]
    want_w, want_b = reference(case)
    assert not np.allclose(want_w, W0)  # the reference moved, so the comparison means something
    np.testing.assert_allclose(got_w, want_w, rtol=2e-4, atol=2e-5, err_msg=case)
    np.testing.assert_allclose(got_b, want_b, rtol=2e-4, atol=2e-5, err_msg=case)
    assert steps == STEPS


def test_clipping_was_active():
    # the clip cases only test clipping if the unclipped gradient is longer than the bound
    assert np.sqrt(sum(np.sum(np.square(g)) for g in grads([W0, B0]))) > 0.5
    assert not np.allclose(reference("sgd_clip")[0], reference("sgd")[0])


def test_state_is_named_under_each_variable(trained):
    results, g = trained
    names = {v.var_name: v for v in g.variables}
    expected = {
        "adam_cosine/w/adam/mu", "adam_cosine/w/adam/nu", "adam_cosine/b/adam/nu",
        "momentum/w/momentum/trace", "adagrad/b/adagrad/sum_of_squares",
        "rmsprop_centered/w/rmsprop/mu", "rmsprop_centered/w/rmsprop/trace", "adamw_mask/w/adamw/mu",
    }  # fmt: skip
    assert expected <= set(names)
    assert "rmsprop/w/rmsprop/mu" not in names and "sgd/w/sgd" not in " ".join(names)
    assert all(not names[n].trainable for n in expected)
    opt = results["adam_cosine"][3]
    assert opt.slot_names == ["mu", "nu"]
    assert opt.get_slot(names["adam_cosine/w"], "mu") is not None
    with pytest.raises(KeyError, match="no slot"):
        opt.get_slot(names["adam_cosine/w"], "trace")
