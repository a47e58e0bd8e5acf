"""sg.numpy's elementwise functions at special points against jax.numpy, in float32 and float64:
values and first and second derivatives (harness.py). A mismatch fails unless
signatures_numpy.DIFFERENCES gives its reason (or PENDING names it as known and not fixed yet); a
listed reason no sweep needs fails too. test_numpy_array_points.py sweeps the rest of sg.numpy."""

import jax.numpy as jnp
import pytest

from stablegraph import numpy as snp

from . import harness
from .signatures_numpy import ARRAYS, DIFFERENCES, ELEMENTWISE, PENDING, REDUCTIONS, SKIPPED

# make test sweeps float32 (the float64 family is make sweep's, with the second derivatives)
FAMILIES = harness.families("float32")


@pytest.fixture(scope="module")
def reports():
    return {family.name: harness.sweep(ELEMENTWISE, snp, jnp, family) for family in FAMILIES}


def test_every_public_function_has_a_signature_or_a_reason():
    harness.check_coverage(snp, jnp, (ELEMENTWISE, REDUCTIONS, ARRAYS), SKIPPED, "signatures_numpy's tables")


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    harness.check(reports[family], DIFFERENCES, PENDING)


def test_listed_differences_still_differ(reports):
    harness.check_listing(reports.values(), DIFFERENCES, ELEMENTWISE)


def test_counts(reports, capsys):
    harness.print_counts("sg.numpy elementwise functions", reports.values(), capsys)
