"""What ``sess.make_callable(fetches, feed_list)`` gives: a step whose repeat calls are jaxlib's dispatch (backend).

Everything that can be settled once is settled when the step is made or at
its first call: the fetches and feeds are resolved, the program is found
(``Session.run``) and its Repeat kept. When that program is a lone
executable call (no variables, every feed an argument, every result a
fetch), a later call goes straight to ``Repeat.lean``: the executable's
strict C++ dispatcher compares the arguments' types with the program's in
C++, and only a miss (another shape or dtype, a Python scalar, a wrong
number of values) comes back to Python, where the general path converts and
checks the feeds as ``run`` does (typed FeedErrors at the user's line) or
finds the program of the new shapes.
"""

from __future__ import annotations

from ..graph import FeedError
from .program import MISSED, Repeat


class StepCallable:
    """``step(*values)`` runs the fetches with the feeds in ``feed_list`` order.

    It holds the last run's Repeat (``repeat``), and that Repeat again as ``lean`` while its
    lean call applies: its program allows it, the feeds went in as given, and no call has
    missed it since. A call with other shapes goes through ``Session.run`` and takes that
    shape's Repeat.
    """

    __slots__ = ("session", "fetches", "feeds", "repeat", "lean")

    def __init__(self, session, fetches, feeds: tuple):
        self.session, self.fetches, self.feeds = session, fetches, feeds
        self.repeat: Repeat | None = None
        self.lean: Repeat | None = None

    def __call__(self, *values):
        lean, session = self.lean, self.session
        if lean is not None and not session._closed and not session._check_numerics:
            out = lean.lean(values)
            if out is not MISSED:
                stats = session.stats
                stats.runs += 1
                stats.cache_hits += 1
                return out
            self.lean = None  # a miss: the Repeat converts and checks the feeds from now on
        return self._call(values)

    def _call(self, values):
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
        self.lean = repeat if repeat is not None and repeat.strict is not None and repeat.raw else None
        return out

    def __repr__(self) -> str:
        return f"<step of the session: feeds {[t.name for t in self.feeds]}>"
