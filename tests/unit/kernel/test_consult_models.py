"""Consultation requests and cache keys: the learner never comes from the body, sizes are capped."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.errors import InvalidInputError
from agent.kernel.consult.cache import GENERATION_KEY, ConsultCache, cache_key
from agent.kernel.consult.models import MAX_QUERY_BYTES, ConsultRequest, ConsultResponse, parse_request
from agent.kernel.stream import KernelStream


def hash_tag(key: str) -> str:
    """The part of ``key`` Redis Cluster hashes: between the first ``{`` and the next ``}``."""
    return key[key.index("{") + 1 : key.index("}")]


def test_defaults() -> None:
    request = parse_request({"query": "  What do I struggle with in SQL?  "})
    assert request.query == "What do I struggle with in SQL?"
    assert (request.context, request.max_results, request.include_insights, request.topic_filters) == (
        "",
        10,
        True,
        [],
    )


def test_a_learner_id_in_the_body_is_rejected() -> None:
    body = {"query": "joins", "learner_id": "someone-else"}
    with pytest.raises(InvalidInputError, match="learner_id is not a request field"):
        parse_request(body)
    with pytest.raises(ValidationError, match="learner_id"):
        ConsultRequest.model_validate(body)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x" * (MAX_QUERY_BYTES + 1)}, "query"),
        ({"query": "ok \ud800"}, "query"),
        ({"query": "ok", "max_results": 0}, "max_results"),
        ({"query": "ok", "max_results": 51}, "max_results"),
        ({"query": "ok", "max_results": "5"}, "max_results"),
        ({"query": "ok", "max_results": True}, "max_results"),
        ({"query": "ok", "include_insights": "yes"}, "include_insights"),
        ({"query": "ok", "topic_filters": [f"t{i}" for i in range(11)]}, "topic_filters"),
        ({"query": "ok", "topic_filters": ["x" * 257]}, "topic_filters"),
        ({"query": "ok", "topic_filters": "sql"}, "topic_filters"),
        ({"query": "ok", "context": "c" * (16 * 1024 + 1)}, "context"),
        ({"query": "ok", "extra": 1}, "extra"),
    ],
)
def test_bad_bodies_name_the_field(body: dict, field: str) -> None:
    with pytest.raises(InvalidInputError, match=field):
        parse_request(body)


def test_not_an_object() -> None:
    with pytest.raises(InvalidInputError, match="must be an object"):
        parse_request(["query"])  # type: ignore[arg-type]


def test_topic_filters_are_normalised() -> None:
    request = parse_request({"query": "q", "topic_filters": [" SQL.Joins ", "python", "sql.joins"]})
    assert request.topic_filters == ["python", "sql.joins"]


def test_cache_key_carries_the_hash_tag_and_every_input() -> None:
    request = parse_request({"query": "joins"})
    key = cache_key("learner-a", request)
    assert key.startswith("kag:kernel:{learner-a}:consult:") and len(key.rsplit(":", 1)[1]) == 64
    assert key == cache_key("learner-a", parse_request({"query": "joins"}))
    others = {
        cache_key("learner-b", request),
        cache_key("learner-a", parse_request({"query": "joins", "max_results": 5})),
        cache_key("learner-a", parse_request({"query": "joins", "include_insights": False})),
        cache_key("learner-a", parse_request({"query": "joins", "topic_filters": ["sql"]})),
        cache_key("learner-a", parse_request({"query": "joins", "context": "lesson 2"})),
        cache_key("learner-a", parse_request({"query": "Joins"})),
    }
    assert key not in others and len(others) == 6
    same_filters = parse_request({"query": "joins", "topic_filters": ["b", "a"]})
    assert cache_key("l", same_filters) == cache_key(
        "l", parse_request({"query": "joins", "topic_filters": ["a", "b"]})
    )


def test_the_entry_and_the_generation_share_the_learners_cluster_slot() -> None:
    # One MGET reads both: Redis Cluster needs them in one slot, i.e. the same hash tag.
    stream = KernelStream(None, prefix="kag")  # type: ignore[arg-type]  # keys only, no I/O
    cache = ConsultCache(redis=None, generations=stream)
    key = cache_key("learner-a", parse_request({"query": "joins"}), prefix=cache.prefix)
    generation = stream.key("learner-a", GENERATION_KEY)
    assert hash_tag(key) == hash_tag(generation) == "learner-a"


async def test_no_generation_source_means_no_caching() -> None:
    cache = ConsultCache(redis=None, generations=None)
    assert not cache.enabled
    found = await cache.lookup("learner-a", parse_request({"query": "q"}))
    assert found.slot is None and found.payload is None
    assert await cache.put(None, {}) is False


def test_response_confidence_is_bounded() -> None:
    with pytest.raises(ValidationError):
        ConsultResponse(request_id="r", synthesized_brief="b", confidence=1.5)
