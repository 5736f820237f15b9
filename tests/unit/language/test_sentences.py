"""Sentence boundaries of the language layer (``agent.language.sentences``) and their bench."""

from agent.language.sentences import sentence_spans, split_sentences
from bench.language.__main__ import segmentation_report


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
