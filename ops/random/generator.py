"""Generator: a random key held by the Session that advances every run (sg.random, ops layer).

A training loop should not plumb keys by hand, and its runs should still be
reproducible. A Generator is a uint32[2] Variable; each run that reads it
splits it, using one half for the draws of that run and storing the other
as the next state (an automatic assign the Session adds to any run that
reads the variable). Each call site folds its own index into the run's half,
so two draws in one graph never share a key. Making one is a library call
(graph/calls.py) named after its variable.

    gen = sg.random.Generator(42)
    noise = gen.normal(("batch", 16))       # fresh numbers every run
"""

from __future__ import annotations

from ...graph import current_graph, dtypes, library_call
from ...graph import name_scope as _name_scope
from ...graph.library import returns
from ..random_keys import PRNGKey, fold_in, split
from ..state import Variable, assign
from . import distributions

__all__ = ["Generator", "default_generator"]


def session_key(key, shape, dtype):
    """The initializer of a Generator seeded by the Session: the key Variable gives it."""
    return key


class Generator:
    """Random keys that change every ``Session.run`` and are reproducible from a seed.

    ``seed=None`` takes the Session's seed (``sg.Session(g, seed=...)``).
    ``gen.key()`` gives a fresh key per call site; ``gen.normal(shape)``,
    ``gen.uniform(shape)``, ``gen.bernoulli(p, shape)`` draw directly.
    """

    def __init__(self, seed: int | None = None, name: str = "generator"):
        local = current_graph().unique_name(name).rsplit("/", 1)[-1]  # the variable's name
        with library_call("Generator", local, scope=False) as call:
            init = session_key if seed is None else PRNGKey(seed)
            self.state = Variable(init, (2,), dtypes.uint32, name=local, trainable=False)
            with _name_scope(local), _name_scope("advance"):
                halves = split(self.state)
                self._run_key = halves[1]
                assign(self.state, halves[0], auto=True)
            returns(call, self._run_key)
        self._calls = 0

    def key(self):
        """A key for one draw: different at every call site and in every run."""
        self._calls += 1
        return fold_in(self._run_key, self._calls)

    def split(self, num: int = 2):
        """``num`` fresh keys (a uint32[num, 2] Tensor)."""
        return split(self.key(), num)

    def uniform(self, shape=(), dtype=dtypes.float32, minval=0.0, maxval=1.0):
        return distributions.uniform(self.key(), shape, dtype, minval, maxval)

    def normal(self, shape=(), dtype=dtypes.float32):
        return distributions.normal(self.key(), shape, dtype)

    def bernoulli(self, p=0.5, shape=None):
        return distributions.bernoulli(self.key(), p, shape)

    def __repr__(self) -> str:
        return f"<Generator {self.state.var_name}>"


def default_generator() -> Generator:
    """The current graph's Generator seeded by the Session (dropout draws from it)."""
    graph = current_graph()
    return graph.singleton("generator", lambda: Generator(None, name="rng"))
