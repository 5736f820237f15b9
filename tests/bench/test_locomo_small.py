"""The LoCoMo benchmark end to end on a small slice: real stores, real Neo4j and Redis.

First conversation of the dev split, 2 sessions, 10 questions, every preset. The
dataset is not part of the repository (CC BY-NC; read from ../shared/bench/ or
``$KAG_LOCOMO_PATH``); where it is absent (a clean clone) the synthetic sample in
``bench/data/`` in the same format stands in, so the pipeline is always exercised.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agent.errors import InvalidInputError
from agent.memory.erasure import erase_learner, owned_nodes
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from bench.locomo.dataset import load_locomo, small_run_dataset_path
from bench.locomo.ingest import learner_for
from bench.locomo.report import write_results
from bench.locomo.retrieval import PRESETS, PRESETS_BY_NAME, kag_default, search_turns
from bench.locomo.runner import LocomoConfig, run_locomo
from bench.locomo.scoring import KS, budget_turns

DATA = small_run_dataset_path()  # the real split, or the synthetic sample on a clean clone


async def test_small_slice_scores_every_preset_and_finds_an_exact_phrase(
    resources: Resources, tmp_path: Path
) -> None:
    config = LocomoConfig(
        path=str(DATA), limit_conversations=1, limit_sessions=2, limit_questions=10, keep=True, notes=False
    )
    conversation = load_locomo(DATA).conversations[0].head(2, 10)
    learner = learner_for(config.run_id, conversation.sample_id)
    try:
        result = await run_locomo(config, resources=resources, progress=False)
        [ingested] = result.ingests
        assert ingested.learner_id == learner
        assert ingested.turns == ingested.messages == ingested.turn_contexts == len(conversation.turns)
        assert ingested.summaries == 2
        names = [kag_default().name, *(p.name for p in PRESETS)]
        assert [r.preset.name for r in result.presets] == names
        assert result.default is result.presets[0]
        for preset in result.presets:
            assert [s.qid for s in preset.scores] == [q.qid for q in conversation.questions]
            summary = preset.recall
            per_category = [v for by in summary.by_category.values() for v in by.values()]
            values = [*summary.overall.values(), *per_category]
            assert all(0.0 <= v <= 1.0 for v in values), preset.preset.name
            # Recall can only grow with the budget.
            assert [summary.overall[k] for k in KS] == sorted(summary.overall[k] for k in KS)
            assert preset.latency_ms()["p50"] > 0

        paths = write_results(result, tmp_path)
        written = json.loads(paths["json"].read_text())
        assert [p["name"] for p in written["presets"]] == names
        asked = len(conversation.questions)
        assert written["questions"] == asked
        assert written["conversations"][0]["turns"] == len(conversation.turns)
        assert all(len(v) == asked for v in written["per_question"].values())
        markdown = paths["markdown"].read_text()
        assert (
            "| recall:fulltext_only |" in markdown and f"| KAG default ({kag_default().recipe}) |" in markdown
        )
        # The re-ranking ceiling: R@50 per category, never below R@10 (a deeper budget only adds).
        r10, r50 = (_category_row(markdown, k, kag_default().recipe) for k in (10, 50))
        assert len(r10) == len(r50) >= 1 and all(b >= a for a, b in zip(r10, r50, strict=True))

        # Falsifiable: a phrase that occurs verbatim in one ingested turn is found by full text.
        turn = max(conversation.turns, key=lambda t: len(set(t.text.split())))
        phrase = " ".join(turn.text.split()[:12])
        stores = MemoryStores.wire(resources)
        for preset in (
            kag_default(),
            PRESETS_BY_NAME["recall:fulltext_only"],
            PRESETS_BY_NAME["archival:hybrid_session_context"],
            PRESETS_BY_NAME["archival:hybrid_multi_query"],
        ):
            ranked = await search_turns(stores, learner, preset, phrase, ingested.sources)
            assert turn.dia_id in budget_turns(ranked.items, 5), (preset.name, phrase, ranked.items[:5])
        # ...and only this learner's turns come back.
        assert all(t.startswith("D") for item in ranked.items for t in item)
        other = await search_turns(
            stores, learner + "-other", PRESETS_BY_NAME["recall:fulltext_only"], phrase, ingested.sources
        )
        assert other.items == []
    finally:
        await erase_learner(resources, learner)
    assert await owned_nodes(resources, learner) == 0


async def test_a_run_erases_its_learners_unless_kept(resources: Resources) -> None:
    config = LocomoConfig(
        path=str(DATA),
        presets=("recall:vector_only",),
        limit_conversations=1,
        limit_sessions=1,
        limit_questions=3,
        notes=False,
    )
    result = await run_locomo(config, resources=resources, progress=False)
    assert [r.preset.name for r in result.presets] == [kag_default().name, "recall:vector_only"]
    assert not math.isnan(result.presets[1].recall.overall[10])
    assert await owned_nodes(resources, result.ingests[0].learner_id) == 0


async def test_a_reuse_run_scores_the_kept_learners_without_ingesting(resources: Resources) -> None:
    kept = LocomoConfig(
        path=str(DATA),
        presets=("archival:hybrid_stems",),
        limit_conversations=1,
        limit_sessions=2,
        limit_questions=5,
        notes=False,
        keep=True,
    )
    learner = learner_for(kept.run_id, load_locomo(DATA).conversations[0].sample_id)
    try:
        first = await run_locomo(kept, resources=resources, progress=False)
        again = await run_locomo(
            LocomoConfig(
                path=kept.path,
                presets=kept.presets,
                limit_conversations=1,
                limit_sessions=2,
                limit_questions=5,
                notes=False,
                reuse=kept.run_id,
            ),
            resources=resources,
            progress=False,
        )
        [ingested], [restored] = first.ingests, again.ingests
        # The graph gives back the same turn map as the ingestion built, and nothing is written.
        assert restored.learner_id == learner and restored.seconds == 0.0
        assert restored.sources == ingested.sources
        counts = ("turns", "messages", "turn_contexts", "summaries", "episodes")
        assert [getattr(restored, c) for c in counts] == [getattr(ingested, c) for c in counts]
        assert [s.qid for s in again.presets[1].scores] == [s.qid for s in first.presets[1].scores]
        assert await owned_nodes(resources, learner) > 0  # a reuse run never erases
        with pytest.raises(InvalidInputError, match="no kept learner"):
            await run_locomo(
                LocomoConfig(path=kept.path, limit_conversations=1, limit_questions=1, reuse="nosuchrun"),
                resources=resources,
                progress=False,
            )
    finally:
        await erase_learner(resources, learner)


def _category_row(markdown: str, k: int, recipe: str) -> list[float]:
    """The KAG default's cells of the markdown's "R@k by category" table."""
    lines = markdown.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"| R@{k} by category"))
    row = next(ln for ln in lines[start:] if ln.startswith(f"| KAG default ({recipe}) |"))
    return [float(c) for c in row.strip("|").split("|")[1:]]
