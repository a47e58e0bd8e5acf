"""The base of the library's own pydantic models: built on first use, without pydantic's plugins.

pydantic looks for its plugins when it builds a model's validator; its first
look reads the entry points of every installed distribution (~15 ms of a
fresh process's first result in an environment of ~130 packages, a cost the
process pays before its first op attribute is validated). The library's
models (op attributes, graph documents, FFI attributes) are internal: a
plugin that observes validations has nothing to learn from them. So their
deferred builds run while pydantic's loader answers "no plugins" (the
answer it gives a plugin that is itself loading); models the user defines
still find their plugins at their own first build. A pydantic without that
switch builds them the usual way.
"""

from __future__ import annotations

from contextlib import contextmanager

from pydantic import BaseModel, ConfigDict


class InternalModel(BaseModel):
    """A library model: its schema is built at its first use, not at import, and without plugins."""

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def model_rebuild(
        cls, *, force=False, raise_errors=True, _parent_namespace_depth=2, _types_namespace=None
    ):
        with _no_plugins():
            return super().model_rebuild(
                force=force,
                raise_errors=raise_errors,
                _parent_namespace_depth=_parent_namespace_depth + 1,  # this frame sits in between
                _types_namespace=_types_namespace,
            )


@contextmanager
def _no_plugins():
    """pydantic's plugin loader answering "none" meanwhile (its loading-plugins switch)."""
    from pydantic.plugin import _loader  # noqa: PLC0415  (loaded by pydantic's first build anyway)

    before = getattr(_loader, "_loading_plugins", None)
    if not isinstance(before, bool):  # a pydantic without the switch: the lookup runs as usual
        yield
        return
    _loader._loading_plugins = True
    try:
        yield
    finally:
        _loader._loading_plugins = before
