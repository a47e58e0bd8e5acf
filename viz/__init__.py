"""Drawings of graphs, functions and tensors, and their Jupyter display (top layer).

``draw`` makes a graphviz drawing (SVG, PNG, PDF, DOT); ``diff`` draws what a
transform added, removed and kept; ``explorer_html`` is the interactive
explorer and ``lowered_html`` the readable form of ``sess.lower(...)``.
Importing this package registers the Jupyter display hook (jupyter.py): a
Graph, Function or Tensor shown in a notebook is the explorer when
graphviz's ``dot`` binary is installed, else its text listing.

Modules, one job each: view (what is drawn), collapse (which groups are
open), labels and styles (words and looks), emit (to graphviz), draw and
diff (the public drawings), explorer (+ .js/.css), lowered, jupyter.
"""

from . import jupyter
from .diff import diff
from .draw import draw
from .explorer import explorer_html
from .lowered import lowered_html

__all__ = ["diff", "draw", "explorer_html", "jupyter", "lowered_html"]
