"""Functions that sg.scipy's classes call but a layer above them defines.

gaussian_kde.resample draws with sg.random, which sits above sg.scipy: sg.random
hands its function in here when it loads, and the method looks it up when
called, so neither module has to import the other (and importing sg.random
does not load sg.scipy.stats).
"""

from __future__ import annotations

from collections.abc import Callable

_PROVIDED: dict[str, Callable] = {}


def provide(name: str, fn: Callable) -> None:
    """Makes ``fn`` the function that ``name`` (e.g. ``"gaussian_kde.resample"``) calls."""
    _PROVIDED[name] = fn


def provided(name: str) -> Callable:
    """The function handed in for ``name``; sg.random (always loaded by ``import stablegraph``) provides it."""
    if name not in _PROVIDED:
        raise NotImplementedError(f"{name} needs stablegraph.ops.random, which was not imported")
    return _PROVIDED[name]
