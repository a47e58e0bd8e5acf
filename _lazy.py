"""Names a package loads on first use (PEP 562): one ``__getattr__`` / ``__dir__`` pair for all.

``on_first_use(__name__, table)`` gives a package's ``__getattr__`` and ``__dir__``: ``table``
maps a name to ``(module, attribute)`` (``attribute`` None: the module itself; a module name
starting with "." is relative to the package). The first read imports the module and keeps
the value as a module attribute, so later reads cost nothing; ``dir()`` lists the names as an
eager package would. The root package, sg.backend, sg.train and sg.scipy use it so that a
process that only trains does not import export, TensorBoard, scipy-like or drawing modules.
"""

from __future__ import annotations

import importlib
import sys


def on_first_use(package: str, table: dict[str, tuple[str, str | None]]):
    """``(__getattr__, __dir__)`` for ``package`` that load the names of ``table`` when first read."""

    def __getattr__(name: str):  # noqa: N807
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, attribute = table[name]
        module = importlib.import_module(module_name, package)
        value = module if attribute is None else getattr(module, attribute)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__


__all__ = ["on_first_use"]
