"""One learner-id rule: an upper-case UUID is keyed exactly like its canonical form everywhere."""

from __future__ import annotations

from typing import Any

import pytest

from agent.errors import InvalidInputError
from agent.memory.archival import ArchivalStore
from agent.memory.core import CoreMemoryStore, core_key
from agent.memory.recall import RecallMessage, RecallStore
from agent.validation import validate_learner_id

UPPER = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
CANONICAL = UPPER.lower()


class RecordingRedis:
    """Just enough of ``redis.asyncio.Redis`` for ``CoreMemoryStore.append`` and ``clear``."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    async def eval(self, script: str, numkeys: int, key: str, *argv: Any) -> list[str]:
        self.keys.append(key)
        return ["ok", ""]

    async def hgetall(self, key: str) -> dict[str, str]:
        self.keys.append(key)
        return {}

    async def delete(self, *keys: str) -> int:
        self.keys.extend(keys)
        return 0


class StubEmbeddings:
    model_name = "stub"
    version = "1"
    dimension = 3

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0, 0.0]


class RecordingTx:
    """A transaction that records every query's parameters and returns one count row."""

    def __init__(self) -> None:
        self.params: list[dict[str, Any]] = []

    async def run(self, query: str, params: dict[str, Any]) -> RecordingTx:
        self.params.append(params)
        return self

    async def data(self) -> list[dict[str, Any]]:
        return [{"n": 0}]


def test_validate_learner_id_canonicalises_uuids() -> None:
    assert validate_learner_id(UPPER) == CANONICAL
    assert validate_learner_id(CANONICAL) == CANONICAL
    assert validate_learner_id("Ana_01") == "Ana_01"  # slugs are kept as given
    with pytest.raises(InvalidInputError):
        validate_learner_id("x" * 65)  # the old store rule allowed up to 128 characters


async def test_core_memory_keys_an_upper_case_uuid_canonically() -> None:
    redis = RecordingRedis()
    core = CoreMemoryStore(redis)  # type: ignore[arg-type]
    await core.append(UPPER, "user_profile", "Name: Ana")
    await core.clear(UPPER)
    assert redis.keys and set(redis.keys) == {core_key(CANONICAL)}


@pytest.fixture
def parked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Writes the Neo4j stores would apply: ``(learner_id, payload)``; they report ``degraded``."""
    calls: list[tuple[str, dict[str, Any]]] = []

    async def write_or_park(self: Any, learner_id: str, op: str, payload: dict[str, Any], apply: Any) -> None:
        calls.append((learner_id, payload))
        return None

    monkeypatch.setattr("agent.graphdb.store.Neo4jStore.write_or_park", write_or_park)
    return calls


async def test_neo4j_stores_key_an_upper_case_uuid_canonically(
    parked: list[tuple[str, dict[str, Any]]],
) -> None:
    archival = ArchivalStore(object(), StubEmbeddings())  # type: ignore[arg-type]
    recall = RecallStore(object(), StubEmbeddings())  # type: ignore[arg-type]
    record = await archival.insert(UPPER, "Joins combine tables")
    assert record.learner_id == CANONICAL and record.degraded
    # The stable memory id hashes the canonical id, so both spellings name one memory.
    assert record.id == (await archival.insert(CANONICAL, "Joins combine tables")).id
    written = await archival.write_summary(
        UPPER, "A summary", message_ids=["m-1"], previous_summary_id=None, session_id="s"
    )
    assert written.degraded and isinstance(written.id, str)
    logged = await recall.log_messages(UPPER, "s", [RecallMessage(id="m-1", role="user", content="hi")])
    assert logged.count == 1 and logged.degraded
    assert [learner for learner, _ in parked] == [CANONICAL] * 4
    assert all(p.get("learner_id", CANONICAL) == CANONICAL for _, p in parked)

    tx = RecordingTx()

    async def read(work: Any) -> Any:
        return await work(tx)

    recall.read = read  # type: ignore[method-assign]
    assert await recall.count(UPPER) == 0
    assert tx.params == [{"learner_id": CANONICAL}]
