"""Execute every notebook in notebooks/ on the small configuration (``KAG_NOTEBOOK_SMALL=1``).

The kernel is this interpreter (the venv's python), through a kernel spec written
to a temporary ``JUPYTER_PATH``: it does not depend on which kernels (``kag`` from
``make install``, or a ``python3`` spec that runs whatever ``python`` is on PATH)
happen to be registered. Notebooks run on an in-memory copy; files are not touched.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
KERNEL = "kag-notebook-test"
CELL_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A kernel spec for ``sys.executable`` under a temporary JUPYTER_PATH."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec.joinpath("kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "KAG notebook test", "language": "python"})
    )
    return {"JUPYTER_PATH": str(root), "KAG_NOTEBOOK_SMALL": "1", "MPLBACKEND": "Agg"}


def test_there_are_notebooks():
    assert any(p.name == "01_ablations.ipynb" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_without_errors(path: Path, kernel_env: dict[str, str], monkeypatch):
    for key, value in kernel_env.items():
        monkeypatch.setenv(key, value)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name=KERNEL,
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    ran = [c for c in nb.cells if c.cell_type == "code"]
    assert ran and all(c.execution_count is not None for c in ran)
