"""``analyze`` splits text as Neo4j's full-text analyzer does (real Neo4j, the memories' index).

Range bounds are not analysed, so a query term must be exactly a term the index stored.
Each text is stored as one of a learner's memories; every term ``analyze`` gives must
find it, and the splits Lucene does not make must not.
"""

from __future__ import annotations

import neo4j
import pytest

from agent.graphdb.schema import learner_key
from agent.graphdb.store import fetch
from agent.memory.archival import ArchivalStore
from agent.search.lucene import LuceneScope, analyze

COUNT = """
CALL db.index.fulltext.queryNodes($index, $lucene) YIELD node
WHERE node.learner_id = $learner_id
RETURN collect(node.text) AS texts
"""
CASES = [
    ("Paid 1,000 dollars at 10:30", ["1", "000", "10:30"]),
    ("foo_bar and a:b but a;b", ["foo", "bar", "a:b;"]),
    ("U.S.A. can't it\u2019s 3.14", ["u.s.a.", "can", "3"]),
    ("e-mail me@x.com C++", ["e-mail", "me@x.com", "c++"]),
    (
        "\u65e5\u672c\u8a9e Caf\u00e9 \u03a3\u0399\u03a3\u03a5\u03a6\u039f\u03a3",
        ["\u65e5\u672c\u8a9e", "cafe"],
    ),
]


@pytest.mark.parametrize(("text", "not_terms"), CASES)
async def test_every_analyzed_term_finds_its_text(
    archival: ArchivalStore, learner_id: str, text: str, not_terms: list[str]
) -> None:
    await archival.insert(learner_id, text)
    scope = LuceneScope(("text",), learner_key(learner_id))

    async def found(clause: str) -> list[str]:
        async def work(tx: neo4j.AsyncTransaction) -> list[str]:
            params = {"index": archival.names.memory_fulltext, "learner_id": learner_id}
            return (await fetch(tx, COUNT, lucene=scope.count_query(clause), **params))[0]["texts"]

        return await archival.read(work)

    terms = analyze(text)
    assert terms
    for clause, term in zip(scope.term_clauses(text), terms, strict=True):
        assert await found(clause) == [text], term
    for term in not_terms:
        assert await found(f'text:["{term}" TO "{term}"]') == [], term
