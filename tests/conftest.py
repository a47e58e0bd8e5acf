"""Shared test helpers: build a graph from numpy inputs and run it once.

Each XLA compile costs tens of milliseconds on these 2 cores, so tests build
many ops into one graph and fetch them all from one run.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from stablegraph.test_util import run_graph

settings.register_profile(
    "stablegraph",
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("stablegraph")

# the persistent compile cache writes to a directory of this test process's own, never the user's
# ~/.cache/stablegraph (tests of the cache itself point it elsewhere)
os.environ.setdefault("STABLEGRAPH_CACHE_DIR", tempfile.mkdtemp(prefix="stablegraph-test-cache-"))

# The files that take longest (CPU seconds on 2 cores, mostly XLA compiles; measured 2026-11-28 with
# `--durations`), run first: `make test` hands whole files to its 2 workers in collection order
# (--no-loadscope-reorder), and a long file left for the end keeps one worker busy while the other
# idles (the 43 s of test_stats_ppf.py did, last). Others keep their order after these.
_LONGEST_FIRST = (
    "tests/transforms/test_grad_registry.py",  # 72
    "tests/ops/scipy_like/test_stats_more.py",  # 54
    "tests/ops/scipy_like/test_stats_ppf.py",  # 43
    "tests/ops/scipy_like/test_stats.py",  # 34
    "tests/ops/scipy_like/test_hypergeometric.py",  # 31
    "tests/ops/test_random_more.py",  # 31
    "tests/ops/scipy_like/test_hypergeometric_params.py",  # 28
    "tests/ops/scipy_like/test_schur_functions.py",  # 26
    "tests/ops/scipy_like/test_special_functions.py",  # 23
    "tests/ops/scipy_like/test_special_integrals.py",  # 17
    "tests/ops/test_random.py",  # 17
    "tests/transforms/test_vjp_structural.py",  # 16
    "tests/ops/test_transcendental.py",  # 16
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(_LONGEST_FIRST)}
    root = config.rootpath

    def place(item):
        try:
            return rank.get(item.path.relative_to(root).as_posix(), len(rank))
        except ValueError:
            return len(rank)

    items.sort(key=place)  # stable: the rest keep collection order


@pytest.fixture(scope="session")
def ffi_cache(tmp_path_factory):
    """One sg.ffi build cache for the whole test process: every test module that builds the
    example kernels gets the same shared library, so registering its handlers again is a no-op
    (a different library under a registered target name is a GraphError: XLA keeps the first)."""
    before = os.environ.get("STABLEGRAPH_FFI_CACHE")
    path = tmp_path_factory.mktemp("ffi-cache")
    os.environ["STABLEGRAPH_FFI_CACHE"] = str(path)
    yield path
    if before is None:
        del os.environ["STABLEGRAPH_FFI_CACHE"]
    else:
        os.environ["STABLEGRAPH_FFI_CACHE"] = before


@pytest.fixture(scope="module")
def jax_x64():
    """jax computes in float64 for the module's tests (jax's switch is global: put back after).

    A module asks with ``pytestmark = pytest.mark.usefixtures("jax_x64")`` or by the
    fixture's name in a test's arguments."""
    import jax  # noqa: PLC0415  (jax is the oracle of the tests that ask, not of every test)

    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


@pytest.fixture
def run():
    return run_graph


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def kernel_name(tmp_path, monkeypatch) -> str:
    """A Jupyter kernelspec that runs this interpreter (the venv's python), for executing notebooks."""
    name = "stablegraph-test"
    spec_dir = tmp_path / "jupyter" / "kernels" / name
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "stablegraph test (venv python)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # quiet debugpy under -X frozen_modules
    return name


@pytest.fixture
def chromium():
    """Headless chromium (Debian's chromium + chromium-driver) through selenium, quit after the test;
    a missing browser fails the test (it must not pass by skipping)."""
    import shutil  # noqa: PLC0415

    from selenium import webdriver  # noqa: PLC0415  (only the browser tests load selenium)
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    assert not missing, (
        f"{' and '.join(missing)} not found: install Debian's chromium and chromium-driver "
        "(`make setup` does it as root: apt-get install chromium chromium-driver)"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,1800", "--force-device-scale-factor=1"):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()
