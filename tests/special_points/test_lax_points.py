"""sg.lax at special points against jax.lax: every public function both have (signatures_lax.py),
elementwise ones on crossed special points and the rest on special rows, in float32 and float64,
values and first and second derivatives (harness.py), with jax in float64, numpy and scipy as the
references."""

import jax.lax as jlax
import pytest

import stablegraph as sg

from . import harness
from .signatures_lax import DIFFERENCES, LAX, LAX_ARRAYS, PENDING, SKIPPED

TABLE = {**LAX, **LAX_ARRAYS}


# make test sweeps the values in float32 (make sweep, which CI runs after make test, adds the float64
# family and the first and second derivatives): the suite's 10 minutes
IN_SUITE = 0
FAMILIES = harness.families("float32")


@pytest.fixture(scope="module")
def reports():
    return {
        family.name: harness.sweep(TABLE, sg.lax, jlax, family, default_ref="jax", in_suite=IN_SUITE)
        for family in FAMILIES
    }


def test_every_public_function_has_a_signature_or_a_reason():
    harness.check_coverage(sg.lax, jlax, (TABLE,), SKIPPED, "signatures_lax.LAX")


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    harness.check(reports[family], DIFFERENCES, PENDING)


def test_listed_differences_still_differ(reports):
    harness.check_listing(reports.values(), DIFFERENCES, TABLE, IN_SUITE)


def test_counts(reports, capsys):
    harness.print_counts("sg.lax", reports.values(), capsys, PENDING, IN_SUITE)
