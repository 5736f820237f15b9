"""What saver operations yield to their driver: round trips and listed tuples."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple


@dataclass
class Batch:
    """Commands for one round trip; ``transaction`` wraps them in MULTI/EXEC.

    ``commands`` of a transaction touch one thread's keys only (one Redis Cluster slot).
    ``index`` holds idempotent writes to prefix-wide keys, sent no later than ``commands``
    (before them on a cluster); their replies are dropped.
    """

    commands: list[tuple[Any, ...]]
    transaction: bool = False
    index: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass
class Emit:
    """A tuple ``list`` hands to its caller."""

    item: CheckpointTuple


Op = Generator[Batch | Emit, Any, Any]
