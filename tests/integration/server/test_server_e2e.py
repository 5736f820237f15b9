"""End to end through the LangGraph server API with the official SDK client.

The session's real ``langgraph dev`` (restarted once here, for persistence), the
project's ``langgraph.json`` (Redis checkpointer, per-learner auth), real Neo4j
and Redis, the offline policy model. Two learners authenticate with bearer tokens.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError

from agent.checkpoint import AsyncRedisSaver
from agent.heartbeat.state import HeartbeatOutput, MemoryState
from agent.models.offline_policy import OFFLINE_BANNER
from agent.notes.store import COUNT_NOTES
from agent.resources import Resources
from agent.validation import learner_hash
from tests.integration.langgraph_server import DevServer
from tests.security.attack import SECRET_VALUE, text_fields
from tests.service_fixtures import ServerView

pytestmark = [pytest.mark.integration, pytest.mark.server]

GOAL = "My name is Ada and my goal is to learn Rust"
SECRET = f"Remember that my locker code is {SECRET_VALUE}."
ASK_SECRET = "What do you know about my locker code?"
STEP = ["monitor", "compile", "think", "act"]
# The offline policy stores the sentence as a fact, pins the name in the profile and the goal in
# the goals (a sentence holding both feeds both sections), then answers.
PHASES = ["receive", "appraise", *STEP, *STEP, *STEP, "monitor", "compile", "think", "effort", "finish"]
TRANSCRIPT = [
    {"role": "user", "content": "I keep mixing up inner joins and left joins."},
    {
        "role": "assistant",
        "content": "An inner join returns only rows that match in both tables. A left join keeps "
        "every row of the left table, with NULLs where nothing matches.",
    },
    {"role": "user", "content": "So a left join keeps my customers without orders."},
    {"role": "assistant", "content": "Exactly, the inner join would drop them."},
]


@pytest.fixture(scope="module")
def server(kag_server: DevServer) -> ServerView:
    """The session's shared server (``tests.service_fixtures.kag_server``) with learners a and b.

    Its checkpoints and learners are removed after the session.
    """
    return ServerView(kag_server, "e2e")


@pytest.fixture(autouse=True)
def server_log_on_failure(request: pytest.FixtureRequest, server: DevServer, capsys: pytest.CaptureFixture):
    """Print the server log when a test of this module fails."""
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:
        with capsys.disabled():
            print(f"\n----- langgraph dev log ({server.log_path}) -----\n{server.log_tail()}")


async def stream_run(client, thread_id: str | None, graph: str, payload: dict) -> dict[str, list]:
    """Stream one run with ``values`` and ``custom``; events grouped by kind."""
    seen: dict[str, list] = {"values": [], "custom": [], "error": []}
    async for part in client.runs.stream(thread_id, graph, input=payload, stream_mode=["values", "custom"]):
        if part.event in seen:
            seen[part.event].append(part.data)
    return seen


async def test_heartbeat_streams_its_phases_and_the_output_schema(server: DevServer) -> None:
    ada = server.learners["a"]
    client = ada.client(server.url)
    thread = await client.threads.create(metadata={"owner": "someone-else"})
    assert thread["metadata"]["owner"] == ada.learner_id, "a client cannot choose the owner"

    seen = await stream_run(client, thread["thread_id"], "kag", {"request": GOAL})

    assert seen["error"] == []
    assert [event["phase"] for event in seen["custom"]] == PHASES
    calls = [e for e in seen["custom"] if e["phase"] == "think" and e["tool_calls"]]
    acts = [e for e in seen["custom"] if e["phase"] == "act"]
    assert [c["name"] for e in calls for c in e["tool_calls"]] == [
        "remember_fact",
        "core_memory_append",
        "core_memory_append",
    ]
    assert [a["tools"] for a in acts] == [["remember_fact"], ["core_memory_append"], ["core_memory_append"]]
    assert all(a["errors"] == 0 for a in acts)
    assert seen["custom"][0]["learner"] == learner_hash(ada.learner_id)
    final = seen["values"][-1]
    assert set(final) == set(HeartbeatOutput.__required_keys__)
    assert set(final["memory_state"]) == set(MemoryState.__required_keys__)
    assert final["memory_state"]["effort"]["intent"] == "simple_recall"
    assert final["response"].startswith(OFFLINE_BANNER)
    assert final["memory_state"]["steps"] == 4 and final["artifacts"] == []
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["learner_id"] == ada.learner_id
    assert "learn Rust" in state["values"]["core_memory"]["current_goals"]
    assert "Ada" in state["values"]["core_memory"]["user_profile"]


async def test_thread_state_comes_back_from_redis_after_a_restart(
    server: DevServer, resources: Resources
) -> None:
    ada = server.learners["a"]
    client = ada.client(server.url)
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "kag", input={"request": "I am a beginner in Rust."})
    before = await client.threads.get_history(thread_id, limit=1000)
    redis_url = resources.settings.redis_url
    async with AsyncRedisSaver.from_conn_string(redis_url, key_prefix=server.prefix) as saver:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        in_redis = [tup.config["configurable"]["checkpoint_id"] async for tup in saver.alist(config)]
    assert in_redis == [h["checkpoint"]["checkpoint_id"] for h in before], "the history is our Redis saver's"

    await asyncio.to_thread(server.restart)
    client = ada.client(server.url)

    after = await client.threads.get_history(thread_id, limit=1000)
    ids = [h["checkpoint"]["checkpoint_id"] for h in before]
    assert [h["checkpoint"]["checkpoint_id"] for h in after] == ids
    output = await client.runs.wait(thread_id, "kag", input={"request": "Do you remember my level?"})
    assert output["response"].startswith(OFFLINE_BANNER)
    grown = await client.threads.get_history(thread_id, limit=1000)
    assert len(grown) > len(before)
    queue = (await client.threads.get_state(thread_id))["values"]["fifo_queue"]
    texts = [message["content"] for message in queue]
    assert "I am a beginner in Rust." in texts and "Do you remember my level?" in texts


async def test_a_learner_never_sees_another_learners_threads_or_memory(server: DevServer) -> None:
    ada, bob = server.learners["a"], server.learners["b"]
    as_ada, as_bob = ada.client(server.url), bob.client(server.url)
    thread_a = (await as_ada.threads.create())["thread_id"]
    await as_ada.runs.wait(thread_a, "kag", input={"request": SECRET})
    own = await as_ada.runs.wait(thread_a, "kag", input={"request": ASK_SECRET})
    assert SECRET_VALUE in own["response"], "the owner finds the fact, so the probes below mean something"
    await as_ada.store.put_item(("notes",), "locker", {"code": SECRET_VALUE})

    # Through the API: threads, runs, state, store.
    for probe in (
        as_bob.threads.get(thread_a),
        as_bob.threads.get_state(thread_a),
        as_bob.runs.create(thread_a, "kag", input={"request": "hi"}),
    ):
        with pytest.raises(APIStatusError) as err:
            await probe
        assert err.value.status_code in (403, 404)
    assert thread_a not in [t["thread_id"] for t in await as_bob.threads.search(limit=1000)]
    assert thread_a in [t["thread_id"] for t in await as_ada.threads.search(limit=1000)]
    assert (await as_bob.store.search_items(("notes",)))["items"] == []
    assert (await as_ada.store.search_items(("notes",)))["items"][0]["value"] == {"code": SECRET_VALUE}
    try:  # the namespace is forced under Bob's own: (bob, ada, notes) holds nothing
        spoofed = await as_bob.store.get_item((ada.learner_id, "notes"), "locker")
    except APIStatusError as err:
        assert err.status_code == 404
    else:
        assert spoofed is None
    studio = get_client(url=server.url, headers={"x-auth-scheme": "langsmith"})
    with pytest.raises(APIStatusError) as err:  # anonymous Studio needs KAG_STUDIO_ANONYMOUS
        await studio.threads.search(limit=1000)
    assert err.value.status_code == 401

    # Naming Ada in the body is refused before the run exists.
    thread_b = (await as_bob.threads.create())["thread_id"]
    with pytest.raises(APIStatusError) as err:
        await as_bob.runs.create(thread_b, "kag", input={"learner_id": ada.learner_id, "request": ASK_SECRET})
    assert err.value.status_code == 403
    # Through the agent's tools, as himself.
    seen = await stream_run(as_bob, thread_b, "kag", {"request": ASK_SECRET})
    acts = [event for event in seen["custom"] if event["phase"] == "act"]
    assert acts and "archival_memory_search" in acts[0]["tools"], "B's question must reach the search tool"
    assert SECRET_VALUE not in text_fields(acts) and SECRET_VALUE not in seen["values"][-1]["response"]
    assert (await as_bob.threads.get_state(thread_b))["values"]["learner_id"] == bob.learner_id


async def test_missing_or_bad_tokens_are_refused(server: DevServer) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-known-token"}, {"Authorization": "Basic abc"}):
        with pytest.raises(APIStatusError) as err:
            await get_client(url=server.url, headers=headers).threads.search()
        assert err.value.status_code == 401


async def test_bad_input_gives_clear_errors_and_the_server_keeps_serving(server: DevServer) -> None:
    client = server.learners["a"].client(server.url)
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "kag", input={"request": "I prefer short answers."})
    with pytest.raises(APIStatusError) as err:  # no assistant_id in the request body
        await client.http.post(f"/threads/{thread_id}/runs", json={"input": {"request": "hi"}})
    assert 400 <= err.value.status_code < 500
    with pytest.raises(APIStatusError) as err:  # refused before the run exists
        await client.runs.create(thread_id, "kag", input={"learner_id": "bad id!", "request": "hi"})
    assert err.value.status_code == 422 and "neither a UUID nor a slug" in str(err.value.body)

    cases = [  # the thread already served a request: a missing one must not re-run it
        ({"context": {}}, "request must be a non-empty string"),
        ({"request": "x" * (33 * 1024)}, "32 KB"),
    ]
    for payload, message in cases:
        seen = await stream_run(client, thread_id, "kag", payload)
        assert seen["error"], f"{payload!r} must fail the run"
        assert seen["error"][0]["error"] == "InvalidInputError"
        assert message in seen["error"][0]["message"]
    statuses = [run["status"] for run in await client.runs.list(thread_id, limit=100)]
    assert statuses.count("error") == len(cases) and statuses.count("success") == 1

    output = await client.runs.wait(thread_id, "kag", input={"request": "I prefer long answers."})
    assert output["response"].startswith(OFFLINE_BANNER)


async def test_zettelkasten_graph_streams_its_artifacts(server: DevServer, resources: Resources) -> None:
    ada, bob = server.learners["a"], server.learners["b"]
    client = ada.client(server.url)
    thread_id = (await client.threads.create())["thread_id"]
    payload = {"learner_id": bob.learner_id, "transcript": TRANSCRIPT, "current_concept": "sql.joins"}
    with pytest.raises(APIStatusError) as err:  # naming another learner is refused
        await client.runs.create(thread_id, "zettelkasten", input=payload)
    assert err.value.status_code == 403
    payload["learner_id"] = ada.learner_id

    seen = await stream_run(client, thread_id, "zettelkasten", payload)

    assert seen["error"] == []
    ready = [event for event in seen["custom"] if event.get("event") == "ARTIFACT_READY"]
    artifacts = seen["values"][-1]["artifacts"]
    assert ready and artifacts
    assert [e["artifact"]["note_id"] for e in ready] == [a["note_id"] for a in artifacts]
    for artifact in artifacts:
        assert artifact["type"] == "ZETTELKASTEN_NOTE"
        assert artifact["content"].strip() and artifact["concept_map"].strip()

    async def notes_of(learner_id: str) -> int:
        records, _, _ = await resources.neo4j.execute_query(
            COUNT_NOTES, learner_id=learner_id, database_=resources.database
        )
        return records[0]["n"]

    assert await notes_of(ada.learner_id) >= len(artifacts)
    assert await notes_of(bob.learner_id) == 0, "the refused run wrote nothing for bob"


def _texts(messages: list[dict]) -> list[tuple[str, str]]:
    return [(message["type"], message["content"]) for message in messages]


async def test_studio_sees_the_conversation_in_messages(server: DevServer) -> None:
    ada = server.learners["a"]
    client = ada.client(server.url)
    thread_id = (await client.threads.create())["thread_id"]
    first = await client.runs.wait(thread_id, "kag", input={"request": "I prefer worked examples."})
    second = await client.runs.wait(thread_id, "kag", input={"request": "What is a borrow checker?"})

    values = (await client.threads.get_state(thread_id))["values"]
    assert _texts(values["messages"]) == [
        ("human", "I prefer worked examples."),
        ("ai", first["response"]),
        ("human", "What is a borrow checker?"),
        ("ai", second["response"]),
    ], "requests and final answers only, in order"
    assert len({message["id"] for message in values["messages"]}) == 4
    assert len(values["fifo_queue"]) > len(values["messages"]), "tool calls stay in the working queue"


async def test_core_memory_is_readable_through_the_store_by_its_learner_only(server: DevServer) -> None:
    ada, bob = server.learners["a"], server.learners["b"]
    as_ada, as_bob = ada.client(server.url), bob.client(server.url)
    marker = uuid.uuid4().hex[:8]
    thread_id = (await as_ada.threads.create())["thread_id"]
    await as_ada.runs.wait(thread_id, "kag", input={"request": f"My goal is to learn Haskell {marker}."})

    items = (await as_ada.store.search_items(("core_memory",)))["items"]
    assert [item["namespace"] for item in items] == [[ada.learner_id, "core_memory"]]
    sections = items[0]["value"]["sections"]
    assert marker in sections["current_goals"]
    state = await as_ada.threads.get_state(thread_id)
    assert sections == state["values"]["core_memory"], "the store copy is the core memory after the run"

    # Bob sees only his own namespace (if any), never Ada's sections.
    for probe in (("core_memory",), (ada.learner_id, "core_memory"), ()):
        for item in (await as_bob.store.search_items(probe))["items"]:
            assert item["namespace"][0] == bob.learner_id
            assert marker not in str(item["value"])


async def test_forking_a_thread_forks_its_state_but_not_long_term_memory(server: DevServer) -> None:
    bob = server.learners["b"]
    client = bob.client(server.url)
    marker = uuid.uuid4().hex[:8]
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "kag", input={"request": "I prefer short answers."})
    fork_point = await client.threads.get_state(thread_id)
    goal = f"My goal is to learn Haskell {marker}."
    await client.runs.wait(thread_id, "kag", input={"request": goal})
    main = (await client.threads.get_state(thread_id))["values"]
    assert main["counters"]["requests"] == 2

    # A run on the earlier checkpoint branches the thread from there.
    fork_answer = await client.runs.wait(
        thread_id,
        "kag",
        input={"request": "What are my goals?"},
        checkpoint_id=fork_point["checkpoint"]["checkpoint_id"],
    )
    forked = await client.threads.get_state(thread_id)
    assert forked["values"]["counters"]["requests"] == 2, "1 before the fork point + the forked run"
    # Graph state forked: the branch has the first turn and its own, not the second request.
    assert [text for kind, text in _texts(forked["values"]["messages"]) if kind == "human"] == [
        "I prefer short answers.",
        "What are my goals?",
    ]
    # (The answer may quote the goal: it comes from core memory, which is not forked.)
    assert goal not in [message["content"] for message in forked["values"]["fifo_queue"]]
    # Long-term memory did not: core memory is the learner's, written in the other branch.
    assert marker in forked["values"]["core_memory"]["current_goals"]
    assert fork_answer["response"]

    # threads.copy forks the whole thread: same state, then the two go their own ways.
    copy = await client.threads.copy(thread_id)
    assert copy["metadata"]["owner"] == bob.learner_id
    copied = await client.threads.get_state(copy["thread_id"])
    assert _texts(copied["values"]["messages"]) == _texts(forked["values"]["messages"])
    await client.runs.wait(copy["thread_id"], "kag", input={"request": "I like chess."})
    original = await client.threads.get_state(thread_id)
    assert "I like chess." not in str(original["values"]["messages"])
    # A copy of Bob's thread is Bob's: Ada cannot read it.
    with pytest.raises(APIStatusError) as err:
        await server.learners["a"].client(server.url).threads.get_state(copy["thread_id"])
    assert err.value.status_code in (403, 404)
