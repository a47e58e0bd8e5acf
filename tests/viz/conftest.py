"""Helpers for the drawing tests: parse a drawing's SVG with xml.etree and find elements by meaning.

graphviz writes every node, cluster and edge as an SVG ``<g>`` whose class
lists what it is (``node sg-input``, ``cluster sg-scope``, ``edge sg-grad``);
the tests look elements up by those classes and read their text, tooltip
(``xlink:title``), fill and bounding box.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"


class Drawing:
    """A parsed SVG drawing; the static methods read one element."""

    def __init__(self, text: str):
        self.text = text
        self.root = ET.fromstring(text)

    def all(self, *classes: str) -> list:
        """The ``<g>`` elements whose class list holds every one of ``classes``."""
        return [g for g in self.root.iter(SVG + "g") if set(classes) <= set(g.get("class", "").split())]

    def one(self, *classes: str, text: str):
        """The one element of those classes that shows ``text`` (a line of its label)."""
        found = [g for g in self.all(*classes) if text in self.texts(g)]
        assert len(found) == 1, (
            f"{len(found)} elements {classes} show {text!r}: {[self.texts(g) for g in found]}"
        )
        return found[0]

    @staticmethod
    def texts(g) -> list[str]:
        return [t.text for t in g.iter(SVG + "text") if t.text]

    @staticmethod
    def title(g) -> str:
        return g.find(SVG + "title").text

    @staticmethod
    def tooltip(g) -> str:
        return next(a.get(XLINK + "title") for a in g.iter(SVG + "a"))

    @staticmethod
    def fill(g) -> str:
        return next(e for e in g.iter() if e.tag in (SVG + "polygon", SVG + "path")).get("fill")

    @staticmethod
    def stroke(g) -> str:
        return next(e for e in g.iter() if e.tag in (SVG + "polygon", SVG + "path")).get("stroke")

    @staticmethod
    def bbox(g) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the element's outline (its first polygon or path)."""
        shape = next(e for e in g.iter() if e.tag in (SVG + "polygon", SVG + "path"))
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", shape.get("points") or shape.get("d"))]
        xs, ys = nums[0::2], nums[1::2]
        return min(xs), min(ys), max(xs), max(ys)

    def inside(self, inner, outer) -> bool:
        a, b = self.bbox(inner), self.bbox(outer)
        return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


@pytest.fixture
def svg():
    """svg(drawing) -> Drawing: lay out a graphviz Digraph (or take SVG text) and parse it."""

    def parse(d) -> Drawing:
        return Drawing(d if isinstance(d, str) else d.pipe(format="svg", encoding="utf-8"))

    return parse
