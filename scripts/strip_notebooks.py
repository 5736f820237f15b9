"""Strip outputs, execution counts and run metadata from notebooks, so git holds only their source.

.venv/bin/python scripts/strip_notebooks.py            # strip notebooks/*.ipynb in place
.venv/bin/python scripts/strip_notebooks.py --check    # exit 1 if any notebook has outputs
.venv/bin/python scripts/strip_notebooks.py a.ipynb b.ipynb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
RUN_CELL_METADATA = ("execution", "collapsed", "scrolled", "ExecuteTime")
RUN_NOTEBOOK_METADATA = ("widgets",)


def strip(nb: nbformat.NotebookNode) -> bool:
    """Strip ``nb`` in place; return True when anything changed."""
    changed = False
    for key in RUN_NOTEBOOK_METADATA:
        changed |= nb.metadata.pop(key, None) is not None
    for cell in nb.cells:
        for key in RUN_CELL_METADATA:
            changed |= cell.metadata.pop(key, None) is not None
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            cell.outputs = []
            changed = True
        if cell.get("execution_count") is not None:
            cell.execution_count = None
            changed = True
    return changed


def main(argv: list[str] | None = None) -> int:
    """Strip the given notebooks (default: ``notebooks/*.ipynb``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="report, do not write; exit 1 if unstripped")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(NOTEBOOKS.glob("*.ipynb"))
    dirty = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if strip(nb):
            dirty.append(path)
            if not args.check:
                nbformat.write(nb, path)
    for path in dirty:
        print(f"{'has outputs' if args.check else 'stripped'}: {path}")
    return 1 if args.check and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
