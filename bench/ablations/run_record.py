"""``RunRecord``: what one request of a recorded run did, as the metrics need it.

A run recorder (``bench/ablations/run_recorder.py``) fills one per request from the
graph's stream; ``bench/ablations/run_metrics.py`` computes the design's metrics from a
list of them. The record holds observations only; derived flags are properties.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolResult:
    """One tool call and whether it returned without error."""

    name: str
    ok: bool


@dataclass(frozen=True)
class RunRecord:
    """One request (turn) of a recorded run."""

    variant: str
    """Variant or baseline name."""
    session: str
    """Session id of the turn."""
    turn: int
    """Index of the turn in the script."""
    request: str
    """What the learner said."""
    response: str = ""
    """The final answer."""
    max_tokens: int = 8192
    """Working-memory budget of the run."""
    max_steps: int = 5
    """Step budget of the run."""
    pressure_threshold: float = 0.70
    """Pressure above which the run counts as triggered."""
    monitor_pressures: tuple[float, ...] = ()
    """Pressure readings of the monitor (before any archive), one per heartbeat iteration."""
    prompt_pressures: tuple[float, ...] = ()
    """Tokens of each compiled prompt over ``max_tokens``, one per model call."""
    steps: int = 0
    """Model calls (heartbeat iterations) of the turn."""
    tool_results: tuple[ToolResult, ...] = ()
    """Every tool call of the turn, in order."""
    archive_events: tuple[bool, ...] = ()
    """One entry per eviction attempt: True when the summary was written."""
    retrieved: tuple[str, ...] = ()
    """Texts of the hits that searches and retrieval returned in this turn."""
    expected: str | None = None
    """For a probe: the word the answer must contain."""
    fact_turn: int | None = None
    """For a probe: the turn that stated the fact."""
    notes_written: int = 0
    """Zettelkasten notes this turn wrote (end of session)."""
    degraded: bool = False
    """True when the turn ran in Redis-only mode."""

    @property
    def peak_pressure(self) -> float:
        """The highest pressure seen in the turn (monitor or prompt), 0.0 when none was recorded."""
        return max((*self.monitor_pressures, *self.prompt_pressures), default=0.0)

    @property
    def triggered(self) -> bool:
        """Pressure passed the threshold at some point of the turn."""
        return self.peak_pressure > self.pressure_threshold

    @property
    def overflowed(self) -> bool:
        """A prompt of the turn held more tokens than ``max_tokens``."""
        return any(p > 1.0 for p in self.prompt_pressures)

    @property
    def hit_max_steps(self) -> bool:
        """The turn used its whole step budget (its last step was forced to answer)."""
        return self.steps >= self.max_steps

    @property
    def is_probe(self) -> bool:
        """The turn asks for an earlier fact."""
        return self.expected is not None

    @property
    def recalled(self) -> bool:
        """A probe whose answer contains the expected word (case-insensitive)."""
        return self.expected is not None and self.expected.lower() in self.response.lower()

    @property
    def recalled_in_budget(self) -> bool:
        """A probe recalled from prompts that all fit in ``max_tokens``.

        A model whose context window is ``max_tokens`` rejects a larger prompt, so an
        answer given after an overflow would not exist. The offline policy reads no
        prompt and answers anyway; this flag does not count such answers.
        """
        return self.recalled and not self.overflowed

    @property
    def distance(self) -> int | None:
        """Turns between the fact and its probe."""
        return None if self.fact_turn is None else self.turn - self.fact_turn
