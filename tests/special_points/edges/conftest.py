"""The regression tests of what the special-point sweep found (issue 20): each pins a value or a
slope at the special points where a fix landed, against scipy or a closed form. They belong to the
sweep's tier: the ``sweep`` marker puts them in `make sweep` (CI runs it after `make test`), out
of `make test`, whose 10 minutes their programs (first and second derivatives of the scipy
formulas, a few seconds of XLA compile each) would otherwise overrun."""

import pytest


def pytest_collection_modifyitems(items):
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.sweep)
