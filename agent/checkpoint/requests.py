"""What saver operations yield to their driver: round trips and listed tuples."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple


@dataclass
class Batch:
    """Commands for one round trip; ``transaction`` wraps them in MULTI/EXEC."""

    commands: list[tuple[Any, ...]]
    transaction: bool = False


@dataclass
class Emit:
    """A tuple ``list`` hands to its caller."""

    item: CheckpointTuple


Op = Generator[Batch | Emit, Any, Any]
