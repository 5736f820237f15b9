"""Synthesis: insights that emerge across the learner's messages, facts and notes.

Offline and deterministic by default (rules, no model). A run:

1. **scans** up to ``limit`` items not scanned yet (oldest first) and stores each one's
   signals (``rules.extract_signals``) on it with ``reflected_at``, so no item is scanned
   twice (system learning counts its ``reflection_struggles``);
2. **aggregates** the signals of the newest ``SIGNAL_CAP`` scanned items per concept;
3. **writes** the insights whose content differs from what is stored (at most ``limit``):
   ``struggle`` (at least ``MIN_EVIDENCE`` items with a struggle or error about the
   concept) and ``breakthrough`` (a breakthrough later than a struggle about it).

Insight ids hash (learner, concept key, category), so reruns MERGE onto the same node, and
a rerun with nothing new scans nothing and writes nothing. With a chat model that has
structured output the text is phrased by it (``phrasing``; the template stays in
``rules_text``, which reruns compare).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.kernel.reflection.phrasing import phrase_all
from agent.kernel.reflection.reports import StepReport
from agent.kernel.reflection.rules import (
    BREAKTHROUGH,
    ERROR,
    STRUGGLE,
    Signal,
    concept_key,
    extract_signals,
    stable_id,
    utc_text,
)
from agent.kernel.reflection.store import ReflectionStore

MIN_EVIDENCE = 2
"""Struggle/error items about one concept before it becomes an insight."""
MAX_EVIDENCE_LINKS = 50
"""Evidence links per insight or pattern (the newest items)."""
SIGNAL_CAP = 2000
"""Scanned items with signals a run aggregates (the newest)."""
PHRASED = ("text", "phrased_by")
"""Properties a model may phrase: reruns compare ``rules_text`` instead."""


@dataclass(frozen=True)
class Evidence:
    """One signal on one source item."""

    id: str
    source: str
    at: str
    session: str
    signal: Signal


@dataclass
class ConceptSignals:
    """Everything the learner's scanned items say about one concept."""

    key: str
    names: Counter[str] = field(default_factory=Counter)
    struggles: list[Evidence] = field(default_factory=list)
    """Struggle and error signals, newest first."""
    breakthroughs: list[Evidence] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The most frequent spelling (ties: alphabetical)."""
        return min(self.names.items(), key=lambda kv: (-kv[1], kv[0]))[0] if self.names else self.key


def session_of(item: dict[str, Any]) -> str:
    """The item's session: its ``session_id``, else ``day:<date>``."""
    return str(item.get("session_id") or f"day:{utc_text(item.get('at'))[:10]}")


def parse_signals(items: list[dict[str, Any]]) -> list[Evidence]:
    """The stored signals of scanned items (malformed ones skipped), in item order."""
    found: list[Evidence] = []
    for item in items:
        for raw in item.get("signals") or []:
            try:
                data = json.loads(raw)
                signal = Signal(
                    str(data["kind"]), str(data["concept"]), str(data["name"]), data.get("error_kind")
                )
            except (TypeError, ValueError, KeyError):
                continue
            found.append(
                Evidence(item["id"], item["source"], utc_text(item.get("at")), session_of(item), signal)
            )
    return found


def by_concept(evidence: list[Evidence]) -> dict[str, ConceptSignals]:
    """Group evidence by concept key (signals with no concept are left out)."""
    groups: dict[str, ConceptSignals] = {}
    for ev in evidence:
        if not ev.signal.concept:
            continue
        group = groups.setdefault(ev.signal.concept, ConceptSignals(ev.signal.concept))
        group.names[ev.signal.name] += 1
        if ev.signal.kind in (STRUGGLE, ERROR):
            group.struggles.append(ev)
        elif ev.signal.kind == BREAKTHROUGH:
            group.breakthroughs.append(ev)
    return groups


def evidence_rows(evidence: list[Evidence]) -> list[dict[str, str]]:
    """Distinct ``{id, source}`` of the newest ``MAX_EVIDENCE_LINKS`` items."""
    rows: dict[str, dict[str, str]] = {}
    for ev in sorted(evidence, key=lambda e: (e.at, e.id), reverse=True):
        if ev.id not in rows and len(rows) < MAX_EVIDENCE_LINKS:
            rows[ev.id] = {"id": ev.id, "source": ev.source}
    return sorted(rows.values(), key=lambda r: r["id"])


def distinct_items(evidence: list[Evidence]) -> int:
    """How many different items the evidence comes from."""
    return len({ev.id for ev in evidence})


def insights_for(learner_id: str, group: ConceptSignals) -> list[dict[str, Any]]:
    """The insights one concept's signals support: ``{id, props, evidence}``."""
    out: list[dict[str, Any]] = []
    struggles = group.struggles
    n = distinct_items(struggles)
    if n >= MIN_EVIDENCE:
        errors = distinct_items([e for e in struggles if e.signal.kind == ERROR])
        sessions = len({e.session for e in struggles})
        last = max(e.at for e in struggles)
        first = min(e.at for e in struggles)
        text = (
            f"Recurring difficulty with {group.name}: {n} signs of struggle in {sessions} session(s), "
            f"{errors} of them mistakes or errors (last {last[:10]})."
        )
        out.append(_insight(learner_id, group, "struggle", text, n, sessions, first, last, struggles))
    if struggles and group.breakthroughs:
        first_struggle = min(e.at for e in struggles)
        later = [b for b in group.breakthroughs if b.at > first_struggle]
        if later:
            when = max(b.at for b in later)
            before = [e for e in struggles if e.at <= when]
            tried = distinct_items(before)
            text = (
                f"Breakthrough on {group.name}: understood after {tried} sign(s) of struggle ({when[:10]})."
            )
            evidence = [*later, *before]
            count = distinct_items(evidence)
            sessions = len({e.session for e in evidence})
            out.append(
                _insight(
                    learner_id, group, "breakthrough", text, count, sessions, first_struggle, when, evidence
                )
            )
    return out


def _insight(
    learner_id: str,
    group: ConceptSignals,
    category: str,
    text: str,
    count: int,
    sessions: int,
    first: str,
    last: str,
    evidence: list[Evidence],
) -> dict[str, Any]:
    props = {
        "kind": "insight",
        "category": category,
        "concept": group.key,
        "concept_name": group.name,
        "text": text,
        "rules_text": text,
        "evidence_count": count,
        "confidence": round(count / (count + 1), 3),
        "sessions": sessions,
        "first_evidence_at": first,
        "last_evidence_at": last,
        "source": "rules",
    }
    node_id = stable_id("insight", learner_id, group.key, category)
    return {"id": node_id, "props": props, "evidence": evidence_rows(evidence)}


def changes(
    wanted: list[dict[str, Any]], stored: dict[str, dict[str, Any]], limit: int
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """The nodes to write (new evidence links only), and which of them are new or updated.

    A node is written when it is new, when a property differs from the stored one, or
    when it has evidence not linked yet; at most ``limit`` nodes (the rest next run).
    A node with ``rules_text`` is compared on it, not on its (possibly model-phrased) text.
    """
    writes: list[dict[str, Any]] = []
    created: list[str] = []
    updated: list[str] = []
    for node in sorted(wanted, key=lambda n: n["id"]):
        old = stored.get(node["id"])
        fresh = [r for r in node["evidence"] if old is None or r["id"] not in old["evidence"]]
        skip = PHRASED if "rules_text" in node["props"] else ()
        same = old is not None and all(
            old["props"].get(k) == v for k, v in node["props"].items() if k not in skip
        )
        if same and not fresh:
            continue
        if len(writes) == limit:
            break
        writes.append({**node, "evidence": fresh})
        (created if old is None else updated).append(node["id"])
    return writes, created, updated


async def scan(store: ReflectionStore, learner_id: str, limit: int) -> tuple[int, int, int]:
    """Scan up to ``limit`` new items; ``(scanned, marked, signals found)``."""
    batch = await store.unreflected(learner_id, limit)
    if not batch:
        return 0, 0, 0
    known = {concept_key(c): str(c).lower() for c in await store.known_concepts(learner_id) if concept_key(c)}
    rows, found = [], 0
    for item in batch:
        concept = item.get("concept") if item["source"] in ("fact", "note") else None
        signals = extract_signals(item.get("text") or "", concept=concept, known=known)
        found += len(signals)
        encoded = [
            json.dumps(
                {"kind": s.kind, "concept": s.concept, "name": s.name, "error_kind": s.error_kind},
                sort_keys=True,
            )
            for s in signals
        ]
        struggles = sorted({s.concept for s in signals if s.concept and s.kind in (STRUGGLE, ERROR)})
        rows.append({"id": item["id"], "source": item["source"], "signals": encoded, "struggles": struggles})
    marked = await store.mark(learner_id, rows)
    return len(batch), marked, found


async def synthesis(
    store: ReflectionStore, learner_id: str, *, limit: int, model: BaseChatModel | None = None
) -> StepReport:
    """Scan new items, then create or update the insights they support (module docstring).

    With a ``model`` that has structured output, the insights written get their text
    phrased by it (``phrasing``); offline they keep the template.
    """
    report = StepReport("synthesis")
    report.scanned, report.marked, signals = await scan(store, learner_id, limit)
    groups = by_concept(parse_signals(await store.signal_items(learner_id, SIGNAL_CAP)))
    wanted = [insight for group in groups.values() for insight in insights_for(learner_id, group)]
    writes, report.created, report.updated = changes(
        wanted, await store.existing(learner_id, "Insight"), limit
    )
    phrased = await phrase_all(model, learner_id, [w["props"]["rules_text"] for w in writes])
    for write, (text, by) in zip(writes, phrased, strict=True):
        write["props"] = {**write["props"], "text": text, "phrased_by": by}
    await store.upsert(learner_id, "Insight", writes)
    report.details = {"signals": signals, "concepts": len(groups), "insights": len(wanted)}
    return report
