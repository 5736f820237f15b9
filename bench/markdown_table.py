"""Markdown tables for benchmark and ablation reports (no I/O)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def markdown_table(
    header: Sequence[str], rows: Iterable[Sequence[str]], *, numeric_from: int | None = None
) -> str:
    """A GitHub markdown table; columns from ``numeric_from`` on are right-aligned."""
    rule = ["---:" if numeric_from is not None and i >= numeric_from else "---" for i in range(len(header))]
    body = ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|", *body])
