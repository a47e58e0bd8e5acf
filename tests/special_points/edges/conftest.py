"""The regression tests of what the special-point sweep found (issue 20): each pins a value or a
slope at the special points where a fix landed, against scipy or a closed form. They belong to the
sweep's tier: the ``sweep`` marker puts them in `make sweep` (CI runs it after `make test`), out
of `make test`, whose 10 minutes their programs (first and second derivatives of the scipy
formulas, a few seconds of XLA compile each) would otherwise overrun."""

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:  # the hook sees the whole session's items: mark this directory's only
        if item.path.is_relative_to(_HERE):
            item.add_marker(pytest.mark.sweep)
