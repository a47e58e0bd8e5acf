"""The base of the library's own pydantic models: built on first use, without pydantic's plugins.

pydantic looks for its plugins when it builds a model's validator. Its
loader module imports importlib.metadata (with email, zipfile, csv and
tempfile: ~20 ms), and its first look reads the entry points of every
installed distribution (~15 ms in an environment of ~130 packages): costs
a fresh process paid before its first op attribute was validated. The
library's models (op attributes, graph documents, FFI attributes) are
internal: a plugin that observes validations has nothing to learn from
them. So their deferred builds run while pydantic's loader answers "no
plugins": a stand-in for the loader module while the real one is not
loaded yet (it is taken out again after the build), else the real one's
switch for a plugin that is itself loading. Models the user defines still
find their plugins at their own first build, with the real loader. A
pydantic whose build wants more of the loader than the stand-in has builds
them the usual way.
"""

from __future__ import annotations

import sys
import types
from contextlib import contextmanager

from pydantic import BaseModel, ConfigDict

_LOADER = "pydantic.plugin._loader"


class InternalModel(BaseModel):
    """A library model: its schema is built at its first use, not at import, and without plugins."""

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def model_rebuild(
        cls, *, force=False, raise_errors=True, _parent_namespace_depth=2, _types_namespace=None
    ):
        rebuild = super().model_rebuild
        depth = _parent_namespace_depth + 1  # this frame sits in between
        try:
            with _no_plugins():
                return rebuild(
                    force=force, raise_errors=raise_errors,
                    _parent_namespace_depth=depth, _types_namespace=_types_namespace,
                )  # fmt: skip
        except ImportError:  # a pydantic asking the stand-in loader for more than it has
            return rebuild(
                force=True, raise_errors=raise_errors,
                _parent_namespace_depth=depth, _types_namespace=_types_namespace,
            )  # fmt: skip


def _stand_in_loader() -> types.ModuleType:
    """A module in place of pydantic's plugin loader that finds no plugins."""
    module = types.ModuleType(_LOADER, "stablegraph's stand-in while its own models are built")
    module.get_plugins = lambda: ()
    return module


_STAND_IN = _stand_in_loader()


@contextmanager
def _no_plugins():
    """pydantic's plugin loader answering "none" meanwhile: the stand-in, or the real loader's
    loading-plugins switch."""
    loader = sys.modules.get(_LOADER)
    if loader is None or loader is _STAND_IN:
        sys.modules[_LOADER] = _STAND_IN
        try:
            yield
        finally:
            if sys.modules.get(_LOADER) is _STAND_IN and loader is None:
                del sys.modules[_LOADER]
        return
    before = getattr(loader, "_loading_plugins", None)
    if not isinstance(before, bool):  # a pydantic without the switch: the lookup runs as usual
        yield
        return
    loader._loading_plugins = True
    try:
        yield
    finally:
        loader._loading_plugins = before
