"""The pure part of sentence derivation and the ``sentence`` retriever's ranking."""

from __future__ import annotations

from agent.kernel.sentences import MAX_SENTENCES, sentence_rows, sentences, speaker_label
from agent.search.sentences import best_sentence_turns
from agent.turns import sentence_id, turn_of_sentence


def test_a_turn_splits_into_its_sentences_of_four_words_or_more() -> None:
    turn = "Thanks! I'm reading Dune by Frank Herbert right now. How was the camping trip? Great."
    assert sentences(turn) == ["I'm reading Dune by Frank Herbert right now.", "How was the camping trip?"]
    assert sentences("Wow! So cool.") == []
    assert sentences("") == []
    long_turn = " ".join(f"This is sentence number {i}." for i in range(30))
    assert len(sentences(long_turn)) == MAX_SENTENCES
    assert sentences(long_turn)[0] == "This is sentence number 0."


def test_every_sentence_keeps_the_turns_speaker_label() -> None:
    turn = "Caroline: Thanks, Mel! I'm reading Dune right now. [shares a photo: a book on a table]"
    assert speaker_label(turn) == "Caroline: "
    assert sentences(turn) == [
        "Caroline: I'm reading Dune right now.",
        "Caroline: [shares a photo: a book on a table]",
    ]
    assert speaker_label("Mary Ann Lee: We hiked all day yesterday.") == "Mary Ann Lee: "
    # No label: a live learner's message, or a colon that is not one.
    assert speaker_label("I think: joins pair rows by a key.") == ""
    assert speaker_label("note:  spaced out") == ""
    assert sentences("I think: joins pair rows by a key.") == ["I think: joins pair rows by a key."]


def test_sentence_ids_map_back_to_their_turn_context() -> None:
    ctx = "learner-1-msg-7-ctx"
    assert sentence_id(ctx, 3) == "learner-1-msg-7-ctx~3"
    assert turn_of_sentence(sentence_id(ctx, 3)) == ctx
    assert turn_of_sentence(sentence_id("a~b-ctx", 0)) == "a~b-ctx"  # only the last "~" is ours


def test_rows_follow_their_turn_contexts() -> None:
    drafts = [
        {"memory_id": "m1-ctx", "session_id": "s1", "disclosure": True, "occurred_at": "2023-05-08T13:56:00"},
        {"memory_id": "m2-ctx", "session_id": "s1", "disclosure": False, "occurred_at": None},
    ]
    turns = ["Ana: I signed up for pottery. It starts on Monday next week.", "Ben: Cool!"]
    first, second = sentence_rows(drafts, turns)
    assert first["id"] == "m1-ctx" and [(r["id"], r["text"]) for r in first["rows"]] == [
        ("m1-ctx~0", "Ana: I signed up for pottery."),
        ("m1-ctx~1", "Ana: It starts on Monday next week."),
    ]
    assert {(r["session_id"], r["disclosure"], r["occurred_at"]) for r in first["rows"]} == {
        ("s1", True, "2023-05-08T13:56:00")
    }
    assert second == {"id": "m2-ctx", "rows": []}  # Ben's "Cool!" has no sentence long enough


def test_a_turn_ranks_by_its_best_sentence_once() -> None:
    rows = [
        {"id": "b-ctx~0", "score": 0.50, "disclosure": False},
        {"id": "a-ctx~1", "score": 0.90, "disclosure": True},
        {"id": "a-ctx~0", "score": 0.70, "disclosure": True},
        {"id": "c-ctx~2", "score": 0.60, "disclosure": None},
        {"id": "b-ctx~1", "score": 0.65, "disclosure": False},
    ]
    ranked, flagged = best_sentence_turns(rows, limit=10)
    assert ranked == [("a-ctx", 0.90), ("b-ctx", 0.65), ("c-ctx", 0.60)]
    assert flagged == {"b-ctx"}  # only an explicit False demotes
    assert best_sentence_turns(rows, limit=2)[0] == [("a-ctx", 0.90), ("b-ctx", 0.65)]
    assert best_sentence_turns([], limit=5) == ([], set())


def test_a_turn_is_cut_by_the_language_layer_not_at_every_full_stop() -> None:
    # The kernel's own "full stop and a space" rule cut these after abbreviations (issue 39:
    # sentences split inside "e.g.", "approx. 2.5", "Dr. Le"), and kept a quote's sentence
    # joined to the next one.
    turn = (
        "Ana: I find it confusing why functools.wraps is needed, e.g. for decorators in Python 3.11. "
        "Dr. Le says the loss is approx. 0.25 now. We read a post called "
        '"Closures Explained." It was really clear.'
    )
    assert sentences(turn) == [
        "Ana: I find it confusing why functools.wraps is needed, e.g. for decorators in Python 3.11.",
        "Ana: Dr. Le says the loss is approx. 0.25 now.",
        'Ana: We read a post called "Closures Explained."',
        "Ana: It was really clear.",
    ]
