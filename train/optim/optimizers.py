"""The optimizers: sgd, momentum, adam, adamw, rmsprop, adagrad, with optax's math (train layer).

Each factory returns an Optimizer (base.py); ``learning_rate`` is a number,
a schedule (``step -> value``, see schedules.py) or a Tensor (e.g. a
placeholder fed each run). Every factory takes ``clip_norm`` (clip the
gradients by their global norm first) and ``name`` (the scope of the state
under each variable: ``fc1/kernel/<name>/mu``).

Updates, with g the gradient, lr the learning rate and k the update number
(1 for the first):

- sgd: ``-lr * g``
- momentum: ``t = g + m * t``; ``-lr * t`` (nesterov: ``-lr * (g + m * t)``)
- adam: moments ``mu, nu`` of g and g², bias-corrected by ``1 - b ** k``;
  ``-lr * mu_hat / (sqrt(nu_hat) + eps)``
- adamw: adam's step plus ``weight_decay * param`` (where ``mask`` says), times ``-lr``
- rmsprop: ``nu`` of g² (centered: minus ``mu²``, mu of g); ``-lr * g / sqrt(nu + eps)``,
  then an optional momentum trace of those steps
- adagrad: ``s += g²``; ``-lr * g / sqrt(s + eps)`` (0 where s is 0)
"""

from __future__ import annotations

from ...graph import GraphError, located, user_location
from ...ops import numpy_like as snp
from ...ops.numpy_like.core import asarray
from . import checks
from .base import Optimizer

__all__ = ["sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad"]


def _check(opt, name: str, value, low: float = 0.0, high: float | None = None) -> float:
    """A hyperparameter of ``opt`` as a float in ``[low, high)``, else a GraphError at the user's line."""
    return checks.number(f"{opt.kind}: {name}", value, low, high)


def _consts(dt, **values) -> dict:
    """Each value as a scalar Tensor of ``dt``, for ``_shared``: built once, read by every update."""
    return {k: asarray(v, dt) for k, v in values.items()}


class SGD(Optimizer):
    kind = "sgd"

    def _apply(self, var, grad, slots, s):
        return s["neg_lr"] * grad, {}


class Momentum(Optimizer):
    kind = "momentum"

    def __init__(self, learning_rate, momentum=0.9, nesterov=False, **kw):
        super().__init__(learning_rate, **kw)
        self.momentum = _check(self, "momentum", momentum, 0.0, 1.0)
        self.nesterov = bool(nesterov)

    def _slot_inits(self, var):
        return {"trace": 0.0}

    def _shared(self, lr, count):
        return {**super()._shared(lr, count), **_consts(lr.dtype, m=self.momentum)}

    def _apply(self, var, grad, slots, s):
        trace = grad + s["m"] * slots["trace"]
        step = grad + s["m"] * trace if self.nesterov else trace
        return s["neg_lr"] * step, {"trace": trace}


class Adam(Optimizer):
    kind = "adam"

    def __init__(self, learning_rate, b1=0.9, b2=0.999, eps=1e-8, **kw):
        super().__init__(learning_rate, **kw)
        self.b1 = _check(self, "b1", b1, 0.0, 1.0)
        self.b2 = _check(self, "b2", b2, 0.0, 1.0)
        self.eps = _check(self, "eps", eps)

    def _slot_inits(self, var):
        return {"mu": 0.0, "nu": 0.0}

    def _shared(self, lr, count):
        s = super()._shared(lr, count)
        consts = _consts(lr.dtype, b1=self.b1, c1=1.0 - self.b1, b2=self.b2, c2=1.0 - self.b2, eps=self.eps)
        # the bias corrections 1 - b**k, once per step rather than once per variable
        fixes = {"fix1": 1.0 - consts["b1"] ** s["count"], "fix2": 1.0 - consts["b2"] ** s["count"]}
        return {**s, **consts, **fixes}

    def _adam_step(self, grad, slots, s):
        mu = s["b1"] * slots["mu"] + s["c1"] * grad
        nu = s["b2"] * slots["nu"] + s["c2"] * (grad * grad)
        mu_hat = mu / s["fix1"]
        nu_hat = nu / s["fix2"]
        return mu_hat / (snp.sqrt(nu_hat) + s["eps"]), {"mu": mu, "nu": nu}

    def _apply(self, var, grad, slots, s):
        step, new = self._adam_step(grad, slots, s)
        return s["neg_lr"] * step, new


class AdamW(Adam):
    kind = "adamw"

    def __init__(self, learning_rate, b1=0.9, b2=0.999, eps=1e-8, weight_decay=1e-4, mask=None, **kw):
        super().__init__(learning_rate, b1, b2, eps, **kw)
        self.weight_decay = _check(self, "weight_decay", weight_decay)
        if mask is not None and not callable(mask) and not isinstance(mask, dict):
            raise checks.type_error(
                f"adamw mask must be None, a callable var -> bool or a dict name -> bool, got {mask!r}"
            )
        self.mask = mask

    def decays(self, var) -> bool:
        """Whether weight decay applies to ``var`` under this optimizer's mask."""
        mask = self.mask
        if mask is None:
            return True
        if isinstance(mask, dict):
            if var.var_name not in mask:
                raise GraphError(
                    located(
                        f"adamw mask has no entry for {var.var_name}; it has {sorted(mask)}", user_location()
                    )
                )
            return bool(mask[var.var_name])
        return bool(mask(var))

    def _check_pairs(self, pairs):
        if isinstance(self.mask, dict):
            names = {v.var_name for g, v in pairs}
            unknown = sorted(set(self.mask) - names)
            if unknown:
                raise GraphError(located(f"adamw mask names unknown variables: {unknown}", user_location()))

    def _apply(self, var, grad, slots, s):
        step, new = self._adam_step(grad, slots, s)
        if self.weight_decay and self.decays(var):
            step = step + self.weight_decay * var
        return s["neg_lr"] * step, new


class RMSProp(Optimizer):
    kind = "rmsprop"

    def __init__(self, learning_rate, decay=0.9, eps=1e-8, initial_scale=0.0, centered=False,
                 momentum=None, nesterov=False, **kw):  # fmt: skip
        super().__init__(learning_rate, **kw)
        self.decay = _check(self, "decay", decay, 0.0, 1.0)
        self.eps = _check(self, "eps", eps)
        self.initial_scale = _check(self, "initial_scale", initial_scale)
        self.centered = bool(centered)
        self.momentum = None if momentum is None else _check(self, "momentum", momentum, 0.0, 1.0)
        self.nesterov = bool(nesterov)

    def _slot_inits(self, var):
        slots = {"nu": self.initial_scale}
        if self.centered:
            slots["mu"] = 0.0
        if self.momentum is not None:
            slots["trace"] = 0.0
        return slots

    def _shared(self, lr, count):
        consts = _consts(lr.dtype, d=self.decay, c=1.0 - self.decay, eps=self.eps)
        if self.momentum is not None:
            consts.update(_consts(lr.dtype, m=self.momentum))
        return {**super()._shared(lr, count), **consts}

    def _apply(self, var, grad, slots, s):
        nu = s["d"] * slots["nu"] + s["c"] * (grad * grad)
        new = {"nu": nu}
        if self.centered:
            new["mu"] = s["d"] * slots["mu"] + s["c"] * grad
            nu = nu - new["mu"] * new["mu"]
        step = s["neg_lr"] * (grad / snp.sqrt(nu + s["eps"]))
        if self.momentum is not None:  # optax traces the lr-scaled steps
            new["trace"] = step + s["m"] * slots["trace"]
            step = step + s["m"] * new["trace"] if self.nesterov else new["trace"]
        return step, new


class Adagrad(Optimizer):
    kind = "adagrad"

    def __init__(self, learning_rate, initial_accumulator_value=0.1, eps=1e-7, **kw):
        super().__init__(learning_rate, **kw)
        self.initial_accumulator_value = _check(self, "initial_accumulator_value", initial_accumulator_value)
        self.eps = _check(self, "eps", eps)

    def _slot_inits(self, var):
        return {"sum_of_squares": self.initial_accumulator_value}

    def _shared(self, lr, count):
        return {**super()._shared(lr, count), **_consts(lr.dtype, eps=self.eps)}

    def _apply(self, var, grad, slots, s):
        total = slots["sum_of_squares"] + grad * grad
        scale = snp.where(total > 0, 1.0 / snp.sqrt(total + s["eps"]), 0.0)
        return s["neg_lr"] * (grad * scale.astype(grad.dtype)), {"sum_of_squares": total}


# -- factories ---------------------------------------------------------------------
def sgd(learning_rate, *, clip_norm=None, name=None) -> Optimizer:
    """Plain gradient descent: ``var -= lr * g``.

    train = sg.optim.sgd(0.1).minimize(loss)
    """
    return SGD(learning_rate, clip_norm=clip_norm, name=name)


def momentum(learning_rate, momentum=0.9, nesterov=False, *, clip_norm=None, name=None) -> Optimizer:
    """SGD with a momentum trace ``t = g + momentum * t`` (optax's sgd with momentum); state ``trace``."""
    return Momentum(learning_rate, momentum, nesterov, clip_norm=clip_norm, name=name)


def adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, *, clip_norm=None, name=None) -> Optimizer:
    """Adam with bias correction, eps outside the square root (optax.adam); state ``mu``, ``nu``.

    train = sg.optim.adam(sg.optim.cosine_decay(1e-3, steps=2000)).minimize(loss)
    """
    return Adam(learning_rate, b1, b2, eps, clip_norm=clip_norm, name=name)


def adamw(learning_rate, b1=0.9, b2=0.999, eps=1e-8, weight_decay=1e-4, mask=None, *,
          clip_norm=None, name=None) -> Optimizer:  # fmt: skip
    """Adam with decoupled weight decay: ``-lr * (adam step + weight_decay * param)`` (optax.adamw).

    ``mask`` picks the variables that decay: None (all), a callable ``var -> bool``
    (e.g. ``lambda v: v.ndim > 1`` to spare biases) or a dict ``{var_name: bool}``
    naming every variable trained.
    """
    return AdamW(learning_rate, b1, b2, eps, weight_decay, mask, clip_norm=clip_norm, name=name)


def rmsprop(learning_rate, decay=0.9, eps=1e-8, initial_scale=0.0, centered=False, momentum=None,
            nesterov=False, *, clip_norm=None, name=None) -> Optimizer:  # fmt: skip
    """RMSProp as optax.rmsprop: ``-lr * g / sqrt(nu + eps)`` (eps inside the root).

    ``centered`` divides by the variance estimate ``nu - mu²``; ``momentum``
    (None: off) keeps a trace of the steps. State ``nu`` (+ ``mu``, ``trace``).
    """
    return RMSProp(learning_rate, decay, eps, initial_scale, centered, momentum, nesterov,
                   clip_norm=clip_norm, name=name)  # fmt: skip


def adagrad(
    learning_rate, initial_accumulator_value=0.1, eps=1e-7, *, clip_norm=None, name=None
) -> Optimizer:
    """Adagrad as optax.adagrad: ``-lr * g / sqrt(sum of g² + eps)``; state ``sum_of_squares``."""
    return Adagrad(learning_rate, initial_accumulator_value, eps, clip_norm=clip_norm, name=name)
