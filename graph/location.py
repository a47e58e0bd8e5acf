"""Source locations: the user's file:line that built each node (graph layer).

The location is the innermost stack frame whose file is not part of the
library itself. The library's own tests, notebooks and benchmarks count as
user code, so error tests can assert their own file:line.

``portable_file`` is how a location's file is written into saved graphs
(JSON): relative to the working directory, never as an absolute path.
"""

from __future__ import annotations

import copy
import copyreg
import os
import sys
from dataclasses import dataclass

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = tuple(
    os.path.join(_ROOT, d) + os.sep
    for d in ("graph", "ops", "transforms", "backend", "sharding", "viz", "train", "data", "summary")
)
_LIBRARY_FILES = tuple(os.path.join(_ROOT, f) for f in ("__init__.py", "test_util.py", "data.py"))
_SKIPPED_MODULES = ("contextlib", "functools", "pydantic")
_SKIPPED_FILES = frozenset(os.path.abspath(m.__file__) for m in (copy, copyreg))  # copy.deepcopy(g)


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """A file and line in the user's code."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{os.path.basename(self.file)}:{self.line}"

    @property
    def full(self) -> str:
        return f"{self.file}:{self.line}"


def _is_library(filename: str) -> bool:
    if filename.startswith(_LIBRARY_DIRS) or filename in _LIBRARY_FILES or filename in _SKIPPED_FILES:
        return True
    return any(f"{os.sep}{m}{os.sep}" in filename or filename.endswith(f"{m}.py") for m in _SKIPPED_MODULES)


_cache: dict[str, bool] = {}


def user_location() -> SourceLocation | None:
    """The innermost caller frame outside the library, or None if none is."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        is_lib = _cache.get(filename)
        if is_lib is None:
            is_lib = _cache[filename] = _is_library(os.path.abspath(filename))
        if not is_lib:
            return SourceLocation(filename, frame.f_lineno)
        frame = frame.f_back
    return None


def portable_file(file: str, root: str | None = None) -> str:
    """``file`` as saved graphs store it: relative to ``root`` (default: the working directory).

    A file inside ``root`` becomes its relative path ("/" separated); a file
    outside it keeps only its base name, which is what errors print anyway;
    paths that are already relative and names such as "<stdin>" stay as they
    are. Absolute paths would tie a saved graph to one machine and spell out
    the user's home folder.
    """
    if file.startswith("<") or not os.path.isabs(file):
        return file
    try:
        rel = os.path.relpath(file, root if root is not None else os.getcwd())
    except ValueError:  # another drive (Windows)
        return os.path.basename(file)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return os.path.basename(file)
    return rel.replace(os.sep, "/")
