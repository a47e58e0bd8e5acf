"""Making an sg.Exported from a Session's graph: ``sess.export(fetches, feeds)`` (backend).

The fetches are extracted as a Function of the feeds (as a run's program
is, sg.simplify'd), then once more so that every state the program reads
(its Variables, the Session's random seed) becomes a parameter too: the
export's variables, whose values are taken from the Session now. That
Function is lowered to StableHLO (export_program.py: symbolic dims kept as
dynamic dims, with its vectorized form and, for ``vjp=True``, its backward
program), which is what an Exported keeps, saves and runs. Host callbacks
(Python functions) cannot leave the process: a program that calls one is
refused, naming the nodes; so are custom calls outside a stable list.
"""

from __future__ import annotations

import re

from ..graph import GraphError, StablegraphError, Tensor, extract, located, user_location
from ..graph.printing import held_functions
from ..graph.structural import sharding_of
from ..transforms import simplify
from . import feeds as feeding
from .export_program import program_call
from .exported import Exported, Port, Signature
from .planning import SEED

# custom-call targets a program may hold and stay portable: the LAPACK / cuSOLVER / cuBLAS kernels
# jaxlib ships (their ABI is kept stable across versions) and the partitioner's markers
STABLE_TARGETS = ("lapack_", "cusolver_", "cublas", "hipsolver_", "hipblas", "cu_threefry", "hip_threefry")
STABLE_NAMES = frozenset(
    {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "annotate_device_placement"}
)
_TARGET = re.compile(r'custom_call @([\w.$-]+)|call_target_name = "([^"]+)"')
SEED_NAME = "rng_seed"  # the export's name for the Session's random seed, when the program draws


def from_session(sess, fetches, feeds, *, include_variables: bool, vjp: bool, state_values) -> Exported:
    """The Exported of ``fetches`` as a function of ``feeds`` in ``sess`` (see Session.export);
    ``state_values(names)`` gives the Session's current values of state slots."""
    where = user_location()
    graph = sess.graph
    outputs = _named(graph, fetches, "fetches", where)
    inputs = _named(graph, feeds, "feeds", where)
    train = [t for _, t in outputs if "group" in t.op.traits]
    if train:
        raise GraphError(
            located(
                f"export: {train[0].name} is a train op (it has no value); export what computes values", where
            )
        )
    effects = _effects_run_with(graph, [t for _, t in outputs], [t for _, t in inputs])
    fn = simplify(extract(graph, [t for _, t in outputs], [t for _, t in inputs], name="exported"))
    refuse_callbacks([*effects, *fn.graph.nodes], where)
    reads = [n for n in fn.graph.nodes if "reads_state" in n.op.traits]
    fn = simplify(extract(fn.graph, fn.results, [*fn.params, *(n.output for n in reads)], name="exported"))
    slots = [SEED if "seed" in n.op.traits else n.attrs.var for n in reads]
    values = dict(zip(slots, state_values(slots))) if slots else {}
    state = [
        Port(SEED_NAME if slot == SEED else slot, n.output.type, getattr(n.attrs, "sharding", None))
        for slot, n in zip(slots, reads)
    ]
    values = {p.name: values[slot] for p, slot in zip(state, slots)}
    in_ports = [Port(name, t.type, sharding_of(t.node)) for name, t in inputs]
    if not include_variables:
        in_ports, state, values = in_ports + state, [], {}
    mesh = dict(sess.mesh.shape) if sess.mesh is not None else None
    out_specs = [_output_spec(sess, t) for _, t in outputs]
    names = [name for name, _ in outputs]
    return build(fn, in_ports, state, values, names, mesh, vjp, type(sess), out_specs, where=where)


def build(fn, in_ports, state, values, out_names, mesh, vjp, session_class, out_specs=None, name="exported",
          where=None) -> Exported:  # fmt: skip
    """An Exported of ``fn`` (params: the inputs, then the state), its program lowered to StableHLO;
    a GraphError at ``where`` when it holds a custom call outside the stable list."""
    where = where or user_location()
    call = program_call(fn, name, vjp=vjp, where=where, session_class=session_class, shared=len(state))
    refuse_unstable_custom_calls(call, where)
    out_specs = out_specs or [None] * len(fn.out_types)
    out_ports = tuple(Port(n, t, spec) for n, t, spec in zip(out_names, fn.out_types, out_specs))
    signature = Signature(tuple(in_ports), out_ports, mesh)
    return Exported(signature, tuple(state), values, call, vjp=vjp, session_class=session_class, name=name)


def _output_spec(sess, t) -> tuple | None:
    """How a fetch lies on the Session's mesh, as a spec: declared, or as a compiled run laid it
    out; None without a mesh or before any run fetched it (XLA's choice, not recorded)."""
    try:
        named = sess.sharding_of(t)
    except StablegraphError:
        return None
    return None if named is None else tuple(named.spec)


def _effects_run_with(graph, fetches, feeds) -> list:
    """The effects (prints, callbacks) a run of ``fetches`` would run: those reading a value it
    computes or is fed (they have no outputs, so extracting the fetches alone would drop them)."""
    computed = set(graph.ancestors(fetches, stop=feeds))
    fed = set(feeds)
    return [
        n for n in graph.nodes
        if "effect" in n.op.traits and any(t.node in computed or t in fed for t in n.inputs)
    ]  # fmt: skip


def refuse_callbacks(nodes, where) -> None:
    """A GraphError naming the nodes (in bodies too) that call Python: an export cannot hold them."""
    found, pending = [], list(nodes)
    while pending:
        node = pending.pop()
        if "host_callback" in node.op.traits:
            found.append(node)
        pending.extend(n for f in held_functions(node) for n in f.graph.nodes)
    if found:
        names = ", ".join(f"{n.name} ({n.op.name}, {n.location})" for n in found)
        raise GraphError(
            located(
                f"export refuses programs with host callbacks (Python functions run by the program cannot be "
                f"saved or run elsewhere): {names}",
                where,
            )
        )


def refuse_unstable_custom_calls(call, where) -> None:
    """A GraphError naming the custom-call targets outside the stable list (STABLE_TARGETS) in the
    exported modules (``call``: module_call attributes, with the programs exported beside it)."""
    targets, pending = set(), [call]
    while pending:
        attrs = pending.pop()
        targets |= {a or b for a, b in _TARGET.findall(attrs.module)}
        pending.extend(c for c in (attrs.vjp_call, attrs.batched_call) if c is not None)
    unstable = sorted(t for t in targets if not t.startswith(STABLE_TARGETS) and t not in STABLE_NAMES)
    if unstable:
        raise GraphError(
            located(
                f"export refuses custom calls outside the stable list (LAPACK, cuSOLVER, ...): {', '.join(unstable)} "
                "(a kernel registered in this process need not exist where the export runs)",
                where,
            )
        )


def _named(graph, spec, what: str, where) -> list[tuple[str, Tensor]]:
    """(name, Tensor) pairs of a dict {name: tensor or tensor name}, a list of them, or one."""
    if spec is None:
        return []
    if isinstance(spec, dict):
        items = [(str(k), feeding.resolve(graph, v)) for k, v in spec.items()]
    else:
        leaves = [spec] if isinstance(spec, Tensor | str) else list(spec)
        items = [(_short(t), t) for t in (feeding.resolve(graph, v) for v in leaves)]
    names = [n for n, _ in items]
    if len(set(names)) < len(names):
        raise GraphError(
            located(f"export: the {what} have repeated names {names}: name them with a dict", where)
        )
    return items


def _short(t: Tensor) -> str:
    return t.name.rsplit("/", 1)[-1].replace(":", "_")
