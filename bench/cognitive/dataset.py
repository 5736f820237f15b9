"""Load and validate a ``kag-cognitive-v1`` scenario file into frozen values.

The format is defined in ``../shared/bench/cognitive_README.md``: scripted learners
talk over dated sessions; probes check what memory surfaces after a named session;
reminder checks say whether a reminder fired after a given learner message.

Validation is strict about what changes a score and lenient about the rest:

- a missing or mistyped field, a date without a time zone, a probe or reminder that
  names an unknown session, a session that starts before the previous one, an
  ``expect`` item whose ``session`` comes after the probe, a reminder turn past the
  end of its session, duplicate ids, or a scenario that checks nothing raise
  ``CognitiveFormatError`` naming the file and the JSON location
  (``scenarios[2].probes[0].expect[1].all``);
- unknown keys are kept out of the values and listed in ``warnings`` (other sets in
  the same format may annotate their scenarios).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agent.errors import InvalidInputError

FORMAT = "kag-cognitive-v1"
LEVELS = ("L1", "L2", "L3", "L4", "L5", "L6", "R")
LEVEL_NAMES = {
    "L1": "single-source recall",
    "L2": "multi-source synthesis",
    "L3": "temporal order",
    "L4": "procedures",
    "L5": "contradiction and as_of",
    "L6": "incremental update",
    "R": "reminders",
}
DEFAULT_K = 10
DATASET_ENV = "KAG_COGNITIVE_PATH"
KAG_SET = Path(__file__).resolve().parents[1] / "data" / "cognitive_kag.json"
MESSAGE_GAP = timedelta(minutes=1)
"""The clock moves one minute per learner message within a session."""

_SCENARIO_KEYS = {"id", "level", "sessions", "probes", "reminders"}
_SESSION_KEYS = {"id", "date", "learner"}
_PROBE_KEYS = {"after", "query", "k", "expect", "first", "as_of", "in_order", "session"}
_ITEM_KEYS = {"all", "session"}
_REMINDER_KEYS = {"session", "turn", "fires"}


class CognitiveFormatError(InvalidInputError):
    """The file is not ``kag-cognitive-v1``; the message names the file and the JSON location."""


@dataclass(frozen=True)
class Session:
    """One session: its id, start time (timezone-aware) and learner messages in order."""

    id: str
    date: datetime
    learner: tuple[str, ...]

    def message_time(self, turn: int) -> datetime:
        """When learner message ``turn`` (0-based) is sent: the date plus one minute per message."""
        return self.date + turn * MESSAGE_GAP

    @property
    def end(self) -> datetime:
        """The time of the session's last message."""
        return self.message_time(len(self.learner) - 1)


@dataclass(frozen=True)
class ExpectItem:
    """One expected item: a single hit's text must contain every string of ``all``."""

    all: tuple[str, ...]
    session: str | None = None
    """The hit's time must fall on this session's date (overrides the probe's ``session``)."""


@dataclass(frozen=True)
class Probe:
    """A search made after session ``after`` and what its hits must contain."""

    after: str
    query: str
    expect: tuple[ExpectItem, ...]
    k: int = DEFAULT_K
    first: bool = False
    as_of: datetime | None = None
    in_order: bool = False
    session: str | None = None

    def session_of(self, item: ExpectItem) -> str | None:
        """The session an item's hit must fall on: the item's own, else the probe's."""
        return item.session or self.session


@dataclass(frozen=True)
class ReminderCheck:
    """After learner message ``turn`` of ``session``, some reminder fired (``fires``) or none did."""

    session: str
    turn: int
    fires: bool


@dataclass(frozen=True)
class Scenario:
    """One scripted learner."""

    id: str
    level: str
    sessions: tuple[Session, ...]
    probes: tuple[Probe, ...] = ()
    reminders: tuple[ReminderCheck, ...] = ()

    def session(self, session_id: str) -> Session:
        """The session named ``session_id``."""
        for session in self.sessions:
            if session.id == session_id:
                return session
        raise KeyError(session_id)

    def probes_after(self, session_id: str) -> list[tuple[int, Probe]]:
        """The probes (with their index) that run after ``session_id``."""
        return [(i, p) for i, p in enumerate(self.probes) if p.after == session_id]

    @property
    def turns(self) -> int:
        """Learner messages over all sessions."""
        return sum(len(s.learner) for s in self.sessions)


@dataclass(frozen=True)
class CognitiveDataset:
    """The scenarios of one file, plus warnings about keys the format does not define."""

    path: str
    scenarios: tuple[Scenario, ...]
    warnings: tuple[str, ...] = ()

    def select(self, ids: Sequence[str] | None) -> CognitiveDataset:
        """Only the scenarios named in ``ids`` (in file order); unknown ids raise ``InvalidInputError``."""
        if not ids:
            return self
        known = {s.id for s in self.scenarios}
        missing = [i for i in ids if i not in known]
        if missing:
            raise InvalidInputError(f"{self.path}: no scenario named {', '.join(map(repr, missing))}")
        wanted = set(ids)
        return replace(self, scenarios=tuple(s for s in self.scenarios if s.id in wanted))


def default_dataset_path() -> Path:
    """``$KAG_COGNITIVE_PATH``, else ``../shared/bench/cognitive_dev.json`` next to the project."""
    if os.environ.get(DATASET_ENV):
        return Path(os.environ[DATASET_ENV])
    return Path(__file__).resolve().parents[3] / "shared" / "bench" / "cognitive_dev.json"


def load_cognitive(path: str | Path) -> CognitiveDataset:
    """Read and validate ``path``; raise ``CognitiveFormatError`` (or ``InvalidInputError``) on problems."""
    where = str(path)
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InvalidInputError(f"{where}: file not found") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{where}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise CognitiveFormatError(f"{where}: not JSON: {exc}") from exc
    return parse_cognitive(raw, where)


def parse_cognitive(raw: Any, path: str = "<data>") -> CognitiveDataset:
    """Validate an already-parsed document (see the module docstring for the rules)."""
    return _Parser(path).dataset(raw)


class _Parser:
    """Validation with the file name and the warnings list at hand."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.warnings: list[str] = []

    def fail(self, where: str, problem: str) -> CognitiveFormatError:
        return CognitiveFormatError(f"{self.path}: {where}: {problem}")

    def obj(self, value: Any, where: str, known: set[str], required: Sequence[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, got {type(value).__name__}")
        for key in required:
            if key not in value:
                raise self.fail(where, f"missing required key {key!r}")
        for key in sorted(set(value) - known):
            self.warnings.append(f"{where}: unknown key {key!r} ignored")
        return value

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"expected a non-empty string, got {value!r}")
        return value

    def flag(self, value: Any, where: str, default: bool = False) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(where, f"expected true or false, got {value!r}")
        return value

    def time(self, value: Any, where: str) -> datetime:
        text = self.text(value, where)
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError as exc:
            raise self.fail(where, f"{text!r} is not an ISO-8601 date-time") from exc
        if parsed.tzinfo is None:
            raise self.fail(where, f"{text!r} has no time zone (write e.g. 2026-02-02T18:00:00+07:00)")
        return parsed

    def items(self, value: Any, where: str, *, allow_empty: bool = False) -> list[Any]:
        if not isinstance(value, list) or (not value and not allow_empty):
            raise self.fail(where, "expected a non-empty list" if not allow_empty else "expected a list")
        return value

    def dataset(self, raw: Any) -> CognitiveDataset:
        doc = self.obj(raw, "top level", {"format", "scenarios"}, ["format", "scenarios"])
        if doc["format"] != FORMAT:
            raise self.fail("format", f"expected {FORMAT!r}, got {doc['format']!r}")
        scenarios = [
            self.scenario(s, f"scenarios[{i}]")
            for i, s in enumerate(self.items(doc["scenarios"], "scenarios"))
        ]
        seen: set[str] = set()
        for i, scenario in enumerate(scenarios):
            if scenario.id in seen:
                raise self.fail(f"scenarios[{i}].id", f"duplicate scenario id {scenario.id!r}")
            seen.add(scenario.id)
        return CognitiveDataset(self.path, tuple(scenarios), tuple(self.warnings))

    def scenario(self, raw: Any, where: str) -> Scenario:
        data = self.obj(raw, where, _SCENARIO_KEYS, ["id", "level", "sessions"])
        sid = self.text(data["id"], f"{where}.id")
        level = data["level"]
        if level not in LEVELS:
            raise self.fail(f"{where}.level", f"expected one of {', '.join(LEVELS)}, got {level!r}")
        sessions = self.sessions(data["sessions"], f"{where}.sessions")
        order = {s.id: i for i, s in enumerate(sessions)}
        probes = [
            self.probe(p, f"{where}.probes[{i}]", order)
            for i, p in enumerate(self.items(data.get("probes") or [], f"{where}.probes", allow_empty=True))
        ]
        reminders = [
            self.reminder(r, f"{where}.reminders[{i}]", sessions, order)
            for i, r in enumerate(
                self.items(data.get("reminders") or [], f"{where}.reminders", allow_empty=True)
            )
        ]
        if not probes and not reminders:
            raise self.fail(where, "a scenario needs at least one probe or reminder check")
        return Scenario(sid, level, tuple(sessions), tuple(probes), tuple(reminders))

    def sessions(self, raw: Any, where: str) -> list[Session]:
        sessions: list[Session] = []
        for i, item in enumerate(self.items(raw, where)):
            at = f"{where}[{i}]"
            data = self.obj(item, at, _SESSION_KEYS, ["id", "date", "learner"])
            sid = self.text(data["id"], f"{at}.id")
            if any(s.id == sid for s in sessions):
                raise self.fail(f"{at}.id", f"duplicate session id {sid!r}")
            date = self.time(data["date"], f"{at}.date")
            learner = tuple(
                self.text(m, f"{at}.learner[{j}]")
                for j, m in enumerate(self.items(data["learner"], f"{at}.learner"))
            )
            session = Session(sid, date, learner)
            if sessions and session.date <= sessions[-1].end:
                raise self.fail(
                    f"{at}.date",
                    f"session {sid!r} starts at {date.isoformat()}, not after the previous session's "
                    f"last message ({sessions[-1].end.isoformat()}): sessions run in order",
                )
            sessions.append(session)
        return sessions

    def session_ref(self, value: Any, where: str, order: dict[str, int]) -> str:
        sid = self.text(value, where)
        if sid not in order:
            raise self.fail(where, f"names no session of this scenario: {sid!r} (known: {', '.join(order)})")
        return sid

    def probe(self, raw: Any, where: str, order: dict[str, int]) -> Probe:
        data = self.obj(raw, where, _PROBE_KEYS, ["after", "query", "expect"])
        after = self.session_ref(data["after"], f"{where}.after", order)
        query = self.text(data["query"], f"{where}.query")
        k = data.get("k", DEFAULT_K)
        k = DEFAULT_K if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50:
            raise self.fail(f"{where}.k", f"expected an integer from 1 to 50, got {k!r}")
        session = data.get("session")
        if session is not None:
            session = self.later_check(
                self.session_ref(session, f"{where}.session", order), after, order, where
            )
        expect = [
            self.item(item, f"{where}.expect[{i}]", after, order)
            for i, item in enumerate(self.items(data["expect"], f"{where}.expect"))
        ]
        as_of = data.get("as_of")
        return Probe(
            after=after,
            query=query,
            expect=tuple(expect),
            k=k,
            first=self.flag(data.get("first"), f"{where}.first"),
            as_of=None if as_of is None else self.time(as_of, f"{where}.as_of"),
            in_order=self.flag(data.get("in_order"), f"{where}.in_order"),
            session=session,
        )

    def later_check(self, session: str, after: str, order: dict[str, int], where: str) -> str:
        if order[session] > order[after]:
            raise self.fail(
                where, f"expects a hit from session {session!r}, which runs after the probe ({after!r})"
            )
        return session

    def item(self, raw: Any, where: str, after: str, order: dict[str, int]) -> ExpectItem:
        data = self.obj(raw, where, _ITEM_KEYS, ["all"])
        strings = tuple(
            self.text(s, f"{where}.all[{j}]") for j, s in enumerate(self.items(data["all"], f"{where}.all"))
        )
        session = data.get("session")
        if session is not None:
            session = self.later_check(
                self.session_ref(session, f"{where}.session", order), after, order, where
            )
        return ExpectItem(strings, session)

    def reminder(self, raw: Any, where: str, sessions: list[Session], order: dict[str, int]) -> ReminderCheck:
        data = self.obj(raw, where, _REMINDER_KEYS, ["session", "turn", "fires"])
        sid = self.session_ref(data["session"], f"{where}.session", order)
        turn = data["turn"]
        size = len(sessions[order[sid]].learner)
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn < size:
            raise self.fail(
                f"{where}.turn",
                f"expected a 0-based message index below {size} (session {sid!r}), got {turn!r}",
            )
        fires = data["fires"]
        if not isinstance(fires, bool):
            raise self.fail(f"{where}.fires", f"expected true or false, got {fires!r}")
        return ReminderCheck(sid, turn, fires)
