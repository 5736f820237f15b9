"""A-MEM linking: candidates by vector search, vetted by the model, weighted, capped.

1. Top-k most similar notes of the same learner (``NoteStore.candidate_notes``).
2. The chat model sees the new note and each candidate with its cosine and the
   days between them, and returns ``{id, relation, rationale, confidence}``.
   Offline, ``offline_decisions`` (documented below; not an LLM) decides.
3. Decisions below ``min_confidence`` are dropped.
4. ``weight = cosine × confidence × freshness`` with
   ``freshness = exp(-Δdays / FRESHNESS_TAU_DAYS)``, Δdays being the age gap
   between the new note and the candidate (a note revisiting an old topic gets
   a lighter link).
5. Every edge is mirrored except directional ones (refutes, predecessor, successor).
6. Each touched note keeps its ``degree_cap`` heaviest neighbours.
Edges carry their lineage: rationale, created_at, last_validated.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agent.errors import InvalidInputError
from agent.models.chat import is_offline_policy
from agent.notes.extraction import invoke_json
from agent.notes.models import DIRECTIONAL_RELATIONS, Failure, LinkDecision, LinkDecisions, slugify
from agent.notes.prompts import LINK_HUMAN, LINK_SYSTEM
from agent.notes.store import NoteStore
from agent.notes.text import content_stems, normalise_concept, stem
from agent.text import STOP_WORDS

FRESHNESS_TAU_DAYS = 60.0
# Offline linker thresholds on raw cosine (-1..1), and its per-note link budget.
OFFLINE_STRONG_COSINE = 0.80
OFFLINE_WEAK_COSINE = 0.40
OFFLINE_SHARED_COSINE = 0.55
OFFLINE_NAMED_COSINE = 0.30  # naming the other note's concept is evidence by itself
OFFLINE_MAX_LINKS = 3


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
    """Keyword words (``left-join`` -> ``left``, ``join``), stemmed, without stop words."""
    words: set[str] = set()
    for keyword in note.get("keywords") or []:
        words |= {stem(w) for w in slugify(str(keyword)).split("-") if len(w) > 2 and w not in STOP_WORDS}
    return words


def cand_text(note: dict[str, Any]) -> set[str]:
    """Stemmed words of a note's text without its own leading ``concept:``."""
    text = str(note.get("text", ""))
    concept = str(note.get("concept") or "")
    if concept and text.startswith(f"{concept}:"):
        text = text[len(concept) + 1 :]
    return content_stems(text)


def offline_decisions(new: dict[str, Any], candidates: list[dict[str, Any]]) -> list[LinkDecision]:
    """The deterministic linker used offline (not an LLM). Every link needs evidence.

    Evidence, strongest first (concepts compared with ``normalise_concept``):

    1. the same concept → ``successor`` (new follows old), to the latest such note only,
       so revisits form a chain instead of a clique;
    2. one note's text names the other's concept → ``depends_on`` (cosine ≥ 0.30);
    3. the two concepts share a word ("left join", "inner join") → ``elaborates``;
    4. two or more shared keyword words (stemmed, stop words out) → ``elaborates``;
    5. one shared keyword word with cosine ≥ 0.55, or cosine ≥ 0.80 alone → ``supports``.

    Evidence 3–4 also need cosine ≥ 0.40. A note never links to itself, and keeps at
    most ``OFFLINE_MAX_LINKS`` (3) new links, the strongest first (then by cosine).
    ``confidence = min(0.95, 0.45 + 0.5·cos + 0.05·shared keyword words)``, plus 0.1 for
    concept evidence (1–3), so each kept link clears the 0.65 threshold.
    """
    new_id = new.get("id")
    new_concept = normalise_concept(str(new.get("concept") or ""))
    new_concept_words = set(new_concept.split())
    new_text = cand_text(new)
    new_words = _keywords(new) | new_concept_words
    same = [c for c in candidates if normalise_concept(str(c.get("concept") or "")) == new_concept]
    latest_same = max(same, key=lambda c: (str(c.get("created_at") or ""), c["cosine"]), default=None)
    scored: list[tuple[int, float, LinkDecision]] = []
    for cand in candidates:
        if cand["id"] == new_id:
            continue  # never a self-link
        cos = cand["cosine"]
        concept = normalise_concept(str(cand.get("concept") or ""))
        concept_words = set(concept.split())
        shared = len(new_words & (_keywords(cand) | concept_words))
        if concept and concept == new_concept:
            if cand is not latest_same:
                continue  # the chain reaches older revisits through the latest one
            strength, relation, why = 5, "successor", "revisits the same concept later"
        elif cos >= OFFLINE_NAMED_COSINE and concept_words and concept_words <= new_text:
            strength, relation, why = 4, "depends_on", f"the note names {cand.get('concept')!r}"
        elif cos >= OFFLINE_NAMED_COSINE and new_concept_words and new_concept_words <= cand_text(cand):
            strength, relation, why = 4, "depends_on", f"{cand.get('concept')!r} names this note's concept"
        elif cos < OFFLINE_WEAK_COSINE:
            continue
        elif concept_words & new_concept_words:
            strength, relation, why = 3, "elaborates", "the concepts share a word"
        elif shared >= 2:
            strength, relation, why = 2, "elaborates", f"{shared} shared keywords"
        elif shared == 1 and cos >= OFFLINE_SHARED_COSINE:
            strength, relation, why = 1, "supports", f"a shared keyword, cosine {cos:.2f}"
        elif cos >= OFFLINE_STRONG_COSINE:
            strength, relation, why = 1, "supports", f"very similar (cosine {cos:.2f})"
        else:
            continue  # similar, but no evidence
        bonus = 0.1 if strength >= 3 else 0.0
        confidence = round(min(0.95, 0.45 + 0.5 * max(cos, 0.0) + 0.05 * shared + bonus), 4)
        rationale = f"offline linker: {why}"
        decision = LinkDecision(id=cand["id"], relation=relation, rationale=rationale, confidence=confidence)
        scored.append((strength, cos, decision))
    scored.sort(key=lambda item: (-item[0], -item[1]))
    return [decision for _, _, decision in scored[:OFFLINE_MAX_LINKS]]


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
    store: NoteStore,
    model: BaseChatModel,
    learner_id: str,
    new: dict[str, Any],
    *,
    top_k: int = 10,
    min_confidence: float = 0.65,
    degree_cap: int = 12,
    exclude: list[str] | None = None,
    now: str,
) -> LinkOutcome:
    """Link ``new`` (``id, concept, text, keywords, created_at, embedding``) into the graph."""
    rows = await store.candidate_notes(
        learner_id, new["embedding"], k=top_k, exclude=[new["id"], *(exclude or [])]
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
    await store.merge_links(learner_id, edges)
    outcome.edges = edges
    outcome.touched = list(dict.fromkeys(e["target"] for e in edges if e["source"] == new["id"]))
    outcome.pruned = await store.cap_degree(learner_id, [new["id"], *outcome.touched], degree_cap)
    return outcome


# --- retrieval gains: expansion along links ----------------------------------


async def expand_note_links(
    store: NoteStore,
    learner_id: str,
    note_ids: list[str],
    *,
    depth: int = 1,
    decay: float = 0.5,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Notes reachable from ``note_ids`` within ``depth`` (1 or 2) links, best first.

    ``score`` = product of edge weights along the best path × ``decay^(hops-1)``;
    seeds are excluded, only this learner's notes are visited.
    """
    if depth not in (1, 2):
        raise InvalidInputError("depth must be 1 or 2")
    if not note_ids:
        return []
    return await store.expand_links(learner_id, note_ids, depth=depth, decay=decay, limit=limit)
