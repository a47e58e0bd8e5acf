"""A Session's program, variables baked in, as bytes jax.export.deserialize loads (backend).

``session_to_jax(sess, fetches, feeds)`` is the glue between a Session and
jax_format: it plans and lowers the run of ``fetches`` from the feeds'
placeholders (at two distinctive sizes per symbolic dim, made one module
with dynamic dims by jax_format.symbolic_module, so the batch stays jax
shape polymorphism), bakes the variables the program reads in as constants,
and keeps only the fetches' results (state a run writes besides, the random
generator's counter, is left out: each call of the jax function draws the
same numbers): the jax function takes the feeds, in
the order given, and returns the fetches (a dict by name when ``fetches``
is a dict, else a tuple). An Exported's ``to_jax`` can be this call.
"""

from __future__ import annotations

import numpy as np

from ..graph import Function, GraphError, Tensor, dims, located, user_location
from . import feeds as feeding
from .jax_format import SENTINELS, symbolic_module, to_jax_bytes


def session_to_jax(
    sess,
    fetches,
    feeds,
    *,
    include_variables: bool = True,
    platforms=("cpu",),
    function_name: str = "stablegraph",
) -> bytes:
    """jax.export bytes of the program ``sess.run(fetches, ...)`` runs. ``fetches``: a tensor
    (or name), a list of them or a dict by name; ``feeds``: the placeholders the jax function
    takes, a list or a dict by name (their dims that are symbols stay symbolic). With
    ``include_variables`` the variables' current values are constants of the program, else the
    jax function takes them after the feeds (in the order of ``plan.state_in``)."""
    where = user_location()
    names = list(fetches) if isinstance(fetches, dict) else None
    leaves = list(fetches.values()) if isinstance(fetches, dict) else (
        list(fetches) if isinstance(fetches, list | tuple) else [fetches]
    )  # fmt: skip
    fetch_ts = tuple(feeding.resolve(sess.graph, f) for f in leaves)
    placeholders = [
        feeding.resolve(sess.graph, p) for p in (feeds.values() if isinstance(feeds, dict) else feeds)
    ]
    for p in placeholders:
        if not isinstance(p, Tensor) or "feed" not in p.node.op.traits:
            raise GraphError(located(f"to_jax: the feed {p} is not a placeholder", where))
    text, plan, kept = lowered_program(sess, fetch_ts, placeholders, where)
    fed_order = [placeholders[i] for i in kept]
    arg_types = [(tuple(p.type.shape), p.type.dtype.np) for p in fed_order]
    arg_types += list(plan.arg_types[len(fed_order) :])
    baked = {}
    if include_variables and plan.state_in:
        values = sess.get(list(plan.state_in))
        baked = {len(fed_order) + k: np.asarray(v) for k, v in enumerate(values)}
    unused = [p.name for p in placeholders if not any(p is q for q in fed_order)]
    if unused:
        raise GraphError(located(f"to_jax: the fetches do not depend on the feeds {unused}", where))
    slots = list(plan.fetch_slots) if plan.fetch_slots is not None else list(range(len(fetch_ts)))
    result_types = list(plan.out_types)
    for t, slot in zip(fetch_ts, slots):
        if slot is None:
            raise GraphError(located(f"to_jax: the fetch {t.name} has no value to return", where))
        result_types[slot] = (tuple(t.type.shape), t.type.dtype.np)
    return to_jax_bytes(
        text, arg_types, result_types, baked=baked, platforms=platforms, result_names=names,
        function_name=function_name, results=slots,
    )  # fmt: skip


def lowered_program(
    sess, fetch_ts, placeholders, where, who: str = "to_jax", context: str = ""
) -> tuple[str, object, list[int]]:
    """The StableHLO text of the run of ``fetch_ts`` fed ``placeholders`` in ``sess`` (their
    symbolic dims dynamic dims of @main, jax_format.symbolic_module), the run's plan at a sample
    size, and which placeholders @main takes, in order (before the state it reads). ``context``
    goes before the message of an error the lowering itself raises."""
    plans, texts = [], {}

    def lower(sizes: dict) -> str:
        key = tuple(sorted((str(s), n) for s, n in sizes.items()))
        if key in texts:  # the sample below is symbolic_module's first lowering
            return texts[key]
        fed = []
        for p in placeholders:
            shape = tuple(dims.evaluate(d, sizes) for d in p.type.shape)
            fed.append((p, np.broadcast_to(np.zeros((), p.type.dtype.np), shape)))  # no memory
        try:
            plan, text, _ = sess._planned(fetch_ts, sess._convert_feeds(dict(fed)))
        except GraphError as e:
            if not context:
                raise
            raise type(e)(located(f"{context}: {e}", where)) from None
        if plan.trains:
            raise GraphError(
                located(f"{who}: the fetches train (a train op); export what they compute", where)
            )
        plans.append(plan)
        texts[key] = text
        return text

    symbols = list(dict.fromkeys(s for p in placeholders for d in p.type.shape for s in dims.symbols(d)))
    sample = {s: SENTINELS[2 * k] if 2 * k < len(SENTINELS) else 1 for k, s in enumerate(symbols)}
    text = lower(sample)
    plan = plans[0]
    kept = list(plan.arg_positions)
    if symbols:
        arg_types = [(tuple(placeholders[i].type.shape), placeholders[i].type.dtype.np) for i in kept]
        arg_types += list(plan.arg_types[len(kept) :])
        text = symbolic_module(lower, arg_types, who=who, program_dims=program_dims(sess.graph))
    return text, plan, kept


def program_dims(graph) -> set[str]:
    """The symbolic dims of the tensors of ``graph`` and of the Functions its nodes hold (loop
    bodies, vectorized and library-call bodies): the expressions a lowering's sizes may stand for."""
    found: set[str] = set()
    seen: set[int] = set()
    pending = [graph]
    while pending:
        g = pending.pop()
        if id(g) in seen:
            continue
        seen.add(id(g))
        for node in g.nodes:
            found.update(d for t in node.out_types for d in t.shape if isinstance(d, str))
            for key in type(node.attrs).model_fields:
                value = getattr(node.attrs, key)
                held = value if isinstance(value, tuple) else (value,)
                pending.extend(v.graph for v in held if isinstance(v, Function))
    return found


__all__ = ["lowered_program", "session_to_jax"]
