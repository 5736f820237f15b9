"""How a LoCoMo turn is written to memory, and how notes map back to turns (no services)."""

from __future__ import annotations

from datetime import datetime

import pytest

from agent.errors import InvalidInputError
from agent.kernel.derive import date_text, turn_context_drafts
from agent.validation import validate_learner_id
from bench.locomo.dataset import Session, Turn
from bench.locomo.ingest import learner_for, message_content, note_sources, turn_time
from bench.locomo.retrieval import ARCHIVAL, PRESETS, RECALL, get_presets

SESSION = Session(
    number=3,
    started_at=datetime(2023, 5, 8, 13, 56),
    date_text="1:56 pm on 8 May, 2023",
    turns=(
        Turn("D3:1", "Ana", "Look what I painted!", 3, caption="a photo of a sunset over a lake"),
        Turn("D3:2", "Ben", "Wow, is that the lake near your house?", 3),
    ),
)


def test_message_content_carries_speaker_and_caption() -> None:
    first, second = SESSION.turns
    caption = "[shares a photo: a photo of a sunset over a lake]"
    assert message_content(first) == f"Ana: Look what I painted! {caption}"
    assert message_content(second) == "Ben: Wow, is that the lake near your house?"


def test_the_kernel_derives_the_session_date_and_the_turn_replied_to() -> None:
    first, second = SESSION.turns
    messages = [
        {"id": t.dia_id, "role": "user", "content": message_content(t), "created_at": turn_time(SESSION, i)}
        for i, t in enumerate(SESSION.turns)
    ]
    assert [date_text(turn_time(SESSION, i)) for i in range(2)] == [SESSION.date_text] * 2
    assert [d["content"] for d in turn_context_drafts("session_3", messages)] == [
        f"1:56 pm on 8 May, 2023. {message_content(first)}",
        f"1:56 pm on 8 May, 2023. {message_content(second)} (replying to {message_content(first)})",
    ]


def test_turn_times_follow_the_session_date_in_order() -> None:
    assert turn_time(SESSION, 0) == "2023-05-08T13:56:00+00:00"
    assert turn_time(SESSION, 1) == "2023-05-08T13:56:01+00:00"


def test_learner_ids_are_valid_slugs_unique_per_run() -> None:
    a, b = learner_for("run1", "conv-26"), learner_for("run2", "conv-26")
    assert a == "locomo-run1-conv-26" and a != b
    assert validate_learner_id(learner_for("r/u n", "conv 26#x")) == "locomo-r-u-n-conv-26-x"


def test_notes_map_to_the_turns_their_sentences_came_from() -> None:
    turns = [("D3:1", "Ana: I love painting. It calms me."), ("D3:2", "Ben: Painting is fun!")]
    note = {"definition": "It calms me.", "personal_example": "", "key_insight": None}
    assert note_sources(note, turns) == ("D3:1",)
    both = {"definition": "Painting is fun!", "key_insight": "I love painting."}
    assert note_sources(both, turns) == ("D3:1", "D3:2")
    assert note_sources({"definition": "Unrelated."}, turns) == ()


def test_presets_cover_both_tools_and_lookup_lists_valid_names() -> None:
    assert {p.tool for p in PRESETS} == {RECALL, ARCHIVAL}
    assert len({p.name for p in PRESETS}) == len(PRESETS)
    twice = ["recall:fulltext_only", "recall:fulltext_only"]
    assert [p.name for p in get_presets(twice)] == ["recall:fulltext_only"]
    assert get_presets(None) == list(PRESETS)
    with pytest.raises(InvalidInputError, match="recall:vector_only"):
        get_presets(["nope"])
