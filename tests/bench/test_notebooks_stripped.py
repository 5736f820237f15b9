"""Committed notebooks hold source only: no outputs, no execution counts.

Fix a failure with ``.venv/bin/python scripts/strip_notebooks.py``.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_notebooks_exist():
    assert NOTEBOOKS, "notebooks/*.ipynb not found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stripped(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, f"{path.name} has no code cells"
    for i, cell in enumerate(code):
        assert cell.outputs == [], f"{path.name}: code cell {i} has outputs"
        assert cell.execution_count is None, f"{path.name}: code cell {i} has an execution count"
