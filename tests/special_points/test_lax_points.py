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


# make test sweeps float32 (the float64 family is make sweep's, with the second derivatives)
FAMILIES = harness.families("float32")


@pytest.fixture(scope="module")
def reports():
    return {family.name: harness.sweep(TABLE, sg.lax, jlax, family, default_ref="jax") for family in FAMILIES}


def test_every_public_function_has_a_signature_or_a_reason():
    harness.check_coverage(sg.lax, jlax, (TABLE,), SKIPPED, "signatures_lax.LAX")


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    harness.check(reports[family], DIFFERENCES, PENDING)


def test_listed_differences_still_differ(reports):
    harness.check_listing(reports.values(), DIFFERENCES, TABLE)


def test_counts(reports, capsys):
    harness.print_counts("sg.lax", reports.values(), capsys, PENDING)
