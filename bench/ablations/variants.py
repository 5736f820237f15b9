"""The named variants of the ablation study: the full system, its ablations, the baselines.

A variant is a graph choice (``graph``), whether the heartbeat keeps its pressure interrupt
(``auto_archive``), plus ``Context`` overrides; the wiring (``bench/ablations/runner.py``)
builds the graph. Every variant gets the same base
``Context`` (the same ``max_tokens``), so differences come from the variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from agent.context import Context
from agent.errors import ConfigError

GraphKind = Literal["heartbeat", "fixed_window", "sliding_window", "rag_only"]
Role = Literal["system", "ablation", "baseline"]


@dataclass(frozen=True)
class Variant:
    """One row of the ablation table."""

    name: str
    role: Role
    """``system`` (the full KAG), ``ablation`` (KAG minus one part) or ``baseline``."""
    graph: GraphKind
    """Which graph runs it."""
    description: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    """``Context`` fields this variant changes."""
    auto_archive: bool = True
    """False: the heartbeat's monitor never routes to ``archive`` (the queue grows unchecked)."""

    def context(self, base: Context) -> Context:
        """``base`` with this variant's overrides."""
        return replace(base, **dict(self.overrides))


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("full", "system", "heartbeat", "heartbeat + auto-archive + Zettelkasten"),
        Variant(
            "no_auto_archive",
            "ablation",
            "heartbeat",
            "no eviction: the queue grows past max_tokens (expect overflow)",
            auto_archive=False,
        ),
        Variant(
            "no_heartbeat",
            "ablation",
            "heartbeat",
            "one step per request: no tool chaining (max_steps=1)",
            {"max_steps": 1},
        ),
        Variant(
            "no_zettelkasten",
            "ablation",
            "heartbeat",
            "no notes at session end (no personal knowledge base)",
            {"zettelkasten": False},
        ),
        Variant("fixed_window", "baseline", "fixed_window", "first max_tokens of dialogue, no archive"),
        Variant("sliding_window", "baseline", "sliding_window", "last max_tokens of dialogue, no archive"),
        Variant("rag_only", "baseline", "rag_only", "top-k retrieval from recall storage, one answer"),
    )
}
ALL_VARIANTS: tuple[str, ...] = tuple(VARIANTS)
ABLATIONS: tuple[str, ...] = tuple(n for n, v in VARIANTS.items() if v.role == "ablation")
BASELINES: tuple[str, ...] = tuple(n for n, v in VARIANTS.items() if v.role == "baseline")
REFERENCE = "full"


def get_variant(name: str) -> Variant:
    """The variant called ``name``; a ``ConfigError`` lists the known names."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise ConfigError("variant", f"unknown {name!r}; known: {', '.join(VARIANTS)}") from None
