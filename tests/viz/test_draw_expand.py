"""``sg.draw(g, expand=True)`` opens everything, also on a graph big enough for auto mode to close scopes.

It used to open only the library calls that auto mode's depth left visible:
on a big graph, scopes stayed closed and the expand was silently ignored.
The DOT source is checked (no layout needed): every node is a box of its own.
"""

from __future__ import annotations

import os

import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.viz.collapse import BUDGET

FILE = os.path.basename(__file__)


def _big() -> sg.Graph:
    """6 scopes, each a dense layer (a library call) and 30 elementwise ops: over auto mode's budget."""
    g = sg.Graph("big")
    with g:
        h = sg.placeholder(("batch", 8), sg.float32, name="x")
        for i in range(6):
            with sg.name_scope(f"block{i}"):
                h = sg.nn.dense(h, 8, name="fc")
                for k in range(30):
                    h = snp.tanh(h) if k % 2 else -h
    assert len(g.nodes) > 2 * BUDGET
    return g


def _boxes(source: str, g: sg.Graph) -> int:
    """How many of g's nodes the DOT source draws as boxes of their own (each tooltip starts with the name)."""
    return sum(f'tooltip="{n.name} = ' in source for n in g.nodes)


def test_expand_true_opens_every_scope_and_call_under_auto_collapse():
    g = _big()
    auto = sg.draw(g).source
    assert "sg-collapsed" in auto and _boxes(auto, g) < BUDGET
    every = sg.draw(g, expand=True).source
    assert "sg-collapsed" not in every and "sg-chunk" not in every
    assert _boxes(every, g) == len(g.nodes)
    assert every.count("sg-library") >= 6  # each dense layer drawn open, as a cluster
    # an explicit depth still closes deeper scopes: expand=True opens the library calls above it
    shallow = sg.draw(g, collapse=1, expand=True).source
    assert shallow.count("sg-collapsed") == 6 + 1  # the six blocks and the seed's call


def test_bad_collapse_and_expand_arguments_are_graph_errors_at_the_call():
    g = _big()
    for fn, words in [
        (lambda: sg.draw(g, collapse="deep"), "collapse wants 'auto', a depth (int) or None"),
        (lambda: sg.draw(g, collapse=-1), "collapse wants a depth >= 0"),
        (lambda: sg.draw(g, expand=["nope"]), "no group named 'nope'"),
    ]:
        with pytest.raises(sg.GraphError) as e:  # a ValueError too, as before
            fn()
        assert str(e.value).startswith(f"{FILE}:{fn.__code__.co_firstlineno}:") and words in str(e.value)
