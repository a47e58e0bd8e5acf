"""Graphviz drawings of graphs and functions, and their Jupyter display (top layer).

Importing this package registers the inline-SVG display hook, so a Graph or
Function shown in Jupyter renders as a drawing when graphviz's ``dot`` binary
is installed (else as its text listing).
"""

from .draw import draw, svg_html

__all__ = ["draw", "svg_html"]
