"""A-MEM linking: candidates by vector search, vetted by the model, weighted, capped.

1. Top-k most similar notes of the same learner (``note_store.candidate_notes``).
2. The chat model sees the new note and each candidate with its cosine and the
   days between them, and returns ``{id, relation, rationale, confidence}``.
   Offline, ``offline_decisions`` (documented below; not an LLM) decides.
3. Decisions below ``min_confidence`` are dropped.
4. ``weight = cosine × confidence × freshness`` with
   ``freshness = exp(-Δdays / FRESHNESS_TAU_DAYS)``, Δdays being the age gap
   between the new note and the candidate (a note revisiting an old topic gets
   a lighter link; ``decay_links`` later ages edges that are not used).
5. Every edge is mirrored except directional ones (refutes, predecessor, successor).
6. Each touched note keeps its ``degree_cap`` heaviest neighbours.
Edges carry their lineage: rationale, created_at, last_validated.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import neo4j
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agent.chat_models import is_offline_policy
from agent.errors import InvalidInputError
from agent.note_extraction import content_stems, invoke_json
from agent.note_models import DIRECTIONAL_RELATIONS, Failure, LinkDecision, LinkDecisions
from agent.note_store import candidate_notes, cap_degree, merge_links, run
from agent.prompts_zettelkasten import LINK_HUMAN, LINK_SYSTEM

FRESHNESS_TAU_DAYS = 60.0
# Offline linker thresholds on raw cosine (-1..1).
OFFLINE_STRONG_COSINE = 0.60
OFFLINE_WEAK_COSINE = 0.40
_WORDS = re.compile(r"[a-z0-9]+")


@dataclass
class LinkOutcome:
    """What linking one note did."""

    edges: list[dict[str, Any]] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    candidates: int = 0
    decisions: int = 0
    pruned: int = 0
    failure: Failure | None = None


def raw_cosine(score: float) -> float:
    """Neo4j reports cosine as (1 + cos) / 2; return cos itself."""
    return 2.0 * float(score) - 1.0


def days_between(a: str | None, b: str | None) -> float:
    """Absolute days between two ISO-8601 timestamps (0 when either is missing)."""
    if not a or not b:
        return 0.0
    return abs((datetime.fromisoformat(a) - datetime.fromisoformat(b)).total_seconds()) / 86400.0


def freshness(delta_days: float, tau_days: float = FRESHNESS_TAU_DAYS) -> float:
    """``exp(-Δdays / τ)``: 1 for notes written together, 0.61 after τ/2, 0.37 after τ."""
    return math.exp(-max(delta_days, 0.0) / tau_days)


def link_weight(cosine: float, confidence: float, fresh: float) -> float:
    """``cosine × confidence × freshness``, cosine clamped at 0."""
    return round(max(cosine, 0.0) * confidence * fresh, 6)


def _keywords(note: dict[str, Any]) -> set[str]:
    words = set(note.get("keywords") or [])
    words |= {w for w in _WORDS.findall(str(note.get("concept", "")).lower()) if len(w) > 2}
    return words


def offline_decisions(new: dict[str, Any], candidates: list[dict[str, Any]]) -> list[LinkDecision]:
    """The deterministic linker used offline (not an LLM).

    Link when cosine ≥ 0.60, or cosine ≥ 0.40 with at least one shared keyword
    (keywords plus concept words). ``confidence = min(0.95, 0.45 + 0.5·cos +
    0.05·shared)``. Relation: same concept → ``successor`` (new follows old);
    the new note's text names the candidate's concept → ``depends_on``; two or
    more shared keywords → ``elaborates``; otherwise ``supports``.
    """
    decisions: list[LinkDecision] = []
    new_words = _keywords(new)
    new_text = content_stems(str(new.get("text", "")))
    for cand in candidates:
        cos = cand["cosine"]
        shared = len(new_words & _keywords(cand))
        if not (cos >= OFFLINE_STRONG_COSINE or (cos >= OFFLINE_WEAK_COSINE and shared >= 1)):
            continue
        concept = str(cand.get("concept") or "").lower()
        cand_stems = content_stems(concept.rsplit(".", 1)[-1])
        if concept and concept == str(new.get("concept", "")).lower():
            relation, why = "successor", "revisits the same concept later"
        elif cand_stems and cand_stems <= new_text:
            relation, why = "depends_on", f"the note names {concept!r}"
        elif shared >= 2:
            relation, why = "elaborates", f"{shared} shared keywords"
        else:
            relation, why = "supports", f"similar (cosine {cos:.2f}), {shared} shared keyword(s)"
        decisions.append(
            LinkDecision(
                id=cand["id"],
                relation=relation,
                rationale=f"offline linker: {why}",
                confidence=round(min(0.95, 0.45 + 0.5 * cos + 0.05 * shared), 4),
            )
        )
    return decisions


def _describe(note: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": note.get("id"),
        "concept": note.get("concept"),
        "text": str(note.get("text", ""))[:600],
        "keywords": note.get("keywords") or [],
    }


async def model_decisions(
    model: BaseChatModel, new: dict[str, Any], candidates: list[dict[str, Any]]
) -> tuple[list[LinkDecision] | None, str | None, int]:
    """Ask the chat model to vet candidates; ids it invents are rejected and retried."""
    shown = [
        {**_describe(c), "cosine": round(c["cosine"], 4), "days_apart": round(c["days"], 2)}
        for c in candidates
    ]
    known = {c["id"] for c in candidates}

    def check(result: LinkDecisions) -> None:
        unknown = [d.id for d in result.decisions if d.id not in known]
        if unknown:
            raise ValueError(f"unknown candidate ids {unknown}; use only the ids shown")

    messages = [
        SystemMessage(LINK_SYSTEM),
        HumanMessage(
            LINK_HUMAN.format(
                new_note=json.dumps(_describe(new), ensure_ascii=False),
                candidates=json.dumps(shown, ensure_ascii=False, indent=1),
            )
        ),
    ]
    result, error, attempts = await invoke_json(model, messages, LinkDecisions, check=check)
    return (result.decisions if result else None), error, attempts


def build_edges(
    new: dict[str, Any],
    candidates: dict[str, dict[str, Any]],
    decisions: list[LinkDecision],
    *,
    min_confidence: float,
    now: str,
    tau_days: float = FRESHNESS_TAU_DAYS,
) -> list[dict[str, Any]]:
    """Turn kept decisions into edge rows, mirrored unless directional."""
    edges: list[dict[str, Any]] = []
    for decision in decisions:
        cand = candidates.get(decision.id)
        if cand is None or decision.confidence < min_confidence:
            continue
        directional = decision.relation in DIRECTIONAL_RELATIONS
        row = {
            "source": new["id"],
            "target": cand["id"],
            "relation": decision.relation,
            "confidence": decision.confidence,
            "cosine": round(cand["cosine"], 6),
            "weight": link_weight(cand["cosine"], decision.confidence, freshness(cand["days"], tau_days)),
            "rationale": decision.rationale,
            "directional": directional,
            "now": now,
        }
        edges.append(row)
        if not directional:
            edges.append({**row, "source": cand["id"], "target": new["id"]})
    return edges


async def link_note(
    driver: neo4j.AsyncDriver,
    model: BaseChatModel,
    learner_id: str,
    new: dict[str, Any],
    *,
    index_name: str,
    top_k: int = 10,
    min_confidence: float = 0.65,
    degree_cap: int = 12,
    exclude: list[str] | None = None,
    now: str,
    database: str | None = None,
) -> LinkOutcome:
    """Link ``new`` (``id, concept, text, keywords, created_at, embedding``) into the graph."""
    rows = await candidate_notes(
        driver,
        learner_id,
        new["embedding"],
        index_name=index_name,
        k=top_k,
        exclude=[new["id"], *(exclude or [])],
        database=database,
    )
    candidates = {
        r["note"]["id"]: {
            **r["note"],
            "cosine": raw_cosine(r["score"]),
            "days": days_between(new.get("created_at"), r["note"].get("created_at")),
        }
        for r in rows
    }
    outcome = LinkOutcome(candidates=len(candidates))
    if not candidates:
        return outcome
    if is_offline_policy(model):
        decisions: list[LinkDecision] | None = offline_decisions(new, list(candidates.values()))
    else:
        decisions, error, attempts = await model_decisions(model, new, list(candidates.values()))
        if decisions is None:
            outcome.failure = Failure(
                stage="link", concept=new.get("concept"), error=str(error), attempts=attempts
            )
            return outcome
    outcome.decisions = len(decisions)
    edges = build_edges(new, candidates, decisions, min_confidence=min_confidence, now=now)
    await merge_links(driver, learner_id, edges, database=database)
    outcome.edges = edges
    outcome.touched = list(dict.fromkeys(e["target"] for e in edges if e["source"] == new["id"]))
    outcome.pruned = await cap_degree(
        driver, learner_id, [new["id"], *outcome.touched], degree_cap, database=database
    )
    return outcome


# --- retrieval gains: expansion along links, usage feedback, decay -----------

_EXPAND = """
MATCH p = (s:Note)-[:LINKS_TO*1..{depth}]-(m:Note)
WHERE s.id IN $ids AND s.learner_id = $learner_id AND m.learner_id = $learner_id
  AND NOT m.id IN $ids
WITH m, length(p) AS hops, reduce(w = 1.0, r IN relationships(p) | w * r.weight) AS w
WITH m, max(w * $decay ^ (hops - 1)) AS score, min(hops) AS hops
RETURN m.id AS id, m.concept AS concept, m.text AS text, m.description AS description,
       m.tags AS tags, score, hops
ORDER BY score DESC, id LIMIT $limit
"""
EXPAND_DEPTH_1 = _EXPAND.replace("{depth}", "1")
EXPAND_DEPTH_2 = _EXPAND.replace("{depth}", "2")

REINFORCE = """
MATCH (a:Note)-[r:LINKS_TO]->(b:Note)
WHERE a.id IN $ids AND b.id IN $ids AND a.learner_id = $learner_id AND b.learner_id = $learner_id
SET r.weight = r.weight + $boost * (1.0 - r.weight), r.last_touch = $now,
    r.uses = coalesce(r.uses, 0) + 1
RETURN count(r) AS reinforced
"""

DECAY = """
MATCH (a:Note {learner_id: $learner_id})-[r:LINKS_TO]->(:Note)
WHERE r.last_touch < $cutoff
SET r.weight = r.weight * (1.0 - $rate)
WITH r, r.weight < $floor AS weak
CALL (r, weak) { WITH r, weak WHERE weak DELETE r }
RETURN count(*) AS decayed, sum(CASE WHEN weak THEN 1 ELSE 0 END) AS pruned
"""


async def expand_note_links(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    note_ids: list[str],
    *,
    depth: int = 1,
    decay: float = 0.5,
    limit: int = 20,
    database: str | None = None,
) -> list[dict[str, Any]]:
    """Notes reachable from ``note_ids`` within ``depth`` (1 or 2) links, best first.

    ``score`` = product of edge weights along the best path × ``decay^(hops-1)``;
    seeds are excluded, only this learner's notes are visited.
    """
    if depth not in (1, 2):
        raise InvalidInputError("depth must be 1 or 2")
    if not note_ids:
        return []
    records = await run(
        driver,
        EXPAND_DEPTH_1 if depth == 1 else EXPAND_DEPTH_2,
        {"ids": note_ids, "learner_id": learner_id, "decay": decay, "limit": limit},
        database=database,
    )
    return [dict(r) for r in records]


async def reinforce_links(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    note_ids: list[str],
    *,
    boost: float = 0.1,
    now: str | None = None,
    database: str | None = None,
) -> int:
    """Strengthen links among notes used together in a grounded answer.

    ``weight += boost × (1 − weight)`` (stays below 1); returns edges touched.
    """
    if len(set(note_ids)) < 2:
        return 0
    records = await run(
        driver,
        REINFORCE,
        {
            "ids": list(set(note_ids)),
            "learner_id": learner_id,
            "boost": boost,
            "now": now or utc_now(),
        },
        database=database,
        write=True,
    )
    return int(records[0]["reinforced"])


async def decay_links(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    rate: float,
    *,
    floor: float = 0.05,
    unused_since: str | None = None,
    database: str | None = None,
) -> dict[str, int]:
    """Weaken links untouched since ``unused_since`` (default now) by ``rate``; prune < floor."""
    if not 0.0 <= rate < 1.0:
        raise InvalidInputError("rate must be in [0, 1)")
    records = await run(
        driver,
        DECAY,
        {
            "learner_id": learner_id,
            "rate": rate,
            "floor": floor,
            "cutoff": unused_since or utc_now(),
        },
        database=database,
        write=True,
    )
    return {"decayed": int(records[0]["decayed"]), "pruned": int(records[0]["pruned"] or 0)}


def utc_now() -> str:
    """Now as ISO-8601 with timezone (UTC)."""
    return datetime.now(UTC).isoformat()
