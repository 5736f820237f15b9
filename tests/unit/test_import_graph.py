"""No import circle among the product's modules (``agent``, ``graphs``, ``tools``).

The graph is grimp's (the library import-linter is built on), read from the source without
importing it. Every import counts: at module top, inside a function, under
``TYPE_CHECKING``. A circle is a strongly connected component of more than one module;
the failure names each module of it and the lines that import inside it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

import grimp
import pytest

PRODUCT = ("agent", "graphs", "tools")
ROOT = Path(__file__).resolve().parents[2]


def import_circles(graph: grimp.ImportGraph, modules: Iterable[str]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def describe(graph: grimp.ImportGraph, circle: list[str]) -> str:
    """Each module of ``circle`` with the lines that import other modules of it."""
    members = set(circle)
    lines = [f"{len(circle)} modules in a circle:"]
    for module in circle:
        for imported in sorted(graph.find_modules_directly_imported_by(module) & members):
            for detail in graph.get_import_details(importer=module, imported=imported):
                lines.append(f"  {module}:{detail['line_number']} -> {imported}: {detail['line_contents']}")
    return "\n".join(lines)


def test_the_circle_finder_finds_a_circle_and_only_the_circle() -> None:
    graph = grimp.ImportGraph()
    edges = [("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("a.z", "a.w"), ("a.w", "a.v")]
    for importer, imported in edges:
        graph.add_import(importer=importer, imported=imported)
    graph.add_module("a.alone")
    assert import_circles(graph, graph.modules) == [["a.x", "a.y", "a.z"]]
    graph.add_import(importer="a.v", imported="a.z")  # w and v join it
    assert import_circles(graph, graph.modules) == [["a.v", "a.w", "a.x", "a.y", "a.z"]]


@pytest.fixture(scope="module")
def product_graph() -> grimp.ImportGraph:
    """The product's import graph, built from its source (no cache: always today's files)."""
    return grimp.build_graph(*PRODUCT, cache_dir=None)


def test_the_product_has_no_import_circle(product_graph: grimp.ImportGraph) -> None:
    assert {m.split(".")[0] for m in product_graph.modules} == set(PRODUCT)
    circles = import_circles(product_graph, product_graph.modules)
    assert not circles, "\n\n".join(describe(product_graph, c) for c in circles)


def test_ci_runs_the_layer_contracts_inside_agent() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    inside = [c for c in contracts if c["name"].startswith("agent:")]
    assert len(inside) >= 3, [c["name"] for c in contracts]
    lint = re.search(r"^lint:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert lint and "lint-imports" in lint.group(1)
    assert "make lint" in (ROOT / ".ci" / "run").read_text()
