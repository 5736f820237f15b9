"""The one flat run-time ``Context`` every KAG graph takes as ``context_schema``.

Explicit values win; fields left at their default read ``KAG_<FIELD>`` from the
environment (as the react-agent template does).
"""

from __future__ import annotations

import os
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from agent.errors import ConfigError


@dataclass(kw_only=True)
class Context:
    """Knobs for one run. Connections and secrets live in ``Settings``, not here."""

    max_tokens: int = field(default=8192, metadata={"description": "Working-memory budget."})
    max_steps: int = field(default=5, metadata={"description": "Heartbeat steps before a forced answer."})
    pressure_threshold: float = field(
        default=0.70,
        metadata={"description": "Pressure above which the oldest messages are archived."},
    )
    evict_fraction: float = field(default=0.5, metadata={"description": "Share of the queue archived."})
    tool_protocol: str = field(
        default="native",
        metadata={"description": "'native' tool calling or the design's 'text' markers."},
    )
    auto_archive: bool = field(default=True, metadata={"description": "Ablation switch for auto-archive."})
    core_section_limit: int = field(
        default=2000, metadata={"description": "Characters allowed per core memory section."}
    )
    core_ttl_seconds: int = field(
        default=86400, metadata={"description": "Core memory TTL (refreshed on use)."}
    )
    search_page_size: int = field(default=5, metadata={"description": "Archival search page size."})
    search_recipe: str = field(
        default="hybrid_rrf",
        metadata={"description": "Named retrieval recipe for archival search."},
    )
    zettelkasten: bool = field(
        default=True, metadata={"description": "Write Zettelkasten notes at the end of a session."}
    )
    link_top_k: int = field(default=10, metadata={"description": "A-MEM candidate notes per new note."})
    link_min_confidence: float = field(
        default=0.65, metadata={"description": "Keep link decisions at or above."}
    )
    degree_cap: int = field(default=12, metadata={"description": "Maximum links per note."})
    note_tag_vocabulary: tuple[str, ...] = field(
        default=(),
        metadata={"description": "Controlled tag vocabulary for notes (empty: the built-in one)."},
    )

    def __post_init__(self) -> None:
        """Fill defaulted fields from ``KAG_<FIELD>`` and validate ranges."""
        for f in fields(self):
            if f.default is MISSING or getattr(self, f.name) != f.default:
                continue
            raw = os.environ.get(f"KAG_{f.name.upper()}")
            if raw not in (None, ""):
                setattr(self, f.name, _coerce(f"KAG_{f.name.upper()}", raw, type(f.default)))
        if self.max_tokens < 256:
            raise ConfigError("max_tokens", "must be at least 256")
        if self.max_steps < 1:
            raise ConfigError("max_steps", "must be at least 1")
        if not 0.0 < self.pressure_threshold < 1.0:
            raise ConfigError("pressure_threshold", "must be between 0 and 1")
        if self.tool_protocol not in {"native", "text"}:
            raise ConfigError("tool_protocol", "must be 'native' or 'text'")
        if not 0.0 < self.evict_fraction < 1.0:
            raise ConfigError("evict_fraction", "must be between 0 and 1")


def _coerce(var: str, raw: str, kind: type) -> Any:
    try:
        if kind is tuple:
            return tuple(part.strip() for part in raw.split(",") if part.strip())
        if kind is bool:
            lowered = raw.strip().lower()
            if lowered not in {"1", "0", "true", "false", "yes", "no", "on", "off"}:
                raise ValueError(raw)
            return lowered in {"1", "true", "yes", "on"}
        return kind(raw)
    except ValueError as exc:
        raise ConfigError(var, f"expected {kind.__name__}, got {raw!r}") from exc
