"""sg.nn's functions (those jax.nn also has) at special points against jax.nn, in float32 and
float64: values and first and second derivatives (harness.py), with closed-form references where
jax's own float64 is off (closed_forms_nn.py). A mismatch fails unless signatures_nn.DIFFERENCES
gives its reason; a listed reason no sweep needs fails too."""

import jax.nn
import pytest

import stablegraph as sg

from . import harness
from .signatures_nn import DIFFERENCES, NN, SKIPPED

FAMILIES = harness.families("float32")  # make test: float32; make sweep (CI, after it): both


@pytest.fixture(scope="module")
def reports():
    return {family.name: harness.sweep(NN, sg.nn, jax.nn, family, default_ref="jax") for family in FAMILIES}


def test_every_function_jax_nn_has_is_swept():
    harness.check_coverage(sg.nn, jax.nn, (NN,), SKIPPED, "signatures_nn.NN")


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_special_points_match_jax(reports, family):
    harness.check(reports[family], DIFFERENCES)


def test_listed_differences_still_differ(reports):
    harness.check_listing(reports.values(), DIFFERENCES)


def test_counts(reports, capsys):
    assert all(len(r.functions) >= 30 for r in reports.values())
    harness.print_counts("sg.nn", reports.values(), capsys)
