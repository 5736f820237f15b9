"""The scoring rules of ``kag-cognitive-v1`` (``../shared/bench/cognitive_README.md``), pure and exact.

A probe looks at the first ``k`` hits of one search:

- an expected item is **found** when one hit's text contains every string of its
  ``all`` list, case-insensitively; with ``in_order`` the strings must appear in that
  order, each starting after the end of the previous one (as the steps of a procedure);
- with a ``session`` (on the item, else on the probe) that hit's time must also fall on
  that session's date in the session date's time zone; the hit's time is its
  ``valid_from`` when it has one (facts), else its ``created_at``;
- with ``first``, the first expected item must be matched by the top hit **among
  facts** (hits of kind ``fact``; other kinds are skipped, and no fact among the k
  hits fails the probe);
- the probe passes when every item is found with its conditions.

A level's score is the share of its probes that pass. Reminder checks: after the
named learner message some reminder fired (``fires: true``) or none did
(``fires: false``); a reminder that fires more than once fails every check that
sees it fire. The false-fire rate is taken over every learner turn of the run that
no check declares ``fires: true``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from bench.cognitive.dataset import LEVELS, ExpectItem, Probe, ReminderCheck

TARGETS: dict[str, float] = {"L1": 1.0, "L2": 0.85, "L3": 0.70, "L4": 0.80, "L5": 0.90, "L6": 0.95}
"""Pass-rate targets per level (issue 13)."""
FIRE_ONCE_TARGET = 1.0
"""Share of ``fires: true`` checks that see exactly one firing of a reminder that fires only once."""
FALSE_FIRE_TARGET = 0.02
"""Highest acceptable share of unrelated turns on which some reminder fires."""


@dataclass(frozen=True)
class Hit:
    """What the scorer needs of one search hit."""

    text: str
    kind: str = "memory"
    valid_from: str | None = None
    created_at: str | None = None
    id: str = ""
    score: float = 0.0

    @property
    def time(self) -> str | None:
        """The hit's time: ``valid_from`` when set (facts), else ``created_at``."""
        return self.valid_from or self.created_at

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class ItemVerdict:
    """Whether one expected item was found, and at which rank (1-based) of the k hits."""

    strings: tuple[str, ...]
    found: bool
    rank: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class ProbeVerdict:
    """One probe's outcome on one search."""

    passed: bool
    items: tuple[ItemVerdict, ...]
    first_ok: bool | None = None
    """The ``first`` condition (None when the probe does not ask for it)."""
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "passed": self.passed,
            "first_ok": self.first_ok,
            "reason": self.reason,
            "items": [
                {"all": list(i.strings), "found": i.found, "rank": i.rank, "reason": i.reason}
                for i in self.items
            ],
        }


def contains_all(text: str, strings: Sequence[str], *, in_order: bool = False) -> bool:
    """Every string in ``text`` (case-insensitive); with ``in_order`` each after the previous one ends."""
    haystack = text.casefold()
    position = 0
    for needle in (s.casefold() for s in strings):
        at = haystack.find(needle, position if in_order else 0)
        if at < 0:
            return False
        if in_order:
            position = at + len(needle)
    return True


def on_date(time: str | None, day: datetime) -> bool:
    """True when ISO time ``time`` falls on ``day``'s calendar date, in ``day``'s time zone."""
    if not time:
        return False
    try:
        moment = datetime.fromisoformat(time)
    except ValueError:
        return False
    if moment.tzinfo is None:  # stores stamp UTC; a naive time is taken as UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(day.tzinfo).date() == day.date()


def item_matches(
    hit: Hit, item: ExpectItem, probe: Probe, session_dates: Mapping[str, datetime]
) -> tuple[bool, str]:
    """Whether ``hit`` satisfies ``item`` under ``probe``'s conditions, and why not."""
    if not contains_all(hit.text, item.all, in_order=probe.in_order):
        return False, "text" if not probe.in_order or not contains_all(hit.text, item.all) else "order"
    session = probe.session_of(item)
    if session is not None and not on_date(hit.time, session_dates[session]):
        return False, f"time {hit.time} is not on {session}'s date"
    return True, ""


def score_probe(probe: Probe, hits: Sequence[Hit], session_dates: Mapping[str, datetime]) -> ProbeVerdict:
    """Apply the README's rules to the first ``probe.k`` hits (see the module docstring)."""
    top = list(hits)[: probe.k]
    verdicts = []
    for item in probe.expect:
        rank, reasons = None, []
        for i, hit in enumerate(top, start=1):
            ok, why = item_matches(hit, item, probe, session_dates)
            if ok:
                rank = i
                break
            if why != "text":
                reasons.append(f"#{i}: {why}")
        reason = "" if rank else ("; ".join(reasons) or f"no hit of {len(top)} contains it")
        verdicts.append(ItemVerdict(item.all, rank is not None, rank, reason))
    first_ok: bool | None = None
    reason = ""
    if probe.first:
        facts = [h for h in top if h.kind == "fact"]
        if not facts:
            first_ok, reason = False, "first: no fact among the hits"
        else:
            first_ok, why = item_matches(facts[0], probe.expect[0], probe, session_dates)
            if not first_ok:
                reason = f"first: the top fact does not match ({why}): {facts[0].text[:80]!r}"
    missing = [" + ".join(v.strings) for v in verdicts if not v.found]
    if missing:
        reason = "; ".join(filter(None, [f"not found: {', '.join(missing)}", reason]))
    passed = not missing and first_ok is not False
    return ProbeVerdict(passed, tuple(verdicts), first_ok, reason)


@dataclass
class TurnFirings:
    """Reminder firings seen after one learner message."""

    session: str
    turn: int
    reminder_ids: list[str] = field(default_factory=list)
    """One id per firing (an anonymous firing gets a placeholder id)."""
    scenario: str = ""

    @property
    def key(self) -> tuple[str, str, int]:
        """``(scenario, session, turn)``."""
        return (self.scenario, self.session, self.turn)


@dataclass(frozen=True)
class ReminderVerdict:
    """One reminder check's outcome."""

    check: ReminderCheck
    fired: int
    passed: bool
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {**asdict(self.check), "fired": self.fired, "passed": self.passed, "reason": self.reason}


def score_reminders(checks: Iterable[ReminderCheck], turns: Sequence[TurnFirings]) -> list[ReminderVerdict]:
    """Score each check against the firings of one scenario's turns (see the module docstring)."""
    by_turn = {(t.session, t.turn): t.reminder_ids for t in turns}
    counts: dict[str, int] = {}
    for t in turns:
        for rid in t.reminder_ids:
            counts[rid] = counts.get(rid, 0) + 1
    out = []
    for check in checks:
        fired = by_turn.get((check.session, check.turn), [])
        twice = sorted({rid for rid in fired if counts[rid] > 1 or fired.count(rid) > 1})
        if check.fires and not fired:
            out.append(ReminderVerdict(check, 0, False, "no reminder fired"))
        elif not check.fires and fired:
            out.append(ReminderVerdict(check, len(fired), False, f"fired: {', '.join(fired)}"))
        elif twice:
            out.append(ReminderVerdict(check, len(fired), False, f"fired more than once: {', '.join(twice)}"))
        else:
            out.append(ReminderVerdict(check, len(fired), True))
    return out


@dataclass(frozen=True)
class ReminderSummary:
    """Fire-once and false-fire figures over a run."""

    fire_checks: int
    fire_once: int
    unrelated_turns: int
    false_fires: int
    checks: int
    checks_passed: int

    @property
    def fire_once_rate(self) -> float | None:
        """Share of ``fires: true`` checks that passed (None without such checks)."""
        return self.fire_once / self.fire_checks if self.fire_checks else None

    @property
    def false_fire_rate(self) -> float | None:
        """Share of unrelated turns with a firing (None without turns)."""
        return self.false_fires / self.unrelated_turns if self.unrelated_turns else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with the rates."""
        return {
            **asdict(self),
            "fire_once_rate": self.fire_once_rate,
            "false_fire_rate": self.false_fire_rate,
        }


def summarise_reminders(
    verdicts: Iterable[ReminderVerdict],
    turns: Iterable[TurnFirings],
    expected: Iterable[tuple[str, str, int]],
) -> ReminderSummary:
    """Totals over a run.

    ``turns`` holds every learner turn of every scenario; ``expected`` the
    ``(scenario, session, turn)`` keys some check declares ``fires: true`` (so not unrelated).
    """
    verdicts = list(verdicts)
    wanted = set(expected)
    unrelated = [t for t in turns if t.key not in wanted]
    fire_checks = [v for v in verdicts if v.check.fires]
    return ReminderSummary(
        fire_checks=len(fire_checks),
        fire_once=sum(v.passed for v in fire_checks),
        unrelated_turns=len(unrelated),
        false_fires=sum(bool(t.reminder_ids) for t in unrelated),
        checks=len(verdicts),
        checks_passed=sum(v.passed for v in verdicts),
    )


def level_scores(passes: Iterable[tuple[str, bool]]) -> dict[str, tuple[int, int]]:
    """``(passed, total)`` per level, in level order, from ``(level, passed)`` pairs."""
    totals: dict[str, list[int]] = {}
    for level, ok in passes:
        entry = totals.setdefault(level, [0, 0])
        entry[0] += bool(ok)
        entry[1] += 1
    return {lv: (totals[lv][0], totals[lv][1]) for lv in LEVELS if lv in totals}


def meets(level: str, rate: float | None) -> bool | None:
    """Whether a level's pass rate meets its target (None: no target or nothing measured)."""
    if rate is None or level not in TARGETS:
        return None
    return rate >= TARGETS[level] - 1e-9
