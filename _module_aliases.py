"""Module names that stand for other modules, resolved when first imported.

``import stablegraph.scipy.signal`` must give the very module
``stablegraph.ops.scipy_like.signal`` (one module object, not a second copy
loaded from the same file), yet ``import stablegraph`` should not load the
namespaces a program never touches. Writing the alias into ``sys.modules``
would load the target at once; this finder writes it on the first import of
the alias instead. It sits first on ``sys.meta_path`` because the ordinary
path finder would otherwise find the file through the aliased package's
``__path__`` and load it again under the alias name.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys


# importlib.abc's Loader and MetaPathFinder are protocols the import system calls by method (not
# base classes it checks); importing importlib.abc loads importlib.resources, tempfile and more
class _SameModule:
    """Loads an alias by importing its target and handing back that module unchanged."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        """The target module itself (the import system keeps its name, spec and file)."""
        return importlib.import_module(self.target)

    def exec_module(self, module) -> None:
        """Nothing to run: the target module has run already."""


class AliasFinder:
    """Finds ``alias.rest`` as ``target.rest`` for each registered prefix pair."""

    def __init__(self):
        self.prefixes: dict[str, str] = {}
        self.modules: dict[str, str] = {}  # whole-name aliases (alias_module)

    def find_spec(self, name, path=None, target=None):
        """A spec whose loader returns the target module, or None for names that are no alias."""
        if name in self.modules:
            return importlib.machinery.ModuleSpec(name, _SameModule(self.modules[name]))
        for alias, real in self.prefixes.items():
            if name.startswith(alias + "."):
                real_name = real + name[len(alias) :]
                if real_name not in sys.modules and importlib.util.find_spec(real_name) is None:
                    return None
                return importlib.machinery.ModuleSpec(name, _SameModule(real_name))
        return None


def _finder() -> AliasFinder:
    finder = next((f for f in sys.meta_path if isinstance(f, AliasFinder)), None)
    if finder is None:
        finder = AliasFinder()
        sys.meta_path.insert(0, finder)
    return finder


def alias_package(alias: str, target: str) -> None:
    """Makes every ``alias.X...`` import give ``target.X...`` (the package itself is aliased by the caller)."""
    _finder().prefixes[alias] = target


def alias_module(alias: str, target: str) -> None:
    """Makes ``import alias`` give module ``target`` (imported then, not now)."""
    _finder().modules[alias] = target
