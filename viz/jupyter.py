"""What Jupyter shows for stablegraph objects (viz layer).

graph/ cannot import viz, so Graph, Function and Tensor hand Jupyter's
``_repr_mimebundle_`` to ``graph.display.display_html``, which asks the hooks
registered here. A Graph, Function or Tensor becomes the interactive
explorer (explorer.py) with its listing folded below; a Lowered program
becomes its cost and memory table with its StableHLO (lowered.py). Without
graphviz's ``dot`` binary the hook declines and the text listing is shown.
"""

from __future__ import annotations

import shutil

from ..backend import Lowered
from ..graph import Function, Graph, Tensor
from ..graph.display import register_display
from .explorer import explorer_html
from .lowered import lowered_html


def notebook_html(obj) -> str | None:
    """The HTML Jupyter shows for ``obj``, or None to leave it to the text listing."""
    if isinstance(obj, Lowered):
        return lowered_html(obj)
    if not isinstance(obj, Graph | Function | Tensor) or shutil.which("dot") is None:
        return None
    import graphviz  # noqa: PLC0415  (only a drawing needs it: ``import stablegraph`` stays light)

    try:
        return explorer_html(obj)
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError):
        return None


register_display(notebook_html)
