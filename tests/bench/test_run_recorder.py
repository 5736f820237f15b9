"""The run recorder turns a heartbeat stream into a RunRecord."""

from __future__ import annotations

import json

from langchain_core.messages import RemoveMessage, SystemMessage, ToolMessage

from bench.ablations.run_recorder import TurnRecorder, hit_texts


def recorder(**kw) -> TurnRecorder:
    base = dict(
        variant="full",
        session="s1",
        turn=3,
        request="What did I mention my cat is called?",
        max_tokens=1600,
        max_steps=5,
        pressure_threshold=0.7,
    )
    return TurnRecorder(**{**base, **kw})


def search(name: str, *texts: str, status: str = "success") -> ToolMessage:
    body = json.dumps({"results": [{"id": str(i), "text": t} for i, t in enumerate(texts)]})
    return ToolMessage(content=body, tool_call_id=f"c-{name}", name=name, status=status)


def test_a_probe_turn_is_recorded_from_its_stream():
    r = recorder(expected="Miso", fact_turn=1)
    old = ToolMessage(content="{}", tool_call_id="old", name="core_memory_append")
    wipe = RemoveMessage(id="__remove_all__")
    hit = search("conversation_search", "My cat is called Miso.", "SQL")
    stream = [
        ("custom", {"phase": "receive", "queue_size": 9}),
        ("custom", {"phase": "monitor", "pressure": 0.75, "step": 0}),
        ("custom", {"phase": "archive", "ok": True, "evicted": 4}),
        # The archive rewrites the queue, re-sending kept (older) tool messages: not this turn's calls.
        ("updates", {"archive": {"fifo_queue": [wipe, SystemMessage("s"), old]}}),
        ("custom", {"phase": "compile", "pressure": 0.5}),
        ("custom", {"phase": "think", "step": 1, "tool_calls": [{"name": "conversation_search"}]}),
        ("updates", {"act": {"fifo_queue": [hit]}}),
        ("custom", {"phase": "monitor", "pressure": 0.9, "step": 1}),
        ("custom", {"phase": "archive", "ok": False, "error": "down"}),
        ("custom", {"phase": "compile", "pressure": 1.1}),
        ("custom", {"phase": "think", "step": 2, "tool_calls": []}),
        ("updates", {"finish": None}),
        ("custom", {"phase": "notes", "artifacts": ["n1", "n2"], "failures": 0}),
        ("values", {"response": "From memory: My cat is called Miso.", "memory_state": {"degraded": False}}),
    ]
    for mode, chunk in stream:
        r.feed(mode, chunk)
    record = r.record()
    assert record.monitor_pressures == (0.75, 0.9)
    assert record.prompt_pressures == (0.5, 1.1)
    assert record.archive_events == (True, False)
    assert record.steps == 2
    assert [(t.name, t.ok) for t in record.tool_results] == [("conversation_search", True)]
    assert record.retrieved == ("My cat is called Miso.", "SQL")
    assert record.notes_written == 2
    assert record.recalled and record.overflowed and record.triggered and record.distance == 2
    assert not record.degraded


def test_tool_errors_and_non_search_tools():
    r = recorder()
    failed = search("archival_memory_search", "ignored", status="error")
    stored = ToolMessage(content='{"ok": true}', tool_call_id="c", name="core_memory_append")
    r.feed("updates", {"act": {"fifo_queue": [stored, failed]}})
    r.feed("values", {"response": "ok", "memory_state": {"degraded": True}})
    record = r.record()
    calls = [(t.name, t.ok) for t in record.tool_results]
    assert calls == [("core_memory_append", True), ("archival_memory_search", False)]
    assert record.retrieved == ()  # a failed search retrieved nothing
    assert record.degraded


def test_rag_retrieval_counts_as_retrieved_not_as_a_tool_call():
    r = recorder(variant="rag_only")
    r.feed("updates", {"retrieve": {"turn": [search("retrieve", "a", "b")]}})
    record = r.record()
    assert record.retrieved == ("a", "b") and record.tool_results == ()


def test_hit_texts_tolerates_non_search_output():
    assert hit_texts("not json") == []
    assert hit_texts('{"ok": true}') == []
    assert hit_texts({"results": [{"text": "x"}, "y"]}) == ["x", "y"]
