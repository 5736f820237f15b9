"""A reminder fires on its trigger's sense: the topic as the learner said it, not only its word.

Each case failed on the code before (a trigger word in another sense used the reminder up, or
the request was read as a one-day time reminder that fired on the next turn).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminders import parse_reminder
from agent.language.topic_words import word_lemmas
from agent.language.trigger_mentions import is_code_name
from agent.language.trigger_sense import (
    head_words,
    is_rare_topic,
    names_trigger,
    naming_sentence,
)
from agent.memory.reminder_rules import trigger_matches

NOW = datetime(2026, 7, 6, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "description", "keywords"),
    [
        (
            "Once pointers come up, I want you to remind me to ask why arrays decay.",
            "ask why arrays decay",
            ["pointers"],
        ),
        (
            "I'd like a reminder about the validate argument the first time we do merges in pandas.",
            "the validate argument",
            ["merges in pandas"],
        ),
        (
            "When we come to verb aspect in Russian, remind me that I mix up pisat and napisat.",
            "I mix up pisat and napisat",
            ["verb aspect in Russian"],
        ),
        (
            "Remind me to ask about yield from if generators come up in Python.",
            "ask about yield from",
            ["generators in Python"],
        ),
    ],
)
def test_requests_the_old_rules_read_as_a_time(text: str, description: str, keywords: list[str]) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None
    assert (got["trigger_kind"], got["description"], got["keywords"]) == ("keywords", description, keywords)


def reminder(text: str) -> dict:
    got = parse_reminder(text, now=NOW)
    assert got is not None and got["trigger_kind"] != "time"
    return got


STORIES = [
    (
        "Once pointers come up, I want you to remind me to ask why arrays decay.",
        [
            "Can you point me to a good C book?",
            "Any pointers for staying focused during long study sessions?",
        ],
        "Explain pointers to me.",
    ),
    (
        "I'd like a reminder about the validate argument the first time we do merges in pandas.",
        ["Our two teams at work are merging next month, so I might be busy."],
        "How do I merge two DataFrames in pandas?",
    ),
    (
        "Remind me to ask about lifetimes once we get to borrowing in Rust.",
        ["My friend is borrowing my laptop tomorrow, so I'll study on paper."],
        "OK, teach me borrowing and references in Rust.",
    ),
    (
        "If the church modes come up, remind me to ask about the raised sixth in Dorian.",
        ["Dark mode in my notation app makes the staff hard to read, any tips?"],
        "Right, let's dig into the church modes.",
    ),
    (
        "Next time we talk about React hooks, remind me to ask about useEffect cleanup.",
        ["I put up some coat hooks in the hallway this weekend."],
        "Let's talk about React hooks today.",
    ),
]


@pytest.mark.parametrize(("request_text", "silent", "fires"), STORIES)
def test_the_word_in_another_sense_stays_silent_and_the_topic_fires(
    request_text: str, silent: list[str], fires: str
) -> None:
    pending = reminder(request_text)
    for turn in silent:
        assert not trigger_matches(pending, turn, None, NOW), turn
    assert trigger_matches(pending, fires, None, NOW)


def test_a_multi_word_topic_needs_each_word() -> None:
    outer = reminder("Give me a heads-up about NULLs when we get to outer joins.")
    assert not trigger_matches(outer, "Inner joins first.", None, NOW)
    assert trigger_matches(outer, "I'm ready for outer joins.", None, NOW)
    german = reminder("Before we study the German cases, remind me to ask about der, die and das.")
    assert not trigger_matches(german, "Let's practise numbers in German.", None, NOW)
    assert head_words("German cases") == ["German", "cases"]
    assert head_words("borrowing in Rust") == ["borrowing"]


def test_code_names_fire_on_their_own() -> None:
    assert is_code_name("functools.wraps") and is_code_name("GROUP BY") and is_code_name("useEffect")
    assert not is_code_name("pointers in C")
    assert names_trigger("why is functools.wraps needed at all", "functools.wraps")
    assert not names_trigger("I'm having trouble with OFFSET.", "HAVING")


def test_word_forms_share_a_lemma() -> None:
    assert word_lemmas("merge") == word_lemmas("merges") == word_lemmas("merging") == {"merge"}
    assert word_lemmas("scale") == word_lemmas("scales")
    assert word_lemmas("matrices") == word_lemmas("matrix")
    assert word_lemmas("borrowing") & word_lemmas("borrowed")  # a gerund noun meets its verb
    assert word_lemmas("dataframes") & word_lemmas("DataFrame")  # a plural the dictionary lacks
    assert not word_lemmas("recursive") & word_lemmas("recursion")


def test_irregular_forms_name_a_topic() -> None:
    """The old stems could not read "indices" as "index"."""
    assert naming_sentence("Which indices does this table have?", "indexes in Postgres")
    assert naming_sentence("Two analyses of variance, please.", "analysis of variance")


def test_the_threshold_is_the_knob() -> None:
    turn, keyword = "Any pointers for staying focused during long study sessions?", "pointers in C"
    assert names_trigger(turn, keyword, threshold=0.0)
    assert not names_trigger(turn, keyword)


def test_another_word_of_the_family_is_not_the_topic() -> None:
    """By lemma "point" is not "pointer" (the old stems made them one word, and only MiniLM vetoed)."""
    assert naming_sentence("Can you point me to a good C book?", "pointers in C") is None


def test_a_preposition_after_the_verb_is_not_part_of_the_topic() -> None:
    got = parse_reminder("Once we start on hash tables, nudge me about collisions.", now=NOW)
    assert got is not None
    assert (got["concept"], got["keywords"]) == ("hash tables", ["hash tables"])
    theory = parse_reminder("Before we get to theory of computation, remind me to ask about DFAs.", now=NOW)
    assert theory is not None and theory["keywords"] == ["theory of computation"]


@pytest.mark.parametrize(
    ("text", "keywords"),
    [
        ("Remind me about the chain rule before the lesson on integrals.", ["integrals"]),
        ("Before our session on regex, remind me to ask about lookaheads.", ["regex"]),
        ("Please nudge me about tail recursion the moment we reach recursion.", ["recursion"]),
        ("When it's time for eigenvectors, remind me to ask about diagonalisation.", ["eigenvectors"]),
        ("Next lesson on fractions, remind me to bring my worksheet.", ["fractions"]),
        ("When the topic of inheritance comes up, remind me to ask about mixins.", ["inheritance"]),
    ],
)
def test_a_lesson_or_a_moment_names_the_topic(text: str, keywords: list[str]) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None
    assert (got["trigger_kind"], got["keywords"]) == ("keywords", keywords)


def test_a_lesson_on_a_day_is_a_time() -> None:
    got = parse_reminder("Remind me to pack my calculator before the lesson on Friday.", now=NOW)
    assert got is not None and got["trigger_kind"] == "time"


@pytest.mark.parametrize(
    ("request_text", "silent", "fires"),
    [
        (  # the question after the topic diluted the whole turn (0.41 to "threads"); its clause reads 0.6+
            "Remind me to ask about race conditions when we get into threads.",
            "There's a long thread on the forum about exams.",
            "Let's do the threading module: how do I start three threads and wait for them?",
        ),
        (  # the trigger's words in their order, not side by side
            "When we do French verbs, remind me to ask about the subjunctive.",
            "I love how verbs in Spanish rhyme in songs.",
            "On to French today: which verbs take être in the passé composé?",
        ),
    ],
)
def test_the_clause_that_names_the_topic_is_compared(request_text: str, silent: str, fires: str) -> None:
    pending = reminder(request_text)
    assert not trigger_matches(pending, silent, None, NOW)
    assert trigger_matches(pending, fires, None, NOW)


@pytest.mark.parametrize(
    ("text", "description", "keywords"),
    [
        (  # "remember me" as many learners say it, and the condition first without a comma
            "When we cover the conditional tense remember me that I mix up would and will.",
            "I mix up would and will",
            ["conditional tense"],
        ),
        (
            "Please once we start fractions remember me to ask about common denominators.",
            "ask about common denominators",
            ["fractions"],
        ),
        (  # the request closes the sentence
            "I want to go back to the bias examples once we reach sampling, so please remind me then.",
            "go back to the bias examples",
            ["sampling"],
        ),
        (
            "We should compare map and filter once we do lambdas, so remind me.",
            "We should compare map and filter",
            ["lambdas"],
        ),
        (
            "Next time we talk about indexes remind me that I want to ask about composite ones.",
            "I want to ask about composite ones",
            ["indexes"],
        ),
    ],
)
def test_requests_as_learners_write_them(text: str, description: str, keywords: list[str]) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None and got["trigger_kind"] != "time"
    assert (got["description"], got["keywords"]) == (description, keywords)


def test_jargon_meets_its_stem() -> None:
    """The dictionary knows few forms of a subject's jargon; the stemmer reads the rest."""
    assert word_lemmas("memoization") & word_lemmas("memoize")
    assert word_lemmas("tokenizer") & word_lemmas("tokenization")
    assert names_trigger("How do I memoize that fibonacci function so it runs fast?", "memoization")
    assert not names_trigger("I left a memo on the fridge so I'd remember to study today.", "memoization")


@pytest.mark.parametrize(
    ("turn", "keyword"),
    [
        # a rare topic word has one sense: no similarity veto (MiniLM read this one at 0.40)
        ("How do I rebase my feature branch onto main without losing anything?", "rebasing"),
        ("I rebased my branch yesterday and now git says it diverged, what happened?", "rebasing"),
        # a code word beside an ordinary one is a topic, said in another form with words between
        ("Let's do merging: how do I merge two DataFrames on two columns at once?", "merging DataFrames"),
        (
            "Can we vectorize this loop with NumPy instead of iterating row by row?",
            "vectorizing loops in NumPy",
        ),
    ],
)
def test_a_topic_in_another_form_fires(turn: str, keyword: str) -> None:
    assert names_trigger(turn, keyword)


def test_rarity_and_code_names() -> None:
    assert not is_code_name("merging DataFrames") and is_code_name("DataFrame.merge")
    assert is_rare_topic("rebasing") and is_rare_topic("memoization")
    assert not is_rare_topic("decorators") and not is_rare_topic("modes") and not is_rare_topic("callbacks")
    assert not names_trigger("I got a merge conflict in git on my notebook file.", "merging DataFrames")


FRAMING = [
    # a phrase that opens the sentence and hangs on its verb frames it; it is not the topic
    ("With a few exceptions, my weekends are free for study.", "exceptions in Java"),
    ("With all due respect, my boss is wrong.", "respect in Japanese culture"),
    ("For the most part, the lessons are fun.", "parts of speech"),
    ("At the end of the day, I just want to pass.", "days of the week"),
    ("In a way, the trip was worth it.", "ways to say hello"),
    ("On the other hand, my sister hated the film.", "hands in poker"),
    ("As a rule, I never study after ten.", "rules of chess"),
    ("By all means, take your time.", "means in statistics"),
    ("On balance, the new job is better.", "balance sheets"),
    ("Generally speaking, my mornings are calmer.", "speaking"),
]
FRONTED_TOPIC = [
    ("For loops, how do I break out early?", "loops"),
    ("With pointers, I always mix up the star and the ampersand.", "pointers in C"),
]


@pytest.mark.parametrize(("turn", "keyword"), FRAMING)
def test_a_framing_phrase_does_not_name_the_topic(turn: str, keyword: str) -> None:
    # at the threshold leave-one-out picks now (0.46), where the framing phrase alone read ~0.5
    assert names_trigger(turn, keyword, threshold=0.46) is False


@pytest.mark.parametrize(("turn", "keyword"), FRONTED_TOPIC)
def test_a_topic_named_up_front_still_fires(turn: str, keyword: str) -> None:
    assert names_trigger(turn, keyword, threshold=0.46) is True
