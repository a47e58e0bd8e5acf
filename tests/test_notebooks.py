"""Every notebook in notebooks/ runs top to bottom without an error, and is saved with its outputs.

The kernel is this interpreter (the venv's python), named by a kernelspec
written for the test (the ``kernel_name`` fixture in conftest.py), so a
python3 kernelspec elsewhere on the machine can not run the notebook against
another installation.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbclient
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ has no .ipynb"
    names = {p.name for p in NOTEBOOKS}
    assert {"01_quickstart.ipynb", "02_autodiff.ipynb", "03_training_loop.ipynb"} <= names, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_saved_with_their_outputs(path):
    """Committed executed, top to bottom, so that they read well on a code host."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), path.name
    assert any(c.outputs for c in code), path.name
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, kernel_name, tmp_path):
    nb = nbformat.read(path, as_version=4)
    probe = nbformat.v4.new_code_cell("import sys; print(sys.executable)")
    nb.cells.insert(0, probe)
    client = nbclient.NotebookClient(
        nb, kernel_name=kernel_name, timeout=120, resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, on the first error
    ran_with = probe.outputs[0]["text"].strip()
    assert Path(ran_with) == Path(sys.executable), f"kernel ran {ran_with}, not {sys.executable}"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
