"""LoCoMo file loading: the schema, the cuts used by small runs, and clear errors for bad files."""

from __future__ import annotations

import copy
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from bench.locomo.dataset import (
    LocomoFormatError,
    load_locomo,
    parse_locomo,
    parse_session_date,
    select,
)


def sample() -> list[dict[str, Any]]:
    """Two conversations in the LoCoMo shape (session_10 sorts after session_2)."""
    first = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat named Pixel."},
                {
                    "speaker": "Ben",
                    "dia_id": "D1:2",
                    "text": "Look at this!",
                    "blip_caption": "a photo of a sunset over a lake",
                    "img_url": ["https://example.org/x.jpg"],
                },
            ],
            "session_10_date_time": "10:04 am on 2 June, 2023",
            "session_10": [{"speaker": "Ana", "dia_id": "D10:1", "text": "Pixel likes boxes."}],
            "session_2_date_time": "9:00 am on 20 May, 2023",
            "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "I ran a marathon."}],
            "session_3_date_time": "9:00 am on 21 May, 2023",  # a date without turns
        },
        "qa": [
            {"question": "What is Ana's cat called?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
            {"question": "When did Ben run?", "answer": 2023, "evidence": [" D2:1 "], "category": 2},
            {"question": "What does Pixel like?", "answer": "boxes", "evidence": ["D10:1"], "category": 1},
            {"question": "What did Ben adopt?", "adversarial_answer": "a cat", "evidence": [], "category": 5},
            {"question": "Odd one", "answer": "x", "evidence": ["D1:1; D2:1"], "category": 3},
        ],
        "observation": {"ignored": True},
    }
    second = copy.deepcopy(first)
    second["sample_id"] = "conv-2"
    return [first, second]


def test_a_valid_file_loads_in_session_order_with_captions_and_dates(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(sample()))
    data = load_locomo(path)
    assert data.path == str(path)
    assert [c.sample_id for c in data.conversations] == ["conv-1", "conv-2"]
    conv = data.conversations[0]
    assert (conv.speaker_a, conv.speaker_b) == ("Ana", "Ben")
    assert [s.number for s in conv.sessions] == [1, 2, 10]  # numeric order; session_3 has no turns
    assert conv.sessions[0].started_at == datetime(2023, 5, 8, 13, 56)
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1", "D10:1"]
    assert conv.turns[1].caption == "a photo of a sunset over a lake"
    assert conv.turns[0].caption is None
    assert [q.category for q in conv.questions] == [4, 2, 1, 5, 3]
    assert conv.questions[1].evidence == ("D2:1",)  # stripped
    assert conv.questions[1].answer == "2023"
    assert conv.questions[3].answer == "a cat" and conv.questions[3].evidence == ()
    assert conv.questions[0].qid == "conv-1#0"
    assert data.question_count == 10
    # The evidence that names no turn is kept (it scores 0) and reported.
    assert conv.questions[4].evidence == ("D1:1; D2:1",)
    assert data.warnings == (
        "conv-1: evidence naming no turn (never retrievable): ['D1:1; D2:1']",
        "conv-2: evidence naming no turn (never retrievable): ['D1:1; D2:1']",
    )


def test_head_and_select_keep_only_answerable_questions() -> None:
    data = parse_locomo(sample())
    conv = data.conversations[0].head(sessions=2)
    assert [s.number for s in conv.sessions] == [1, 2]
    # D10:1 and the malformed id are outside the first two sessions; no evidence stays.
    assert [q.qid for q in conv.questions] == ["conv-1#0", "conv-1#1", "conv-1#3"]
    assert [q.qid for q in data.conversations[0].head(sessions=2, questions=1).questions] == ["conv-1#0"]
    assert len(data.conversations[0].head().questions) == 5
    chosen = select(data, conversations=1, sessions=1, questions=10)
    assert len(chosen) == 1 and [t.dia_id for t in chosen[0].turns] == ["D1:1", "D1:2"]
    assert [q.qid for q in chosen[0].questions] == ["conv-1#0", "conv-1#3"]


def test_session_dates_parse_with_irregular_spacing() -> None:
    assert parse_session_date("10:37  am on 27 June, 2023") == datetime(2023, 6, 27, 10, 37)
    with pytest.raises(ValueError):
        parse_session_date("yesterday")


def _broken(mutate) -> list[dict[str, Any]]:  # noqa: ANN001 - a small lambda
    data = sample()
    mutate(data)
    return data


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d[0]["conversation"]["session_1"][0].pop("dia_id"), "[0].conversation.session_1[0]"),
        (lambda d: d[0]["conversation"]["session_1"][0].update(dia_id="D2:1"), "session_1[0].dia_id"),
        (lambda d: d[0]["conversation"]["session_2"][0].update(speaker=None), "session_2[0].speaker"),
        (lambda d: d[0]["conversation"].update(session_2_date_time="May 20"), "session_2_date_time"),
        (lambda d: d[0]["conversation"].pop("session_10_date_time"), "session_10_date_time"),
        (lambda d: d[0]["conversation"].update(session_2="oops"), "session_2"),
        (lambda d: d[1]["qa"][2].update(category=7), "[1].qa[2].category"),
        (lambda d: d[1]["qa"][0].update(evidence="D1:1"), "[1].qa[0].evidence"),
        (lambda d: d[1]["qa"][0].pop("question"), "[1].qa[0].question"),
        (lambda d: d[1].update(sample_id="conv-1"), "duplicate sample_id"),
        (lambda d: d[0].pop("conversation"), "[0].conversation"),
        (lambda d: d[0]["conversation"].update(speaker_a=""), "speaker_a"),
    ],
)
def test_bad_files_raise_a_clear_error_naming_the_location(mutate, where: str) -> None:  # noqa: ANN001
    with pytest.raises(LocomoFormatError) as info:
        parse_locomo(_broken(mutate), "dev.json")
    assert str(info.value).startswith("dev.json: ")
    assert where in str(info.value)


@pytest.mark.parametrize("data", [[], {}, "x", [1], [{"sample_id": "a", "conversation": {}, "qa": []}]])
def test_wrong_top_level_shapes_are_rejected(data: object) -> None:
    with pytest.raises(LocomoFormatError):
        parse_locomo(data)


def test_missing_and_non_json_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(LocomoFormatError, match="no such file"):
        load_locomo(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LocomoFormatError, match="not valid JSON"):
        load_locomo(bad)
