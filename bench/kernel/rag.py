"""RAG against the kernel on the cognitive suite: what the model is handed, for the same question.

Each scenario of a ``kag-cognitive-v1`` file (default: the dev set when present, else
``bench/data/cognitive_kag.json``) is ingested as ``bench.cognitive.runner`` does it: every
learner message is a request to the real heartbeat (offline policy, MiniLM, kernel
logging), on a ``ManualClock`` at the session's date. After each session the kernel worker
drains the learner's stream and reflection runs (``reflect_learners``), as the background
kernel would have by then. Then every probe of that session without ``as_of`` asks three
systems the probe's query, each in the product's own output format and defaults:

- **RAG: archival search**: the ``archival_memory_search`` tool's output (archival hits,
  ``Context.search_page_size`` of them, ``tools.output.compact_page``);
- **RAG: blended search**: the hits of adaptive effort's blend (``blended_search`` with the
  plan of the offline intent, as the cognitive suite's KAG search), compacted the same way
  with the fact metadata (``current``, ``valid_to``) the cognitive tools show;
- **kernel: consult_memory**: the ``consult_memory`` tool's output (brief, confidence, top
  facts with ``current``, insights, patterns, alerts), template brief (no model).

Per system: **answer in output** (every expected string of the probe appears in the
text handed to the model), **contradictions resolved** on the probes of scenarios with a
superseded value (``SUPERSEDED``: L5/L6): the current value is in the output and the
superseded one appears in no item presented as current (an item is presented as current
unless it is a fact marked ``current: false``; the brief is one item, since the tutor reads
it as it is), **tokens returned** (``agent.heartbeat.tokens.count_text`` of the output) and
**latency** of the call.
"""

from __future__ import annotations

import dataclasses
import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from tqdm import tqdm

from agent.clock import ManualClock
from agent.context import Context
from agent.heartbeat.effort import classify_offline
from agent.heartbeat.tokens import count_text
from agent.memory.blend import PLANS, blended_search
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import MINILM, OFFLINE_MODEL, Settings
from bench.cognitive.dataset import (
    KAG_SET,
    MESSAGE_GAP,
    Probe,
    Scenario,
    default_dataset_path,
    load_cognitive,
)
from bench.cognitive.runner import send
from bench.kernel.cleanup import erase
from bench.kernel.drained import drain_all
from bench.kernel.timing import percentile, show_progress
from graphs.heartbeat import make_builder
from tools.output import compact_page

ARCHIVAL, BLENDED, CONSULT = "RAG: archival search", "RAG: blended search", "kernel: consult_memory"
SYSTEMS = (ARCHIVAL, BLENDED, CONSULT)
FACT_META = ("session_id", "role", "valid_from", "valid_to", "current")
SUPERSEDED = {
    "dev-L5-city": "da nang",
    "dev-L5-editor": "jupyter notebooks",
    "dev-L6-goal": "master sql joins",
    "kag-L5-os": "windows 10",
    "kag-L5-job": "part-time at a bookshop",
    "kag-L6-deadline": "april 30",
    "kag-L6-chapter": "chapter 3",
}
"""The value each contradiction scenario's newer statement replaced, worded as only the old
statement words it (the newer ones often name the old value too: "I switched from Windows")."""


@dataclass
class Output:
    """What one system handed back for one probe."""

    text: str
    items: list[tuple[str, bool | None]]
    """``(text, current)`` per item; ``current`` is None when the item says nothing about it."""
    seconds: float

    @property
    def tokens(self) -> int:
        """Tokens of the text the model receives."""
        return count_text(self.text)


@dataclass
class ProbeRow:
    """One probe on every system."""

    scenario: str
    level: str
    query: str
    expect: list[list[str]]
    superseded: str | None
    outputs: dict[str, Output] = field(default_factory=dict)

    def found(self, system: str) -> bool:
        """Every expected string is in the output."""
        text = self.outputs[system].text.lower()
        return all(s.lower() in text for item in self.expect for s in item)

    def resolved(self, system: str) -> bool | None:
        """The module docstring's rule; None when the scenario has no superseded value."""
        if self.superseded is None:
            return None
        out = self.outputs[system]
        old = self.superseded.lower()
        shown_as_current = any(old in t.lower() for t, current in out.items if current is not False)
        return self.found(system) and not shown_as_current

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (outputs cut to 600 characters)."""
        return {
            "scenario": self.scenario,
            "level": self.level,
            "query": self.query,
            "superseded": self.superseded,
            "systems": {
                s: {
                    "found": self.found(s),
                    "resolved": self.resolved(s),
                    "tokens": o.tokens,
                    "ms": round(o.seconds * 1e3, 2),
                    "text": o.text[:600],
                }
                for s, o in self.outputs.items()
            },
        }


@dataclass
class RagResult:
    """Every probe row of one run."""

    path: str
    rows: list[ProbeRow] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    learners: list[str] = field(default_factory=list)
    """The run's learner ids, one per scenario (erased after each)."""

    def summary(self) -> list[dict[str, Any]]:
        """One dict per system: probes, found, resolved (of contradiction probes), tokens, latency."""
        out = []
        for system in SYSTEMS:
            rows = [r for r in self.rows if system in r.outputs]
            contra = [r for r in rows if r.superseded is not None]
            seconds = [r.outputs[system].seconds for r in rows]
            tokens = [r.outputs[system].tokens for r in rows]
            out.append(
                {
                    "system": system,
                    "probes": len(rows),
                    "found": sum(r.found(system) for r in rows),
                    "contradictions": len(contra),
                    "resolved": sum(bool(r.resolved(system)) for r in contra),
                    "tokens_mean": sum(tokens) / len(tokens) if tokens else 0.0,
                    "tokens_p50": percentile(tokens, 0.5) if tokens else 0,
                    "ms_p50": percentile(seconds, 0.5) * 1e3 if seconds else 0.0,
                    "ms_p95": percentile(seconds, 0.95) * 1e3 if seconds else 0.0,
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what the notebook reads)."""
        return {
            "path": Path(self.path).name,
            "summary": self.summary(),
            "rows": [r.to_dict() for r in self.rows],
            "errors": self.errors,
            "lines": self.lines(),
        }

    def table(self) -> list[str]:
        """The summary as a markdown table."""
        lines = [
            "| system | probes | answer in output | contradictions resolved | tokens returned (mean) "
            "| latency p50 ms | latency p95 ms |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for s in self.summary():
            lines.append(
                f"| {s['system']} | {s['probes']} | {s['found']}/{s['probes']} | "
                f"{s['resolved']}/{s['contradictions']} | {s['tokens_mean']:.0f} | {s['ms_p50']:.1f} | "
                f"{s['ms_p95']:.1f} |"
            )
        return lines

    def lines(self) -> list[str]:
        """The printed report."""
        name = Path(self.path).name
        head = f"RAG against the kernel on {name}: {len(self.rows)} probes (as_of probes left out)"
        return [head, *self.table(), *(f"error: {e}" for e in self.errors)]


def _items_of_page(page: dict[str, Any]) -> list[tuple[str, bool | None]]:
    return [
        (str(h.get("text") or ""), (h.get("metadata") or {}).get("current")) for h in page.get("results", [])
    ]


async def _archival(stores: MemoryStores, learner: str, query: str, ctx: Context) -> Output:
    t0 = time.perf_counter()
    page = await stores.archival.search(
        learner, query, page_size=ctx.search_page_size, recipe=ctx.search_recipe
    )
    seconds = time.perf_counter() - t0
    data = page.to_dict()
    return Output(compact_page(data), _items_of_page(data), seconds)


async def _blended(stores: MemoryStores, learner: str, query: str) -> Output:
    t0 = time.perf_counter()
    hits = await blended_search(stores, learner, query, PLANS[classify_offline(query)])
    seconds = time.perf_counter() - t0
    data = {"results": [h.to_dict() for h in hits]}
    return Output(compact_page(data, FACT_META), _items_of_page(data), seconds)


async def _consult(tool: Any, learner: str, query: str) -> Output:
    t0 = time.perf_counter()
    text = await tool.ainvoke({"query": query, "learner_id": learner})
    seconds = time.perf_counter() - t0
    data = json.loads(text)
    items: list[tuple[str, bool | None]] = [(str(data.get("brief") or ""), None)]
    items += [(str(f.get("text") or ""), f.get("current")) for f in data.get("facts") or []]
    for key, field_name in (("insights", "text"), ("patterns", "description"), ("alerts", "text")):
        items += [(str(i.get(field_name) or ""), None) for i in data.get(key) or []]
    return Output(text, items, seconds)


async def run_scenario(base: Resources, scenario: Scenario, result: RagResult) -> None:
    """Ingest one scenario through the heartbeat and ask every probe on every system."""
    from agent.kernel.reflection.run import reflect_learners
    from agent.kernel.worker import build_worker
    from tools.consult_tools import make_consult_tools

    learner = str(uuid.uuid4())
    result.learners.append(learner)
    clock = ManualClock(scenario.sessions[0].date)
    bundle = Resources(
        base.settings,
        chat_model=base.chat_model,
        embeddings=base.embeddings,
        neo4j_driver=base.neo4j,
        redis_client=base.redis,
        clock=clock,
    )  # shares the run's clients: never closed here
    graph = make_builder(bundle).compile(checkpointer=InMemorySaver())
    stores = MemoryStores.wire(bundle)
    worker = build_worker(bundle, stores)
    [consult_tool] = make_consult_tools(stores, bundle)
    ctx = Context()
    try:
        for session in scenario.sessions:
            for turn, text in enumerate(session.learner):
                clock.set(session.message_time(turn))
                await send(graph, learner, session, turn, text)
            clock.set(session.end + MESSAGE_GAP)
            await drain_all(worker, stores, [learner])
            await reflect_learners(bundle, [learner])
            for _, probe in scenario.probes_after(session.id):
                if probe.as_of is None:
                    result.rows.append(await _ask(stores, consult_tool, learner, scenario, probe, ctx))
    except Exception as exc:  # a product failure is a result, not the end of the run
        result.errors.append(f"{scenario.id}: {type(exc).__name__}: {exc}")
    finally:
        await erase(bundle, stores, learner)


async def _ask(
    stores: MemoryStores, tool: Any, learner: str, scenario: Scenario, probe: Probe, ctx: Context
) -> ProbeRow:
    row = ProbeRow(
        scenario.id,
        scenario.level,
        probe.query,
        [list(i.all) for i in probe.expect],
        SUPERSEDED.get(scenario.id),
    )
    row.outputs[ARCHIVAL] = await _archival(stores, learner, probe.query, ctx)
    row.outputs[BLENDED] = await _blended(stores, learner, probe.query)
    row.outputs[CONSULT] = await _consult(tool, learner, probe.query)
    return row


def default_path() -> Path:
    """The dev set when it is there, else the KAG set."""
    path = default_dataset_path()
    return path if path.exists() else KAG_SET


async def run_rag(
    settings: Settings,
    path: str | Path | None = None,
    scenarios: tuple[str, ...] = (),
    *,
    progress: bool | None = None,
) -> RagResult:
    """Run the scenarios (all, or those named) and return every probe row."""
    path = Path(path or default_path())
    dataset = load_cognitive(path).select(scenarios)
    base = Resources(
        dataclasses.replace(settings, model=OFFLINE_MODEL, embeddings=MINILM, ingest_mode="kernel")
    )
    result = RagResult(str(path))
    try:
        for scenario in tqdm(
            dataset.scenarios,
            desc="cognitive scenarios",
            unit="scenario",
            disable=not show_progress(progress),
        ):
            await run_scenario(base, scenario, result)
    finally:
        await base.aclose()
    return result
