"""sg.scipy.stats at special points against jax.scipy.stats, in float32 and float64: every method
of every distribution both have (pdf, logpdf, cdf, logcdf, sf, logsf, ppf, isf, pmf, logpmf) on
its parameters' special points (parameters.py), with loc and scale where jax's method takes them,
and the sample summaries; values against scipy.stats in float64, first and second derivatives
against jax's (harness.py; make test compares the values, make sweep the derivatives too). A mismatch fails unless signatures_stats.DIFFERENCES gives its
reason (or PENDING names it as found and not fixed yet); a listed reason no sweep needs fails too."""

import jax.scipy
import jax.scipy.stats
import pytest

import stablegraph as sg

from . import harness
from .signatures_stats import DIFFERENCES, DISTRIBUTIONS, PENDING, SKIPPED, STATS, SUMMARIES, methods

# make test sweeps the values in float32 only, of the standard distributions (loc 0, scale 1): the
# methods' derivatives, the float64 family and the loc/scale variants cost most of this sweep's
# minutes (make sweep, which CI runs after make test, has them all)
IN_SUITE = 0
FAMILIES = harness.families("float32")
TABLE = STATS if harness.FULL else {key: sig for key, sig in STATS.items() if "[loc" not in key}


@pytest.fixture(scope="module")
def reports():
    return {
        family.name: harness.sweep(TABLE, sg.scipy, jax.scipy, family, default_ref="jax", in_suite=IN_SUITE)
        for family in FAMILIES
    }


def test_every_distribution_and_method_jax_has_is_swept():
    both = {n for n in dir(sg.scipy.stats) if not n.startswith("_") and hasattr(jax.scipy.stats, n)}
    distributions = {n for n in both if hasattr(getattr(sg.scipy.stats, n), "_methods")}
    summaries = {harness.fn_name(k).split(".")[0] for k in SUMMARIES}
    missing = sorted(both - set(DISTRIBUTIONS) - set(SKIPPED) - summaries - {"ModeResult"})
    assert not missing, f"add these to signatures_stats (or SKIPPED with a reason): {missing}"
    unswept = sorted(
        f"{d}.{m}" for d in distributions - set(SKIPPED) for m in methods(d) if f"{d}.{m}" not in STATS
    )
    assert not unswept, f"methods both have that no entry sweeps: {unswept}"


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    harness.check(reports[family], DIFFERENCES, PENDING)


def test_listed_differences_still_differ(reports):
    harness.check_listing(reports.values(), DIFFERENCES, table=TABLE, in_suite=IN_SUITE)


def test_counts(reports, capsys):
    assert all(len(r.functions) >= 100 for r in reports.values())
    harness.print_counts("sg.scipy.stats", reports.values(), capsys, PENDING, IN_SUITE)
