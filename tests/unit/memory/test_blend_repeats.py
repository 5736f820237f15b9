"""One statement, one slot: the blend drops a fact's message and a message's turn context."""

from __future__ import annotations

from agent.kernel.derive import TURN_KIND, turn_context_id
from agent.memory.blend import repeats
from agent.search.results import SearchHit


def hit(i: str, kind: str, text: str) -> SearchHit:
    return SearchHit(id=i, text=text, score=0.0, created_at=None, kind=kind)


def by_id(*hits: SearchHit) -> dict[str, SearchHit]:
    return {h.id: h for h in hits}


def test_a_fact_keeps_its_slot_and_its_message_and_turn_context_give_theirs_up() -> None:
    said = "I scored 54 out of 100 on the first statistics quiz. Hypothesis testing killed me."
    found = by_id(
        hit("f1", "fact", "I scored 54 out of 100 on the first statistics quiz."),
        hit("m1", "message", said),
        hit(turn_context_id("m1"), TURN_KIND, f"8:00 pm on 5 January, 2026. {said}"),
        hit("m3", "message", "Third quiz done, I got 86 out of 100!"),
        hit(
            turn_context_id("m3"),
            TURN_KIND,
            "8:00 pm on 2 February, 2026. Third quiz done, I got 86 out of 100!",
        ),
        hit("m4", "message", "How have my statistics quiz scores changed over the term?"),
    )
    assert repeats(found) == {"m1", turn_context_id("m1"), turn_context_id("m3")}


def test_what_is_not_a_copy_stays() -> None:
    found = by_id(
        hit("f1", "fact", "I agree."),  # too short to stand for a message that contains it
        hit("m1", "message", "I agree. Joins still confuse me though."),
        hit("f2", "fact", "I live in Hanoi."),
        hit("f3", "fact", "I live in Hanoi."),  # facts never drop facts (versions keep their validity)
        hit("ctx-9", TURN_KIND, "1:00 pm on 2 May, 2026. A turn whose message was not found."),
        hit("f4", "fact", "I like tea"),
        hit("m5", "message", "I like teaching kids on weekends."),  # the fact's words, but not whole
    )
    assert repeats(found) == set()


def test_a_procedure_named_by_a_stated_fact_is_no_copy_of_it() -> None:
    intro = "my pottery teacher showed us glazing today"
    found = by_id(
        hit("f1", "fact", intro),
        hit("p1", "procedure", f"How to {intro}: 1. wax the foot. 2. dip for three seconds. 3. fire it."),
    )
    assert repeats(found) == set()


# (message, the fact stored of it, a question about the part no fact holds): phrasings of our own
SAYS_MORE = [
    (
        "recursion tonight. I keep forgetting the base case",
        "I keep forgetting the base case",
        "When did I do recursion?",
    ),
    (
        "Integrals by parts, finally! my teacher is Ms Obi",
        "my teacher is Ms Obi",
        "when did we cover integrals",
    ),
    (
        "subjunctive drills again... I live in Lyon now",
        "I live in Lyon now",
        "When did I practise the subjunctive?",
    ),
    ("did the titration lab. I'm in year 12", "I'm in year 12", "Which lab did I do?"),
    (
        "Ownership chapter today; my laptop is a ThinkPad",
        "my laptop is a ThinkPad",
        "when did I read about ownership",
    ),
    ("kanji radicals, ugh. I work at a bakery", "I work at a bakery", "When did I study radicals?"),
    ("Vectors quiz went ok. my exam is on 3 June", "my exam is on 3 June", "how did the vectors quiz go?"),
    ("regex today, I use Neovim", "I use Neovim", "When did we look at regex?"),
    (
        "photosynthesis notes done — I'm doing A-level biology",
        "I'm doing A-level biology",
        "when did I revise photosynthesis",
    ),
    ("past perfect! my tutor is Dana", "my tutor is Dana", "When did I learn the past perfect?"),
]


def test_a_message_that_says_more_than_its_fact_of_what_is_asked_keeps_its_slot() -> None:
    for said, fact, question in SAYS_MORE:
        found = by_id(hit("f1", "fact", fact), hit("m1", "message", said))
        assert repeats(found, question) == set(), said
        # asked of the fact itself, or with no question, the message is a copy as before
        assert repeats(found, fact) == {"m1"}, said
        assert repeats(found) == {"m1"}, said


# (message, the short fact stored of it): a statement no rule stores beside it, phrasings of our own
TOLD_BESIDE = [
    ("saw my tutor today. the plan: a mixed model over three waves of panel data", "saw my tutor today."),
    (
        "the call went fine. design chosen: a crossover trial with two arms and a washout week",
        "the call went fine.",
    ),
    (
        "I'm in Leeds now. corpus agreed on: forty hours of transcribed radio interviews from the seventies",
        "I'm in Leeds now.",
    ),
    (
        "met the panel. verdict: rewrite chapter two around survival curves and hazard ratios",
        "met the panel.",
    ),
    (
        "my laptop is a ThinkPad. toolchain fixed: clang, cmake presets and vcpkg for the dependencies",
        "my laptop is a ThinkPad.",
    ),
]


def test_a_message_whose_own_statement_outweighs_its_fact_keeps_its_slot() -> None:
    for said, fact in TOLD_BESIDE:
        found = by_id(hit("f1", "fact", fact), hit("m1", "message", said))
        assert repeats(found, "Which method and which data?") == set(), said
        assert repeats(found) == set(), said


def test_a_question_beside_a_fact_is_no_statement_of_its_own() -> None:
    found = by_id(
        hit("f1", "fact", "I moved to Lisbon last month."),
        hit(
            "m1",
            "message",
            "I moved to Lisbon last month. how would I say rent contract and deposit in Portuguese?",
        ),
    )
    assert repeats(found) == {"m1"}
