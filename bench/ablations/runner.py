"""Ablation study wiring: build each variant's graph and run the learner script through it.

Every variant runs the same ``bench.ablations.learner_script`` as one conversation thread
(sessions are marked by ``session_id`` and ``end_session``) under its own fresh
learner id, with the same base ``Context`` (``max_tokens`` 1600 by default, so a
short script creates pressure). Each request is recorded from the graph's stream
into a ``RunRecord``; ``bench.ablations.run_metrics`` turns the records into the design's
metrics. The learner's Neo4j and Redis data are erased after the run.

    result = await run_ablations(["full", "sliding_window"], filler=2)
    result.table()            # list of dicts, one per variant
    result.recall_series()    # {variant: [{turn, distance, expected, recalled, in_budget}, …]}
    result.pressure_series()  # {variant: [{turn, session, first, peak, last, archived}, …]}

Progress bars (tqdm) are drawn only on a terminal: ``progress=None`` (the default)
means "when stderr is a TTY and ``TQDM_DISABLE`` is unset", so notebooks and CI logs
get no bar lines.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph, StateGraph
from tqdm import tqdm

from agent.context import Context
from agent.errors import ConfigError
from agent.memory.erasure import erase_learner
from agent.memory.stores import MemoryStores
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.settings import Settings
from bench.ablations.baseline_graphs import make_rag_builder, make_window_builder
from bench.ablations.learner_script import LearnerScript, Turn, build_script
from bench.ablations.run_metrics import METRICS, pressure_series, recall_series, summarise
from bench.ablations.run_record import RunRecord
from bench.ablations.run_recorder import STREAM_MODES, TurnRecorder
from bench.ablations.variants import ALL_VARIANTS, REFERENCE, Variant, get_variant
from bench.markdown_table import markdown_table
from bench.note_metrics import note_metrics
from graphs.demo_script import DEMO_MAX_TOKENS
from graphs.heartbeat import make_builder as make_heartbeat_builder

FULL_FILLER = 6
"""Filler turns between probes in the full run (59 turns per variant)."""
SMALL_FILLER = 2
"""Filler turns between probes in the small run (31 turns per variant): CI and notebooks."""


def show_progress(progress: bool | None = None) -> bool:
    """Whether to draw tqdm bars: ``progress`` when given, else only on a TTY without ``TQDM_DISABLE``."""
    if progress is not None:
        return progress
    disabled = os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false")
    return not disabled and sys.stderr.isatty()


WARM_UP = LearnerScript(
    turns=(Turn(0, "warm-up", "My name is Sam. What did I mention my name is?", end_session=True),)
)


def without_auto_archive(builder: StateGraph) -> StateGraph:
    """The heartbeat ``builder`` with its pressure interrupt cut: ``monitor`` always goes on to ``compile``.

    The ablation of auto-archive: ``monitor`` still measures pressure (the records keep it),
    but nothing is ever evicted, so the queue grows past ``max_tokens``.
    """
    if not builder.branches.pop("monitor", None):
        raise ConfigError("variant", "the heartbeat graph has no monitor -> archive route to cut")
    builder.add_edge("monitor", "compile")
    return builder


def build_graph(
    variant: Variant, resources: Resources, checkpointer: BaseCheckpointSaver | None = None
) -> CompiledStateGraph:
    """Compile ``variant``'s graph over ``resources``."""
    if variant.graph == "heartbeat":
        builder = make_heartbeat_builder(resources)
        if not variant.auto_archive:
            builder = without_auto_archive(builder)
    elif variant.graph == "rag_only":
        builder = make_rag_builder(resources)
    else:
        builder = make_window_builder("first" if variant.graph == "fixed_window" else "last", resources)
    return builder.compile(checkpointer=checkpointer or InMemorySaver(), name=f"kag-{variant.name}")


@dataclass
class VariantRun:
    """One variant's recorded run."""

    variant: Variant
    learner_id: str
    records: list[RunRecord]
    notes: dict[str, Any] | None
    """``bench.note_metrics`` summary (``None`` for graphs that write no notes)."""
    seconds: float

    @property
    def metrics(self) -> dict[str, Any]:
        """The design's metrics for this run."""
        return summarise(self.records, self.notes)


@dataclass
class AblationResult:
    """Runs of several variants over the same script."""

    runs: dict[str, VariantRun]
    config: dict[str, Any] = field(default_factory=dict)

    def table(self) -> list[dict[str, Any]]:
        """One row per variant: name, role, every metric, counts and seconds per turn."""
        rows = []
        for name, run in self.runs.items():
            per_turn = run.seconds / len(run.records) if run.records else None
            rows.append({"variant": name, "role": run.variant.role, **run.metrics, "s_per_turn": per_turn})
        return rows

    def recall_series(self) -> dict[str, list[dict[str, Any]]]:
        """Per variant, probe by probe: ``{turn, distance, expected, recalled, in_budget}``."""
        return {name: recall_series(run.records) for name, run in self.runs.items()}

    def pressure_series(self) -> dict[str, list[dict[str, Any]]]:
        """Per variant, request by request: ``{turn, session, first, peak, last, archived}``."""
        return {name: pressure_series(run.records) for name, run in self.runs.items()}

    def ratios(self, reference: str = REFERENCE) -> list[dict[str, Any]]:
        """Recall rate and seconds per turn of each variant over ``reference``'s, same process."""
        rows = {r["variant"]: r for r in self.table()}
        if reference not in rows:
            return []
        base = rows[reference]

        def ratio(value: Any, against: Any) -> float | None:
            return value / against if value is not None and against else None

        return [
            {
                "variant": name,
                "recall_vs_full": ratio(row["recall_rate"], base["recall_rate"]),
                "in_budget_vs_full": ratio(row["recall_in_budget"], base["recall_in_budget"]),
                "time_vs_full": ratio(row["s_per_turn"], base["s_per_turn"]),
            }
            for name, row in rows.items()
        ]


async def run_variant(
    variant: Variant,
    script: LearnerScript,
    resources: Resources,
    base: Context,
    *,
    progress: bool | None = None,
    cleanup: bool = True,
) -> VariantRun:
    """Run ``script`` through ``variant`` as a fresh learner; record every request."""
    learner_id = f"abl-{variant.name.replace('_', '-')}-{uuid.uuid4().hex[:10]}"
    graph = build_graph(variant, resources)
    stores = MemoryStores.wire(resources)
    context = variant.context(base)
    config = {"configurable": {"thread_id": f"{learner_id}-conversation"}}
    records: list[RunRecord] = []
    started = time.perf_counter()
    try:
        for turn in tqdm(script.turns, desc=variant.name, disable=not show_progress(progress), leave=False):
            fact = script.facts[turn.probes] if turn.probes else None
            recorder = TurnRecorder(
                variant=variant.name,
                session=turn.session,
                turn=turn.index,
                request=turn.text,
                max_tokens=context.max_tokens,
                max_steps=context.max_steps,
                pressure_threshold=context.pressure_threshold,
                expected=fact.expected if fact else None,
                fact_turn=script.fact_turn(fact.key) if fact else None,
            )
            payload = {
                "learner_id": learner_id,
                "request": turn.text,
                "context": {
                    "session_id": f"{learner_id}-{turn.session}",
                    "end_session": turn.end_session,
                    "current_concept": "sql",
                },
            }
            stream = graph.astream(payload, config, context=context, stream_mode=STREAM_MODES)
            async for mode, chunk in stream:
                recorder.feed(mode, chunk)
            records.append(recorder.record())
            # The kernel worker drains between a learner's requests, as the server's does
            # (within its 10 s flush interval); here on demand, so every run is the same.
            await stores.settle(learner_id)
        seconds = time.perf_counter() - started
        notes = None
        if variant.graph == "heartbeat":
            notes = await note_metrics(NoteStore.for_resources(resources), learner_id)
    finally:
        if cleanup:
            await erase_learner(resources, learner_id)
    return VariantRun(variant, learner_id, records, notes, seconds)


async def run_ablations(
    variants: Sequence[str] = ALL_VARIANTS,
    *,
    filler: int = FULL_FILLER,
    max_tokens: int = DEMO_MAX_TOKENS,
    resources: Resources | None = None,
    progress: bool | None = None,
    cleanup: bool = True,
) -> AblationResult:
    """Run the learner script (``filler`` turns between probes) through every named variant.

    ``resources`` defaults to a bundle from the environment (the offline policy
    without ``GOOGLE_API_KEY``, Gemini with it), closed afterwards.
    """
    chosen = [get_variant(name) for name in variants]
    script = build_script(filler)
    base = Context(max_tokens=max_tokens)
    owned = resources is None
    bundle = resources or Resources(Settings.from_env())
    runs: dict[str, VariantRun] = {}
    try:
        # One untimed request through the full system first (embedding model, Neo4j plans,
        # note schema, mermaid validator), so the first timed variant pays no start-up cost.
        await run_variant(get_variant(REFERENCE), WARM_UP, bundle, base, progress=False)
        for variant in tqdm(chosen, desc="variants", disable=not show_progress(progress)):
            runs[variant.name] = await run_variant(
                variant, script, bundle, base, progress=progress, cleanup=cleanup
            )
    finally:
        if owned:
            await bundle.aclose()
    config = {
        "filler": filler,
        "turns": len(script.turns),
        "max_tokens": max_tokens,
        "model": bundle.settings.chat_model_id,
    }
    return AblationResult(runs, config)


def render_report(result: AblationResult) -> str:
    """The metrics table and the ratios against the full system, as Markdown."""
    columns = ["variant", "role", *METRICS, "s_per_turn"]
    lines = [
        f"model: {result.config.get('model')} · turns per variant: {result.config.get('turns')} · "
        f"max_tokens: {result.config.get('max_tokens')}",
        "",
        _table(result.table(), columns),
    ]
    ratios = result.ratios()
    if ratios:
        lines += ["", f"ratios vs {REFERENCE} (same process)", "", _table(ratios, list(ratios[0]))]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    return markdown_table(columns, [[_cell(row.get(c)) for c in columns] for row in rows])
