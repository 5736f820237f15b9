"""Extraction: offline extractor, scripted LLM path (valid, retried, failing), identity."""

from __future__ import annotations

import json

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from agent.models.offline_policy import OfflinePolicyModel
from agent.notes.extraction import ModelExtractor, concept_count, extractor_for
from agent.notes.models import DEFAULT_TAG_VOCABULARY, NoteDraft
from agent.notes.offline import OfflineExtractor, offline_extract
from agent.notes.store import note_id_for

TRANSCRIPT = [
    {"role": "user", "content": "I keep mixing up inner joins and left joins."},
    {
        "role": "assistant",
        "content": "An inner join returns only rows that match in both tables. A left join keeps "
        "every row of the left table, with NULLs where the right table has no match.",
    },
    {"role": "user", "content": "Oh I get it, so a left join keeps my customers without orders."},
    {"role": "assistant", "content": "Exactly. The inner join would drop those customers."},
]

VALID = {
    "notes": [
        {
            "concept": "left join",
            "definition": "A left join keeps every row of the left table.",
            "personal_example": "My customers without orders stay in the result.",
            "key_insight": "Unmatched rows get NULLs instead of disappearing.",
            "keywords": ["Left Join", "NULL", "rows", "tables", "customers", "extra"],
            "tags": ["sql", "not-in-vocabulary", "example"],
            "description": "Left joins keep unmatched left rows.",
            "links": ["inner join"],
        }
    ]
}


def fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=r) for r in replies]))


def test_offline_extractor_fills_the_schema() -> None:
    drafts = offline_extract(TRANSCRIPT, "sql.joins")
    concepts = [d.concept for d in drafts]
    # The session never defines joins in general, so its terms carry it.
    assert set(concepts) == {"left join", "inner join"}
    for draft in drafts:
        assert draft.definition and len(draft.description) <= 320
        assert 1 <= len(draft.keywords) <= 5
        assert all(k == k.lower() and " " not in k for k in draft.keywords)
        assert set(draft.tags) <= set(DEFAULT_TAG_VOCABULARY)
        assert 1 <= concept_count(draft, concepts) <= 2  # atomicity, measured
    assert all("sql" in d.tags for d in drafts)  # the session concept's subject tags every note


def test_offline_extractor_is_deterministic() -> None:
    assert offline_extract(TRANSCRIPT, "sql.joins") == offline_extract(TRANSCRIPT, "sql.joins")


async def test_offline_model_routes_to_offline_extractor() -> None:
    drafts, failures, facts = await extractor_for(OfflinePolicyModel()).extract(TRANSCRIPT, "sql.joins")
    assert drafts and not failures and facts["extractor"] == "offline"


async def test_llm_json_is_validated_and_normalised() -> None:
    drafts, failures, facts = await extractor_for(fake(json.dumps(VALID))).extract(TRANSCRIPT, None)
    assert not failures and facts == {"extractor": "llm", "model": facts["model"], "attempts": 1}
    (draft,) = drafts
    assert draft.keywords == ["left-join", "null", "rows", "tables", "customers"]
    assert draft.tags == ["sql", "example"]


async def test_malformed_then_valid_json_is_retried_once() -> None:
    model = fake("{not json", "```json\n" + json.dumps(VALID) + "\n```")
    drafts, failures, facts = await extractor_for(model).extract(TRANSCRIPT, None)
    assert len(drafts) == 1 and not failures and facts["attempts"] == 2


async def test_always_malformed_json_is_a_failure_not_a_success() -> None:
    drafts, failures, facts = await extractor_for(fake("nope", "still {nope")).extract(TRANSCRIPT, None)
    assert drafts == []
    assert failures == [{"stage": "extract", "concept": None, "error": failures[0]["error"], "attempts": 2}]


async def test_invalid_note_fails_alone_after_retry() -> None:
    bad = {"notes": [VALID["notes"][0], {"concept": "outer join"}]}  # no definition
    drafts, failures, _ = await extractor_for(fake(json.dumps(bad), json.dumps(bad))).extract([], None)
    assert [d.concept for d in drafts] == ["left join"]
    assert [(f["stage"], f["concept"], f["attempts"]) for f in failures] == [("extract", "outer join", 2)]


def test_note_id_hashes_content_and_embedding_version() -> None:
    draft = NoteDraft.model_validate(VALID["notes"][0])
    same = note_id_for("learner-a", draft, "minilm@1")
    assert same == note_id_for("learner-a", draft.model_copy(update={"tags": []}), "minilm@1")
    assert same != note_id_for("learner-a", draft, "minilm@2")
    assert same != note_id_for("learner-b", draft, "minilm@1")
    edited = draft.model_copy(update={"definition": "Something else."})
    assert same != note_id_for("learner-a", edited, "minilm@1")


def test_offline_notes_skip_banners_tool_output_and_questions() -> None:
    transcript = [
        {"role": "user", "content": "What did I say about the left join earlier?"},
        {"role": "tool", "content": '{"results": [{"text": "the left join keeps rows"}]}'},
        {
            "role": "assistant",
            # The offline policy's own words: it quotes memory, it teaches nothing new (issue 42).
            "content": "[offline policy, not an LLM] A left join keeps every row of the left table.",
        },
        {"role": "user", "content": "So the left join kept my customers without orders."},
        {"role": "assistant", "content": "Yes, a left join keeps every row of the left table, with NULLs."},
    ]
    drafts = offline_extract(transcript, "sql.left_join")
    assert drafts, "the session names a concept twice on both sides"
    text = " ".join(f"{d.definition} {d.personal_example} {d.key_insight}" for d in drafts)
    assert "offline policy" not in text and "results" not in text
    assert not any(d.definition.endswith("?") for d in drafts)
    assert drafts[0].definition == "A left join keeps every row of the left table, with NULLs."


def test_extractor_for_picks_the_strategy_once() -> None:
    assert isinstance(extractor_for(OfflinePolicyModel()), OfflineExtractor)
    model = fake(json.dumps(VALID))
    chosen = extractor_for(model)
    assert isinstance(chosen, ModelExtractor) and chosen.model is model
