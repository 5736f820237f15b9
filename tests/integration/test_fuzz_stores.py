"""Fuzz every input that reaches a store, against the real Neo4j and Redis.

Property, for archival insert/search, recall log/search, core memory append/read
and note search: a clear error (``InvalidInputError`` or another ``KAGError`` that
is a ``ValueError``), or a round trip that reads back exactly what was written;
never another learner's data. Learner A is fuzzed; learner B owns a secret in
every store, and B's whole footprint must be the same at the end.

Lone surrogates are fuzzed everywhere a store takes text (archival content and tags,
requests, recall messages and queries, core memory, every tool argument); the tests
at the end pin each store entry point's refusal.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.errors import InvalidInputError, KAGError
from agent.heartbeat.tool_runner import run_tool_calls
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.notes.store import NoteStore
from agent.resources import Resources
from tests.security.attack import footprint
from tools.memory_tools import make_memory_tools
from tools.note_tools import make_note_tools

FUZZ = settings(
    max_examples=25,
    database=None,  # no .hypothesis/ example store in the work tree
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SECRET = f"zebra-{uuid.uuid4().hex[:10]}"
"""Learner B's secret: it must never come back to learner A."""

SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
UNICODE = st.characters(codec="utf-8")  # every code point a store can hold
CONTROL = st.characters(max_codepoint=0x1F) | st.sampled_from(
    ["\x7f", "\u200b", "\ufeff", "\u202e", "\u0301"]
)
INJECTIONS = st.sampled_from(
    [
        "') MATCH (n) DETACH DELETE n //",
        '" OR 1=1 }) MATCH (m:ArchivalMemory) RETURN m //',
        "learner_id:* OR zebra* OR locker",
        "*:* OR text:*",
        'AND OR NOT "unclosed',
        "text:(a OR b)^10 ~2 [a TO z] {x TO y} \\ / ? * : && || !",
        "$learner_id MERGE (x:Learner {id: 'victim'})",
        "{{7*7}} <script>alert(1)</script> ${jndi:x}",
        "a\x00b",
    ]
)


def text_of(alphabet: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(alphabet=alphabet, max_size=120),
        st.text(alphabet=alphabet | CONTROL, min_size=1, max_size=30),
        INJECTIONS,
        st.just(""),
        st.just(" \n\t "),
        st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "😀", "\x00 "]), st.integers(8_000, 40_000)),
    )


VALID_TEXT = text_of(UNICODE)
ANY_TEXT = text_of(UNICODE | SURROGATES)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


def clear_error(exc: BaseException) -> bool:
    return isinstance(exc, KAGError) and isinstance(exc, ValueError)


@dataclass
class World:
    resources: Resources
    stores: MemoryStores
    a: str
    b: str
    b_before: dict


@pytest.fixture(scope="module")
async def world(resources: Resources) -> AsyncIterator[World]:  # noqa: F811
    """Learner A (fuzzed) and learner B (the victim, with a secret in every store)."""
    run = uuid.uuid4().hex[:10]
    a, b = f"fuzz-a-{run}", f"fuzz-b-{run}"
    stores = MemoryStores.wire(resources)
    await stores.archival.insert(b, f"B's locker code is {SECRET}", tags=("secret",))
    await stores.recall.log_messages(b, "s-b", [RecallMessage(id=f"m-{run}", role="user", content=SECRET)])
    await stores.core.append(b, "user_profile", f"secret {SECRET}")
    notes = NoteStore.for_resources(resources)
    await notes.ensure_schema()
    [vector] = resources.embeddings.embed_documents([f"locker code {SECRET}"])
    await notes.upsert_note(
        b,
        {
            "id": f"note-b-{run}",
            "learner_id": b,
            "concept": "locker code",
            "text": f"The locker code is {SECRET}",
            "embedding": vector,
            "created_at": "2026-01-01T00:00:00+00:00",
        },
    )
    world = World(resources, stores, a, b, await footprint(resources, b))
    try:
        yield world
        assert await footprint(resources, b) == world.b_before, "learner B's memory changed"
    finally:
        for learner in (a, b):
            await erase_learner(resources, learner)


def assert_no_leak(value: object) -> None:
    assert SECRET not in json.dumps(value, default=str), f"learner B's secret reached A: {value}"


# ----- archival memory -----


@FUZZ
@given(content=ANY_TEXT, tags=st.lists(VALID_TEXT, max_size=3))
async def test_archival_insert_round_trips_or_refuses(world: World, content, tags):
    try:
        record = await world.stores.archival.insert(world.a, content, tags=tuple(tags))
    except Exception as exc:  # noqa: BLE001 (the property is about which exceptions)
        assert clear_error(exc), f"{type(exc).__name__}: {exc}"
        return
    rows, _, _ = await world.resources.neo4j.execute_query(
        "MATCH (m {id: $id}) RETURN m.text AS text, m.learner_id AS learner",
        id=record.id,
        database_=world.resources.database,
    )
    assert [(r["text"], r["learner"]) for r in rows] == [(content, world.a)]


@FUZZ
@given(query=VALID_TEXT, page=st.integers(-2, 1002), page_size=st.integers(-1, 60))
async def test_archival_search_answers_or_refuses_and_stays_in_its_learner(
    world: World, query, page, page_size
):
    try:
        result = await world.stores.archival.search(world.a, query, page=page, page_size=page_size)
    except Exception as exc:  # noqa: BLE001
        assert clear_error(exc), f"{type(exc).__name__}: {exc}"
        return
    assert len(result.results) <= page_size
    assert_no_leak(result.to_dict())


# ----- recall storage -----


@FUZZ
@given(content=VALID_TEXT, session=VALID_TEXT, role=st.sampled_from(["user", "assistant", "tool", "x" * 40]))
async def test_recall_log_round_trips_or_refuses(world: World, content, session, role):
    message_id = f"fz-{uuid.uuid4().hex}"
    try:
        logged = await world.stores.recall.log_messages(
            world.a, session, [RecallMessage(id=message_id, role=role, content=content)]
        )
    except Exception as exc:  # noqa: BLE001
        assert clear_error(exc), f"{type(exc).__name__}: {exc}"
        return
    assert logged.count == 1
    [back] = await world.stores.recall.get(world.a, [message_id])
    assert (back.content, back.role) == (content, role)
    assert await world.stores.recall.get(world.b, [message_id]) == []


@FUZZ
@given(query=VALID_TEXT, page=st.integers(-1, 3), page_size=st.integers(0, 51))
async def test_recall_search_answers_or_refuses_and_stays_in_its_learner(
    world: World, query, page, page_size
):
    try:
        result = await world.stores.recall.search(world.a, query, page=page, page_size=page_size)
    except Exception as exc:  # noqa: BLE001
        assert clear_error(exc), f"{type(exc).__name__}: {exc}"
        return
    assert_no_leak(result.to_dict())


# ----- core memory -----


@FUZZ
@given(section=st.sampled_from(["user_profile", "notes", "Bad Section", "x" * 41, ""]), content=VALID_TEXT)
async def test_core_append_round_trips_or_refuses(world: World, section, content):
    await world.stores.core.clear(world.a)
    try:
        sections = await world.stores.core.append(world.a, section, content)
    except Exception as exc:  # noqa: BLE001
        assert clear_error(exc), f"{type(exc).__name__}: {exc}"
        assert await world.stores.core.read(world.a) == {"user_profile": "", "current_goals": ""}
        return
    assert sections[section] == content.strip()
    assert (await world.stores.core.read(world.a))[section] == content.strip()
    assert_no_leak(sections)


# ----- through the tools, as a model would call them -----


@pytest.fixture(scope="module")
def registry(world: World) -> dict:
    tools = [*make_memory_tools(world.stores), *make_note_tools(world.resources)]
    return {t.name: t for t in tools}


STRING_ARGS = {
    "core_memory_append": ({"section": "notes", "content": "ok"}, ["section", "content"]),
    "core_memory_replace": (
        {"section": "notes", "old_content": "a", "new_content": "b"},
        ["section", "old_content", "new_content"],
    ),
    "archival_memory_insert": ({"content": "ok"}, ["content"]),
    "archival_memory_search": ({"query": "ok"}, ["query"]),
    "conversation_search": ({"query": "ok"}, ["query"]),
    "note_search": ({"query": "ok"}, ["query"]),
}
BAD_VALUES = {
    "none": None,
    "dict": {"$ne": 1},
    "list": ["a", "b"],
    "int": 7,
    "nested": {"a": [{"b": [None]}]},
    "surrogate": "x\ud800y",
}
CASES = [
    pytest.param(tool, arg, value, id=f"{tool}-{arg}-{label}")
    for tool, (_, args) in STRING_ARGS.items()
    for arg in args
    for label, value in BAD_VALUES.items()
]


@pytest.mark.parametrize(("tool", "arg", "value"), CASES)
async def test_a_non_string_or_invalid_argument_is_a_tool_error(world: World, registry, tool, arg, value):
    good, _ = STRING_ARGS[tool]
    before = await footprint(world.resources, world.a)
    call = {"name": tool, "args": {**good, arg: value}, "id": "fz", "type": "tool_call"}

    result = await run_tool_calls([call], registry, {"learner_id": world.a})

    [message] = result.messages
    assert message.status == "error", message.content
    assert message.content.startswith(f"ERROR: malformed arguments for {tool}"), message.content
    assert arg in message.content, message.content
    assert await footprint(world.resources, world.a) == before, "a refused call wrote something"


@FUZZ
@given(
    tool=st.sampled_from(sorted(STRING_ARGS)),
    args=st.dictionaries(
        st.sampled_from(["query", "content", "section", "page", "page_size", "k", "tags"]), JSON
    ),
)
async def test_any_tool_arguments_get_an_answer_and_never_another_learners_data(
    world: World, registry, tool, args
):
    call = {"name": tool, "args": args, "id": "fz", "type": "tool_call"}
    result = await run_tool_calls([call], registry, {"learner_id": world.a})
    [message] = result.messages
    assert "internal error" not in message.content, message.content
    message.content.encode("utf-8")
    assert_no_leak(message.content)


@FUZZ
@given(query=ANY_TEXT, k=st.integers(-5, 100))
async def test_note_search_answers_or_refuses_and_stays_in_its_learner(world: World, registry, query, k):
    call = {"name": "note_search", "args": {"query": query, "k": k}, "id": "fz", "type": "tool_call"}
    result = await run_tool_calls([call], registry, {"learner_id": world.a})
    [message] = result.messages
    assert "internal error" not in message.content, message.content
    assert_no_leak(message.content)
    if message.status != "error":
        assert json.loads(message.content)["results"] == []  # A has no notes


async def test_the_victim_is_found_by_its_owner(world: World, registry):
    """Control: B's secret is really there, so the no-leak checks above can fail."""
    call = {
        "name": "archival_memory_search",
        "args": {"query": "locker code"},
        "id": "c",
        "type": "tool_call",
    }
    result = await run_tool_calls([call], registry, {"learner_id": world.b})
    assert SECRET in result.messages[0].content
    call = {"name": "note_search", "args": {"query": "locker code"}, "id": "c", "type": "tool_call"}
    result = await run_tool_calls([call], registry, {"learner_id": world.b})
    assert SECRET in result.messages[0].content


# ----- every store entry point refuses a lone surrogate by name -----


async def test_a_lone_surrogate_search_query_is_refused_by_archival_search(world: World):
    with pytest.raises(InvalidInputError, match="query"):
        await world.stores.archival.search(world.a, "x\ud800")


async def test_a_lone_surrogate_search_query_is_refused_by_recall_search(world: World):
    with pytest.raises(InvalidInputError, match="query"):
        await world.stores.recall.search(world.a, "x\ud800")


@pytest.mark.parametrize("field", ["content", "role", "id", "session"])
async def test_a_lone_surrogate_in_a_recall_message_is_refused(world: World, field):
    values = {"id": f"fz-{uuid.uuid4().hex}", "role": "user", "content": "ok", "session": "s"}
    values[field] = "x\ud800"
    message = RecallMessage(id=values["id"], role=values["role"], content=values["content"])
    with pytest.raises(InvalidInputError, match=field):
        await world.stores.recall.log_messages(world.a, values["session"], [message])


async def test_a_lone_surrogate_tag_is_refused(world: World):
    with pytest.raises(InvalidInputError, match="tag"):
        await world.stores.archival.insert(world.a, "ok", tags=("x\ud800",))


@pytest.mark.parametrize("method", ["append", "replace"])
async def test_a_lone_surrogate_in_core_memory_is_refused(world: World, method):
    with pytest.raises(InvalidInputError, match="content"):
        if method == "append":
            await world.stores.core.append(world.a, "notes", "x\ud800")
        else:
            await world.stores.core.append(world.a, "notes", "old")
            await world.stores.core.replace(world.a, "notes", "old", "x\ud800")
