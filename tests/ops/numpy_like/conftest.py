"""Fixtures of the sg.numpy tests: ``check_table`` compares a table of numpy functions run
both ways (sg.numpy in one graph and one run, numpy as the oracle)."""

import numpy as np
import pytest

from stablegraph import numpy as snp


def _leaves(v):
    return [u for w in v for u in _leaves(w)] if isinstance(v, tuple | list) else [v]


def check_table(run, cases: dict, args, rtol=1e-5, atol=1e-6, fixups=None):
    """Every case ``f(xp, *arrays)`` run with xp=sg.numpy (one graph, one run) against xp=numpy:
    same shapes, close values (NaN where NaN), the same dtype kind."""
    got = run(lambda *ts: [f(snp, *ts) for f in cases.values()], *args)
    for (name, f), g in zip(cases.items(), got):
        for k, (gv, wv) in enumerate(zip(_leaves(g), _leaves(f(np, *args)), strict=True)):
            gv, wv = np.asarray(gv), np.asarray(wv)
            if fixups and name in fixups:
                gv, wv = fixups[name](gv, wv)
            msg = f"{name} (leaf {k}, inputs {[np.asarray(a).dtype.name for a in args]})"
            assert gv.shape == wv.shape, f"{msg}: shape {gv.shape} != {wv.shape}"
            kinds = {gv.dtype.kind, wv.dtype.kind}
            assert len(kinds) == 1 or kinds <= {"i", "u"}, f"{msg}: dtype {gv.dtype} vs {wv.dtype}"
            np.testing.assert_allclose(gv, wv, rtol=rtol, atol=atol, equal_nan=True, err_msg=msg)


@pytest.fixture(name="check_table")
def check_table_fixture():
    """``check_table(run, cases, args, rtol, atol, fixups)``: see check_table above."""
    return check_table
