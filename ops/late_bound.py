"""Functions the ops offer but a layer above them defines (ops layer).

jax.lax's custom_root and custom_linear_solve transpose the user's functions with sg.vjp
(transforms, above ops), so train/lax_solvers.py defines them and hands them in here when it
loads; sg.lax, which loads on first use, looks them up when they are first read. In the same
way gaussian_kde.resample draws with sg.random, which sits above sg.scipy: ops/random hands its
function in. Neither side imports the other (``import stablegraph`` loads both providers).
"""

from __future__ import annotations

from collections.abc import Callable

_PROVIDED: dict[str, Callable] = {}


def provide(name: str, fn: Callable) -> None:
    """Makes ``fn`` what ``name`` (e.g. ``"lax.custom_root"``) is."""
    _PROVIDED[name] = fn


def provided(name: str, provider: str) -> Callable:
    """The function handed in for ``name``; AttributeError naming ``provider`` (the module that
    hands it in) if none was: that module is not loaded."""
    if name not in _PROVIDED:
        raise AttributeError(f"{name} needs {provider}, which was not imported")
    return _PROVIDED[name]


__all__ = ["provide", "provided"]
