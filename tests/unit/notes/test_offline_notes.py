"""The offline extractor keeps notes worth keeping: real terms, declarative definitions."""

from __future__ import annotations

import pytest

from agent.language.questions import is_question
from agent.notes.offline import offline_extract
from agent.notes.offline_prose import split_sentences as prose_sentences
from agent.notes.text import (
    acronyms,
    clean_prose,
    is_boilerplate,
    normalise_concept,
    noun_phrases,
    strip_lead_in,
)

BANNER = "[offline policy, not an LLM]"
BOILERPLATE = (
    f"{BANNER} I can store facts and goals you tell me and search what you learned before; "
    "I cannot reason about new material. Set GOOGLE_API_KEY to use Gemini."
)


def turns(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"role": role, "content": content} for role, content in pairs]


# What `kag demo` feeds the extractor: the learner states material, the offline policy
# answers with its banner, memory quotes, tool-call renderings and boilerplate.
DEMO_PRACTICE = turns(
    (
        "user",
        "Today I practised joining patients to wards with a LEFT JOIN, and wards without patients "
        "disappeared when I switched to an INNER JOIN, which surprised me at first.",
    ),
    ("assistant", BOILERPLATE),
    (
        "user",
        "I keep confusing a FULL OUTER JOIN with a CROSS JOIN: the outer join matches on keys and "
        "keeps unmatched rows from both sides, while the cross join pairs every row with every row.",
    ),
    ("assistant", f"{BANNER} From your memory — core_memory_append: noted in core memory (user_profile)"),
    (
        "user",
        "Remember that a CROSS JOIN of 20 patients and 5 wards gives 100 rows, because it has no "
        "join condition at all.",
    ),
    ("assistant", "[calls archival_memory_insert({'content': 'a CROSS JOIN of 20 patients'})]"),
    (
        "user",
        "I also learned that a self join compares rows of the same table, like nurses and the "
        "senior nurse who supervises them, by giving the table two aliases.",
    ),
    ("assistant", BOILERPLATE),
)
DEMO_RECALL = turns(
    ("user", "What did I find confusing about the FULL OUTER JOIN before?"),
    (
        "assistant",
        f"{BANNER} From your memory — archival_memory_search: - assistant: I can store facts and "
        "goals you tell me and search what | an INNER JOIN returns only rows",
    ),
    ("user", "What do you know about the CROSS JOIN of patients and wards?"),
    ("assistant", f"{BANNER} From your memory — archival_memory_search: the CROSS JOIN pairs rows"),
)


def fields(drafts: list) -> list[str]:
    return [t for d in drafts for t in (d.definition, d.personal_example, d.key_insight) if t]


def test_demo_practice_gives_real_terms_and_declarative_definitions() -> None:
    drafts = offline_extract(DEMO_PRACTICE, "sql.joins")
    concepts = {d.concept for d in drafts}
    assert concepts == {"cross join", "full outer join", "self join"}
    by = {d.concept: d for d in drafts}
    assert by["cross join"].definition == "The cross join pairs every row with every row."
    assert by["self join"].definition.startswith("A self join compares rows of the same table")
    for text in fields(drafts):
        assert not is_question(text), text
        assert "[" not in text and "offline policy" not in text and "I can store" not in text
        assert "From your memory" not in text and "GOOGLE_API_KEY" not in text
    for draft in drafts:
        assert normalise_concept(draft.concept) not in {"find confusing", "learned", "confusing"}
        assert draft.concept not in draft.links  # no self-links


def test_questions_and_memory_quotes_make_no_notes() -> None:
    assert offline_extract(DEMO_RECALL, "sql.joins") == []


def test_current_concept_needs_a_definition_of_its_own() -> None:
    transcript = turns(
        ("user", "What are joins for?"),
        ("assistant", "A join combines rows of two tables on a condition. An inner join keeps matches only."),
        ("user", "So a join is how my orders meet my customers."),
    )
    drafts = offline_extract(transcript, "sql.joins")
    assert drafts[0].concept == "sql.joins"
    assert drafts[0].definition == "A join combines rows of two tables on a condition."


def test_pronoun_answers_define_the_asked_term() -> None:
    transcript = turns(
        ("user", "How does a hash join work?"),
        ("assistant", "It builds a hash table on the smaller input and probes it with the other."),
    )
    (draft,) = offline_extract(transcript, None)
    assert draft.concept == "hash join"
    assert (
        draft.definition
        == "The hash join builds a hash table on the smaller input and probes it with the other."
    )


def test_possessive_statements_are_examples_not_definitions() -> None:
    transcript = turns(
        ("user", "I am stuck on overfitting. My model scores 99% on training data."),
        ("assistant", "Overfitting means the model memorises noise in the training data."),
        ("user", "My decision tree was far too deep, which explains the overfitting."),
    )
    (draft,) = offline_extract(transcript, "ml.generalisation")
    assert draft.concept == "overfitting"
    assert draft.definition.startswith("Overfitting means")
    assert draft.personal_example.startswith("My ")


@pytest.mark.parametrize(
    ("sentence", "terms"),
    [
        ("A left join keeps every row of the left table.", ["left join", "row", "left table"]),
        ("What did I find confusing about the FULL OUTER JOIN before?", ["full outer join"]),
        ("I learned that GROUP BY collapses rows.", ["group by", "rows"]),
        ("A self join compares rows of the same table.", ["self join", "rows", "table"]),
        ("A base case stops the recursion.", ["base case", "recursion"]),
        ("Is that overfitting?", ["overfitting"]),
        ("What does a DNS resolver do?", ["dns resolver"]),
    ],
)
def test_noun_phrases_are_terms_not_verbs(sentence: str, terms: list[str]) -> None:
    assert noun_phrases(sentence) == terms


def test_prose_helpers() -> None:
    assert clean_prose(f"{BANNER} Hi [calls f({{'a': [1]}})] there") == "Hi there"
    assert is_boilerplate("I can store facts and goals you tell me", tutor=True)
    assert not is_boilerplate("I keep confusing joins", tutor=False)
    assert is_question("Does a left join keep rows") and not is_question("A left join keeps rows.")
    assert strip_lead_in("Oh I get it, so a left join keeps rows.") == "A left join keeps rows."
    assert strip_lead_in("Remember that an INNER JOIN matches.") == "An INNER JOIN matches."
    assert normalise_concept("sql.left_joins") == normalise_concept("Left Join") == "left join"


# A new learner's first session, offline: five statements, each answered by the policy's marker.
FIRST_SESSION = turns(
    ("user", "Hi, my name is Ana and I work as a data analyst at a logistics company."),
    ("assistant", BANNER),
    (
        "user",
        "A window function computes a value over the rows related to the current row, without "
        "collapsing them. For example RANK() OVER (PARTITION BY depot ORDER BY late_deliveries DESC) "
        "ranks the depots.",
    ),
    ("assistant", BANNER),
    ("user", "A CTE, written with WITH, lets a long query read from top to bottom."),
    ("assistant", BANNER),
    ("user", "My goal is to write the weekly depot report with window functions by Friday."),
    ("assistant", BANNER),
    ("user", "I'm confused about when a window function needs PARTITION BY."),
    ("assistant", BANNER),
)


def test_a_first_session_gives_a_note_per_concept_acronyms_included() -> None:
    by = {d.concept: d for d in offline_extract(FIRST_SESSION, None)}
    assert set(by) == {"window function", "CTE"}
    assert by["CTE"].definition == "A CTE, written with WITH, lets a long query read from top to bottom."
    window = by["window function"]
    assert window.personal_example.startswith("RANK() OVER (PARTITION BY depot")
    assert window.open_question == "I'm confused about when a window function needs PARTITION BY."
    for draft in by.values():
        assert not any("goal" in t or "Ana" in t for t in (draft.personal_example, draft.key_insight))


def test_a_goal_or_a_self_description_is_not_an_example() -> None:
    transcript = turns(
        ("user", "A window function keeps every row and adds a value computed over its window."),
        ("user", "My plan is to rebuild the sales dashboard with window functions next week."),
        ("user", "I want to use a window function in my 3 reports by Monday."),
        ("user", "I am an analyst who uses window functions daily."),
    )
    (draft,) = offline_extract(transcript, None)
    assert draft.personal_example == ""


def test_a_code_line_illustrates_the_sentence_before_it() -> None:
    transcript = turns(
        ("user", "A window function keeps every row and adds a value computed over its window."),
        ("user", "ROW_NUMBER() OVER (ORDER BY total) numbers the orders."),
        ("user", "My goal is to use window functions in the weekly report."),
    )
    (draft,) = offline_extract(transcript, None)
    assert draft.personal_example == "ROW_NUMBER() OVER (ORDER BY total) numbers the orders."


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("A CTE, written with WITH, lets a long query read.", {"cte"}),
        ("JSON and an API; two GPUs and SQL.", {"json", "api", "gpu", "sql"}),
        ("RANK() OVER (PARTITION BY depot ORDER BY day)", set()),  # code, not acronyms
        ("I am SO confused, AND it is late.", set()),  # shouted stop words
    ],
)
def test_acronyms_are_short_capital_words_not_code_or_shouting(text: str, found: set[str]) -> None:
    assert acronyms(text) == found


def test_an_acronym_without_a_definition_makes_no_note() -> None:
    transcript = turns(("user", "I used SQL and JSON at work today."), ("user", "The API was slow."))
    assert offline_extract(transcript, None) == []


def test_the_extractor_cuts_sentences_with_the_language_layers_splitter() -> None:
    # One splitter for learner text (agent.language.sentences): "e.g." and "approx. 2.5" stay
    # inside their sentence, where the extractor's own full-stop rule used to cut them.
    said = "A CTE, e.g. one written with WITH, names a subquery. It costs approx. 2.5 ms."
    turn = {"role": "user", "content": said}
    assert [s.text for s in prose_sentences([turn])] == [
        "A CTE, e.g. one written with WITH, names a subquery.",
        "It costs approx. 2.5 ms.",
    ]
