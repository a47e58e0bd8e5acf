"""What ``sess.make_callable(fetches, feed_list)`` gives: a step whose repeat calls are jaxlib's dispatch (backend).

Everything that can be settled once is settled when the step is made or at
its first call: the fetches and feeds are resolved, the program is found
(``Session.run``), and when that program is a lone executable call (no
variables, every feed an argument, every result a fetch: see
``Repeat.direct``) the step keeps that executable's strict C++ dispatcher
and the shape of its results. A later call is then one Python frame around
the dispatcher: jaxlib compares the arguments' types with the program's in
C++, and only a miss (another shape or dtype, a Python scalar, a wrong
number of values) comes back to Python, where the general path converts and
checks the feeds as ``run`` does (typed FeedErrors at the user's line) or
finds the program of the new shapes.
"""

from __future__ import annotations

import sys

import numpy as np

from ..graph import FeedError
from . import pjrt
from .program import MISSED, Repeat
from .state import raise_failed_run

_OBJECT = np.dtype(object)  # what numpy makes of a result whose run failed on the device
_modules = sys.modules


class StepCallable:
    """``step(*values)`` runs the fetches with the feeds in ``feed_list`` order.

    After a run it holds the run's Repeat; when the Repeat's program allows
    the lean call and the feeds went in as given (numpy arrays of the
    program's dtypes and shapes), it also holds the executable's strict
    dispatcher (``strict``) and calls it directly. A call with other shapes
    goes through ``Session.run`` and takes that shape's Repeat.
    """

    __slots__ = ("session", "fetches", "feeds", "repeat", "strict", "_form", "_x64")

    def __init__(self, session, fetches, feeds: tuple):
        self.session, self.fetches, self.feeds = session, fetches, feeds
        self.repeat: Repeat | None = None
        self.strict = None  # the executable's dispatcher, while the lean call applies
        self._form = None  # the results' shape: None (one), list, tuple, or a dict's keys
        self._x64 = None  # jax's x64 flag, once jax is loaded

    def __call__(self, *values):
        strict = self.strict
        session = self.session
        if strict is not None and not session._closed and not session.check_numerics:
            x64 = self._x64
            if x64 is None:
                config = _modules.get("jax._src.config")
                if config is not None:
                    x64 = self._x64 = config.enable_x64
            try:
                # jax's x64 flag on for the call (see pjrt.Executable.direct): a 64-bit feed misses
                # instead of being cast to the program's 32-bit type
                if x64 is None:
                    results = strict(*values)
                else:
                    old = x64.swap_local(True)
                    try:
                        results = strict(*values)
                    finally:
                        x64.set_local(old)
                form = self._form
                if form is None:
                    out = np.asarray(results)
                    if out.dtype is _OBJECT:
                        out = pjrt.host_result(results)
                else:
                    out = [np.asarray(r) for r in results]
                    if any(a.dtype is _OBJECT for a in out):
                        out = [pjrt.host_result(r) for r in results]
                    if form is tuple:
                        out = tuple(out)
                    elif form is not list:
                        out = dict(zip(form, out))
            except pjrt.ArgumentMismatch:
                self.strict = None  # converted and checked by the general path from now on
            except Exception as e:  # noqa: BLE001  (jaxlib raises a failed callback as a ValueError)
                raise_failed_run(self.repeat.program, e)
            else:
                stats = session.stats
                stats.runs += 1
                stats.cache_hits += 1
                return out
        return self._call(values)

    def _call(self, values):
        """The general call: checks the number of values, runs the Repeat (converting the
        feeds as ``run`` does) or, for new shapes, ``Session.run``; then keeps the lean call
        when the run allows it."""
        if len(values) != len(self.feeds):
            names = ", ".join(t.name for t in self.feeds)
            raise FeedError(f"this callable takes {len(self.feeds)} feed values ({names}), got {len(values)}")
        session, repeat = self.session, self.repeat
        if repeat is not None and not session.check_numerics and not session._closed:
            out = repeat.run_values(values, session._state, session.stats)
            if out is not MISSED:
                return out
        feeds = dict(zip(self.feeds, values))
        out = session.run(self.fetches, feeds)
        self._keep(session._repeats.find(self.fetches, feeds))
        return out

    def _keep(self, repeat: Repeat | None) -> None:
        """Hold ``repeat``, and its program's strict dispatcher when the lean call applies."""
        self.repeat, self.strict = repeat, None
        if repeat is None or repeat.direct is None or not repeat.raw:
            return
        kind = repeat.kind
        form = repeat.keys if kind is dict else kind if kind is list or kind is tuple else None
        self._form = form
        strict = getattr(repeat.program.executable, "strict", None)
        self.strict = None if strict is None else strict(form is None)

    def __repr__(self) -> str:
        return f"<step of the session: feeds {[t.name for t in self.feeds]}>"
