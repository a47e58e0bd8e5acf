"""What ``sess.make_callable(fetches, feed_list)`` gives: a step whose repeat calls are jaxlib's dispatch (backend).

Everything that can be settled once is settled when the step is made or at
its first call: the fetches and feeds are resolved, the program is found
(``Session.run``) and its Repeat kept. When that program is a lone
executable call (no variables, every feed an argument, every result a
fetch), a later call is one Python frame around the executable's strict C++
dispatcher: jaxlib compares the arguments' types with the program's in C++,
and only a miss (another shape or dtype, a Python scalar, a wrong number of
values) comes back to Python, where the general path converts and checks the
feeds as ``run`` does (typed FeedErrors at the user's line) or finds the
program of the new shapes. Nothing else happens per call: the Session's
closing and its ``check_numerics`` switch reach the step when they happen
(they clear the Session's Repeats, which the step follows), not as a test
in every call.
"""

from __future__ import annotations

import numpy as np

from ..graph import FeedError
from . import pjrt
from .program import MISSED, Repeat, host_shaped
from .state import raise_failed_run


def make_step(session, fetches, feeds: tuple):
    """The step ``sess.make_callable`` returns: a function of the feeds' values, in ``feeds``'
    order. It is a plain function, not an object with ``__call__`` (calling an instance costs
    a few tenths of a microsecond more in CPython 3.11); its state is ``step.state``."""
    state = StepState(session, fetches, feeds)
    stats = session.stats

    def step(*values):
        # Repeat.run_values's strict call, written out here on purpose: a call into it would be
        # the Python frame this step exists to save
        strict = state.strict
        if strict is not None:
            # jax's x64 flag on for the call if jax is loaded: with it off, jaxlib would take a
            # 64-bit feed as its 32-bit kind and cast it (wrapping ints) instead of missing
            x64 = _x64
            if x64 is None:
                x64 = _jax_x64()
            try:
                if x64 is None:
                    results = strict(*values)
                else:
                    old = x64.swap_local(True)
                    try:
                        results = strict(*values)
                    finally:
                        x64.set_local(old)
            except pjrt.ArgumentMismatch:
                state.strict = None  # the general path converts and checks the feeds from now on
            except Exception as e:  # noqa: BLE001  (jaxlib raises a failed callback as a ValueError)
                raise_failed_run(state.program, e)
            else:
                stats.runs += 1
                stats.cache_hits += 1
                form = state.form
                if form is None:
                    out = _asarray(results)
                    return out if out.dtype is not _OBJECT else pjrt.host_result(results)
                return host_shaped(results, form)
        return state.call(values)

    step.state = state
    step.__doc__ = f"Run the session's fetches with the feeds {[t.name for t in feeds]} (sess.make_callable)."
    return step


class StepState:
    """What a step keeps: the last run's Repeat (``repeat``) and, while that Repeat's lean call
    applies (its program allows it, the feeds went in as given, no call has missed it since and
    the Session has not dropped its Repeats), the executable's strict dispatcher (``strict``),
    the results' form and the program (which a failed run names). A call with other shapes
    goes through ``Session.run`` and takes that shape's Repeat.
    """

    __slots__ = ("session", "fetches", "feeds", "repeat", "strict", "form", "program", "__weakref__")

    def __init__(self, session, fetches, feeds: tuple):
        self.session, self.fetches, self.feeds = session, fetches, feeds
        self.repeat: Repeat | None = None
        self.strict = self.form = self.program = None

    def call(self, values):
        """The general call: checks the number of values, runs the Repeat (converting the
        feeds as ``run`` does) or, for new shapes, ``Session.run`` and keeps its Repeat."""
        if len(values) != len(self.feeds):
            names = ", ".join(t.name for t in self.feeds)
            raise FeedError(f"this callable takes {len(self.feeds)} feed values ({names}), got {len(values)}")
        session, repeat = self.session, self.repeat
        if repeat is not None and not session._check_numerics and not session._closed:
            out = repeat.run_values(values, session._state, session.stats)
            if out is not MISSED:
                return out
        feeds = dict(zip(self.feeds, values))
        out = session.run(self.fetches, feeds)
        self.repeat = repeat = session._repeats.find(self.fetches, feeds)
        if repeat is not None and repeat.strict is not None and repeat.raw:
            self.form, self.program = repeat.form, repeat.program
            self.strict = repeat.strict
            session._repeats.follow(self)
        else:
            self.strict = None
        return out

    def drop(self) -> None:
        """Forget the Repeat (the Session dropped its Repeats: closed, or check_numerics switched):
        the next call takes the general path, which sees why."""
        self.strict = self.repeat = None

    @property
    def lean(self) -> Repeat | None:
        """The Repeat whose lean call a call takes now, or None (the general path)."""
        return self.repeat if self.strict is not None else None

    def __repr__(self) -> str:
        return f"<step of the session: feeds {[t.name for t in self.feeds]}>"


def _jax_x64():
    """jax's x64 flag once jax is loaded (kept from then on), else None."""
    global _x64
    _x64 = pjrt.jax_x64()
    return _x64


_x64 = None  # jax's x64 flag, once jax is loaded
_asarray = np.asarray
_OBJECT = np.dtype(object)  # what numpy makes of a result whose run failed on the device
