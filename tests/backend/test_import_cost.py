"""What ``import stablegraph`` loads in a fresh process: nothing a first result does not need
(graphviz, networkx, tensorboard, jax, jaxlib's MLIR bindings: a program from the plan store
is not lowered), and no pydantic schema of an op's attributes before a
node of that op is built (they are deferred: ~65 schemas cost a warm process a tenth of its
time to its first result)."""

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
    """
)


def test_import_loads_only_what_a_first_result_needs():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["HEAVY"] == "[]"
    assert lines["GC"] == "True"  # the collector's threshold, raised while importing, is put back
    built, total, transpose = lines["BUILT"].split()
    assert int(total) > 100 and int(built) <= 2  # (module_call rebuilds its model itself at import)
    assert transpose == "True"  # built for the first transpose node
    assert lines["DRAW"] == "Digraph True"  # drawing still works: graphviz comes when asked
    assert lines["RUN"] == "[0.0, 2.0, -0.0, inf, 1.0, -3.0] True"  # lowering loads jaxlib's MLIR
