"""Which fact of one message answers a question first (``answer_kinds``, ``fact_reads.answer_first``)."""

from __future__ import annotations

from dataclasses import replace

from agent.language.answer_kinds import (
    FLOOR,
    NAME,
    NUMBER,
    PERSON,
    PLACE,
    asked_kind,
    best_in_kind,
    holds_kind,
    learners_name,
)
from agent.language.encoder import encode
from agent.language.same_thing import brings_another_value, values
from agent.language.versions import as_learner
from agent.memory.fact_order import learners_ahead, newest_first
from agent.memory.fact_reads import answer_first, near_ties_newest_first, net_then_answer
from agent.search.results import Fused
from tests.unit.language.open_facts import open_fact

T1, T2 = "2026-01-05T06:45:00+00:00", "2026-02-16T06:50:00+00:00"


def _first(question: str, texts: list[str], when: list[str]) -> str:
    hits = [open_fact(f"f{i}", t, w) for i, (t, w) in enumerate(zip(texts, when, strict=True))]
    rows, [asked] = encode(texts), encode([as_learner(question)])
    sims = {h.id: float(s) for h, s in zip(hits, rows @ asked, strict=True)}
    return answer_first(question, hits, sims)[0].text


def test_the_question_names_the_kind_it_asks() -> None:
    assert asked_kind("Who coaches the learner?") == PERSON
    assert asked_kind("What town is the learner based in?") == PLACE  # a noun typed by MiniLM
    assert asked_kind("How many kanji does the learner know?") == NUMBER
    assert asked_kind("Which laptop does the learner code on?") == NAME
    assert asked_kind("What is the learner's job?") is None  # not a person ("boss" is near)
    assert asked_kind("What was the learner's essay grade?") == NUMBER  # a mark is a number
    assert asked_kind("What is the learner's latest quiz score?") == NUMBER


def test_an_introduction_names_the_learner() -> None:
    assert learners_name("Tomás here, 27, from Cordoba, Argentina.") == {"tomás"}
    assert learners_name("I'm Sarah, PhD student in marine biology in Edinburgh.") == {"sarah"}
    assert learners_name("My name is Aino and I rent a room in Tartu.") == {"aino"}
    assert not learners_name("Sarah is my sister.")
    # the learner's own name is no person a "who" question asks for
    assert not holds_kind(PERSON, "I'm Sarah, PhD student in marine biology in Edinburgh.")
    assert holds_kind(PERSON, "Professor Sato reads my thesis chapters every other week.")


def test_the_statement_that_holds_the_person_asked_goes_first() -> None:
    texts = ["Kenji here, master's student in robotics at Tohoku.", "Professor Sato reads my chapters."]
    assert _first("Who supervises the learner's thesis?", texts, [T1, T1]) == texts[1]


def test_a_name_asked_passes_the_introduction() -> None:
    texts = ["Ciao, I'm Giulia from Turin, learning Korean.", "My flashcards live in Anki, about 50 a day."]
    assert _first("Which app does the learner use for flashcards?", texts, [T1, T1]) == texts[1]


def test_a_city_asked_is_a_place_not_a_description_of_the_flat() -> None:
    texts = ["I share a flat in the old quarter with my cousin.", "I'm Malik, 22, from Fez, studying French."]
    assert _first("What town is the learner based in?", texts, [T1, T1]) == texts[1]


def test_never_passes_someone_elses_value() -> None:
    others = ["I live in a tiny flat with a balcony.", "My sister lives in Gdańsk."]
    assert _first("Which city does the learner live in?", others, [T1, T1]) == others[0]


def test_a_later_fact_holding_the_kind_passes_an_earlier_one_without_it() -> None:
    # told in two sessions: the introduction holds no number, the later running total does
    texts = ["Hey, Joon here, training as an electrician in Busan.", "Logged 7 more hours on site (now 31)."]
    assert _first("How many site hours has the learner logged?", texts, [T1, T2]) == texts[1]
    dated = ["I'm Aoife and I'm sitting my driving theory test soon.", "The theory test is on 3 March."]
    assert _first("When is the learner's theory test?", dated, [T1, T2]) == dated[1]
    # an earlier fact that holds the kind keeps its place: ordering versions is the net's work
    held = ["I'm 58 pages into the novel, Maud here.", "Read in the garden today, lovely weather."]
    assert _first("How many pages has the learner read?", held, [T1, T2]) == held[0]


def test_an_older_fact_holding_the_kind_passes_a_newer_one_without_it() -> None:
    # a newer statement with no value of the kind asked is no answer ("Which city …?": a flat, an aside)
    newer = ["I live in a flat with two friends.", "Greetings from Daegu, where it's already hot."]
    assert _first("Which city does the learner live in?", newer, [T2, T1]) == newer[1]
    counted = [
        "Ugh, the violin exam nerves are back.",
        "Practised scales for 45 minutes every day (now 12 days).",
    ]
    assert _first("How many days has the learner practised scales?", counted, [T2, T1]) == counted[1]
    # a newer fact that holds the kind keeps the first place: ordering versions is the net's work
    both = ["My lessons are in Graz now.", "I take lessons in Linz."]
    assert _first("Which city are the learner's lessons in?", both, [T2, T1]) == both[0]


def test_a_code_ends_a_run_of_names() -> None:
    # "B1 Dutch" was one name holding the "Dutch" of "I'm at A2 in Dutch": no new value, no group
    assert values("Passed the B1 Dutch exam!") == {"b1", "dutch"}
    assert values("My Galaxy S21 broke") == {"galaxy", "s21"}
    assert values("I got an M4 MacBook Air") == {"m4", "macbook air"}
    assert brings_another_value("Passed the B1 Dutch exam!", "I'm at A2 in Dutch.")


def test_near_equal_scores_read_newest_first() -> None:
    def row(i: str, score: float, when: str, rank: int = 1) -> tuple[float, float, Fused, dict[str, str]]:
        return score, 0.0, Fused(i, score, {}, rank), {"id": i, "valid_from": when}

    # swapped ranks fuse to one score: the id (a hash) chose between runs; now the newer fact wins
    ranked = [row("a-old", 0.5, T1), row("z-new", 0.5, T2), row("low", 0.4, T2)]
    assert [r[2].id for r in near_ties_newest_first(ranked)] == ["z-new", "a-old", "low"]
    assert [r[2].id for r in near_ties_newest_first([row("b", 0.5, T1), row("a", 0.6, T1)])] == ["a", "b"]


def _ahead_first(question: str, texts: list[str]) -> str:
    hits = [open_fact(f"f{i}", t, T1) for i, t in enumerate(texts)]
    rows, [asked] = encode(texts), encode([as_learner(question)])
    sims = {h.id: float(s) for h, s in zip(hits, rows @ asked, strict=True)}
    return learners_ahead(hits, sims, question, FLOOR)[0].text


def test_the_learners_own_fact_passes_another_persons_value() -> None:
    kanji = ["My cousin Mei knows about 2000 kanji already.", "I can read around 300 kanji now."]
    assert _ahead_first("How many kanji does the learner know?", kanji) == kanji[1]
    job = ["My brother works as a nurse in Leeds.", "I work night shifts at a bakery."]
    assert _ahead_first("What is the learner's job?", job) == job[1]
    # unless the question asks about that person, or the top fact is the learner's
    assert _ahead_first("What does the learner's brother do?", job) == job[0]
    assert _ahead_first("What is the learner's job?", job[::-1]) == job[1]
    # the thing another person owns is no person the question names ("the learner's draft")
    drafts = [
        "My friend Oona's draft is due on the 3rd, poor her.",
        "My own draft is due to my supervisor on May 30.",
    ]
    assert _ahead_first("When is the learner's draft due?", drafts) == drafts[1]
    assert _ahead_first("When is Oona's draft due?", drafts) == drafts[0]


def test_a_later_running_total_passes_an_earlier_fact_with_an_incidental_number() -> None:
    # "19" (her age) holds a number, but the running total KAG computed is what "How many …?" asks
    texts = [
        "Priya here, 19, maths at Leeds, I grind Codewars katas.",
        "Cleared 6 more katas today. (now 41)",
    ]
    assert _first("How many Codewars katas has the learner cleared?", texts, [T1, T2]) == texts[1]
    # a later plain count with no computed total does not pass it: ordering versions is the net's work
    plain = ["Priya here, 19, maths at Leeds, I grind Codewars katas.", "Katas are fun, did 6 today."]
    assert _first("How many Codewars katas has the learner cleared?", plain, [T1, T2]) == plain[0]


def test_an_update_is_as_close_to_the_question_as_the_version_it_closed() -> None:
    # "(now 38)" shares no word with the question; the version it closed ("31 problems so far") did
    question = "How many Rosalind problems has the learner solved?"
    texts = [
        "Dmitri here, 19, 1st year, I solve Rosalind problems to practise Python.",
        "Ugh, legs dead after the gym, but 3 more done tonight (now 38)",
    ]
    hits = [open_fact("intro", texts[0], T1), open_fact("update", texts[1], T2)]
    hits[1] = replace(hits[1], metadata={**hits[1].metadata, "superseded": ["first"]})
    vectors = encode(texts)
    [asked] = encode([as_learner(question)])
    assert net_then_answer(hits, vectors, asked, question)[0].id == "intro"
    chains = {"update": encode(["I've solved 31 Rosalind problems so far."])}
    assert net_then_answer(hits, vectors, asked, question, chains)[0].id == "update"


def test_the_closest_statement_holding_the_kind_answers_before_an_introduction() -> None:
    # an introduction is close to any question about the learner, but tells no day
    question = "When is the learner's pottery workshop?"
    texts = [
        "Hey, Ilse here, I do a pottery workshop at the arts centre in Ghent.",
        "The workshop runs on Thursday evenings.",
        "Clay is so messy, my sleeves are ruined.",
    ]
    rows, [asked] = encode(texts), encode([as_learner(question)])
    assert int((rows @ asked).argmax()) == 0
    assert best_in_kind(asked_kind(question), texts, rows @ asked, 0.1) == 1
    hits = [open_fact(f"f{i}", t, T1) for i, t in enumerate(texts)]
    assert newest_first(hits, rows, asked, question)[0].id == "f1"
    # a question asking no kind keeps the closest
    assert best_in_kind(None, texts, rows @ asked, 0.1) == 0
