"""What ``import stablegraph`` loads in a fresh process: nothing a first result does not need
(graphviz, networkx, tensorboard, jax, jaxlib's MLIR bindings: a program from the plan store
is not lowered), and no pydantic schema of an op's attributes before a
node of that op is built (they are deferred: ~65 schemas cost a warm process a tenth of its
time to its first result), built without pydantic's plugin lookup (graph/internal_model.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import gc
    import sys
    threshold = gc.get_threshold()
    import stablegraph as sg
    print("GC", gc.get_threshold() == threshold)
    from stablegraph.graph.opdef import all_ops
    heavy = ("graphviz", "networkx", "tensorboard", "jax", "tensorflow", "jaxlib.mlir.ir")
    heavy = sorted(m for m in heavy if m in sys.modules)
    ops = all_ops()
    built_before = sorted(n for n, op in ops.items() if op.attrs.__pydantic_complete__)
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32, name="x")
        y = sg.numpy.transpose(x)
    print("HEAVY", heavy)
    print("BUILT", len(built_before), len(ops), ops["transpose"].attrs.__pydantic_complete__)
    print("DRAW", type(sg.draw(g)).__name__, "graphviz" in sys.modules)
    with sg.Session(g) as sess:
        out = sess.run(y, {x: [[0.0, -0.0, 1.0], [2.0, float("inf"), -3.0]]})
    print("RUN", out.ravel().tolist(), "jaxlib.mlir.ir" in sys.modules)
    g2 = sg.Graph.from_json(g.to_json())
    loaded = sorted(m for m in ("pydantic.plugin._loader", "importlib.metadata") if m in sys.modules)
    print("LOADER", loaded)  # the library's builds used the stand-in loader, which is gone again
    from pydantic.plugin import _loader
    print("PLUGINS", _loader._plugins is not None)  # the library's models never looked for them
    from pydantic import BaseModel
    class UsersModel(BaseModel):
        size: int
    print("USER", UsersModel(size="3").size, _loader._plugins is not None)  # a user's model still looks
    with g:
        z = sg.numpy.cumsum(x, axis=1)  # a library model built with the real loader loaded
    print("LATER", sys.modules["pydantic.plugin._loader"] is _loader, g.node(z.node.name).attrs.axis)
    """
)


def test_import_loads_only_what_a_first_result_needs():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["HEAVY"] == "[]"
    assert lines["GC"] == "True"  # the collector's threshold, raised while importing, is put back
    built, total, transpose = lines["BUILT"].split()
    assert int(total) > 100 and int(built) == 0
    assert transpose == "True"  # built for the first transpose node
    assert lines["DRAW"] == "Digraph True"  # drawing still works: graphviz comes when asked
    assert lines["RUN"] == "[0.0, 2.0, -0.0, inf, 1.0, -3.0] True"  # lowering loads jaxlib's MLIR
    assert lines["LOADER"] == "[]"
    assert lines["PLUGINS"] == "False"  # pydantic's plugin lookup waits for a model of the user's
    assert lines["USER"] == "3 True"
    assert lines["LATER"] == "True 1"


WANTING_SCRIPT = textwrap.dedent(
    """
    import sys, types
    import stablegraph as sg
    from stablegraph.graph import internal_model
    internal_model._STAND_IN = types.ModuleType("pydantic.plugin._loader")  # a pydantic wanting more of it
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32, name="x")
        y = sg.numpy.transpose(x)
    print("BUILT", y.shape, type(sys.modules["pydantic.plugin._loader"]).__name__,
          sys.modules["pydantic.plugin._loader"] is not internal_model._STAND_IN)
    """
)


def test_a_pydantic_that_wants_more_of_the_loader_builds_the_usual_way():
    done = subprocess.run([sys.executable, "-c", WANTING_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["BUILT", "(3,", "2)", "module", "True"]  # the real loader did it


LAZY_SCRIPT = textwrap.dedent(
    """
    import gc
    import sys
    import numpy as np
    import stablegraph as sg
    lazy = ("stablegraph.ops.scipy_like.stats", "stablegraph.ops.scipy_like.signal",
            "stablegraph.ops.scipy_like.linalg", "stablegraph.ops.scipy_like.cluster", "stablegraph.data",
            "stablegraph.summary", "stablegraph.viz", "stablegraph.test_util", "stablegraph.train.loop",
            "stablegraph.backend.jax_interop", "stablegraph.backend.exported", "stablegraph.backend.exporting",
            "stablegraph.backend.loading", "flatbuffers", "stablegraph.ops.scipy_like.special",
            "stablegraph.ops.lax", "stablegraph.ops.numpy_like.linalg", "stablegraph.ops.numpy_like.fft",
            "stablegraph.backend.ffi", "stablegraph.backend.nonfinite", "stablegraph.backend.profiling",
            "socket", "html", "zipfile", "tempfile", "importlib.abc",  # (for multi-process runs, displays,
            # checkpoints, cache writes, the scipy aliases: each loads where it is used)
            "importlib.metadata")  # (pydantic's plugin lookup, made when a first schema is built)
    print("LOADED", sorted(m for m in lazy if m in sys.modules))
    import scipy.special  # the oracle (it loads importlib.metadata itself)
    print("FROZEN", gc.get_freeze_count() > 10_000)
    first_use = ("data", "summary", "viz", "draw", "test_util", "from_jax", "import_jax_exported", "Exported",
                 "ExportError", "export", "load_exported", "ffi")
    print("DIR", all(n in dir(sg) for n in first_use), all(n in dir(sg.scipy) for n in sg.scipy.__all__),
          "Loop" in dir(sg.train))
    import stablegraph.scipy.signal as signal
    import stablegraph.scipy.cluster.vq as vq
    from stablegraph.scipy import linalg
    from stablegraph.scipy.stats import norm
    real = sys.modules
    print("SAME", signal is sg.scipy.signal is real["stablegraph.ops.scipy_like.signal"],
          vq is real["stablegraph.ops.scipy_like.cluster.vq"] is real["stablegraph.scipy.cluster.vq"],
          linalg is sg.scipy.linalg, norm is sg.scipy.stats.norm, signal.__name__)
    print("NAMES", sg.data.Dataset.__name__, sg.train.Loop.__name__, sg.train.EarlyStopping.__name__,
          sg.draw.__name__, sg.from_jax.__name__, sg.test_util.run_graph.__name__, sg.Exported.__name__,
          sg.ExportError.__name__, sg.export.__name__, sg.load_exported.__name__, sg.backend.Signature.__name__,
          sg.ffi.register.__name__)
    print("NN", sg.nn.logsumexp is sg.scipy.special.logsumexp, "logsumexp" in dir(sg.nn))
    for owner in (sg, sg.scipy, sg.train, sg.backend, sg.nn):
        try:
            owner.no_such_name
        except AttributeError as e:
            print("MISSING", owner.__name__, "no_such_name" in str(e))
    a_in = np.array([1e-3, 0.25, 0.5, 3.0, 0.3, 2.0, 0.7])
    x_in = np.array([0.5, 1e-3, 0.0, np.inf, np.nan, 2.0, 0.7])
    g = sg.Graph()
    with g:
        a = sg.placeholder((7,), sg.float64, name="a")
        x = sg.placeholder((7,), sg.float64, name="x")
        upper = sg.scipy.special.gammaincc(a, x)
        lg = sg.scipy.special.gammaln(sg.numpy.concatenate([a, sg.numpy.zeros((1,), sg.float64)]))
    with sg.Session(g) as sess:
        got = sess.run([upper, lg], {a: a_in, x: x_in})
    want = [scipy.special.gammaincc(a_in, x_in), scipy.special.gammaln(np.append(a_in, 0.0))]
    print("VALUES", all(np.allclose(g_, w, rtol=1e-12, atol=0, equal_nan=True) for g_, w in zip(got, want)))
    import stablegraph.lax as lax
    from stablegraph.numpy import fft, linalg
    print("LATER", lax is sg.lax is real["stablegraph.ops.lax"], sg.lax.custom_root.__module__,
          "custom_linear_solve" in dir(sg.lax), fft is sg.numpy.fft, linalg.svd is sg.numpy.linalg.svd)
    import importlib, pkgutil
    from stablegraph.graph.opdef import all_ops
    registered = set(all_ops())
    for module in pkgutil.walk_packages(sg.ops.__path__, "stablegraph.ops."):
        importlib.import_module(module.name)
    print("OPS", len(registered) > 100, sorted(set(all_ops()) - registered))  # every OpDef at import
    """
)


def test_namespaces_load_on_first_use_as_one_module_each():
    """sg.scipy's namespaces, sg.data, sg.summary, sg.viz, sg.test_util, sg.train.Loop and the jax
    interop, sg.ffi and the NaN search and profiler are not loaded by ``import stablegraph``, then load on first use as the very modules an
    eager import gave (``import stablegraph.scipy.signal`` included); the import's objects are frozen
    for the collector; values through a lazily loaded namespace (the incomplete gamma, gammaln)
    match scipy at 0, inf and nan."""
    done = subprocess.run([sys.executable, "-c", LAZY_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = {}
    for line in done.stdout.splitlines():
        key, rest = line.split(" ", 1)
        lines.setdefault(key, []).append(rest)
    assert lines["LOADED"] == ["[]"]
    assert lines["FROZEN"] == ["True"]
    assert lines["DIR"] == ["True True True"]
    assert lines["SAME"] == ["True True True True stablegraph.ops.scipy_like.signal"]
    names = "Dataset Loop EarlyStopping draw from_jax run_graph Exported ExportError export load_exported Signature register"
    assert lines["NAMES"] == [names]
    assert lines["MISSING"] == [
        "stablegraph True",
        "stablegraph.ops.scipy_like True",
        "stablegraph.train True",
        "stablegraph.backend True",
        "stablegraph.ops.nn True",
    ]
    assert lines["NN"] == ["True True"]
    assert lines["VALUES"] == ["True"]
    assert lines["LATER"] == ["True stablegraph.train.lax_solvers True True True"]
    assert lines["OPS"] == ["True []"]  # a graph naming any op loads without its namespace
