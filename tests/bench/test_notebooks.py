"""Execute every notebook in notebooks/ on the small configuration (``KAG_NOTEBOOK_SMALL=1``).

The kernel is this interpreter (the venv's python), through a kernel spec written
to a temporary ``JUPYTER_PATH``: it does not depend on which kernels (``kag`` from
``make install``, or a ``python3`` spec that runs whatever ``python`` is on PATH)
happen to be registered. Notebooks run on an in-memory copy; files are not touched.

One kernel runs them all, one after the other: a kernel's start and its first imports
(the embedder's among them) cost 20-30 s here, paid once instead of once per notebook.
Each notebook starts from an empty namespace (``%reset -f``), so a notebook that relies
on a name it does not define itself still fails; modules stay imported.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(ROOT.glob("*.ipynb"))
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


@pytest.fixture(scope="module")
async def kernel(kernel_env: dict[str, str]) -> AsyncIterator[AsyncKernelManager]:
    """One running kernel (in notebooks/, with ``kernel_env``) for every notebook of the module."""
    with pytest.MonkeyPatch.context() as patch:
        for key, value in kernel_env.items():
            patch.setenv(key, value)
        manager = AsyncKernelManager(kernel_name=KERNEL)
        await manager.start_kernel(cwd=str(ROOT))
        try:
            yield manager
        finally:
            await manager.shutdown_kernel(now=True)


async def run(nb: nbformat.NotebookNode, kernel: AsyncKernelManager) -> nbformat.NotebookNode:
    """Execute ``nb`` on ``kernel`` (raises CellExecutionError on the first failing cell)."""
    client = NotebookClient(
        nb, km=kernel, timeout=CELL_TIMEOUT_S, resources={"metadata": {"path": str(ROOT)}}
    )
    return await client.async_execute()


def test_there_are_notebooks():
    assert any(p.name == "01_ablations.ipynb" for p in NOTEBOOKS)


@pytest.mark.integration  # the notebooks' pipelines write to the real Neo4j and Redis
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
async def test_notebook_runs_without_errors(path: Path, kernel: AsyncKernelManager):
    await run(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%reset -f")]), kernel)
    nb = nbformat.read(path, as_version=4)
    await run(nb, kernel)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    ran = [c for c in nb.cells if c.cell_type == "code"]
    assert ran and all(c.execution_count is not None for c in ran)
