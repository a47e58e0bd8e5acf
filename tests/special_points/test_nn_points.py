"""sg.nn's functions (those jax.nn also has) at special points against jax.nn, in float32 and
float64: values and first and second derivatives (harness.py), with closed-form references where
jax's own float64 is off (closed_forms_nn.py). A mismatch fails unless signatures_nn.DIFFERENCES
gives its reason; a listed reason no sweep needs fails too."""

import jax.nn
import pytest

import stablegraph as sg

from . import harness
from .signatures_nn import DIFFERENCES, NN, SKIPPED

FAMILIES = harness.families()


@pytest.fixture(scope="module")
def reports():
    return {family.name: harness.sweep(NN, sg.nn, jax.nn, family, default_ref="jax") for family in FAMILIES}


def test_every_function_jax_nn_has_is_swept():
    names = harness.public_functions(sg.nn, jax.nn)
    covered = {harness.fn_name(key) for key in NN} | set(SKIPPED)
    missing = sorted(names - covered)
    assert not missing, f"add these to signatures_nn.NN (or SKIPPED with a reason): {missing}"
    unknown = sorted(covered - names)
    assert not unknown, f"signatures_nn names functions sg.nn and jax.nn do not both have: {unknown}"


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    unexpected = [m for m in reports[family].mismatches if not harness.listed(m, DIFFERENCES)]
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
        print("\nsg.nn special points:\n" + harness.summary(report))
