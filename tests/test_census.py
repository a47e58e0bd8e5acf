"""The census of jax 0.10.2's public API, namespace by namespace: every public callable of each jax
namespace must exist (callable) in stablegraph's, or have a reason written beside it here.

REASONS holds the names stablegraph leaves out on purpose, each with why. OPEN holds the names
still missing that stablegraph means to have (found, not built yet), so the list can only
shrink: a name in OPEN that exists now fails too (move it out), as does a stale entry in either
(a name jax does not have). test_counts prints have/total per namespace for the issues' notes.
"""

import importlib
import types

import jax
import jax.scipy.stats
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

# namespace -> (jax module, stablegraph object path from `sg`)
NAMESPACES = {
    "numpy": ("jax.numpy", "numpy"),
    "numpy.linalg": ("jax.numpy.linalg", "numpy.linalg"),
    "numpy.fft": ("jax.numpy.fft", "numpy.fft"),
    "lax": ("jax.lax", "lax"),
    "lax.linalg": ("jax.lax.linalg", "lax.linalg"),
    "random": ("jax.random", "random"),
    "nn": ("jax.nn", "nn"),
    "nn.initializers": ("jax.nn.initializers", "nn.initializers"),
    "scipy.linalg": ("jax.scipy.linalg", "scipy.linalg"),
    "scipy.special": ("jax.scipy.special", "scipy.special"),
    "scipy.stats": ("jax.scipy.stats", "scipy.stats"),
    "scipy.signal": ("jax.scipy.signal", "scipy.signal"),
    "scipy.fft": ("jax.scipy.fft", "scipy.fft"),
    "scipy.integrate": ("jax.scipy.integrate", "scipy.integrate"),
    "scipy.interpolate": ("jax.scipy.interpolate", "scipy.interpolate"),
    "scipy.ndimage": ("jax.scipy.ndimage", "scipy.ndimage"),
    "scipy.cluster.vq": ("jax.scipy.cluster.vq", "scipy.cluster.vq"),
    "scipy.spatial.transform": ("jax.scipy.spatial.transform", "scipy.spatial.transform"),
    "scipy.optimize": ("jax.scipy.optimize", "scipy.optimize"),
    "scipy.sparse.linalg": ("jax.scipy.sparse.linalg", "scipy.sparse.linalg"),
}
# jax.scipy.stats' distributions are modules of functions: each is a namespace of its own
NAMESPACES.update(
    {
        f"scipy.stats.{name}": (f"jax.scipy.stats.{name}", f"scipy.stats.{name}")
        for name in dir(jax.scipy.stats)
        if isinstance(getattr(jax.scipy.stats, name), types.ModuleType)
    }
)

_SMALL_TYPES = (
    "element type outside stablegraph's dtype set (graph/dtypes.py: bool, (u)int8-64, bfloat16, float16-64, "
    "complex64/128 and the float8 formats e4m3fn, e5m2, e4m3fnuz, e5m2fnuz)"
)
REASONS = {
    "numpy": {
        **dict.fromkeys(
            (
                "float4_e2m1fn",
                "float6_e2m3fn",
                "float6_e3m2fn",
                "float8_e3m4",
                "float8_e4m3",
                "float8_e4m3b11fnuz",
                "float8_e8m0fnu",
                "int1",
                "int2",
                "int4",
                "uint1",
                "uint2",
                "uint4",
            ),
            _SMALL_TYPES,
        ),  # fmt: skip
        "fromfile": "jax.numpy.fromfile only raises NotImplementedError (reading a file while tracing is "
        "not pure); sg.numpy.load reads files into constants",
    },
    "lax": {
        "create_token": "stablegraph has no token values: effects are ordered by the Session (sg.debug's "
        "ordered=True), not by threading tokens through the user's code",
        "after_all": "no token values (see create_token)",
        "psend": "sends along a compiler token that precv waits on: stablegraph has no token values (see "
        "create_token), and jax 0.10.2 cannot run the pair on the CPU either (its lowering fails on the token)",
        "precv": "receives after a psend's token (see psend); ppermute does the same exchange without tokens",
    },
}
OPEN: dict[str, set[str]] = {}  # every name jax has is built or has its reason in REASONS


def _ours(path: str):
    obj = sg
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _census(namespace: str) -> tuple[list[str], list[str]]:
    """(jax's public callables of ``namespace``, those stablegraph lacks)."""
    module, path = NAMESPACES[namespace]
    theirs = importlib.import_module(module)
    names = sorted(n for n in dir(theirs) if not n.startswith("_") and callable(getattr(theirs, n)))
    ours = _ours(path)
    missing = [n for n in names if ours is None or not _usable(getattr(ours, n, None))]
    return names, missing


def _usable(obj) -> bool:
    """A callable, or a type alias (jax's are typing objects, which call; ``X | Y`` unions do not)."""
    return callable(obj) or isinstance(obj, types.UnionType | types.GenericAlias)


CENSUS = {ns: _census(ns) for ns in NAMESPACES}


@pytest.mark.parametrize("namespace", sorted(NAMESPACES))
def test_every_missing_name_has_a_reason_or_is_open(namespace):
    names, missing = CENSUS[namespace]
    unexplained = sorted(set(missing) - set(REASONS.get(namespace, {})) - OPEN.get(namespace, set()))
    assert not unexplained, f"sg.{NAMESPACES[namespace][1]} lacks {unexplained}: build them or say why here"
    built = sorted(OPEN.get(namespace, set()) - set(missing))
    assert not built, f"listed OPEN but present now, remove them from OPEN: {built}"
    explained = sorted(set(REASONS.get(namespace, {})) - set(missing))
    assert not explained, f"listed in REASONS but present now, remove them: {explained}"
    stale = sorted((set(REASONS.get(namespace, {})) | OPEN.get(namespace, set())) - set(names))
    assert not stale, f"not public callables of {NAMESPACES[namespace][0]}: {stale}"


def test_the_listings_name_known_namespaces():
    assert set(REASONS) | set(OPEN) <= set(NAMESPACES)


def test_counts(capsys):
    with capsys.disabled():
        print("\njax 0.10.2 census (have / jax's public callables; open = still to build):")
        for namespace, (names, missing) in CENSUS.items():
            if missing or not namespace.startswith("scipy.stats."):  # complete distributions: one line
                have, still = len(names) - len(missing), len(OPEN.get(namespace, ()))
                print(f"  {namespace}: {have} / {len(names)}, open {still}")
        dists = [ns for ns in CENSUS if ns.startswith("scipy.stats.") and not CENSUS[ns][1]]
        print(f"  scipy.stats: {len(dists)} distributions with every method jax has")


def test_dtype_names_are_dtypes_callable_like_numpys_scalar_types():
    assert snp.float32 is snp.dtype(np.float32) and snp.int8.np == np.int8
    assert snp.single is snp.float32 and snp.double is snp.float64 and snp.int_ is snp.int64
    value = snp.float32(3.0)
    assert value == np.float32(3.0) and type(value) is np.float32
    assert snp.int8([1, 2]).dtype == np.int8 and snp.bfloat16(1.5) == 1.5
    assert snp.issubdtype(snp.float32, snp.floating) and not snp.issubdtype(snp.int32, snp.inexact)
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32)
        assert snp.int32(x).dtype is sg.int32
        assert isinstance(x, snp.ndarray) and "placeholder" in snp.array_repr(x)
    assert snp.array_str(np.arange(3)) == np.array_str(np.arange(3))
    assert (snp.pi, snp.e, snp.inf) == (np.pi, np.e, np.inf) and np.isnan(snp.nan) and snp.newaxis is None
    assert snp.euler_gamma == np.euler_gamma
