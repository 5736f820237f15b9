"""ARTIFACT_READY on the real Redis: once per consumer group, resumable by stream id."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent.notes.artifacts import (
    ack,
    delete_stream,
    ensure_group,
    publish_artifacts,
    read_group,
    read_since,
)
from agent.notes.models import Artifact
from agent.resources import Resources


def artifact(i: int) -> Artifact:
    return Artifact(
        type="ZETTELKASTEN_NOTE",
        note_id=f"note_{i}",
        content=f"note {i} — ünïcode",
        concept_map='flowchart LR\n  n0["x"]',
        links=[],
        tags=["general"],
    )


@pytest.fixture
async def learner(resources: Resources, learner_id: str) -> AsyncIterator[str]:
    yield learner_id
    await delete_stream(resources.redis, learner_id)


async def test_each_group_gets_every_artifact_once(resources: Resources, learner: str) -> None:
    redis = resources.redis
    for group in ("dashboard", "analytics"):
        await ensure_group(redis, learner, group)
        await ensure_group(redis, learner, group)  # idempotent
    ids = await publish_artifacts(redis, learner, [artifact(i) for i in range(3)])
    assert len(ids) == 3
    for group in ("dashboard", "analytics"):
        first = await read_group(redis, learner, group, "c1", count=2)
        second = await read_group(redis, learner, group, "c2", count=10)
        got = [e.artifact["note_id"] for e in first + second]
        assert got == ["note_0", "note_1", "note_2"]  # split across consumers, no repeats
        assert await read_group(redis, learner, group, "c3") == []
        assert first[0].event == "ARTIFACT_READY" and first[0].artifact == artifact(0)
        # c1 crashed before acking: its entries stay pending for it, not for others
        pending = await read_group(redis, learner, group, "c1", pending=True)
        assert [e.stream_id for e in pending] == [e.stream_id for e in first]
        assert await ack(redis, learner, group, *[e.stream_id for e in first + second]) == 3
        assert await read_group(redis, learner, group, "c1", pending=True) == []


async def test_consumer_resumes_from_a_stream_id(resources: Resources, learner: str) -> None:
    redis = resources.redis
    ids = await publish_artifacts(redis, learner, [artifact(i) for i in range(4)])
    seen = await read_since(redis, learner, "0", count=2)
    assert [e.stream_id for e in seen] == ids[:2]
    rest = await read_since(redis, learner, seen[-1].stream_id)
    assert [e.artifact["note_id"] for e in rest] == ["note_2", "note_3"]
    assert await read_since(redis, learner, ids[-1]) == []
