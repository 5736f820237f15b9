"""Zettelkasten budgets: ingestion p95 < 1.5 s, retrieval at depth 2 < 300 ms.

Ingests N synthetic sessions for a throw-away learner with the offline
extractor + MiniLM + the real Neo4j/Redis, then times depth-2 link expansion.
Baselines run in the same process: ingestion without linking/evolution, and
plain vector search without expansion. Not a test; prints figures only.

It also prints the **gold note metric** (model-free, no services): the offline
extractor runs over ``bench/data/zettelkasten_gold.json`` (hand-written tutoring
transcripts with their expected concepts and reference definition keywords), and
a note is right when

- its concept equals a gold concept after ``normalise_concept`` (lowercase, most
  specific dotted segment, plurals stemmed: ``sql.joins`` = ``joins`` = ``join``), and
- its definition is a declarative sentence (no question, no boilerplate, banner or
  tool rendering) that mentions the concept and at least one gold keyword.

A note worth keeping also needs (version 2 of the gold set, per gold concept when listed):

- ``example``: its example mentions one of these words, without its "For example" marker;
- ``question``: its question to revisit mentions one of these words, and its insight does not
  hold the confusion;
- ``filename``: the exported file is named so (by concept, ``agent.notes.markdown``);
- ``not_example`` (version 3): its example mentions none of these words (the learner's goal,
  plan or self-description is not an example of the concept);
- always: the exported prose (front matter, map and links aside) says no sentence twice.

The metric is the share of notes that are right (target ≥ 90%); coverage (gold
concepts that got a note) is printed beside it.

    .venv/bin/python -m bench.zettelkasten [--sessions 40] [--queries 100] [--gold-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agent.language.questions import is_question
from agent.notes.artifacts import delete_stream
from agent.notes.linking import expand_note_links
from agent.notes.markdown import note_filenames, note_markdown
from agent.notes.models import NoteDraft, compose_text
from agent.notes.offline import offline_extract
from agent.notes.offline_prose import EXAMPLE_OPENER
from agent.notes.pipeline import PipelineConfig, ingest_session
from agent.notes.store import NoteStore
from agent.notes.text import is_boilerplate, normalise_concept
from agent.resources import Resources
from agent.settings import Settings
from bench.note_checks import prose_of, repeated_sentences
from bench.note_metrics import note_metrics

GOLD_PATH = Path(__file__).resolve().parent / "data" / "zettelkasten_gold.json"
GOLD_TARGET = 0.90
_GOLD_WORD = re.compile(r"[a-z0-9][a-z0-9+#]*")

TOPICS = [
    ("sql.joins", "left join", "keeps every row of the left table"),
    ("sql.joins", "inner join", "returns only rows that match in both tables"),
    ("sql.null", "null value", "marks a missing value in a column"),
    ("sql.groupby", "group by", "collapses rows that share a key into one row"),
    ("sql.index", "btree index", "speeds up lookups on a column"),
    ("python.lists", "list comprehension", "builds a list from an iterable in one line"),
    ("python.dicts", "dictionary lookup", "finds a value by its key in constant time"),
    ("statistics.mean", "sample mean", "averages the observed values"),
    ("statistics.variance", "sample variance", "measures how spread out the values are"),
    ("algorithms.sorting", "merge sort", "splits a list in halves and merges them sorted"),
]


def load_gold(path: Path = GOLD_PATH) -> list[dict[str, Any]]:
    """The gold transcripts: ``[{id, current_concept, turns, gold: [{concept, keywords}]}]``."""
    return json.loads(path.read_text(encoding="utf-8"))["transcripts"]


def _word_match(gold: str, word: str) -> bool:
    # Inflection-tolerant: "collapse" ~ "collapses", "halve" ~ "halves", "identify" ~ "identifies".
    return word == gold or word.startswith(gold[: max(4, len(gold) - 2)])


def mentions(text: str, phrase: str) -> bool:
    """Every word of ``phrase`` (normalised) occurs in ``text``, inflections allowed."""
    words = _GOLD_WORD.findall(text.lower())
    wanted = _GOLD_WORD.findall(normalise_concept(phrase))
    return bool(wanted) and all(any(_word_match(g, w) for w in words) for g in wanted)


def definition_ok(definition: str, concept: str, keywords: Sequence[str]) -> bool:
    """A declarative sentence that mentions ``concept`` and at least one of ``keywords``."""
    text = definition.strip()
    declarative = (
        len(text.split()) >= 3
        and not is_question(text)
        and not is_boilerplate(text, tutor=True)
        and "[" not in text
    )
    return declarative and mentions(text, concept) and any(mentions(text, k) for k in keywords)


def keeping_checks(draft: NoteDraft, gold: dict[str, Any]) -> dict[str, bool]:
    """What makes a note worth keeping, beyond its concept and definition (module docstring)."""
    # The draft's links name concepts; stored links (ids) come later and are not prose.
    note = {**draft.model_dump(), "id": "gold-note", "text": compose_text(draft), "links": []}
    example, question = draft.personal_example, draft.open_question
    checks = {"no_repeats": not repeated_sentences([prose_of(note_markdown(note))])}
    if gold.get("example"):
        checks["example_ok"] = any(mentions(example, w) for w in gold["example"]) and not (
            EXAMPLE_OPENER.match(example)
        )
    if gold.get("not_example"):
        checks["not_example_ok"] = not any(mentions(example, w) for w in gold["not_example"])
    if gold.get("question"):
        held = any(mentions(question, w) for w in gold["question"])
        checks["question_ok"] = held and not any(mentions(draft.key_insight, w) for w in gold["question"])
    if gold.get("filename"):
        checks["filename_ok"] = note_filenames([note])["gold-note"] == gold["filename"]
    return checks


def score_notes(drafts: Sequence[NoteDraft], gold: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One verdict per note: ``{concept, definition, concept_ok, definition_ok, ...checks, ok}``."""
    by_key = {normalise_concept(g["concept"]): g for g in gold}
    verdicts = []
    for draft in drafts:
        match = by_key.get(normalise_concept(draft.concept))
        good_definition = bool(match) and definition_ok(draft.definition, match["concept"], match["keywords"])
        checks = keeping_checks(draft, match or {})
        verdicts.append(
            {
                "concept": draft.concept,
                "definition": draft.definition,
                "concept_ok": match is not None,
                "definition_ok": good_definition,
                **checks,
                "ok": match is not None and good_definition and all(checks.values()),
            }
        )
    return verdicts


def gold_metric(items: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The share of right notes over the gold transcripts, with coverage and the misses."""
    items = load_gold() if items is None else items
    notes = right = found = total = 0
    misses: list[dict[str, Any]] = []
    for item in items:
        drafts = offline_extract(item["turns"], item.get("current_concept"))
        verdicts = score_notes(drafts, item["gold"])
        notes += len(verdicts)
        right += sum(v["ok"] for v in verdicts)
        misses += [{"id": item["id"], **v} for v in verdicts if not v["ok"]]
        got = {normalise_concept(v["concept"]) for v in verdicts if v["ok"]}
        total += len(item["gold"])
        found += sum(1 for g in item["gold"] if normalise_concept(g["concept"]) in got)
    share = right / notes if notes else 0.0
    return {
        "transcripts": len(items),
        "notes": notes,
        "right": right,
        "share": round(share, 3),
        "coverage": round(found / total, 3) if total else 0.0,
        "target": GOLD_TARGET,
        "meets_target": share >= GOLD_TARGET,
        "misses": misses,
    }


def show_gold(metric: dict[str, Any]) -> None:
    """Print the gold note metric in the bench's style."""
    print(
        f"gold notes right={metric['right']}/{metric['notes']} share={metric['share']:.3f} "
        f"coverage={metric['coverage']:.3f} (target ≥ {metric['target']:.2f}: "
        f"{'OK' if metric['meets_target'] else 'UNDER'})"
    )
    for miss in metric["misses"]:
        failed = [k for k, v in miss.items() if k.endswith(("_ok", "repeats")) and v is False]
        print(f"  miss {miss['id']}: {miss['concept']!r}: {miss['definition']!r} ({', '.join(failed)})")


def session(i: int) -> tuple[str, list[dict[str, str]]]:
    concept, phrase, definition = TOPICS[i % len(TOPICS)]
    other = TOPICS[(i * 7 + 3) % len(TOPICS)][1]
    turns = [
        {"role": "user", "content": f"Session {i}: I am confused about the {phrase} and {other}."},
        {"role": "assistant", "content": f"A {phrase} {definition}. The {other} is different."},
        {"role": "user", "content": f"So the {phrase} in my project {i} {definition}? I get it."},
        {"role": "assistant", "content": f"Correct, the {phrase} {definition}; {other} too."},
    ]
    return concept, turns


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def show(name: str, values: list[float], baseline: list[float] | None, budget: float) -> None:
    p50, p95 = statistics.median(values), pct(values, 0.95)
    line = f"{name:<34} n={len(values):<4} p50={p50 * 1000:8.1f} ms  p95={p95 * 1000:8.1f} ms"
    if baseline:
        line += f"  ×{p95 / pct(baseline, 0.95):.2f} vs baseline p95"
    line += f"  budget {budget * 1000:.0f} ms: {'OK' if p95 < budget else 'OVER'}"
    print(line)


async def ingest_all(res: Resources, learner: str, n: int, config: PipelineConfig) -> list[float]:
    times = []
    for i in tqdm(range(n), desc=f"ingest link={config.link}", unit="session"):
        concept, turns = session(i)
        start = time.perf_counter()
        out = await ingest_session(res, learner, turns, concept, f"bench-{i}", config)
        times.append(time.perf_counter() - start)
        if out["failures"]:
            raise SystemExit(f"ingest failed: {out['failures']}")
    return times


async def main(sessions: int, queries: int) -> None:
    gold = gold_metric()
    res = Resources(Settings.from_env(google_api_key=None).with_overrides(google_api_key=None))
    learner, baseline_learner = f"bench-{uuid.uuid4()}", f"bench-{uuid.uuid4()}"
    store = NoteStore.for_resources(res)
    try:
        await asyncio.to_thread(res.embeddings.embed_query, "warm up")  # load MiniLM
        await ingest_session(res, baseline_learner, session(0)[1], "warmup", "w")  # schema
        await store.delete_learner(baseline_learner)
        base = await ingest_all(res, baseline_learner, sessions, PipelineConfig(link=False, evolve=False))
        full = await ingest_all(res, learner, sessions, PipelineConfig())
        metrics = await note_metrics(store, learner)
        rows, _, _ = await res.neo4j.execute_query(
            "MATCH (n:Note {learner_id: $l}) RETURN n.id AS id", {"l": learner}, database_=res.database
        )
        ids = [r["id"] for r in rows]
        rng = random.Random(7)
        search_t, expand_t = [], []
        for _ in tqdm(range(queries), desc="retrieve", unit="query"):
            query = rng.choice(TOPICS)[1]
            vector = await asyncio.to_thread(res.embeddings.embed_query, query)
            start = time.perf_counter()
            hits = await store.candidate_notes(learner, vector, k=5, exclude=[])
            search_t.append(time.perf_counter() - start)
            seeds = [h["note"]["id"] for h in hits] or rng.sample(ids, 1)
            start = time.perf_counter()
            await expand_note_links(store, learner, seeds, depth=2)
            expand_t.append(time.perf_counter() - start)
        print()
        show("ingest, no linking (baseline)", base, None, 1.5)
        show("ingest, link + evolve + publish", full, base, 1.5)
        show("vector search k=5 (baseline)", search_t, None, 0.3)
        show("expand_note_links depth 2", expand_t, search_t, 0.3)
        both = [a + b for a, b in zip(search_t, expand_t, strict=True)]
        show("search + depth-2 expansion", both, search_t, 0.3)
        print(
            f"notes={metrics['note_count']} link_density={metrics['link_density']} "
            f"orphans={metrics['orphan_count']} max_degree={metrics['max_degree']} "
            f"atomicity_share={metrics['atomicity_share']}"
        )
        show_gold(gold)
    finally:
        for who in (learner, baseline_learner):
            await store.delete_learner(who)
            await res.neo4j.execute_query(
                "MATCH (l:Learner {id: $l}) WHERE NOT (l)--() DELETE l", {"l": who}, database_=res.database
            )
            await delete_stream(res.redis, who)
        await res.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--gold-only", action="store_true", help="print the gold note metric only")
    args = parser.parse_args()
    if args.gold_only:
        show_gold(gold_metric())
    else:
        asyncio.run(main(args.sessions, args.queries))
