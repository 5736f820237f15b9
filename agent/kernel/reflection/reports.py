"""What a reflection step and a whole run report, and the batch-size knob.

Every step says what it changed: counts and the ids it created, updated or retired.
A step that changed nothing reports ``changed == False`` (a rerun with nothing new).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agent.errors import InvalidInputError

MIN_LIMIT = 10
"""Smallest batch a step may be asked to handle per run."""
MAX_LIMIT = 100
"""Largest batch a step may be asked to handle per run."""
DEFAULT_LIMIT = 50
"""Batch size when none is given."""
STEPS = ("synthesis", "anticipation", "curation", "prioritisation", "decay")
"""The five steps, in the order a run takes them."""


def check_limit(limit: object) -> int:
    """The batch bound: an integer from 10 to 100 (``InvalidInputError`` otherwise)."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not MIN_LIMIT <= limit <= MAX_LIMIT:
        raise InvalidInputError(f"limit must be an integer from {MIN_LIMIT} to {MAX_LIMIT}, got {limit!r}")
    return limit


@dataclass
class StepReport:
    """What one step did for one learner."""

    step: str
    """``synthesis``, ``anticipation``, ``curation``, ``prioritisation`` or ``decay``."""
    scanned: int = 0
    """Items the step read as input (scanned items, candidate nodes)."""
    created: list[str] = field(default_factory=list)
    """Ids of nodes the step created."""
    updated: list[str] = field(default_factory=list)
    """Ids of nodes the step changed."""
    superseded: list[str] = field(default_factory=list)
    """Curation: ids of facts the step retired."""
    marked: int = 0
    """Synthesis: source items stamped ``reflected_at``."""
    details: dict[str, Any] = field(default_factory=dict)
    """Step-specific counters (no learner text)."""

    @property
    def changed(self) -> bool:
        """True when the step wrote anything."""
        return bool(self.created or self.updated or self.superseded or self.marked)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with counts next to the ids."""
        data = asdict(self)
        data.update(
            changed=self.changed,
            counts={
                "created": len(self.created),
                "updated": len(self.updated),
                "superseded": len(self.superseded),
            },
        )
        return data


@dataclass
class ReflectionReport:
    """One learner's run: the report of each step, in order."""

    learner_id: str
    limit: int
    steps: list[StepReport] = field(default_factory=list)
    started_at: str = ""
    finished_at: str = ""

    @property
    def changed(self) -> bool:
        """True when any step wrote anything."""
        return any(s.changed for s in self.steps)

    def step(self, name: str) -> StepReport:
        """The report of step ``name`` (KeyError when it did not run)."""
        for report in self.steps:
            if report.step == name:
                return report
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "learner_id": self.learner_id,
            "limit": self.limit,
            "changed": self.changed,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "steps": {s.step: s.to_dict() for s in self.steps},
        }
