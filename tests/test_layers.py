"""The repository's static contracts as tests: import layers (import-linter) and ruff.

The layer contract lives in pyproject.toml ([tool.importlinter]). A contract
that passes because it checks nothing is worse than none, so a scratch copy
of the package with a deliberate violation must make it fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_COPY_IGNORE = shutil.ignore_patterns(
    ".*", "__pycache__", "*.egg-info", "build", "out", "tests", "notebooks", "benchmarks"
)


def _tool(name: str) -> str:
    """The console script from this interpreter's environment (the venv), else from PATH."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def _run(*cmd: str, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _lint_imports(cwd: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return _run(_tool("lint-imports"), "--no-cache", cwd=cwd, env=env)


def test_layer_contracts_are_kept():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "module, line, broken",
    [
        (
            "graph/types.py",
            "from ..ops import registry",
            "stablegraph.graph is not allowed to import stablegraph.ops",
        ),
        (
            "graph/dims.py",
            "import stablegraph",
            "stablegraph.graph is not allowed to import stablegraph.backend",
        ),
        (
            "ops/primitives/registry.py",
            "from ...backend import session",
            "stablegraph.ops is not allowed to import stablegraph.backend",
        ),
        (
            "ops/primitives/elementwise.py",
            "from . import compare",
            "stablegraph.ops.primitives.elementwise is not allowed to import stablegraph.ops.primitives.compare",
        ),
        (
            "ops/primitives/prims.py",
            "from . import shape",
            "stablegraph.ops.primitives.prims is not allowed to import stablegraph.ops.primitives.shape",
        ),
        ("backend/feeds.py", "import jaxlib", "stablegraph.backend is not allowed to import jaxlib"),
        ("graph/types.py", "import jax", "stablegraph.graph is not allowed to import jax"),
    ],
)
def test_layer_contracts_catch_a_violation(tmp_path, module, line, broken):
    package = tmp_path / "stablegraph"
    shutil.copytree(ROOT, package, ignore=_COPY_IGNORE)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(package / module, "a") as f:
        f.write(f"\n{line}  # deliberate layer violation\n")
    result = _lint_imports(tmp_path, pythonpath=tmp_path)  # the copy shadows the installed package
    assert result.returncode != 0, result.stdout + result.stderr
    assert broken in " ".join(result.stdout.split()), result.stdout  # import-linter wraps long names


def test_ruff_check_is_clean():
    result = _run(_tool("ruff"), "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean():
    result = _run(_tool("ruff"), "format", "--no-cache", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
