"""State reducers the graphs share (``Annotated[type, reducer]`` channels)."""

from __future__ import annotations

from typing import Any


def last(_: Any, new: Any) -> Any:
    """The newest write wins."""
    return new


def merge(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    """The two dicts as one, the newer keys winning."""
    return {**(old or {}), **(new or {})}


def union(old: list[str] | None, new: list[str] | None) -> list[str]:
    """Both lists as one, each item once, in first-seen order."""
    return list(dict.fromkeys([*(old or []), *(new or [])]))
