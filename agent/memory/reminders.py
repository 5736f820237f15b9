"""Prospective memory: the learner's reminders, fired exactly once when their trigger matches.

Graph: ``(:Learner)-[:HAS_REMINDER]->(:Reminder {id, learner_id, description, action,
trigger_kind: 'keywords'|'concept'|'time', keywords, concept, due_at (a time trigger's time;
with keywords or a concept, the time before which the topic does not fire it), priority (1 high …
3 low), status: 'pending'|'triggered'|'resolved', created_at, triggered_at, resolved_at,
session_id, dedup_key})``. Reminders are not searched semantically, so they have their
own label (and erasure deletes it explicitly).

- ``set`` creates a pending reminder; the same pending request again returns the first
  one (``dedup_key``). Parked while Neo4j is down (op ``reminder.set``).
- ``fire`` (the heartbeat's monitor phase, each new learner message) reads the pending
  reminders, matches them in Python with ``agent.memory.reminder_rules.trigger_matches``
  against the message, the turn's concept and ``self.clock()``, then moves the matches
  to ``triggered`` in ONE write that first takes each node's write lock and re-checks
  ``status = 'pending'``: a reminder is returned once, even to concurrent callers. While
  Neo4j is down nothing fires (an empty list; exactly-once needs the database).
- ``resolve`` closes a reminder (pending or triggered); unknown ids raise
  ``InvalidInputError``. Parked while Neo4j is down (op ``reminder.resolve``).

Most learners have no pending reminder, so ``fire`` (every monitor pass) skips Neo4j
when Redis says so. The hash ``kag:reminders:{<learner_id>}`` (one Cluster slot) holds
``gen``, bumped after every committed ``set`` (``HINCRBY``), and ``none``: the ``gen``
read *before* a Neo4j read that found no pending reminder. ``fire`` asks Neo4j only
when ``none != gen``. A ``set`` that commits after that read bumps ``gen`` after it,
so the note is stale at once; a ``set`` that cannot bump ``gen`` (Redis down) raises
``StoreUnavailableError`` and is retried (it is idempotent). Without Redis, or on a
Redis error in ``fire``, Neo4j is asked as before. The hash expires after
``FLAG_TTL_SECONDS`` without a set or a check.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from agent.clock import as_aware
from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.schema import ensure_schema
from agent.graphdb.store import (
    MAX_TEXT_BYTES,
    Neo4jStore,
    check_text,
    fetch,
    is_neo4j_down,
    normalise_time,
)
from agent.language.reminder_times import local_instant, phrase_due
from agent.language.trigger_topics import MAX_KEYWORDS, is_trigger_word
from agent.memory.cognitive_queries import (
    FIRE_REMINDERS,
    LIST_REMINDERS,
    PENDING_REMINDERS,
    REMINDER_SCHEMA,
    RESOLVE_REMINDER,
    SET_REMINDER,
)
from agent.memory.records import ID
from agent.memory.reminder_rules import trigger_matches
from agent.validation import validate_learner_id, validate_text

log = logging.getLogger(__name__)

OP_SET = "reminder.set"
OP_RESOLVE = "reminder.resolve"
STATUSES = ("pending", "triggered", "resolved")
TRIGGER_KINDS = ("keywords", "concept", "time")
REMINDER_SCHEMA_KEY = "reminders-v1"
MAX_DESCRIPTION_BYTES = 2000
MAX_KEYWORD_BYTES = 200
FLAG_TTL_SECONDS = 86400


def flag_key(learner_id: str) -> str:
    """The Redis hash that says whether the learner has pending reminders (see the module doc)."""
    return f"kag:reminders:{{{learner_id}}}"


@dataclass(frozen=True)
class ReminderRecord:
    """A reminder as stored (or parked, when ``degraded``)."""

    id: str
    description: str
    action: str | None
    trigger_kind: str
    keywords: list[str] = field(default_factory=list)
    concept: str | None = None
    due_at: str | None = None
    priority: int = 2
    status: str = "pending"
    created_at: str = ""
    triggered_at: str | None = None
    resolved_at: str | None = None
    session_id: str | None = None
    degraded: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_props(cls, props: dict[str, Any], *, degraded: bool = False) -> ReminderRecord:
        """A record from the node's properties."""
        return cls(
            id=props["id"],
            description=props.get("description") or "",
            action=props.get("action"),
            trigger_kind=props.get("trigger_kind") or "keywords",
            keywords=list(props.get("keywords") or []),
            concept=props.get("concept"),
            due_at=props.get("due_at"),
            priority=int(props.get("priority") or 2),
            status=props.get("status") or "pending",
            created_at=props.get("created_at") or "",
            triggered_at=props.get("triggered_at"),
            resolved_at=props.get("resolved_at"),
            session_id=props.get("session_id"),
            degraded=degraded,
        )


def _keywords(keywords: object) -> list[str]:
    if isinstance(keywords, str) or not isinstance(keywords, Sequence):
        raise InvalidInputError("keywords must be a list of strings")
    if len(keywords) > MAX_KEYWORDS:
        raise InvalidInputError(f"at most {MAX_KEYWORDS} keywords, got {len(keywords)}")
    out = []
    for i, keyword in enumerate(keywords):
        keyword = check_text(keyword, f"keywords[{i}]", MAX_KEYWORD_BYTES).strip()
        if not is_trigger_word(keyword):
            raise InvalidInputError(f"keyword {keyword!r} is only common words; it would fire on every turn")
        if keyword not in out:
            out.append(keyword)
    return out


def _trigger_kind(keywords: list[str], concept: str | None, due_at: str | None) -> str:
    """The trigger: a concept, keywords, or a time; with a topic, ``due_at`` is its "not before".

    "On Friday, when we do voice leading, remind me …" waits for Friday AND the topic's turn
    (``reminder_rules.trigger_matches``).
    """
    if concept:
        return "concept"
    if keywords:
        return "keywords"
    if due_at is not None:
        return "time"
    raise InvalidInputError("a reminder needs a trigger: keywords, a concept or due_at (ISO-8601)")


def resolve_due(due_at: str | None, now: datetime) -> str | None:
    """ISO text with its offset as it is, without one in the clock's zone; a time phrase as of the clock.

    A time phrase: "tomorrow at 9", "in two days".

    The store's clock is the session's, so a reminder set in a session dated in May is due two
    days after that session, not two days after the machine's today; and the same phrase asked
    twice in a turn names the same instant (one reminder, not one per think step).
    """
    if due_at is None:
        return None
    try:
        datetime.fromisoformat(due_at)
    except ValueError:
        found = phrase_due(due_at[:200], now)
        return found.isoformat() if found is not None else due_at  # normalise_time refuses it by name
    # without an offset it is the learner's wall time ("2026-06-20": that day's start where the
    # session is), not UTC, which fired a day's reminder the evening before west of Greenwich
    found = local_instant(due_at, as_aware(now))
    return found.isoformat() if found is not None else due_at


class ReminderStore(Neo4jStore):
    """The learner's reminders (``:Reminder``)."""

    backlog_ops = frozenset({OP_SET, OP_RESOLVE})

    def __init__(self, *args: Any, redis: aioredis.Redis | None = None, **kwargs: Any) -> None:
        """A ``Neo4jStore``; ``redis`` (default: the backlog's client) holds the pending flag."""
        super().__init__(*args, **kwargs)
        self.redis = redis if redis is not None else getattr(self.backlog, "redis", None)

    async def _setup_schema_once(self, _: object = None) -> None:
        await super()._setup_schema_once()

        async def setup() -> None:
            async with self.driver.session(database=self.database) as session:
                for statement in REMINDER_SCHEMA:
                    await session.run(statement)

        await ensure_schema(self.driver, self.database, setup, key=REMINDER_SCHEMA_KEY)

    # ----- writes -----
    async def set(
        self,
        learner_id: str,
        description: str,
        *,
        action: str | None = None,
        keywords: Sequence[str] = (),
        concept: str | None = None,
        due_at: str | None = None,
        priority: int = 2,
        session_id: str | None = None,
    ) -> ReminderRecord:
        """Create a pending reminder that fires on ``keywords``, ``concept`` or at ``due_at``."""
        learner_id = validate_learner_id(learner_id)
        description = check_text(description, "description", MAX_DESCRIPTION_BYTES).strip()
        if action is not None:
            action = check_text(action, "action", MAX_DESCRIPTION_BYTES).strip()
        words = _keywords(keywords)
        if concept is not None:
            concept = check_text(concept, "concept", MAX_KEYWORD_BYTES).strip()
        if due_at is not None and not isinstance(due_at, str):
            raise InvalidInputError(f"due_at must be ISO-8601 text, got {due_at!r}")
        due_at = normalise_time(resolve_due(due_at, self.clock()), "due_at")
        if not isinstance(priority, int) or isinstance(priority, bool) or not 1 <= priority <= 3:
            raise InvalidInputError(f"priority must be 1 (high), 2 or 3 (low), got {priority!r}")
        if session_id is not None and (not isinstance(session_id, str) or not ID.match(session_id)):
            raise InvalidInputError(f"invalid session_id {str(session_id)[:80]!r}")
        kind = _trigger_kind(words, concept, due_at)
        trigger = "|".join([kind, *sorted(w.lower() for w in words), (concept or "").lower(), due_at or ""])
        dedup = hashlib.sha256(f"{description.lower()}\x00{trigger}".encode()).hexdigest()[:32]
        props = {
            "id": f"rem-{uuid.uuid4().hex}",
            "learner_id": learner_id,
            "description": description,
            "action": action or f"Remind the learner to {description}",
            "trigger_kind": kind,
            "keywords": words,
            "concept": concept,
            "due_at": due_at,
            "priority": priority,
            "status": "pending",
            "created_at": self.now_iso(),
            "session_id": session_id,
            "dedup_key": dedup,
        }
        props = {k: v for k, v in props.items() if v is not None}
        payload = {"learner_id": learner_id, "props": props}
        stored = await self.write_or_park(learner_id, OP_SET, payload, self._set)
        if stored is None:
            return ReminderRecord.from_props(props, degraded=True)
        return ReminderRecord.from_props(stored)

    async def _set(self, payload: dict[str, Any]) -> dict[str, Any]:
        rows = await self.write(lambda tx: fetch(tx, SET_REMINDER, **payload))
        if not rows:
            raise InvalidInputError(f"reminder id {payload['props']['id']!r} belongs to another learner")
        await self._bump(payload["learner_id"])
        return rows[0]["reminder"]

    async def _bump(self, learner_id: str) -> None:
        """After a committed set: any "no pending reminder" note taken before it is stale."""
        if self.redis is None:
            return
        key = flag_key(learner_id)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hincrby(key, "gen", 1)
                pipe.expire(key, FLAG_TTL_SECONDS)
                await pipe.execute()
        except (RedisError, OSError) as exc:  # the note would hide the new reminder: retry the set
            detail = f"reminder stored but its pending flag not bumped: {exc}"
            raise StoreUnavailableError("Redis", detail) from exc

    async def _generation(self, learner_id: str) -> str | None:
        """The flag's ``gen``; None when Neo4j need not be asked (no pending reminder) or Redis failed."""
        if self.redis is None:
            return ""
        try:
            gen, none = await self.redis.hmget(flag_key(learner_id), ["gen", "none"])
        except (RedisError, OSError) as exc:
            log.warning("reminder flag unreadable, asking Neo4j: %s", exc)
            return ""
        gen = _text(gen) or "0"
        return None if _text(none) == gen else gen

    async def _note_none(self, learner_id: str, gen: str) -> None:
        """Record that Neo4j had no pending reminder when ``gen`` was current."""
        if self.redis is None or not gen:
            return
        key = flag_key(learner_id)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(key, "none", gen)
                pipe.expire(key, FLAG_TTL_SECONDS)
                await pipe.execute()
        except (RedisError, OSError) as exc:  # only a missed shortcut: the next check asks Neo4j
            log.warning("reminder flag not written: %s", exc)

    async def resolve(self, learner_id: str, reminder_id: str) -> ReminderRecord:
        """Mark the learner's reminder resolved (idempotent); unknown ids raise ``InvalidInputError``."""
        learner_id = validate_learner_id(learner_id)
        if not isinstance(reminder_id, str) or not ID.match(reminder_id):
            raise InvalidInputError(f"invalid reminder id {str(reminder_id)[:80]!r}")
        payload = {"learner_id": learner_id, "id": reminder_id, "now": self.now_iso()}
        stored = await self.write_or_park(learner_id, OP_RESOLVE, payload, self._resolve)
        if stored is None:
            parked = {"id": reminder_id, "status": "resolved", "resolved_at": payload["now"]}
            return ReminderRecord.from_props(parked, degraded=True)
        return ReminderRecord.from_props(stored)

    async def _resolve(self, payload: dict[str, Any]) -> dict[str, Any]:
        rows = await self.write(lambda tx: fetch(tx, RESOLVE_REMINDER, **payload))
        if not rows:
            raise InvalidInputError(
                f"no reminder {payload['id']!r} for this learner; "
                "the id is the one in the REMINDER line of working memory"
            )
        return rows[0]["reminder"]

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Replay one parked write (both are idempotent)."""
        if op == OP_SET:
            await self._set(payload)
        elif op == OP_RESOLVE:
            await self._resolve(payload)
        else:
            raise InvalidInputError(f"reminder store cannot apply {op!r}")

    # ----- firing -----
    async def fire(
        self, learner_id: str, *, message: str | None = None, concept: str | None = None
    ) -> list[ReminderRecord]:
        """Pending reminders triggered by ``message``, ``concept`` or the clock, each returned once."""
        learner_id = validate_learner_id(learner_id)
        if message is not None:
            message = validate_text(message, "message", MAX_TEXT_BYTES, allow_blank=True) or None
        if concept is not None:
            concept = validate_text(concept, "concept", MAX_KEYWORD_BYTES, allow_blank=True) or None
        gen = await self._generation(learner_id)
        if gen is None:
            return []  # Redis knows there is nothing pending
        try:
            if self.degraded:
                raise StoreUnavailableError("Neo4j", "marked down after a recent failure")
            pending = await self.read(lambda tx: fetch(tx, PENDING_REMINDERS, learner_id=learner_id))
            if not pending:
                await self._note_none(learner_id, gen)
            now = self.clock()
            due = [
                r["reminder"]["id"] for r in pending if trigger_matches(r["reminder"], message, concept, now)
            ]
            if not due:
                return []
            stamp = now.isoformat()
            rows = await self.write(
                lambda tx: fetch(tx, FIRE_REMINDERS, ids=due, learner_id=learner_id, now=stamp)
            )
        except StoreUnavailableError as exc:
            if self.backlog is None or not is_neo4j_down(exc):
                raise
            log.warning("reminders not checked while Neo4j is down: %s", exc)
            return []
        fired = [ReminderRecord.from_props(r["reminder"]) for r in rows]
        return sorted(fired, key=lambda r: (r.priority, r.created_at, r.id))

    # ----- reads -----
    async def list(self, learner_id: str, statuses: Sequence[str] | None = None) -> list[ReminderRecord]:
        """The learner's reminders (of ``statuses``, default all), most urgent first."""
        learner_id = validate_learner_id(learner_id)
        chosen: list[str] | None = None
        if statuses is not None:
            chosen = [statuses] if isinstance(statuses, str) else list(statuses)
            unknown = [s for s in chosen if s not in STATUSES]
            if unknown:
                raise InvalidInputError(
                    f"unknown reminder status {unknown[0]!r}; valid: {', '.join(STATUSES)}"
                )
        rows = await self.read(lambda tx: fetch(tx, LIST_REMINDERS, learner_id=learner_id, statuses=chosen))
        return [ReminderRecord.from_props(r["reminder"]) for r in rows]


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
