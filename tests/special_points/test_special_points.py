"""sg.scipy.special at special points against jax.scipy.special, in float32 and float64: every
public function both have, values against scipy.special in float64, first and second derivatives
against jax's or closed forms where jax's are off (closed_forms_special.py; harness.py). A mismatch
fails unless signatures_special.DIFFERENCES gives its reason (or PENDING names it as found and not fixed yet); a listed reason no sweep
needs fails too."""

import jax.scipy.special
import pytest

import stablegraph as sg

from . import harness
from .signatures_special import DIFFERENCES, PENDING, SKIPPED, SPECIAL

# make test sweeps the values in float32 only here (make sweep, which CI runs after make test, adds
# float64 and the first and second derivatives): the suite's 10 minutes
IN_SUITE = 0
FAMILIES = harness.families("float32")


@pytest.fixture(scope="module")
def reports():
    return {
        family.name: harness.sweep(
            SPECIAL, sg.scipy.special, jax.scipy.special, family, default_ref="jax", in_suite=IN_SUITE
        )
        for family in FAMILIES
    }


def test_every_function_jax_has_is_swept():
    harness.check_coverage(
        sg.scipy.special, jax.scipy.special, (SPECIAL,), SKIPPED, "signatures_special.SPECIAL"
    )


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    harness.check(reports[family], DIFFERENCES, PENDING)


def test_listed_differences_still_differ(reports):
    harness.check_listing(reports.values(), DIFFERENCES, in_suite=IN_SUITE)


def test_counts(reports, capsys):
    assert all(len(r.functions) >= 30 for r in reports.values())
    harness.print_counts("sg.scipy.special", reports.values(), capsys, PENDING, IN_SUITE)
