"""Functions that sg.lax offers but a layer above the ops defines (ops layer).

jax.lax's custom_root and custom_linear_solve transpose the user's functions with sg.vjp
(transforms, above ops), so train/lax_solvers.py defines them and hands them in here when it
loads (``import stablegraph`` loads it); sg.lax, which loads on first use, looks them up when
they are first read, so neither module imports the other. (sg.scipy's gaussian_kde does the
same with sg.random through scipy_like/late_bound.py.)
"""

from __future__ import annotations

from collections.abc import Callable

_PROVIDED: dict[str, Callable] = {}


def provide(name: str, fn: Callable) -> None:
    """Makes ``fn`` what ``name`` (e.g. ``"lax.custom_root"``) is."""
    _PROVIDED[name] = fn


def provided(name: str) -> Callable:
    """The function handed in for ``name``; AttributeError if none was (its layer is not loaded)."""
    if name not in _PROVIDED:
        raise AttributeError(f"{name} needs stablegraph.train.lax_solvers, which was not imported")
    return _PROVIDED[name]


__all__ = ["provide", "provided"]
