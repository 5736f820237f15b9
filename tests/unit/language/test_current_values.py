"""What a message stores as the learner's current value, and whose it is (issue 39, write side).

A plan, wish, offer or hedge is no value the learner has now; another person's value told by
the learner is not the learner's (``agent.language.current_values``). Neither is stored as a fact,
so the read-time net never shows it as the newest value. Sentences written for these tests, not
from a scenario set.
"""

from __future__ import annotations

import pytest

from agent.language.current_values import _done_for, conditional, goal, main_clause, maybe
from agent.language.current_versions import learners_now, not_current
from agent.language.fact_parts import fact_parts, stated_part
from agent.language.whose_value import others
from agent.models.offline_policy import plan_actions

AVAILABLE = {"remember_fact", "search_facts", "set_reminder", "core_memory_append", "core_memory_replace"}


def stored(text: str) -> list[str]:
    return [args["content"] for name, args in plan_actions(text, AVAILABLE, {}) if name == "remember_fact"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I might take a pottery class in Ghent this summer, no idea yet.", "Ghent"),
        ("A headhunter called about a job at Spotify but I probably won't go for it.", "Spotify"),
        ("I'm thinking about switching from PyCharm to Neovim.", "Neovim"),
        ("Honestly I want to move to Valencia at some point.", "Valencia"),
        ("We could end up in Uppsala for the masters, who knows.", "Uppsala"),
    ],
)
def test_a_plan_a_wish_or_a_hedge_is_not_stored(text: str, value: str) -> None:
    assert maybe(text)
    assert not any(value in fact for fact in stored(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My sister got a 7.5 on her IELTS last year.", "7.5"),
        ("my housemate pays 480 for rent because his room is smaller", "480"),
        ("My friend Jonas studies law at Heidelberg and he hates it.", "Heidelberg"),
        ("My brother memorised 300 words in his first month, show-off.", "300"),
        ("My roommate uses Notion for everything.", "Notion"),
        ("Her deadline is the 20th, lucky her.", "20th"),
    ],
)
def test_another_persons_value_is_not_the_learners(text: str, value: str) -> None:
    assert others(text)
    assert not any(value in fact for fact in stored(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm moving to Leipzig next month, the lease is signed.", "Leipzig"),
        ("From March I'll be at Siemens as a test engineer.", "Siemens"),
        ("I have to submit the portfolio by 12 April.", "12 April"),
        ("My stipend is 700 euros a month.", "700"),
        ("Our team budget for conferences is €6,000 this year.", "6,000"),
        ("My teacher is Señora Ruiz, she's lovely.", "Ruiz"),
        ("The tutor moved me up to the C1 group.", "C1"),
        ("My supervisor pushed my viva to 3 June.", "3 June"),
        ("My manager wants me certified in Azure by the end of May.", "May"),
        ("Prof. Novak gave the whole seminar two extra days for the report.", "two extra days"),
    ],
)
def test_the_learners_values_and_announced_changes_are_stored(text: str, value: str) -> None:
    assert learners_now(text)
    assert any(value in fact for fact in stored(text))


def test_a_compound_statement_keeps_the_learners_clause_only() -> None:
    parts = fact_parts("My stipend is 700 euros a month; my flatmate gets 900 because she's in medicine.")
    assert parts == ["My stipend is 700 euros a month"]


def test_a_question_stores_no_hedge_it_carries() -> None:
    assert stated_part("I might move to Ghent in spring, so which Dutch course is best?") is None
    head = stated_part("Moved to Ghent last week, so which Dutch course is best?")
    assert head == "Moved to Ghent last week"


def test_nothing_to_store_is_an_empty_list() -> None:
    assert fact_parts("My cousin scored 1480 on the SAT, so she's insufferable now.") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The plan is to take the TOEIC in March, the centre is in Lille so I'd go up by train.", "TOEIC"),
        ("One day I'd love to run the Berlin marathon.", "Berlin"),
        ("I'd like to reach 7.0 in the IELTS writing, my uni needs it.", "7.0"),
        ("My aim for the spring is to get through the Kubernetes CKA exam.", "CKA"),
        ("Hoping to finish the Spanish B1 textbook before the holidays.", "B1"),
        ("I might even go for the N2 next winter if this one goes well.", "N2"),
    ],
)
def test_a_goal_told_as_a_plan_or_a_wish_is_stored(text: str, value: str) -> None:
    # a target is a fact about the learner: the old reading dropped it as a maybe
    assert goal(text)
    assert not maybe(text)
    assert any(value in fact for fact in stored(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Maybe I'll move to Lyon next year.", "Lyon"),
        ("Perhaps I'll take the offer in Vienna, they want an answer by Friday.", "Vienna"),
        ("Possibly we'll relocate to Cork if the rent goes up again.", "Cork"),
        ("I might switch to Rust for the side project.", "Rust"),
    ],
)
def test_a_maybe_about_a_value_the_learner_has_is_not_stored(text: str, value: str) -> None:
    # an adverb that leaves the clause open is a maybe too (the old reading read only modal verbs)
    assert maybe(text)
    assert not any(value in fact for fact in stored(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My older sister just got hired at Deloitte, so she keeps sending me Excel tips.", "Deloitte"),
        ("My dad was transferred to Hamburg in May and he hates the weather.", "Hamburg"),
        ("My flatmate got accepted at Imperial, she starts in October.", "Imperial"),
    ],
)
def test_a_person_of_the_learners_in_the_passive_is_not_the_learner(text: str, value: str) -> None:
    # the old reading took a passive subject of the learner's as the learner's thing ("my viva was moved")
    assert others(text)
    assert not any(value in fact for fact in stored(text))


@pytest.mark.parametrize(
    "text",
    [
        "My viva was moved to 3 June.",
        "My supervisor was replaced by Prof. Lindqvist.",
        "I was hired at Bosch.",
    ],
)
def test_the_learners_thing_or_the_learner_in_the_passive_stays_the_learners(text: str) -> None:
    assert not others(text)


DONE_FOR = [
    "I've had 6 essays marked so far this term.",
    "Got my residence permit renewed last month.",
    "I have had 3 abstracts accepted at conferences.",
    "Finally had 14 katas reviewed by the mentor.",
    "I got 2 of my bug fixes backported already!",
]


@pytest.mark.parametrize("text", DONE_FOR)
def test_a_thing_had_done_is_a_result_not_a_plan(text: str) -> None:
    # "have/get something done" in the past tells a result; its participle is no wished complement
    assert not maybe(text) and fact_parts(text)


def test_the_done_for_reading_needs_a_past_head_and_a_participle_with_its_own_subject() -> None:
    def reads(text: str) -> bool:
        head = main_clause(text)
        return head is not None and any(_done_for(head, c) for c in head.children)

    assert reads("I've had 4 patches merged upstream!")
    assert reads("Got my residence permit renewed last month.")
    assert not reads("I want my 5 essays marked before Friday.")  # a present head: a wish
    assert not reads("I've decided to move to Lyon next year.")  # an infinitive: a plan


PAST_OBLIGATIONS = [
    "had to dip 75 into the laptop fund for a new bike tyre, annoying",
    "I had to spend 40 on a new charger",
    "Had to hand over 60 quid for the lab fee, ugh",
    "I've had to move to the night shift",
    "we had to give 25 of our cards back",
    "my landlord raised the rent so I had to find a cheaper room in Porto",
    "I had to withdraw 120 from my savings for the dentist",
    "had to borrow 3 books from the library for the essay",
    "Last week I had to cancel two lessons",
    "I had to pay 200 for the visa renewal",
]


@pytest.mark.parametrize("text", PAST_OBLIGATIONS)
def test_a_past_have_to_is_told_as_met(text: str) -> None:
    # "I had to pay" reads as "I paid": a past obligation is no plan, whatever the classifier says
    assert not maybe(text)


@pytest.mark.parametrize(
    "text",
    [
        "I might take 90 out of the fund",
        "I'd have to take 90 out of the fund",
        "I have to pay 200 next week",
        "I may have to pay 200 for the visa",
    ],
)
def test_a_present_or_unsure_have_to_stays_a_maybe(text: str) -> None:
    assert maybe(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("If my startup idea ever takes off we're relocating to Lisbon.", "Lisbon"),
        ("I'm switching to Neovim if the plugin works on Windows.", "Neovim"),
        ("if the grant gets approved I'll be moving to the Utrecht office", "Utrecht"),
        ("Unless the visa falls through, I'm starting at Shopify in autumn.", "Shopify"),
        ("if I ever quit teaching I'm becoming a beekeeper lol", "beekeeper"),
    ],
)
def test_a_value_under_a_condition_is_not_stored(text: str, value: str) -> None:
    assert conditional(text)
    assert maybe(text)
    assert not_current(text)
    assert not any(value in fact for fact in stored(text))


@pytest.mark.parametrize(
    "text",
    [
        "If you're wondering, I live in Aarhus now.",
        "Even if it crashes a lot, I code in Zed these days.",
        "I use Emacs at work, if that matters.",
        "I asked if I could join the Kraków team.",
        "I moved to Tartu in June, and if the lease allows it I'll get a cat.",
        "When I moved to Bergen I started learning Norwegian.",
        # A hedge over a present state: the value holds now.
        "If I'm honest, I prefer Vim now.",
        "Unless something changes, my viva is on the 14th.",
        "If I remember right, my locker is number 31.",
        "If all goes to plan my flat in Graz is mine till July.",
    ],
)
def test_a_condition_of_the_talk_or_of_a_later_clause_leaves_the_value(text: str) -> None:
    assert not conditional(text)
