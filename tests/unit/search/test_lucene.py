"""Lucene query building: the tokenizer, the scoped range clauses and their weights (no services)."""

from __future__ import annotations

import math

import pytest

from agent.search.lucene import MAX_TERM_CHARS, MAX_TERMS, MAX_TOKEN_CHARS, LuceneScope, analyze, idf

KEY = "lkabc"
SCOPE = LuceneScope(("text",), KEY)


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("When did Caroline go?", ["when", "did", "caroline", "go"]),
        ("1,000 dollars, 3.14 and 10:30", ["1,000", "dollars", "3.14", "and", "10", "30"]),
        (
            "U.S.A. can't it\u2019s e-mail a:b a;b",
            ["u.s.a", "can't", "it\u2019s", "e", "mail", "a:b", "a", "b"],
        ),
        ("foo_bar me@x.com C++ 'quoted' a'", ["foo_bar", "me", "x.com", "c", "quoted", "a"]),
        (
            "\u65e5\u672c Caf\u00e9 \u03a3\u039f\u03a3",
            ["\u65e5", "\u672c", "caf\u00e9", "\u03c3\u03bf\u03c3"],
        ),
        ("the the THE", ["the"]),
        ("*  \\ ?? // ---", []),
    ],
)
def test_analyze_splits_as_the_standard_tokenizer(text: str, terms: list[str]) -> None:
    # The same cases are checked against Neo4j itself in tests/integration/search/test_lucene_tokens.py.
    assert analyze(text) == terms


def test_analyze_caps_terms_and_drops_words_lucene_would_split() -> None:
    assert len(analyze(" ".join(f"w{i}" for i in range(500)))) == MAX_TERMS
    assert analyze("x" * (MAX_TOKEN_CHARS + 1)) == []


def test_clauses_are_range_terms_inside_the_learner_key() -> None:
    clauses = SCOPE.term_clauses("Camping trips")
    assert clauses == ['text:["camping" TO "camping"]', 'text:["trips" TO "trips"]']
    lucene = SCOPE.query(clauses, {clauses[0]: 2.5, clauses[1]: 0.25})
    assert lucene == (
        '+learner_key:["lkabc" TO "lkabc"] '
        '+(text:["camping" TO "camping"]^2.500000 text:["trips" TO "trips"]^0.250000)'
    )


def test_injection_text_stays_inside_quoted_bounds() -> None:
    clauses = SCOPE.term_clauses(') OR learner_key:* ( "x" TO *] \\')
    assert clauses == [
        'text:["or" TO "or"]',
        'text:["learner_key" TO "learner_key"]',
        'text:["x" TO "x"]',
        'text:["to" TO "to"]',
    ]
    assert SCOPE.prefix_clauses([") OR learner_key:", "a*b", "x:y", ""]) == []


def test_unweighted_clauses_are_left_out() -> None:
    clauses = SCOPE.term_clauses("alpha beta")
    assert (
        SCOPE.query(clauses, {clauses[1]: 1.0})
        == '+learner_key:["lkabc" TO "lkabc"] +(text:["beta" TO "beta"]^1.000000)'
    )
    assert SCOPE.query(clauses, {}) is None
    assert SCOPE.query([], {"anything": 1.0}) is None


def test_many_fields_match_a_term_in_any_of_them() -> None:
    notes = LuceneScope(("text", "concept"), KEY)
    [clause] = notes.term_clauses("Graph")
    assert clause == '(text:["graph" TO "graph"] concept:["graph" TO "graph"])'
    [prefix] = notes.prefix_clauses(["Camp"])
    assert prefix == "(text:camp* concept:camp*)"
    assert notes.count_query(clause) == f'+learner_key:["lkabc" TO "lkabc"] +{clause}'


def test_prefix_clauses_are_plain_stems_only() -> None:
    assert SCOPE.prefix_clauses(["Camp", "research", "camp"]) == ["text:camp*", "text:research*"]
    assert len(SCOPE.prefix_clauses([f"w{i}" for i in range(MAX_TERMS + 5)])) == MAX_TERMS
    assert SCOPE.prefix_clauses(["x" * 10_000]) == [f"text:{'x' * MAX_TERM_CHARS}*"]


@pytest.mark.parametrize(
    ("key", "fields"), [("a b", ("text",)), ("lk:*", ("text",)), (KEY, ("te xt",)), (KEY, ())]
)
def test_scope_refuses_syntax_in_key_or_fields(key: str, fields: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        LuceneScope(fields, key)


def test_idf_is_bm25s_and_positive_even_for_odd_counts() -> None:
    assert idf(100, 1) == pytest.approx(math.log(1 + 99.5 / 1.5))
    assert idf(100, 10) > idf(100, 50) > idf(100, 100) > 0
    assert idf(10, 50) == idf(10, 10)  # a capped or racing count never exceeds the documents
    assert idf(10, -1) == idf(10, 0)
