"""Episodic memory rules that need no services: ranking preference, summaries, sensory checks."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from agent.errors import InvalidInputError
from agent.memory.episodes import extractive_episode_summary, merge_ranked, prefer_consolidations
from agent.memory.sensory import SensoryBuffer, sensory_prefix, trace_of
from agent.search.results import SearchHit


def hit(hit_id: str, score: float, kind: str = "message", **metadata: object) -> SearchHit:
    return SearchHit(id=hit_id, text=hit_id, score=score, created_at=None, kind=kind, metadata=dict(metadata))


def test_a_compressed_original_ranks_right_below_its_consolidation() -> None:
    hits = [
        hit("m1", 0.9, consolidated_in=["e1"]),
        hit("m2", 0.8),
        hit("m3", 0.7, consolidated_in=["e1"]),
        hit("e1", 0.3, kind="episode"),
    ]
    ranked = prefer_consolidations(hits)
    assert [h.id for h in ranked] == ["e1", "m1", "m2", "m3"]
    assert ranked[0].score == 0.9 and ranked[1].score < 0.9
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)


def test_originals_keep_their_place_when_the_consolidation_is_not_a_hit() -> None:
    hits = [hit("m1", 0.9, consolidated_in=["e-missing"]), hit("m2", 0.8)]
    assert prefer_consolidations(hits) == hits


def test_a_consolidation_already_above_its_originals_stays() -> None:
    hits = [hit("e1", 0.95, kind="episode"), hit("m2", 0.8), hit("m1", 0.7, consolidated_in=["e1"])]
    assert [h.id for h in prefer_consolidations(hits)] == ["e1", "m2", "m1"]


def test_merge_ranked_orders_by_score_and_drops_duplicates() -> None:
    merged = merge_ranked([hit("m1", 0.5), hit("m2", 0.2)], [hit("e1", 0.4, kind="episode"), hit("m1", 0.1)])
    assert [(h.id, h.score) for h in merged] == [("m1", 0.5), ("e1", 0.4), ("m2", 0.2)]


async def test_the_extractive_consolidation_keeps_every_stated_fact() -> None:
    text = await extractive_episode_summary(
        ["Hello there! My dog is called Rex. He is three.", "I moved to Hanoi.", "   "]
    )
    for fact in ("Hello there!", "My dog is called Rex.", "He is three.", "I moved to Hanoi."):
        assert f"- {fact}" in text
    assert text.count("\n") == 3


async def test_the_extractive_consolidation_drops_questions_and_repeats() -> None:
    text = await extractive_episode_summary(["What is 2 + 2?", "My code is 9902. My code is 9902.", "Why?"])
    assert text.splitlines() == ["- My code is 9902."]
    assert await extractive_episode_summary(["Why?", "Why?"]) == "- Why?"


def test_trace_and_key_layout() -> None:
    item = {
        "id": "a" * 32,
        "kind": "request",
        "content": "x",
        "meta": {},
        "captured_at": "2026-01-01T00:00:00+00:00",
    }
    assert trace_of(item) == {"id": "a" * 32, "kind": "request", "captured_at": "2026-01-01T00:00:00+00:00"}
    buffer = SensoryBuffer(aioredis.Redis())  # never connects: every call below fails validation first
    assert buffer.index_key("ana") == "kag:sensory:{ana}:index" == f"{sensory_prefix('ana')}:index"
    assert buffer.item_key("ana", "b" * 32).startswith("kag:sensory:{ana}:item:")


async def test_sensory_validation_happens_before_redis() -> None:
    buffer = SensoryBuffer(aioredis.Redis(host="127.0.0.1", port=1))
    with pytest.raises(InvalidInputError, match="kind"):
        await buffer.capture("ana", "noise", "x")
    with pytest.raises(InvalidInputError, match="Unicode"):
        await buffer.capture("ana", "request", "\udfff")
    with pytest.raises(InvalidInputError, match="mapping"):
        await buffer.capture("ana", "request", "x", meta=["not", "a", "map"])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="32 hex"):
        await buffer.attend("ana", ["../../etc"])
    with pytest.raises(InvalidInputError, match="ttl_seconds"):
        SensoryBuffer(aioredis.Redis(), ttl_seconds=0)
