"""sg.numpy's reductions, scans, sorts, products and array functions at special rows (ties,
infinities, NaN, +-0, overflow, empty slices) against jax.numpy, in float32 and float64: values
and first derivatives, second derivatives where they are not 0 by linearity (harness.py)."""

import jax.numpy as jnp
import pytest

from stablegraph import numpy as snp

from . import harness
from .signatures_numpy import ARRAYS, DIFFERENCES, PENDING, REDUCTIONS

TABLE = {**REDUCTIONS, **ARRAYS}


# make test sweeps the values in float32 only here (make sweep, which CI runs after make test, adds
# float64 and the derivatives): the suite's 10 minutes
IN_SUITE = 0
FAMILIES = harness.families("float32")


@pytest.fixture(scope="module")
def reports():
    return {
        family.name: harness.sweep(TABLE, snp, jnp, family, optimize_jax=False, in_suite=IN_SUITE)
        for family in FAMILIES
    }


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    harness.check(reports[family], DIFFERENCES, PENDING)


def test_listed_differences_still_differ(reports):
    harness.check_listing(reports.values(), DIFFERENCES, TABLE, IN_SUITE)


def test_counts(reports, capsys):
    harness.print_counts("sg.numpy array functions", reports.values(), capsys)
