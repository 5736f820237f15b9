"""Run the LoCoMo retrieval benchmark: ingest each conversation, ask every question with every preset.

Used by ``python -m bench.locomo``, ``kag eval locomo`` and ``notebooks/02_locomo_retrieval.ipynb``.
Each conversation becomes one learner (``locomo-<run>-<sample>``): ingested through
the real stores (``bench.locomo.ingest``), then every question goes through each
preset's store search (``bench.locomo.retrieval``) and is scored with evidence
recall@k under the honest turn budget (``bench.locomo.scoring``). The learner is
erased afterwards unless ``keep``. The chat model is the offline policy and the
embeddings are MiniLM whatever the environment says: the benchmark uses no LLM.
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agent.kernel.worker import build_worker
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import MINILM, OFFLINE_MODEL, Settings
from bench.locomo.dataset import (
    LocomoDataset,
    default_dataset_path,
    load_locomo,
    select,
    small_run_dataset_path,
)
from bench.locomo.ingest import IngestResult, LocomoIngest, learner_for
from bench.locomo.loo import P95_BUDGET_MS, LooResult, PresetRun, leave_one_out
from bench.locomo.recipes import bench_recipe
from bench.locomo.retrieval import (
    KAG,
    MAX_PAGE,
    PRESETS_BY_NAME,
    BenchPreset,
    get_presets,
    kag_default,
    search_turns,
)
from bench.locomo.scoring import KS, QuestionScore, RecallSummary, percentile, recall_at_ks, summarise_recall

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "results"
METRIC = (
    "evidence recall@k (LoCoMo task_eval): share of a question's evidence turns among the turns "
    "behind the top-k hits, 1 without evidence, mean over all questions; k is a budget of turns "
    "(bench/locomo/scoring.py)"
)


@dataclass(frozen=True)
class LocomoConfig:
    """What to run."""

    path: str = field(default_factory=lambda: str(default_dataset_path()))
    presets: tuple[str, ...] = ()
    """Preset names (``bench.locomo.retrieval.PRESETS``); empty means all."""
    limit_conversations: int | None = None
    limit_sessions: int | None = None
    """Ingest only the first N sessions; questions with evidence beyond them are dropped."""
    limit_questions: int | None = None
    """Questions per conversation."""
    notes: bool = True
    keep: bool = False
    """Keep the learners' data instead of erasing it."""
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    reuse: str | None = None
    """Score the learners a ``keep`` run with this run id left, instead of ingesting (they are kept)."""


@dataclass
class PresetResult:
    """Scores and latency of one preset."""

    preset: BenchPreset
    scores: list[QuestionScore] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    effective: set[str] = field(default_factory=set)

    @property
    def recall(self) -> RecallSummary:
        """Mean recall@k overall and per category."""
        return summarise_recall(self.scores)

    def latency_ms(self) -> dict[str, float]:
        """p50/p95 search latency in milliseconds."""
        ms = [s * 1000 for s in self.seconds]
        return {"p50": round(percentile(ms, 50), 1), "p95": round(percentile(ms, 95), 1)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        p = self.preset
        return {
            "name": p.name,
            "recipe": p.recipe,
            "tool": p.tool,
            "kinds": list(p.kinds) if p.kinds else None,
            "description": p.description,
            "effective_recipes": sorted(self.effective),
            "recall": self.recall.to_dict(),
            "latency_ms": self.latency_ms(),
        }


@dataclass
class LocomoResult:
    """A finished run."""

    config: LocomoConfig
    dataset: LocomoDataset
    presets: list[PresetResult]
    ingests: list[IngestResult]
    embeddings: str
    chat_model: str
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def ingest_seconds(self) -> float:
        """Total ingestion time."""
        return sum(i.seconds for i in self.ingests)

    @property
    def ingest_ms_per_turn(self) -> float:
        """Ingestion time per turn (every representation, through the kernel worker)."""
        turns = sum(i.turns for i in self.ingests)
        return 1000 * self.ingest_seconds / turns if turns else float("nan")

    @property
    def default(self) -> PresetResult | None:
        """The run's result for the agent's default search (``kag_default``), when it ran."""
        return next((r for r in self.presets if r.preset.tool == KAG), None)

    def leave_one_out(self, budget_ms: float = P95_BUDGET_MS) -> LooResult | None:
        """Leave-one-conversation-out choice of preset (``bench.locomo.loo``); None for one conversation."""
        if len(self.ingests) < 2 or not self.presets:
            return None
        runs = [PresetRun(r.preset.name, r.scores, r.seconds) for r in self.presets if r.preset.tool != KAG]
        return leave_one_out(runs, budget_ms=budget_ms)

    def best(self, k: int = 10) -> PresetResult:
        """The preset with the highest overall recall@k."""
        return max(self.presets, key=lambda r: r.recall.overall[k])

    def to_dict(self, per_question: bool = True) -> dict[str, Any]:
        """JSON-ready result (per-question recall per preset unless ``per_question=False``)."""
        out: dict[str, Any] = {
            "benchmark": "locomo",
            "dataset": self.config.path,
            "run_id": self.config.run_id,
            "created_at": self.created_at,
            "metric": METRIC,
            "ks": list(KS),
            "embeddings": self.embeddings,
            "chat_model": self.chat_model,
            "config": {
                "presets": [r.preset.name for r in self.presets],
                "limit_conversations": self.config.limit_conversations,
                "limit_sessions": self.config.limit_sessions,
                "limit_questions": self.config.limit_questions,
                "notes": self.config.notes,
                "reuse": self.config.reuse,
                "page_size": MAX_PAGE,
            },
            "questions": len(self.presets[0].scores) if self.presets else 0,
            "ingest_seconds": round(self.ingest_seconds, 1),
            "ingest_ms_per_turn": round(self.ingest_ms_per_turn, 1),
            "kag_default": kag_default().name,
            "conversations": [i.to_dict() for i in self.ingests],
            "warnings": list(self.dataset.warnings),
            "presets": [r.to_dict() for r in self.presets],
        }
        loo = self.leave_one_out()
        if loo is not None:
            out["leave_one_out"] = loo.to_dict()
        if per_question:
            out["per_question"] = {
                r.preset.name: {s.qid: [round(s.recall[k], 4) for k in KS] for s in r.scores}
                for r in self.presets
            }
            out["categories"] = {s.qid: s.category for s in self.presets[0].scores} if self.presets else {}
            out["per_question_ms"] = {
                r.preset.name: [round(t * 1000, 2) for t in r.seconds] for r in self.presets
            }
        return out


def bench_settings() -> Settings:
    """Settings from the environment, with the offline policy and MiniLM forced (no LLM)."""
    return Settings.from_env(model=OFFLINE_MODEL, embeddings=MINILM)


async def run_locomo(
    config: LocomoConfig, *, resources: Resources | None = None, progress: bool = True
) -> LocomoResult:
    """Ingest, search and score; see the module docstring."""
    dataset = load_locomo(config.path)
    conversations = select(
        dataset,
        conversations=config.limit_conversations,
        sessions=config.limit_sessions,
        questions=config.limit_questions,
    )
    results = [PresetResult(p) for p in (kag_default(), *get_presets(config.presets))]
    own = resources is None
    resources = resources or Resources(bench_settings())
    stores = MemoryStores.wire(resources)
    ingest = LocomoIngest(resources, stores, build_worker(resources, stores), notes=config.notes)
    ingests: list[IngestResult] = []
    turns = sum(len(c.turns) for c in conversations)
    searches = sum(len(c.questions) for c in conversations) * len(results)
    ingest_bar = tqdm(total=turns, desc="ingest turns", unit="turn", disable=not progress, position=0)
    search_bar = tqdm(total=searches, desc="searches", unit="q", disable=not progress, position=1)
    try:
        for conversation in conversations:
            learner = learner_for(config.reuse or config.run_id, conversation.sample_id)
            try:
                if config.reuse:  # the fast loop: search what a --keep run left
                    ingested = await ingest.restore(conversation, learner)
                    ingest_bar.update(len(conversation.turns))
                else:
                    ingested = await ingest.ingest(conversation, learner, ingest_bar.update)
                ingests.append(ingested)
                for question in conversation.questions:
                    encode = await _encode_seconds(stores, question.question)
                    for result in results:
                        ranked = await search_turns(
                            stores, learner, result.preset, question.question, ingested.sources
                        )
                        result.scores.append(
                            QuestionScore(
                                question.qid, question.category, recall_at_ks(question.evidence, ranked.items)
                            )
                        )
                        # Query vectors are memoised, so only the first preset would pay the encode:
                        # every preset that embeds is charged it, as one search by the agent is.
                        uses_vector = bench_recipe(result.preset.recipe).vector_weight > 0
                        result.seconds.append(ranked.seconds + (encode if uses_vector else 0.0))
                        result.effective.add(ranked.page.recipe)
                        search_bar.update(1)
            finally:
                if not config.keep and not config.reuse:
                    await ingest.erase(learner)
    finally:
        ingest_bar.close()
        search_bar.close()
        if own:
            await resources.aclose()
    return LocomoResult(
        config=config,
        dataset=dataset,
        presets=results,
        ingests=ingests,
        embeddings=resources.embeddings.model_name,
        chat_model=resources.settings.chat_model_id,
    )


async def _encode_seconds(stores: MemoryStores, question: str) -> float:
    """How long embedding ``question`` takes (the stores embed the same stripped text, memoised)."""
    started = time.perf_counter()
    await stores.archival.embed_query(question[:4096].strip())
    return time.perf_counter() - started


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options shared by ``python -m bench.locomo`` and ``kag eval locomo``."""
    parser.add_argument("path", nargs="?", default=None, help="LoCoMo JSON file (default: the dev split)")
    parser.add_argument(
        "--presets", nargs="+", default=None, metavar="NAME", help=f"any of: {', '.join(PRESETS_BY_NAME)}"
    )
    parser.add_argument("--limit-conversations", type=int, default=None, metavar="N")
    parser.add_argument("--limit-sessions", type=int, default=None, metavar="N")
    parser.add_argument("--limit-questions", type=int, default=None, metavar="N", help="per conversation")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="directory for the JSON and markdown results")
    parser.add_argument("--no-notes", action="store_true", help="skip the Zettelkasten step of ingestion")
    parser.add_argument("--keep", action="store_true", help="keep the learners' data (default: erase it)")
    parser.add_argument(
        "--reuse",
        default=None,
        metavar="RUN_ID",
        help="search the learners a --keep run left (locomo-RUN_ID-*) instead of ingesting (ingest reads 0)",
    )


def config_from_args(args: argparse.Namespace) -> LocomoConfig:
    """A ``LocomoConfig`` from parsed ``add_arguments`` options."""
    return LocomoConfig(
        path=args.path or str(default_dataset_path()),
        presets=tuple(args.presets or ()),
        limit_conversations=args.limit_conversations,
        limit_sessions=args.limit_sessions,
        limit_questions=args.limit_questions,
        notes=not args.no_notes,
        keep=args.keep,
        reuse=args.reuse,
    )


def small_config(path: str | None = None, presets: Sequence[str] = ()) -> LocomoConfig:
    """The CI-sized run: first conversation, 2 sessions, 10 questions, with notes.

    The slice of ``tests/bench/test_locomo_small.py`` (which checks the scores and runs
    without notes), so the notebook test adds only the notes and the report, not a
    second, larger pipeline run.
    """
    return LocomoConfig(
        path=path or str(small_run_dataset_path()),
        presets=tuple(presets),
        limit_conversations=1,
        limit_sessions=2,
        limit_questions=10,
    )
