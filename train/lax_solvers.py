"""sg.lax.custom_root and sg.lax.custom_linear_solve: solvers with implicit gradients (train layer).

``custom_root(f, initial_guess, solve, tangent_solve)`` returns
``solve(f, initial_guess)`` and ``custom_linear_solve(matvec, b, solve,
transpose_solve)`` returns ``solve(matvec, b)``, with jax.lax's semantics:
the derivative never follows the solver's iterations. It comes from the
implicit function theorem instead, with respect to the Tensors ``f`` (or
``matvec``) closes over, and ``b``:

- linear solve, x = A⁻¹ b: the cotangent of b is ``b̄ = transpose_solve(Aᵀ, x̄)``
  and a Tensor θ that A reads gets ``-(∂(A x)/∂θ)ᵀ b̄``;
- root, f(x*, θ) = 0: with w solving ``(∂f/∂x)ᵀ w = x̄`` (``tangent_solve`` on
  f's transposed linearization at x*), θ gets ``-(∂f/∂θ)ᵀ w``.

How: ``f``/``matvec`` is traced once as a Function; the outer Tensors it
captured become explicit arguments of an sg.custom_vjp call whose forward is
the user's solve and whose backward is the rule above (transposing with
sg.vjp, hence this layer, above transforms, like sg.scipy.optimize). The
package hangs both names on sg.lax. Tensors that only ``solve`` reads get no
gradient, nor does ``initial_guess``, as in jax. The backward's transposed
solve is a custom_linear_solve again (its own transpose the original solve),
down to MAX_NESTING levels (the backward is traced at the call, so an
unbounded chain would never end): forward mode (sg.jvp transposes the
backward) and derivatives up to that order stay implicit; beyond it they
follow the solver's own ops, which a while loop of unknown length refuses
with a clear error.
"""

from __future__ import annotations

from ..graph import GraphError, Tensor, current_graph, flatten, function, located, unflatten, user_location
from ..graph.function import inline
from ..graph.tree import describe
from ..ops import debug, late_bound
from ..ops.custom_vjp import custom_vjp
from ..ops.numpy_like.core import asarray
from ..ops.primitives import ad_util
from ..ops.primitives.elementwise import stop_gradient
from ..transforms import vjp

# levels of transposed solves that are implicit solves again: derivatives up to this order (forward
# mode and hessians included) never differentiate a solver's iterations
MAX_NESTING = 2


def _error(message: str, where=None) -> GraphError:
    return GraphError(located(message, where or user_location()))


def _leaves(nest, what: str, where) -> tuple[list[Tensor], object]:
    """A nest's leaves as Tensors (numbers and arrays become constants), and its structure."""
    leaves, tree = flatten(nest)
    try:
        return [x if isinstance(x, Tensor) else asarray(x) for x in leaves], tree
    except (GraphError, TypeError, ValueError):
        raise _error(f"{what} must hold Tensors, numbers or arrays, got {describe(tree)}", where) from None


class _Closure:
    """A user's function of one nest (``f`` or ``matvec``) traced once, with the outer Tensors it
    reads made explicit: ``bound(values)`` is the function reading ``values`` in their place."""

    def __init__(self, fn, leaves, tree, label: str, where):
        self.tree, self.label, self.where = tree, label, where
        self.fn = function(lambda *xs: fn(unflatten(tree, list(xs))), [x.type for x in leaves], name=label)
        out_types = [r.type for r in self.fn.results]
        if self.fn.out_tree != tree or out_types != [x.type for x in leaves]:
            raise _error(
                f"{label} must return what it takes (structure and types): it takes {describe(tree)} of "
                f"{[str(x.type) for x in leaves]}, returned {describe(self.fn.out_tree)} of "
                f"{[str(t) for t in out_types]}",
                where,
            )
        self.captures = list(self.fn.captures)

    def bound(self, values):
        def applied(x):
            leaves, tree = _leaves(x, f"the argument of {self.label}", self.where)
            if tree != self.tree:
                raise _error(f"{self.label} takes {describe(self.tree)}, got {describe(tree)}", self.where)
            return unflatten(self.tree, inline(self.fn, current_graph(), leaves, captures=list(values)))

        return applied


def _split_aux(got, has_aux: bool, label: str, closure: _Closure, where):
    """``(solution, aux)`` from a solver's result, the solution checked against what the closure's
    function takes (a solution is shaped like b, or like the initial guess)."""
    if has_aux:
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise _error(f"{label} must return a pair (solution, aux) with has_aux=True", where)
        sol, aux = got
    else:
        sol, aux = got, None
    leaves, sol_tree = _leaves(sol, f"the solution {label} returned", where)
    want = [str(t) for t in closure.fn.in_types]
    if sol_tree != closure.tree or [str(x.type) for x in leaves] != want:
        raise _error(
            f"{label} must return a solution like its input, {describe(closure.tree)} of {want}; got "
            f"{describe(sol_tree)} of {[str(x.type) for x in leaves]}",
            where,
        )
    return unflatten(closure.tree, leaves), aux


def _neg(nest):
    leaves, tree = flatten(nest)
    return unflatten(tree, [ad_util.scale(x, -1) for x in leaves])


def custom_root(f, initial_guess, solve, tangent_solve, has_aux: bool = False):
    """jax.lax.custom_root: ``solve(f, initial_guess)``, differentiable with respect to the Tensors
    ``f`` closes over by the implicit function theorem (assuming f(solution) = 0).

    ``tangent_solve(g, y)`` solves ``g(x) = y`` for a linear ``g`` shaped like f (for a scalar,
    ``lambda g, y: y / g(1.0)``). With ``has_aux`` ``solve`` returns ``(solution, aux)`` and so
    does this; aux gets no gradient.
    """
    where = user_location()
    leaves, tree = _leaves(initial_guess, "initial_guess", where)
    closure = _Closure(f, leaves, tree, "custom_root's f", where)
    guess = unflatten(tree, [stop_gradient(x) for x in leaves])

    def forward(params):
        return _split_aux(solve(closure.bound(params), guess), has_aux, "custom_root's solve", closure, where)

    def fwd(params):
        sol, aux = forward(params)
        return ((sol, aux) if has_aux else sol), (sol, params)

    def bwd(residuals, ct):
        sol, params = residuals
        ct_sol = ct[0] if has_aux else ct
        _, f_vjp = vjp(closure.bound(params), sol)
        # w solves (df/dx)^T w = ct: tangent_solve on f's linearization, transposed, itself an
        # implicit linear solve (tangent_solve solves any linear map shaped like f, so also its transpose)
        vecmat = lambda v: f_vjp(v)[0]  # noqa: E731
        label = "custom_root's tangent_solve"
        w = _linear_solve(
            vecmat, ct_sol, tangent_solve, tangent_solve, False, False, 1, where, (label, label)
        )
        return (_param_cts(closure, params, sol, _neg(w)),)

    return _implicit(closure, forward, fwd, bwd, has_aux, "custom_root")


def custom_linear_solve(
    matvec, b, solve, transpose_solve=None, symmetric: bool = False, has_aux: bool = False
):
    """jax.lax.custom_linear_solve: ``solve(matvec, b)``, differentiable with respect to ``b`` and
    the Tensors ``matvec`` closes over by the implicit function theorem (assuming
    ``matvec(solution) = b``).

    Gradients solve the transposed system with ``transpose_solve(vecmat, cotangent)`` (``solve``
    itself if ``symmetric``, where vecmat is matvec); without either, taking a gradient fails
    when the program runs, naming this call. With ``has_aux`` the solvers return
    ``(solution, aux)`` and so does this; aux gets no gradient.
    """
    return _linear_solve(matvec, b, solve, transpose_solve, symmetric, has_aux, 0, user_location())


def _linear_solve(
    matvec, b, solve, transpose_solve, symmetric: bool, has_aux: bool, depth: int, where,
    labels=("custom_linear_solve's solve", "custom_linear_solve's transpose_solve"),
):  # fmt: skip
    """custom_linear_solve at nesting ``depth``: a gradient's transposed solve is one again (its
    transpose the original solve) down to MAX_NESTING, so derivatives of that order stay implicit."""
    leaves, tree = _leaves(b, "b", where)
    closure = _Closure(matvec, leaves, tree, "custom_linear_solve's matvec", where)
    t_solve = solve if symmetric else transpose_solve

    def fwd(b, params):
        x, aux = _split_aux(solve(closure.bound(params), b), has_aux, labels[0], closure, where)
        return ((x, aux) if has_aux else x), (x, params)

    def bwd(residuals, ct):
        x, params = residuals
        ct_x = ct[0] if has_aux else ct
        matvec_at = closure.bound(params)
        if t_solve is None:
            debug.assert_(
                asarray(False),
                f"custom_linear_solve called at {where}: its gradient needs transpose_solve= (or "
                "symmetric=True), and got neither",
            )
            ct_b = unflatten(tree, [ad_util.zeros_like(y) for y in flatten(ct_x)[0]])
        else:
            if symmetric:
                vecmat = matvec_at
            else:
                _, mv_vjp = vjp(matvec_at, x)
                vecmat = lambda u: mv_vjp(u)[0]  # noqa: E731
            if depth < MAX_NESTING:
                got = _linear_solve(
                    vecmat, ct_x, t_solve, solve, symmetric, has_aux, depth + 1, where, labels[::-1]
                )
            else:  # the last level: a further derivative follows the transposed solve's own ops
                got = t_solve(vecmat, ct_x)
            ct_b, _ = _split_aux(got, has_aux, labels[1], closure, where)
        return ct_b, _param_cts(closure, params, x, _neg(ct_b))

    fn = custom_vjp(lambda b, params: fwd(b, params)[0])
    fn.defvjp(fwd, bwd)
    return fn(unflatten(tree, leaves), closure.captures)


def _param_cts(closure, params, x, ct) -> list:
    """The cotangents of the closed-over Tensors ``params`` from ``ct`` on ``fn(x)`` (their
    vjp at fixed x); None for integer and bool ones."""
    live = [i for i, p in enumerate(params) if ad_util.is_differentiable(p)]
    if not live:
        return [None] * len(params)

    def at(chosen):
        values = list(params)
        for i, v in zip(live, chosen):
            values[i] = v
        return closure.bound(values)(x)

    _, p_vjp = vjp(at, [params[i] for i in live])
    out: list = [None] * len(params)
    for i, g in zip(live, p_vjp(ct)[0]):
        out[i] = g
    return out


def _implicit(closure, forward, fwd, bwd, has_aux: bool, name: str):
    """The solve as a custom_vjp call of the Tensors the closure reads; with none, nothing has a
    gradient, so the solution is a constant for derivatives."""
    if not closure.captures:
        sol, aux = forward([])
        leaves, tree = flatten(sol)
        sol = unflatten(tree, [stop_gradient(x) for x in leaves])
        return (sol, aux) if has_aux else sol
    fn = custom_vjp(lambda params: fwd(params)[0])
    fn.__name__ = name
    fn.defvjp(fwd, bwd)
    return fn(closure.captures)


late_bound.provide("lax.custom_root", custom_root)  # sg.lax.custom_root (ops/lax.py's __getattr__)
late_bound.provide("lax.custom_linear_solve", custom_linear_solve)

__all__ = ["custom_linear_solve", "custom_root"]
