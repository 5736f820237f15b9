"""Sentence boundaries of the language layer (``agent.language.sentences``) and their bench."""

from agent.language.sentences import sentence_spans, split_sentences
from bench.language.__main__ import SHORT_WORDS, segmentation_report


def test_code_names_stay_in_their_sentence() -> None:
    text = "I find it confusing why functools.wraps is needed. Can you explain it?"
    assert split_sentences(text) == [
        "I find it confusing why functools.wraps is needed.",
        "Can you explain it?",
    ]


def test_versions_abbreviations_decimals_urls_and_lines() -> None:
    assert split_sentences("I run Python 3.11.2, e.g. for pandas. It works.") == [
        "I run Python 3.11.2, e.g. for pandas.",
        "It works.",
    ]
    assert split_sentences("The answer is approx. 2.718 here. Dr. Le agrees.") == [
        "The answer is approx. 2.718 here.",
        "Dr. Le agrees.",
    ]
    assert split_sentences("See www.example.org/a?x=1 now. Ok?") == ["See www.example.org/a?x=1 now.", "Ok?"]
    assert split_sentences("first step\nsecond step") == ["first step", "second step"]
    assert split_sentences("") == [] and split_sentences(None) == []  # type: ignore[arg-type]


def test_cuts_pysbd_misses_after_everyday_words_and_numbers() -> None:
    # pysbd lists "me", "ok", "is" as abbreviations and never ends one before "I"; and it
    # reads numbers in a row as list items. Both came out as one sentence.
    assert split_sentences("It means a lot to me. I'm glad we met. Hope you are OK. I had fun.") == [
        "It means a lot to me.",
        "I'm glad we met.",
        "Hope you are OK.",
        "I had fun.",
    ]
    assert split_sentences("I am on step 1. It fails at step 2. Why?") == [
        "I am on step 1.",
        "It fails at step 2.",
        "Why?",
    ]
    assert split_sentences("Use a guard, e.g. I check None first.") == [
        "Use a guard, e.g. I check None first."
    ]
    assert split_sentences("1. Open the file. 2. Run it.") == ["1. Open the file. 2. Run it."]


def test_a_short_everyday_word_ends_a_sentence_before_lower_case_an_abbreviation_does_not() -> None:
    assert split_sentences("June 23 now. two more weeks of mechanisms") == [
        "June 23 now.",
        "two more weeks of mechanisms",
    ]
    assert split_sentences("I did 40 problems in one day. my wrists hurt") == [
        "I did 40 problems in one day.",
        "my wrists hurt",
    ]
    for joined in ("the class meets Tue. and Thu. in room 4", "lists, tuples, dicts etc. in week one"):
        assert split_sentences(joined) == [joined]


def test_the_short_word_set_by_leave_one_out() -> None:
    report = segmentation_report(SHORT_WORDS)
    assert report["boundary_accuracy"] >= 0.95, report


def test_spans_point_into_the_text() -> None:
    text = "One fact here.  Another one!"
    assert [(text[i : i + len(s)], s) for i, s in sentence_spans(text)] == [
        ("One fact here.", "One fact here."),
        ("Another one!", "Another one!"),
    ]


def test_segmentation_set_meets_its_target() -> None:
    report = segmentation_report()
    assert report["sentences"] >= 100
    assert report["boundary_accuracy"] >= 0.98
