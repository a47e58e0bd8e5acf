"""In which order a Session initializes variables whose initial values read other variables (backend).

``sg.Variable(a * 2 + 1)`` starts from ``a``'s initial value (TF1's
``a.initialized_value()``, which TF1 users had to spell out): one program
cannot write ``a`` and read it for ``twice``, so ``initialization_stages``
splits the variables to initialize into stages, each reading only variables
that already have a value or that an earlier stage sets. A variable an
initializer reads that has no value yet (and was not asked for) is
initialized too, in an earlier stage.
"""

from __future__ import annotations

from ..graph import GraphError, located


def initialization_stages(todo: list, variables: list, has_value) -> list[list]:
    """``todo`` (Variable tensors), plus the value-less variables their initializers read, as a
    list of stages: each stage's initializers read only variables that have a value before it.
    ``variables``: every variable of the graph; ``has_value(name)``: whether the Session holds one."""
    by_name = {v.var_name: v for v in variables}
    pending = {v.var_name: v for v in todo}
    reads: dict[str, set[str]] = {}
    queue = list(pending.values())
    while queue:
        v = queue.pop()
        reads[v.var_name] = found = variables_read(v.initial_value)
        for name in found:
            if name not in pending and name in by_name and not has_value(name):
                if by_name[name].initial_value is None:
                    raise GraphError(located(
                        f"the initial value of variable {v.var_name} reads variable {name}, which has no value "
                        "yet and no initializer: set it first", v.node.location))  # fmt: skip
                pending[name] = by_name[name]
                queue.append(by_name[name])
    stages = []
    while pending:
        ready = [v for name, v in pending.items() if not (reads[name] - {name}) & pending.keys()]
        if not ready:
            names = sorted(pending)
            raise GraphError(located(
                f"the initial values of the variables {names} read each other: none can be initialized first",
                pending[names[0]].node.location))  # fmt: skip
        stages.append(ready)
        for v in ready:
            del pending[v.var_name]
    return stages


def variables_read(tensor) -> set[str]:
    """The names of the variables whose values ``tensor`` is computed from (not the seed)."""
    found: set[str] = set()
    seen: set[int] = set()
    stack = [tensor.node]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if "reads_state" in node.op.traits and "seed" not in node.op.traits:
            found.add(node.attrs.var)
        stack.extend(t.node for t in node.inputs)
    return found


__all__ = ["initialization_stages", "variables_read"]
