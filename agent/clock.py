"""The clock KAG's memory reads: injected, so tests and benchmarks never sleep.

Everything that stamps or ages memory (recall ``created_at``, fact validity,
activation decay, reminder due times) asks a ``Clock`` instead of the system
time. Production uses ``system_clock``; tests and the cognitive suite pass a
``ManualClock`` and move it by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]
"""A zero-argument callable returning the current time, timezone-aware."""


def system_clock() -> datetime:
    """The system time in UTC."""
    return datetime.now(UTC)


def as_aware(value: datetime) -> datetime:
    """``value`` with a timezone (naive times are taken as UTC)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class ManualClock:
    """A clock that moves only when told to (tests, replays, the cognitive suite)."""

    def __init__(self, start: datetime | str | None = None) -> None:
        """Start at ``start`` (a datetime or ISO-8601 text), default the system time."""
        self._now = system_clock()
        if start is not None:
            self.set(start)

    def __call__(self) -> datetime:
        """The current (manual) time."""
        return self._now

    def set(self, value: datetime | str) -> None:
        """Jump to ``value`` (a datetime or ISO-8601 text)."""
        self._now = as_aware(datetime.fromisoformat(value) if isinstance(value, str) else value)

    def advance(self, seconds: float = 0.0, **delta: float) -> datetime:
        """Move forward by ``seconds`` (plus any ``timedelta`` keywords) and return the new time."""
        self._now += timedelta(seconds=seconds, **delta)
        return self._now
