"""Read-only Neo4j views the dashboard shows: note list, hybrid note search, graph, summaries.

``DashboardReads`` is a ``Neo4jStore`` (errors mapped in one place); every query is
scoped by the learner (``agent.server.dashboard.queries``). Note search is KAG's
hybrid retrieval over notes: the note vector index (``NoteStore.candidate_notes``,
oversampled and filtered by learner) and the note full-text index, fused with
reciprocal rank fusion (RRF, k = 60).
"""

from __future__ import annotations

from typing import Any

from agent.errors import StoreError
from agent.graphdb.store import Neo4jStore, check_text, fetch
from agent.notes.concept_maps import note_concept_map
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.server.dashboard.queries import (
    ALL_NOTES_FULL,
    GRAPH_EDGES,
    LIST_NOTES,
    NOTE_DETAIL,
    NOTES_BY_ID,
    SUMMARIES,
)
from agent.server.dashboard.words import day_words

RRF_K = 60
MAX_QUERY_BYTES = 2000
MAX_NOTES = 500


def with_concept_map(note: dict[str, Any], outgoing: list[dict[str, Any]]) -> dict[str, Any]:
    """``note`` plus its Mermaid concept map, drawn as the pipeline draws it (escaped labels)."""
    links = [
        {"target": x["id"], "target_concept": x.get("concept"), "relation": x.get("relation"), **x}
        for x in outgoing
    ]
    return {**note, "concept_map": note_concept_map({**note, "links": links})}


def _card(row: dict[str, Any]) -> dict[str, Any]:
    note = dict(row["note"])
    note["degree"] = int(row.get("degree") or 0)
    note["tags"] = list(note.get("tags") or [])
    note["keywords"] = list(note.get("keywords") or [])
    return note


class DashboardReads(Neo4jStore):
    """What the dashboard pages read from Neo4j, for one learner at a time."""

    async def list_notes(self, learner_id: str, limit: int = MAX_NOTES) -> list[dict[str, Any]]:
        """The newest notes first, as cards (concept, tags, keywords, degree)."""
        rows = await self.read(lambda tx: fetch(tx, LIST_NOTES, learner_id=learner_id, limit=limit))
        return [_card(r) for r in rows]

    async def search_notes(
        self, resources: Resources, learner_id: str, query: str, k: int = 20
    ) -> list[dict]:
        """Hybrid note search (vector + full text, RRF); each card carries its ``score``."""
        query = check_text(query, "query", MAX_QUERY_BYTES).strip()
        if not query:
            return await self.list_notes(learner_id)
        notes = NoteStore.for_resources(resources)
        ranked: dict[str, float] = {}
        try:
            await notes.ensure_schema()
            vector = await notes.embed_query(query)
            hits = await notes.candidate_notes(learner_id, vector, k=k, exclude=[])
        except StoreError:
            hits = []
        for rank, hit in enumerate(hits):
            ranked[hit["note"]["id"]] = ranked.get(hit["note"]["id"], 0.0) + 1.0 / (RRF_K + rank + 1)
        try:
            stems = [w for w in query.split() if w.isalnum()]
            rows = await notes.text_hits(learner_id, query, k=k, prefixes=stems)
        except StoreError:
            rows = []
        for rank, row in enumerate(rows):
            ranked[row["id"]] = ranked.get(row["id"], 0.0) + 1.0 / (RRF_K + rank + 1)
        if not ranked:
            return []
        ids = sorted(ranked, key=lambda i: -ranked[i])[:k]
        rows = await self.read(lambda tx: fetch(tx, NOTES_BY_ID, ids=ids, learner_id=learner_id))
        cards = {r["note"]["id"]: {**_card(r), "score": round(ranked[r["note"]["id"]], 5)} for r in rows}
        return [cards[i] for i in ids if i in cards]

    async def note(self, learner_id: str, note_id: str) -> dict[str, Any] | None:
        """One note with its typed links (``outgoing`` tells the direction) and their count, or None."""
        note_id = check_text(note_id, "note id", 200)
        rows = await self.read(lambda tx: fetch(tx, NOTE_DETAIL, id=note_id, learner_id=learner_id))
        if not rows:
            return None
        note = dict(rows[0]["note"])
        note.pop("audit_json", None)
        links: dict[tuple[str, str], dict[str, Any]] = {}
        for link in map(dict, rows[0]["links"]):
            key = (link["id"], str(link.get("relation")))
            if key in links and not link.get("directional"):
                links[key]["mirrored"] = True  # a symmetric relation is stored both ways
                continue
            links.setdefault(key, {**link, "mirrored": False})
        outgoing = [x for x in rows[0]["links"] if x.get("outgoing")]
        note["links"] = list(links.values())
        note["degree"] = len(note["links"])  # what the card counts (LIST_NOTES): one per listed link
        return with_concept_map(note, [dict(x) for x in outgoing])

    async def all_notes(self, learner_id: str) -> list[dict[str, Any]]:
        """Every note with its outgoing links, oldest first (the export)."""
        rows = await self.read(lambda tx: fetch(tx, ALL_NOTES_FULL, learner_id=learner_id))
        notes = []
        for row in rows:
            links = [dict(x) for x in row["links"]]
            notes.append({**with_concept_map(dict(row["note"]), links), "links": links})
        notes.sort(key=lambda n: n.get("seq") or 0)
        return notes

    async def graph(self, learner_id: str) -> dict[str, list[dict[str, Any]]]:
        """Cytoscape-ready ``{nodes, edges}``; a mirrored (undirected) link appears once."""
        nodes = await self.list_notes(learner_id)
        rows = await self.read(lambda tx: fetch(tx, GRAPH_EDGES, learner_id=learner_id))
        edges, seen = [], set()
        for row in rows:
            a, b, relation = row["source"], row["target"], row["relation"]
            key = (a, b, relation) if row["directional"] else (min(a, b), max(a, b), relation)
            if key in seen:
                continue
            seen.add(key)
            edges.append({**dict(row), "id": f"{a}->{b}:{relation}"})
        shown = [
            {
                "id": n["id"],
                "concept": n.get("concept") or "",
                "tags": n["tags"],
                "degree": n["degree"],
                "activation": n.get("activation"),
            }
            for n in nodes
        ]
        return {"nodes": shown, "edges": edges}

    async def summaries(self, learner_id: str, limit: int = 20, turns: int = 40) -> list[dict[str, Any]]:
        """Archived session summaries, newest first, each with (up to ``turns``) source turns."""
        params = {"learner_id": learner_id, "limit": limit, "turns": turns}
        rows = await self.read(lambda tx: fetch(tx, SUMMARIES, **params))
        now = self.clock()
        return [
            {
                **dict(r["summary"]),
                "day": day_words(r["summary"].get("created_at"), now),
                "turns": [dict(t) for t in r["turns"]],
                "turn_count": r["turn_count"],
            }
            for r in rows
        ]
