"""The sweep's own tests (those that read the ``reports`` fixture: the comparisons, the listings'
staleness, the counts) carry the ``sweep`` marker: `make sweep` runs them (CI runs it after `make
test`), `make test` leaves them out and keeps the cheap coverage checks (every function has a
signature or a reason)."""

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "reports" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.sweep)
