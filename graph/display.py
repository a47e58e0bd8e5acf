"""How graphs, functions and tensors show in Jupyter: a hook slot the drawing layer fills (graph layer).

The IR cannot import viz (it sits above), so viz registers a renderer here when it is imported;
without one an object shows as its escaped text. The slot has no dependencies of its own, so the
node classes can use it without reaching the listing code.
"""

from __future__ import annotations

_display_hooks: list = []
_loaders: list = []


def register_display(hook) -> None:
    """Let a higher layer (viz) render graphs in Jupyter; hook(obj) -> html or None."""
    _display_hooks.append(hook)


def register_display_loader(load) -> None:
    """Let the package load the drawing layer at the first display (it is not imported eagerly:
    a process that never shows a graph does not pay for it); ``load()`` registers its hooks."""
    _loaders.append(load)


def display_html(obj) -> str:
    while _loaders:
        _loaders.pop()()
    for hook in reversed(_display_hooks):
        out = hook(obj)
        if out is not None:
            return out
    import html  # noqa: PLC0415  (html.entities is large: loaded at the first plain display)

    return f"<pre>{html.escape(str(obj))}</pre>"


def display_bundle(obj) -> dict:
    """Jupyter's ``_repr_mimebundle_`` of a Graph, Function or Tensor: its repr and display_html."""
    return {"text/plain": repr(obj), "text/html": display_html(obj)}


__all__ = ["display_bundle", "display_html", "register_display", "register_display_loader"]
