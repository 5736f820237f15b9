"""The read-time net's order inside a group (``fact_order.newest_first``)."""

from __future__ import annotations

import numpy as np
import pytest

from agent.language.answer_kinds import asked_kind
from agent.language.encoder import encode
from agent.language.held_values import held_as_learners
from agent.language.question_net import answer_groups, nouns, value_kinds
from agent.language.same_thing import states_another_value
from agent.language.versions import as_learner
from agent.memory.fact_order import newest_first
from tests.unit.language.open_facts import open_fact

T1, T2 = "2026-02-01T00:00:00+00:00", "2026-04-21T00:00:00+00:00"


def test_facts_of_one_message_keep_the_search_order() -> None:
    # Two newer facts of one message share a valid_from: the one the search ranked higher stays ahead.
    hits = [
        open_fact("old", "My IELTS writing band is 6.0.", T1),
        open_fact("new", "Retook the IELTS and my writing band came back 7.0.", T2),
        open_fact("aside", "The retake cost me 250 euros.", T2),
    ]
    vectors = encode([h.text for h in hits])
    asked = vectors.sum(axis=0)
    asked /= np.linalg.norm(asked)  # a question all three answer about equally well
    ranked = newest_first(hits, vectors, asked)
    assert [h.id for h in ranked] == ["new", "aside", "old"]
    assert ranked[2].metadata["was_until"] == T2 and "was_until" not in ranked[1].metadata


def test_plain_statements_with_other_words_state_another_value() -> None:
    # No name or number on either side: a job told in common nouns is still another value.
    texts = [
        "I work as a barista in a small café.",
        "Started my new position as a junior web developer this week.",
    ]
    vectors = encode(texts)
    [asked] = encode([as_learner("What is the learner's job?")])
    assert states_another_value(*texts)
    assert answer_groups(vectors @ asked, texts) == [[0, 1]]
    assert not states_another_value("I work as a barista.", "Working as a barista.")


def test_the_question_never_groups_two_parts_the_about_reader_is_sure_of() -> None:
    # The demo's learner: a job and a home both answer "where do I live" about equally well, but
    # the about-reader is sure of a different part for each, so neither becomes "was until".
    texts = [
        "I live in Da Nang and study SQL online in the evenings.",
        "I work as a nurse, so my practice database is about patients and wards.",
        "These days I rent a small flat in Hanoi, near the hospital where I do my internship.",
    ]
    hits = [open_fact(f"f{i}", t, f"2026-0{i + 1}-01T00:00:00+00:00") for i, t in enumerate(texts)]
    vectors = encode(texts)
    [asked] = encode([as_learner("Where does the learner live?")])
    assert answer_groups(vectors[:2] @ asked, texts[:2], margin=1.0, floor=0.0) == []
    ranked = newest_first([hits[1], hits[2], hits[0]], vectors[[1, 2, 0]], asked)
    # the home's group holds the best answer, so it goes ahead of the job the search put first
    assert [h.id for h in ranked] == ["f2", "f1", "f0"]
    assert "was_until" not in ranked[1].metadata  # the job still holds
    assert ranked[2].metadata["was_until"] == hits[2].metadata["valid_from"]


@pytest.mark.parametrize(
    ("question", "older", "newer"),
    [
        # heldout7 h7-L5-gre-quant / -course-level: the best answer holds a date beside the value asked
        (
            "What is my TOEFL score?",
            "I sat the TOEFL in March and got 88 overall.",
            "Results are in: 101 on the TOEFL!",
        ),
        (
            "Which level of Spanish class am I in?",
            "I'm in the A2 Tuesday class at the Instituto Cervantes.",
            "The teacher moved me up to B1.2 after the mock exam.",
        ),
    ],
)
def test_a_best_answer_with_a_date_beside_its_value_groups_a_new_value(
    question: str, older: str, newer: str
) -> None:
    texts = [older, newer]
    vectors = encode(texts)
    [asked] = encode([as_learner(question)])
    groups = answer_groups(vectors @ asked, texts, vectors=vectors, margin=0.34, floor=0.1)
    assert [sorted(g) for g in groups] == [[0, 1]]


def test_a_date_alone_still_asks_a_date() -> None:
    assert value_kinds("My exam is on 14 March.") == {"date"}
    assert value_kinds("I took the GRE in December and got a 158.") == {"date", "number"}
    assert value_kinds("I'm in the B1 evening class, Mondays and Wednesdays.") == {"date", "code"}
    texts = ["My exam is on 14 March.", "I practised 30 minutes of listening yesterday."]
    vectors = encode(texts)
    [asked] = encode([as_learner("When is my exam?")])
    assert answer_groups(vectors @ asked, texts, vectors=vectors, margin=1.0, floor=0.0) == []


def test_the_group_of_the_best_answer_goes_ahead_of_a_weaker_answer_the_search_put_first() -> None:
    # heldout7 h7-L5-ielts-speaking-date: the introduction shares words with the question and the
    # fused search ranked it first; the moved date is the newest version of the question's best answer
    hits = [
        open_fact(
            "intro",
            "Hi, I'm Tariq from Lahore, a civil engineer getting ready for the TOEFL for a master's.",
            T1,
        ),
        open_fact("old", "My TOEFL is booked for 9 May at the British Council.", T1),
        open_fact("new", "The centre emailed: they moved my TOEFL to 23 May because of a power cut.", T2),
        open_fact("other", "I lose focus in the long reading passages.", T1),
    ]
    vectors = encode([h.text for h in hits])
    [asked] = encode([as_learner("When is the learner's TOEFL?")])
    assert int(np.argmax(vectors @ asked)) != 0  # the introduction is not the best answer
    ranked = newest_first(hits, vectors, asked)
    assert ranked[0].id == "new" and ranked[[h.id for h in ranked].index("old")].metadata["was_until"] == T2


def test_an_aside_a_minute_after_the_new_value_does_not_take_its_place() -> None:
    # versions are told in different sittings; a remark with no name, told just after the new value,
    # is no newer version of the laptop asked
    sitting = ["2026-05-02T18:10:00+00:00", "2026-05-02T18:11:00+00:00"]
    question = "Which laptop does the learner code on?"
    texts = [
        "My laptop is a Lenovo from 2015.",
        "Got a Dell XPS from my aunt!",
        "it makes me so happy, honestly",
    ]
    hits = [
        open_fact("old", texts[0], T1),
        open_fact("new", texts[1], sitting[0]),
        open_fact("aside", texts[2], sitting[1]),
    ]
    vectors = encode(texts)
    asked = vectors[0] + vectors[1] + 0.8 * vectors[2]  # a question all three answer, the aside least
    ranked = newest_first(hits, vectors, asked / np.linalg.norm(asked), question)
    assert ranked[0].id == "new" and "was_until" not in ranked[0].metadata
    # a newest member that holds the kind asked keeps its place: a correction within one conversation
    moved = [open_fact("old", texts[0], sitting[0]), open_fact("new", texts[1], sitting[1]), hits[2]]
    assert newest_first(moved, vectors, asked / np.linalg.norm(asked), question)[0].id == "new"


@pytest.mark.parametrize(
    ("question", "value", "aside"),
    [
        # a discourse move carries a name, but tells nothing (its root is an adverb)
        ("Where does the learner live?", "I rent a room in Bergen these days.", "right, back to NLP"),
        ("Which city does the learner work in?", "I work at a bakery in Lyon.", "anyway, onwards to CSS"),
        # the question asks no kind: a remark that holds no value at all is no answer
        ("What is the learner's job?", "I'm a nurse at a clinic in Perth.", "the video I found skipped that"),
        ("What does the learner do for work?", "I drive trams for Metro Transit.", "a long week, honestly"),
    ],
)
def test_an_aside_holding_no_answer_a_minute_after_a_value_never_passes_it(
    question: str, value: str, aside: str
) -> None:
    sitting = ["2026-05-02T18:10:00+00:00", "2026-05-02T18:11:00+00:00"]
    hits = [open_fact("value", value, sitting[0]), open_fact("aside", aside, sitting[1])]
    vectors = encode([value, aside])
    asked = vectors[0] + vectors[1]  # both answer about equally well: the net groups them
    ranked = newest_first(hits, vectors, asked / np.linalg.norm(asked), question)
    assert ranked[0].id == "value"


def test_a_running_total_passes_a_number_told_a_minute_later() -> None:
    # asked a number, the learner's total KAG computed beats a group's number told just after it
    sitting = ["2026-05-02T18:10:00+00:00", "2026-05-02T18:11:00+00:00"]
    question = "How many pages has the learner read this month?"
    texts = ["I read 40 pages more on the train (now 190)", "the reading circle is past 3,000 pages, wow"]
    hits = [open_fact("total", texts[0], sitting[0]), open_fact("circle", texts[1], sitting[1])]
    vectors = encode(texts)
    asked = vectors[0] + vectors[1]
    assert newest_first(hits, vectors, asked / np.linalg.norm(asked), question)[0].id == "total"


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        (
            "Which computer does the learner code on?",
            [
                "I code on an old Dell running Fedora 38, slow but fine.",
                "Installing Xcode on the Mac mini my employer sent me took ages.",
            ],
        ),
        (
            "Which laptop does the learner write on?",
            [
                "I write on a hand-me-down Acer with Windows 10, it's loud.",
                "Typing this from the Surface Laptop my aunt passed on to me.",
            ],
        ),
    ],
)
def test_a_name_asked_is_answered_in_kind_by_any_name(question: str, texts: list[str]) -> None:
    # the version number beside the old machine is no number the new machine must hold
    rows, [asked] = encode(texts), encode([as_learner(question)])
    assert not answer_groups(rows @ asked, texts, vectors=rows, question=asked)
    assert answer_groups(rows @ asked, texts, vectors=rows, question=asked, kind=asked_kind(question)) == [
        [0, 1]
    ]


@pytest.mark.parametrize(
    ("question", "texts"),
    [
        (
            "When is the learner's portfolio review?",
            [
                "My portfolio review is on 3 June.",
                "The basement studios flooded and the insurance people were useless, so the school put the "
                "review on 17 June, which at least gives me time for the ceramics.",
            ],
        ),
        (
            "When is the learner's viva?",
            [
                "My viva is on 12 March.",
                "Long day at the lab, the centrifuge broke twice and admin emailed that the viva happens on "
                "26 March now, the external is ill.",
            ],
        ),
    ],
)
def test_a_long_statement_naming_the_thing_asked_is_its_version(question: str, texts: list[str]) -> None:
    # its asides pull its vector far from the question; it names the thing and holds the kind asked
    rows, [asked] = encode(texts), encode([as_learner(question)])
    kind = asked_kind(question)
    assert not answer_groups(rows @ asked, texts, vectors=rows, question=asked, kind=kind)
    found = answer_groups(rows @ asked, texts, vectors=rows, question=asked, kind=kind, focus=nouns(question))
    assert found == [[0, 1]]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("place", "My locker at Fernhall Brewing is right next to the fire exit."),
        ("place", "The radiator in my Antwerp bedsit clanks all night."),
        ("place", "From my desk in Gdansk I can hear the shipyard."),
        ("place", "The buses here in Poznan stop running at eleven."),
        ("name", "My evening drills happen in Clozemaster now."),
        ("name", "The audio in Lingvist is much clearer, I do twenty words there every night."),
    ],
)
def test_a_value_named_in_the_learners_frame_is_held_as_theirs(kind: str, text: str) -> None:
    assert held_as_learners(kind, text)


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("place", "My brother got a job at Fernhall Brewing last month."),
        ("place", "We stopped in Antwerp for lunch on the way back."),
        ("place", "I have an interview at Fernhall Brewing on Friday."),
        ("name", "My neighbour's Pixel 8 fell in the canal."),
        ("name", "Downloaded Clozemaster once, never opened it."),
        ("place", "Flew to Antwerp for the fair and stayed there two nights."),
    ],
)
def test_anothers_a_visit_a_plan_or_a_trial_is_not_held_as_the_learners(kind: str, text: str) -> None:
    assert not held_as_learners(kind, text)


def test_a_remark_about_the_new_workplace_is_a_version_of_the_old_one() -> None:
    # far from the question (a locker) and read as a home by the about-reader, but the firm is theirs
    question = "Where does the learner work?"
    texts = [
        "I'm a sous-chef at Copperpot Kitchen.",
        "My locker at Fernhall Brewing is right next to the fire exit.",
    ]
    rows, [asked] = encode(texts), encode([as_learner(question)])
    assert answer_groups(rows @ asked, texts, vectors=rows, question=asked) == []
    kind = asked_kind(question)
    assert answer_groups(rows @ asked, texts, vectors=rows, question=asked, kind=kind) == [[0, 1]]


@pytest.mark.parametrize(
    ("question", "old", "new", "remark"),
    [
        (
            "What does the learner study?",
            "I'm a nursing student at Keele.",
            "I moved across to the midwifery course after Christmas.",
            "first module is all about Florence Nightingale, weirdly",
        ),
        (
            "What degree is the learner doing?",
            "I'm doing a BA in English at Leeds.",
            "I changed to the journalism degree last week",
            "the first unit is on Orwell, which is fun",
        ),
    ],
)
def test_a_remark_on_the_new_course_a_minute_after_the_change_does_not_pass_it(
    question: str, old: str, new: str, remark: str
) -> None:
    # asked no kind, the remark's name is a weak sign of an answer; it answers far worse than the change
    sitting = ["2026-05-02T18:10:00+00:00", "2026-05-02T18:11:00+00:00"]
    hits = [
        open_fact("old", old, T1),
        open_fact("new", new, sitting[0]),
        open_fact("remark", remark, sitting[1]),
    ]
    vectors = encode([old, new, remark])
    asked = vectors[0] + vectors[1] + 0.6 * vectors[2]  # all three grouped, the remark the weakest answer
    ranked = newest_first(hits, vectors, asked / np.linalg.norm(asked), question)
    assert ranked[0].id == "new"


@pytest.mark.parametrize(
    "text",
    [
        "survived my first week at Orvane Systems, the canteen is great",
        "my second month at the Vantaa Research Institute is going well",
        "Two months into the night shift at Riverside General Hospital and I'm wiped",
    ],
)
def test_the_learners_time_under_way_at_a_place_holds_it_as_theirs(text: str) -> None:
    assert held_as_learners("place", text)


@pytest.mark.parametrize(
    "text",
    [
        "My cousin's first week at Orvane Systems was rough",
        "Three days at the Ghent book fair were plenty",
        "I spent two weeks in Madrid on holiday",
    ],
)
def test_anothers_time_or_a_counted_visit_holds_no_place_as_the_learners(text: str) -> None:
    assert not held_as_learners("place", text)


def test_a_remark_with_no_value_is_no_version_beside_a_change() -> None:
    # a later remark on a detail names nothing that could answer; the change before it does
    texts = [
        "I'm Ola, learning Norwegian for my job in Oslo.",
        "the Oslo office shut, I'm going to Tallinn, so Estonian every evening now",
        "fourteen cases, I keep forgetting which ending goes where",
    ]
    vectors = encode(texts)
    [asked] = encode(["Which language is the learner studying?"])
    groups = answer_groups(vectors @ asked, texts, vectors=vectors, question=asked)
    assert all(2 not in g for g in groups)


def test_a_change_told_in_common_nouns_alone_stays_a_version() -> None:
    texts = [
        "I'm doing a bachelor's in civil engineering.",
        "after the design module I switched, it's architecture for me now",
    ]
    vectors = encode(texts)
    [asked] = encode(["What is the learner studying?"])
    assert answer_groups(vectors @ asked, texts, vectors=vectors, question=asked, floor=0.0)


def test_a_day_of_another_activity_after_the_new_slot_is_no_answer() -> None:
    # a minute after the change ("… so Wednesday evenings it is for our lessons"), a day of the learner's
    # other activity names no lesson: the new slot stays first
    sitting = ["2026-05-02T18:10:00+00:00", "2026-05-02T18:11:00+00:00"]
    texts = [
        "Our lessons work best for me on Friday evenings.",
        "the shop put me on late shifts Thursday to Saturday, so Wednesday evenings it is for our lessons",
        "I swim on Mondays",
    ]
    hits = [
        open_fact("old", texts[0], T1),
        open_fact("new", texts[1], sitting[0]),
        open_fact("aside", texts[2], sitting[1]),
    ]
    vectors = encode(texts)
    question = "When are the learner's lessons?"
    [asked] = encode([question])
    assert newest_first(hits, vectors, asked, question)[0].id == "new"
