"""Memory tells a one-value question's intent: two values for what it asks, or one (``versions``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agent.language.encoder import encode_kept as vectors
from agent.language.versions import Knobs, as_learner, held, memory_holds, settle

SET = Path(__file__).resolve().parents[3] / "bench" / "cognitive" / "sets" / "intents_memory.json"


@dataclass(frozen=True)
class Fact:
    content: str
    valid_to: str | None = None
    superseded: list[str] = field(default_factory=list)


CLOSED = "2026-02-01T00:00:00+00:00"


def test_a_value_another_version_closed_is_two_values() -> None:
    memory = [
        Fact("My TOEFL score was 88.", valid_to=CLOSED),
        Fact("I retook the TOEFL and got 97.", superseded=["old"]),
        Fact("My cat is called Miso."),
    ]
    assert memory_holds("What did the learner score in the TOEFL?", memory) == "two"


def test_an_unchanged_value_beside_a_changed_one_is_one_value() -> None:
    memory = [
        Fact("I work as a receptionist at a dental clinic."),
        Fact("My anatomy exam is on 3 May.", valid_to=CLOSED),
        Fact("The anatomy exam moved to 10 May.", superseded=["old"]),
    ]
    # "still" and "where … work" are the words of a change; memory holds one value
    # (the words still decide those: ``settle``)
    assert memory_holds("Where does the learner work?", memory) == "one"
    assert (
        memory_holds(
            "Which Python topic still confuses the learner?",
            [*memory, Fact("Python decorators still confuse me.")],
        )
        == "one"
    )


def test_two_open_facts_that_disagree_are_two_values() -> None:
    memory = [Fact("My IELTS writing score is 6.0."), Fact("My IELTS writing score is 6.5.")]
    assert memory_holds("What is the learner's IELTS writing score?", memory) == "two"


def test_memory_holding_nothing_about_the_question_leaves_it_to_the_words() -> None:
    memory = [
        Fact("I bake bread at a bakery.", valid_to=CLOSED),
        Fact("I do IT support now.", superseded=["o"]),
    ]
    assert memory_holds("What are inner joins?", memory) is None
    assert memory_holds("What are inner joins?", []) is None


def test_questions_are_read_in_the_learners_person() -> None:
    assert as_learner("What is the learner's job?") == "What is my job?"
    assert as_learner("Where does the learner live?") == "Where do I live?"
    assert as_learner("Which course is the learner taking?") == "Which course am I taking?"
    assert as_learner("What are inner joins?") == "What are inner joins?"


def test_only_the_closest_facts_are_asked_about() -> None:
    texts = ["My chess rating is 1320.", "I live in Lyon.", "I moved to Grenoble."]
    memory = [Fact(texts[0]), Fact(texts[1], valid_to=CLOSED), Fact(texts[2], superseded=["o"])]
    rows = vectors(texts)
    sims = np.array([0.8, 0.5, 0.45])  # the closed home fact is near, not the closest
    assert held(sims, memory, rows, Knobs(k=5, margin=0.0, floor=0.4)) == "one"
    assert held(sims, memory, rows, Knobs(k=5, margin=0.35, floor=0.4)) == "two"
    assert held(sims, memory, rows, Knobs(k=5, margin=0.0, floor=0.9)) is None


def test_memory_settles_only_what_the_words_leave_open() -> None:
    assert settle("simple_recall", "two") == "contradiction_resolution"
    assert settle("simple_recall", "one") == "simple_recall"
    assert settle("simple_recall", None) == "simple_recall"
    # sure words stand: a change the write missed leaves one value in memory
    assert settle("contradiction_resolution", "one") == "contradiction_resolution"


def test_the_leave_one_out_set_has_ten_phrasings_per_intent() -> None:
    items = json.loads(SET.read_text())["items"]
    for intent in ("contradiction_resolution", "simple_recall"):
        assert len({i["question"] for i in items if i["intent"] == intent}) >= 10


def test_two_open_facts_that_answer_the_question_are_two_values() -> None:
    # No part the about-reader is sure of joins them; the question does.
    memory = [
        Fact("My PhD supervisor is Prof. Okafor, she's brilliant with Bayesian models."),
        Fact("Since Prof. Okafor left for Edinburgh, Dr. Lindqvist has been supervising me."),
    ]
    question = "Who is the learner's supervisor?"
    assert memory_holds(question, memory) == "two"
    rows = vectors([f.content for f in memory])
    sims = rows @ vectors([as_learner(question)])[0]
    assert held(sims, memory, rows, Knobs(answer_margin=None)) == "one"  # the question-free test alone


def test_an_unrelated_fact_far_from_the_question_is_no_second_value() -> None:
    memory = [Fact("My supervisor is Prof. Haddad."), Fact("I went to a Coldplay concert in Manchester.")]
    assert memory_holds("Who is the learner's supervisor?", memory) == "one"


def test_a_bare_search_over_several_facts_about_it_asks_for_their_course() -> None:
    from agent.heartbeat.effort import several

    scores = [
        Fact("I scored 54 out of 100 on the first statistics quiz."),
        Fact("Second statistics quiz: 71 out of 100."),
        Fact("My cat is called Miso."),
    ]
    assert several("statistics quiz score", scores)
    assert not several("statistics quiz score", [scores[0], scores[2]])  # one fact about it: one value
    assert not several("cello teacher", scores)  # nothing about it


def test_a_part_of_the_learners_life_told_again_with_another_value_is_two_values() -> None:
    # far from each other and from the question, both tell where the learner lives / what they study
    home = [
        Fact("I rent a room in Bergen near the fish market."),
        Fact("Writing from my new place in Tromsø, the view of the fjord is unreal."),
    ]
    assert memory_holds("Which city does the learner live in?", home) == "two"
    study = [
        Fact("My degree is in nursing."),
        Fact("The dean signed my transfer, so my lectures are all in the pharmacy building now."),
    ]
    assert memory_holds("What is my field of study?", study) == "two"


def test_the_same_part_told_by_someone_else_is_one_value() -> None:
    memory = [
        Fact("I rent a room in Bergen near the fish market."),
        Fact("My brother has a houseboat in Amsterdam these days."),
    ]
    assert memory_holds("Which city does the learner live in?", memory) == "one"
    # the part test alone (the question-conditioned net off): a sister's new flat is hers
    memory = [
        Fact("I rent a room in Bergen near the fish market."),
        Fact("My sister moved into a flat in Tromsø last week."),
    ]
    rows = vectors([f.content for f in memory])
    sims = rows @ vectors([as_learner("Which city does the learner live in?")])[0]
    assert held(sims, memory, rows, Knobs(answer_margin=None)) == "one"


def test_tools_used_side_by_side_are_no_second_value() -> None:
    memory = [
        Fact("My capstone repository is called river-watch."),
        Fact("The capstone runs on a weather dataset."),
    ]
    assert memory_holds("What is the learner's repository called?", memory) != "two"
    assert Knobs().part_floor is not None


def test_another_value_of_the_kind_the_closest_holds_is_two_values() -> None:
    retake = [
        Fact("My IELTS came back at 6.0 overall."),
        Fact("Second sitting went much better, 7.0 this time!"),
    ]
    assert memory_holds("What is the learner's IELTS score?", retake) == "two"
    coach = [
        Fact("Marta coaches me for the marathon."),
        Fact("Marta moved away, so Jonas has taken over my training plan."),
    ]
    assert memory_holds("Who is the learner's running coach?", coach) == "two"


def test_a_value_of_the_same_kind_that_is_someone_elses_is_one_value() -> None:
    memory = [Fact("My IELTS came back at 6.0 overall."), Fact("My friend Ravi got 7.5 on his.")]
    assert memory_holds("What is the learner's IELTS score?", memory) == "one"
    rows = vectors([f.content for f in memory])
    sims = rows @ vectors([as_learner("What is the learner's IELTS score?")])[0]
    assert held(sims, memory, rows, Knobs(pair_floor=None)) == "one"
