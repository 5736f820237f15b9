"""The one flat run-time ``Context`` every KAG graph takes as ``context_schema``.

Explicit values win; fields left at their default read ``KAG_<FIELD>`` from the
environment (as the react-agent template does), parsed by
``agent.env.parse_env_value``. Every value is checked up front: a wrong
type, an out-of-range number, an unknown recipe or an unknown field is a
``ConfigError`` naming the field (never a ``TypeError`` deep inside a node).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from agent.env import parse_env_value
from agent.errors import ConfigError
from agent.search.recipes import DEFAULT_RECIPE, RECIPES

MIN_CORE_TTL_SECONDS = 60
"""Shortest core memory TTL; 0 (or None) means no expiry."""

# field -> (lowest, highest) allowed, inclusive
_RANGES: dict[str, tuple[float, float]] = {
    "search_page_size": (1, 50),
    "core_section_limit": (1, 100_000),
    "link_top_k": (1, 50),
    "degree_cap": (1, 100),
    "link_min_confidence": (0.0, 1.0),
}


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
    display_window: int = field(
        default=100,
        metadata={
            "description": "Messages kept in the 'messages' display channel (requests and answers); "
            "older ones stay in recall storage and earlier checkpoints."
        },
    )
    tool_protocol: str = field(
        default="native",
        metadata={"description": "'native' tool calling or the design's 'text' markers."},
    )
    core_section_limit: int = field(
        default=2000, metadata={"description": "Characters allowed per core memory section (1..100000)."}
    )
    core_ttl_seconds: int = field(
        default=86400,
        metadata={"description": "Core memory TTL, refreshed on use (>= 60 seconds; 0 = no expiry)."},
    )
    search_page_size: int = field(default=5, metadata={"description": "Archival search page size (1..50)."})
    search_recipe: str = field(
        default=DEFAULT_RECIPE,
        metadata={
            "description": "Named retrieval recipe for conversation and archival search "
            "(agent.search.recipes); the default is the LoCoMo leave-one-conversation-out "
            "choice within 150 ms p95."
        },
    )
    zettelkasten: bool = field(
        default=True, metadata={"description": "Write Zettelkasten notes at the end of a session."}
    )
    link_top_k: int = field(
        default=10, metadata={"description": "A-MEM candidate notes per new note (1..50)."}
    )
    link_min_confidence: float = field(
        default=0.65, metadata={"description": "Keep link decisions at or above (0..1)."}
    )
    degree_cap: int = field(default=12, metadata={"description": "Maximum links per note (1..100)."})
    note_tag_vocabulary: tuple[str, ...] = field(
        default=(),
        metadata={"description": "Controlled tag vocabulary for notes (empty: the built-in one)."},
    )

    def __new__(cls, *args: Any, **kwargs: Any) -> Context:
        """Refuse positional arguments and unknown fields with a ``ConfigError`` naming them."""
        if args:
            raise ConfigError("context", "takes keyword arguments only")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise ConfigError(unknown[0], f"is not a Context field; known fields: {', '.join(sorted(names))}")
        return super().__new__(cls)

    def __post_init__(self) -> None:
        """Fill defaulted fields from ``KAG_<FIELD>``, then check types and ranges."""
        for f in fields(self):
            if f.default is MISSING or getattr(self, f.name) != f.default:
                continue
            var = f"KAG_{f.name.upper()}"
            raw = os.environ.get(var)
            if raw not in (None, ""):
                setattr(self, f.name, parse_env_value(var, raw, type(f.default)))
        for f in fields(self):
            setattr(self, f.name, _checked_type(f.name, getattr(self, f.name), type(f.default)))
        self._check_ranges()

    def _check_ranges(self) -> None:
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
        if self.display_window < 2:
            raise ConfigError("display_window", "must be at least 2 (a request and its answer)")
        if self.search_recipe not in RECIPES:
            raise ConfigError(
                "search_recipe", f"unknown recipe {self.search_recipe!r}; known: {', '.join(sorted(RECIPES))}"
            )
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if not low <= value <= high:
                raise ConfigError(name, f"must be between {low} and {high}, got {value!r}")
        if 0 < self.core_ttl_seconds < MIN_CORE_TTL_SECONDS or self.core_ttl_seconds < 0:
            raise ConfigError(
                "core_ttl_seconds",
                f"must be 0 (no expiry) or at least {MIN_CORE_TTL_SECONDS}, got {self.core_ttl_seconds}",
            )

    @classmethod
    def coerce(cls, value: Any) -> Context:
        """A ``Context`` from None (defaults), a ``Context`` or a mapping; anything else is refused."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, Mapping):
            bad = [k for k in value if not isinstance(k, str)]
            if bad:
                raise ConfigError("context", f"field names must be strings, got {bad[0]!r}")
            return cls(**value)
        raise ConfigError("context", f"expected an object of Context fields, got {type(value).__name__}")


def _checked_type(name: str, value: Any, kind: type) -> Any:
    """``value`` as ``kind`` (ints accepted for floats, lists for tuples); ``ConfigError`` otherwise."""
    if name == "core_ttl_seconds" and value is None:
        return 0
    if kind is bool:
        ok = isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif kind is tuple:
        ok = isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise ConfigError(name, f"expected {kind.__name__}, got {type(value).__name__} {value!r}")
    return value
