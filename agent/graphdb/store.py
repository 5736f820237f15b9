"""What the archival and recall stores share: transactions, error wrapping, schema, embedding.

Transactions are explicit (not ``execute_read``/``execute_write``) because the
driver's managed retries would spend up to 30 s retrying an unreachable server,
while degraded mode needs to notice an outage at once. Transient errors (deadlocks,
a concurrent unique-id create) are retried here a few times instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self, TypeVar

import neo4j
from neo4j.exceptions import (
    ClientError,
    ConnectionAcquisitionTimeoutError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from agent.clock import Clock, system_clock
from agent.errors import InvalidInputError, KAGError, StoreError, StoreUnavailableError
from agent.graphdb.schema import (
    MEMORY_SCHEMA_KEY,
    SchemaNames,
    ensure_schema,
    schema_names,
    setup_schema,
)
from agent.kernel.drain import draining
from agent.memory.backlog import WriteBacklog
from agent.models.embeddings import EmbeddingProvider
from agent.priority import run_cpu
from agent.validation import validate_text

if TYPE_CHECKING:
    from agent.resources import Resources

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[neo4j.AsyncTransaction], Awaitable[T]]

MAX_TEXT_BYTES = 32 * 1024
_RETRIES = 4
_RETRYABLE_CLIENT_CODES = ("ConstraintValidationFailed",)


def now_iso() -> str:
    """Current time, ISO-8601 with timezone (UTC)."""
    return datetime.now(UTC).isoformat()


def normalise_time(value: str | None, name: str) -> str | None:
    """Parse an ISO-8601 timestamp; naive times are taken as UTC."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{name} must be ISO-8601, got {value!r}") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.isoformat()


def check_text(value: object, name: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """Non-blank, valid Unicode text of at most ``max_bytes`` (32 KB) in UTF-8 (``validate_text``)."""
    return validate_text(value, name, max_bytes)


def check_page(page: int, page_size: int) -> None:
    """Pages start at 0; a page holds 1-50 hits."""
    if not isinstance(page, int) or isinstance(page, bool) or not 0 <= page <= 1000:
        raise InvalidInputError(f"page must be an integer from 0 to 1000, got {page!r}")
    if not isinstance(page_size, int) or isinstance(page_size, bool) or not 1 <= page_size <= 50:
        raise InvalidInputError(f"page_size must be an integer from 1 to 50, got {page_size!r}")


def is_neo4j_down(exc: BaseException) -> bool:
    """True for a StoreUnavailableError about Neo4j (the trigger for degraded mode)."""
    return isinstance(exc, StoreUnavailableError) and exc.service == "Neo4j"


class Neo4jStore:
    """Base for stores over a caller-owned ``neo4j.AsyncDriver``."""

    def __init__(
        self,
        driver: neo4j.AsyncDriver,
        embeddings: EmbeddingProvider,
        *,
        database: str = "neo4j",
        backlog: WriteBacklog | None = None,
        clock: Clock = system_clock,
    ) -> None:
        """Keep the driver, embeddings, optional degraded-mode backlog and the clock."""
        self.driver = driver
        self.clock = clock
        self.embeddings = embeddings
        self.database = database
        self.backlog = backlog
        self.names: SchemaNames = schema_names(embeddings)
        if backlog is not None:
            backlog.register(self)

    @classmethod
    def for_resources(cls, resources: Resources) -> Self:
        """A store over the bundle's driver, embeddings, database and clock."""
        return cls(resources.neo4j, resources.embeddings, database=resources.database, clock=resources.clock)

    def now_iso(self) -> str:
        """The store clock's time, ISO-8601 with timezone (stamps every write)."""
        return self.clock().isoformat()

    @property
    def degraded(self) -> bool:
        """True while Neo4j is considered down (writes go to the backlog)."""
        return self.backlog is not None and self.backlog.neo4j_suspended()

    async def setup(self) -> None:
        """Create the schema (idempotent). Stores also do this lazily on first use."""
        await self._run(self._setup_schema_once, write=True, raw_session=True)

    async def _setup_schema_once(self, _: object = None) -> None:
        async def setup() -> None:
            await setup_schema(self.driver, self.database, self.embeddings)

        await ensure_schema(self.driver, self.database, setup, key=MEMORY_SCHEMA_KEY)

    async def write_or_park(
        self,
        learner_id: str,
        op: str,
        payload: dict[str, Any],
        apply: Callable[[dict[str, Any]], Awaitable[T]],
    ) -> T | None:
        """Apply a write to Neo4j, or park it in the backlog when Neo4j is down (returns None).

        Parked writes of this learner are replayed first, so a new write never
        overtakes an older one; if they cannot all be replayed, this one is parked too.
        """
        backlog = self.backlog
        if backlog is None or learner_id in draining():
            # Inside a drain of this learner (a write-time derivation): it is the drainer, so
            # nothing can overtake; a failure leaves the event pending, nothing is parked.
            return await apply(payload)
        if not backlog.neo4j_suspended():
            pending = await backlog.has_pending(learner_id)
            if pending:
                try:
                    await backlog.replay(learner_id=learner_id)
                except KAGError as exc:
                    log.warning("could not replay parked writes before a new one: %s", exc)
                pending = await backlog.has_pending(learner_id)
            if not pending and not backlog.neo4j_suspended():
                try:
                    return await apply(payload)
                except StoreUnavailableError as exc:
                    if not is_neo4j_down(exc):
                        raise
        await backlog.enqueue(learner_id, op, payload)
        return None

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed off the event loop (CPU-bound; at low priority in the kernel worker, ``agent.priority``)."""
        if not texts:
            return []
        return await run_cpu(self.embeddings.embed_documents, list(texts))

    async def embed_query(self, text: str) -> list[float]:
        """Embed one query off the event loop."""
        return await run_cpu(self.embeddings.embed_query, text)

    async def read(self, work: Work[T]) -> T:
        """Run ``work`` in a read transaction."""
        return await self._run(work, write=False)

    async def write(self, work: Work[T]) -> T:
        """Run ``work`` in a write transaction."""
        return await self._run(work, write=True)

    async def _run(self, work: Callable[..., Awaitable[T]], *, write: bool, raw_session: bool = False) -> T:
        if self.backlog is not None and self.backlog.neo4j_suspended():
            raise StoreUnavailableError("Neo4j", "marked down after a recent failure; retrying soon")
        delay = 0.05
        for attempt in range(_RETRIES):
            try:
                if raw_session:
                    result = await work()
                else:
                    await self._setup_schema_once()
                    result = await self._transaction(work, write)
            # A pool that stays exhausted for the whole acquisition timeout is an outage too:
            # degraded mode parks writes and sheds the load until Neo4j keeps up (issue 18).
            except (ServiceUnavailable, SessionExpired, ConnectionAcquisitionTimeoutError) as exc:
                if self.backlog is not None:
                    self.backlog.mark_down(str(exc))
                raise StoreUnavailableError("Neo4j", str(exc) or type(exc).__name__) from exc
            except TransientError as exc:
                if attempt + 1 == _RETRIES:
                    raise StoreError(f"Neo4j transient error persisted: {exc}") from exc
            except ClientError as exc:
                retry = any(code in (exc.code or "") for code in _RETRYABLE_CLIENT_CODES)
                if not retry or attempt + 1 == _RETRIES:
                    raise StoreError(f"Neo4j rejected the query: {exc}") from exc
            except (Neo4jError, DriverError) as exc:
                raise StoreError(f"Neo4j error: {exc}") from exc
            except OSError as exc:
                if self.backlog is not None:
                    self.backlog.mark_down(str(exc))
                raise StoreUnavailableError("Neo4j", str(exc)) from exc
            else:
                if self.backlog is not None:
                    self.backlog.mark_up()
                return result
            await asyncio.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    async def _transaction(self, work: Work[T], write: bool) -> T:
        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        async with self.driver.session(
            database=self.database,
            default_access_mode=mode,
            # Expansion names link types other modules create later; that is expected.
            notifications_min_severity=neo4j.NotificationMinimumSeverity.OFF,
        ) as session:
            tx = await session.begin_transaction()
            try:
                result = await work(tx)
                await tx.commit()
                return result
            finally:
                if not tx.closed():
                    await tx.close()


async def fetch(tx: neo4j.AsyncTransaction, query: str, **params: Any) -> list[dict[str, Any]]:
    """Run ``query`` with ``params`` and return its rows as dicts."""
    result = await tx.run(query, params)
    return await result.data()
