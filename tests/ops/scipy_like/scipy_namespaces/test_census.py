"""Census of issue 26's jax.scipy namespaces: every public callable of jax 0.10.2's signal, fft,
integrate, interpolate, ndimage, cluster.vq and spatial.transform is in sg.scipy (or listed in
MISSING with its reason), importable as a module, with jax's parameters in jax's order (sg may add
scipy's trailing ones) and, for the classes, jax's public methods."""

from __future__ import annotations

import importlib
import inspect

import pytest

import stablegraph as sg

NAMESPACES = ("signal", "fft", "integrate", "interpolate", "ndimage", "cluster.vq", "spatial.transform")
# name -> why sg.scipy lacks it (none today: every callable of these namespaces is there)
MISSING: dict[str, str] = {}


def _public_callables(module) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n)))


def _pairs():
    for ns in NAMESPACES:
        theirs = importlib.import_module(f"jax.scipy.{ns}")
        ours = importlib.import_module(f"stablegraph.scipy.{ns}")
        for name in _public_callables(theirs):
            yield ns, name, getattr(theirs, name), getattr(ours, name, None)


def test_every_callable_is_there_or_has_a_reason():
    counts, missing = {}, []
    for ns, name, _, mine in _pairs():
        have, total = counts.get(ns, (0, 0))
        counts[ns] = (have + (mine is not None), total + 1)
        if mine is None and f"{ns}.{name}" not in MISSING:
            missing.append(f"{ns}.{name}")
    assert not missing, f"sg.scipy lacks {missing} (counts have/jax: {counts})"
    assert counts == {"signal": (10, 10), "fft": (4, 4), "integrate": (1, 1), "interpolate": (1, 1),
                      "ndimage": (1, 1), "cluster.vq": (1, 1), "spatial.transform": (2, 2)}  # fmt: skip
    assert set(MISSING) <= {f"{ns}.{n}" for ns, n, _, _ in _pairs()}  # a stale reason would hide nothing


def test_namespaces_are_attributes_and_modules():
    for ns in NAMESPACES:
        module = importlib.import_module(f"stablegraph.scipy.{ns}")
        attr = sg.scipy
        for part in ns.split("."):
            attr = getattr(attr, part)
        assert attr is module, ns


def _parameters(fn) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values() if p.name not in ("self", "cls")]


@pytest.mark.parametrize("ns", NAMESPACES)
def test_signatures_start_with_jaxs(ns):
    for _, name, theirs, mine in (p for p in _pairs() if p[0] == ns):
        if inspect.isclass(theirs):
            if issubclass(theirs, tuple):  # jax's NamedTuples: the same fields
                assert mine._fields == theirs._fields, name
            else:
                assert _parameters(mine.__init__)[: len(_parameters(theirs.__init__))] == _parameters(
                    theirs.__init__
                ), name
            methods = [
                m
                for m in vars(theirs)
                if not m.startswith("_") or m in ("__call__", "__mul__", "__getitem__", "__len__")
            ]
            for m in methods:
                assert hasattr(mine, m), f"{name}.{m}"
                if callable(getattr(theirs, m)) and not isinstance(vars(theirs)[m], property):
                    want = _parameters(getattr(theirs, m))
                    assert _parameters(getattr(mine, m))[: len(want)] == want, f"{name}.{m}"
        else:
            want = _parameters(theirs)
            assert _parameters(mine)[: len(want)] == want, f"{ns}.{name}: {_parameters(mine)} vs jax {want}"


def test_each_function_is_one_line_in_listings():
    g = sg.Graph()
    with g:
        x = sg.placeholder((1024,), sg.float32, name="x")
        sg.scipy.signal.stft(x, nperseg=64)
        sg.scipy.fft.dct(x)
        angles = sg.placeholder((3,), sg.float32, name="angles")
        sg.scipy.spatial.transform.Rotation.from_euler("xyz", angles).as_matrix()
    lines = str(g).splitlines()[1:-1]
    assert [line.split(" : ")[0].strip() for line in lines] == [
        "x = placeholder[shape=(1024,), dtype=float32]()",
        "stft = stft(x)",
        "dct = dct(x)",
        "angles = placeholder[shape=(3,), dtype=float32]()",
        "from_euler = Rotation.from_euler(angles)",
        "as_matrix = Rotation.as_matrix(from_euler)",
    ]
