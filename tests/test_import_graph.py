"""The package's import graph, every import counted: module level, inside functions and under
TYPE_CHECKING. import-linter (test_layers.py) sees only what Python imports at module level, so a
cycle closed by an import inside a function would pass it; here such an import is an edge like
any other, the graph must have no cycle, and a function-level import of the package's own modules
must be listed below with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "stablegraph"
_NOT_PACKAGE = {"tests", "benchmarks", "notebooks", "examples", "docs", "build", "out"}

# (importer, imported) -> why the import waits for a call
FUNCTION_LEVEL = {
    ("backend.coordinator", "backend.pjrt"): (
        "the coordinator runs as its own process (python -m): process 0 imports the module to "
        "start it and must not load jaxlib for that; only the child's serve() needs pjrt"
    ),
    ("backend.session", "backend.exporting"): (
        "the export modules (StableHLO artifacts, the export file, jax's format) load with the first "
        "sess.export: a process that only trains does not pay their import"
    ),
    ("backend.program", "backend.ffi"): (
        "a compile that failed names an unregistered sg.ffi_call target: sg.ffi (its registry, the C++ "
        "build) loads on first use, and a process whose programs compile never needs it"
    ),
    ("backend.state", "backend.ffi"): (
        "a run that failed names the FFI kernels that could have failed: sg.ffi loads on first use"
    ),
    ("ops.numpy_like.polynomial", "ops.numpy_like.linalg"): (
        "polyfit's lstsq and roots' eigvals: sg.numpy.linalg (decompositions, solvers, norms) loads on "
        "first use, not with import stablegraph"
    ),
    ("train.scipy_sparse_linalg", "ops.lax"): (
        "gmres's Krylov basis updates: sg.lax (~5% of import stablegraph) loads on first use, and "
        "sg.scipy.sparse is loaded with import stablegraph"
    ),
    ("ops.nn.activations", "ops.scipy_like.special"): (
        "gelu(approximate=False) takes erfc from sg.scipy.special, which loads on first use (its "
        "import is ~4% of import stablegraph, and a warm process to its first result does not need it)"
    ),
}


def _module_name(root: Path, path: Path, package: str) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def _imports(tree: ast.AST):
    """(import node, whether it sits inside a function) for every import of a module."""
    stack = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, in_function
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> nx.DiGraph:
    """Modules as nodes; an edge a -> b for each import of b in a, with ``function=True`` when
    every such import sits inside a function."""
    files = [p for p in root.rglob("*.py") if not set(p.relative_to(root).parts) & (_NOT_PACKAGE | {".venv"})]
    files = [p for p in files if not any(part.startswith(".") for part in p.relative_to(root).parts)]
    modules = {_module_name(root, p, package): p for p in files}
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node, in_function in _imports(ast.parse(path.read_text(), str(path))):
            for target in _targets(node, here, modules):
                if target == name:
                    continue
                if graph.has_edge(name, target):
                    graph[name][target]["function"] &= in_function
                else:
                    graph.add_edge(name, target, function=in_function)
    return graph


def _targets(node, here: str, modules: dict) -> list[str]:
    """The package's deepest modules an import names (``from a import b``: the submodule a.b if
    there is one, else a)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            up = here.split(".")[: len(here.split(".")) - (node.level - 1)]
            base = ".".join(up + ([base] if base else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    found = []
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name:
            found.append(name)
    return found


def cycles(graph: nx.DiGraph, package: str = PACKAGE) -> list[list[str]]:
    """Each set of modules that import one another round, as names inside the package."""
    short = len(package) + 1
    return [sorted(m[short:] for m in c) for c in nx.strongly_connected_components(graph) if len(c) > 1]


def function_level(graph: nx.DiGraph, package: str = PACKAGE) -> set[tuple[str, str]]:
    """The (importer, imported) pairs whose every import sits inside a function."""
    short = len(package) + 1
    return {(a[short:], b[short:]) for a, b, d in graph.edges(data=True) if d["function"]}


def test_no_module_imports_itself_back():
    found = cycles(import_graph())
    assert not found, f"import cycles (function-level imports included): {found}"


def test_function_level_imports_are_the_listed_ones():
    found = function_level(import_graph())
    unlisted = sorted(found - set(FUNCTION_LEVEL))
    stale = sorted(set(FUNCTION_LEVEL) - found)
    assert not unlisted, f"import these at module level (or list them with a reason): {unlisted}"
    assert not stale, f"these listed function-level imports are gone, remove them: {stale}"


def test_the_check_sees_a_cycle_closed_inside_a_function(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from .. import a\n    return a\n")
    (package / "sub" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n"
    )
    graph = import_graph(package, "pkg")
    assert cycles(graph, "pkg") == [["a", "sub.b"]]
    assert function_level(graph, "pkg") == {("sub.b", "a")}
    assert graph.has_edge("pkg.sub.c", "pkg.sub.b")
