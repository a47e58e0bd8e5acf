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

# make test sweeps float32 only here (float64 too in make sweep): the suite's 10 minutes
FAMILIES = harness.families("float32")


@pytest.fixture(scope="module")
def reports():
    return {
        family.name: harness.sweep(SPECIAL, sg.scipy.special, jax.scipy.special, family, default_ref="jax")
        for family in FAMILIES
    }


def test_every_function_jax_has_is_swept():
    names = harness.public_functions(sg.scipy.special, jax.scipy.special)
    covered = {harness.fn_name(key) for key in SPECIAL} | set(SKIPPED)
    missing = sorted(names - covered)
    assert not missing, f"add these to signatures_special.SPECIAL (or SKIPPED with a reason): {missing}"
    unknown = sorted(covered - names)
    assert not unknown, f"signatures_special names functions the two do not both have: {unknown}"


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    unexpected = [m for m in reports[family].mismatches if not harness.listed(m, {**DIFFERENCES, **PENDING})]
    assert not unexpected, f"{len(unexpected)} mismatches:\n" + "\n".join(map(str, unexpected))


def test_listed_differences_still_differ(reports):
    found = {
        k for r in reports.values() for m in r.mismatches for k in [harness.listing_key(m, DIFFERENCES)] if k
    }
    stale = sorted(k for k in set(DIFFERENCES) - found if harness.swept(k, run=FAMILIES))
    assert not stale, f"no mismatch needs these DIFFERENCES entries any more, remove them: {stale}"


def test_counts(reports, capsys):
    report = list(reports.values())
    assert all(len(r.functions) >= 30 for r in report)
    with capsys.disabled():
        print(f"\n{len(DIFFERENCES)} listed differences, {len(PENDING)} open (PENDING)")
        fixed = harness.unneeded(report, PENDING)
        print(f"PENDING entries no mismatch needs any more ({len(fixed)}), remove them: {fixed}")
        print("\nsg.scipy.special special points:\n" + harness.summary(report))
