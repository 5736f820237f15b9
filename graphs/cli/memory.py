"""``kag memory show|edit`` (core memory in Redis) and ``kag search`` (archival and recall memory).

Both go through the same stores the tools use (``agent.memory``), with the same
limits: section names, the per-section character limit (``KAG_CORE_SECTION_LIMIT``),
at most 12 sections, learner ids, page sizes.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from graphs.cli.common import learner_option, open_resources, run

if TYPE_CHECKING:
    from agent.memory.core import CoreMemoryStore
    from agent.resources import Resources
    from agent.settings import Settings


def core_store(resources: Resources) -> CoreMemoryStore:
    """The core memory store with the run-time limits of ``Context`` (``KAG_CORE_*``)."""
    from agent.context import Context
    from agent.memory.core import CoreMemoryStore

    context = Context()
    return CoreMemoryStore(
        resources.redis,
        section_limit=context.core_section_limit,
        ttl_seconds=context.core_ttl_seconds,
        driver=resources.neo4j,  # Neo4j holds the durable copy; Redis is its cache
        embeddings=resources.embeddings,
        database=resources.database,
    )


def format_sections(sections: dict[str, str]) -> list[str]:
    """Core memory as text: ``[section]`` headers, then the section's lines (or ``(empty)``)."""
    lines: list[str] = []
    for name, text in sections.items():
        lines.append(f"[{name}]")
        rows = [row for row in text.splitlines() if row.strip()]
        lines.extend(f"  {row}" for row in rows or ["(empty)"])
    return lines


@click.group("memory")
def memory_group() -> None:
    """Show or edit a learner's core memory (the sections pinned in every prompt)."""


@memory_group.command("show")
@learner_option
def memory_show(learner_id: str) -> int:
    """Print every core memory section of the learner."""

    async def work(settings: Settings) -> int:
        async with open_resources(settings, tracing=False) as resources:
            sections = await core_store(resources).read(learner_id)
        for line in format_sections(sections):
            click.echo(line)
        return 0

    return run(work, services=("redis",))


@memory_group.command("edit")
@click.argument("section")
@click.argument("text")
@click.option(
    "--replace", "old", metavar="OLD", help="Replace this exact text with TEXT (empty TEXT deletes it)."
)
@learner_option
def memory_edit(section: str, text: str, old: str | None, learner_id: str) -> int:
    """Append TEXT to SECTION (e.g. user_profile, current_goals), or replace OLD with TEXT."""

    async def work(settings: Settings) -> int:
        async with open_resources(settings, tracing=False) as resources:
            store = core_store(resources)
            if old is None:
                sections = await store.append(learner_id, section, text)
            else:
                sections = await store.replace(learner_id, section, old, text)
        click.echo("\n".join(format_sections({section: sections.get(section, "")})))
        return 0

    return run(work, services=("redis",))


_STAMP = re.compile(r"^\d{1,2}:\d{2}\s*[ap]m on \d{1,2} \w+,? \d{4}\.\s*", re.I)
_REPLYING = re.compile(r"\s*\(replying to .*\)\s*$", re.S)
_WHO = {
    "user": "you said",
    "assistant": "the tutor said",
    "turn_context": "you said",
    "fact": "you told me",
    "note": "your note",
    "summary": "session summary",
    "episode": "session summary",
}


def _machine_text(text: str, role: str) -> bool:
    """A tool call's rendering, a tool result or any JSON blob: not something anyone said."""
    if role in {"tool", "function", "system"} or text.startswith("[calls "):
        return True
    if text[:1] in "{[":
        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    return False


def _when(created: str) -> str:
    try:
        moment = datetime.fromisoformat(created)
    except ValueError:
        return ""
    return f"{moment.day} {moment:%b %Y, %H:%M}"


def format_hits(page: dict[str, Any], *, verbose: bool = False, limit: int | None = None) -> list[str]:
    """Search results for a learner: who said what, when, in which session (named by its date).

    Tool calls, tool results and JSON never show; a text already shown is not repeated.
    ``verbose`` adds each hit's kind and score, and shows the stored text as it is.
    """
    hits = page.get("results") or []
    lines: list[str] = []
    shown: set[str] = set()
    sessions: dict[str, str] = {}
    for hit in hits:
        meta = hit.get("metadata") or {}
        role = str(meta.get("role") or "")
        text = " ".join(str(hit.get("text", "")).split())
        if not verbose:
            if _machine_text(text, role):
                continue
            text = _REPLYING.sub("", _STAMP.sub("", text))
        key = text.lower()
        if not text or key in shown or (limit is not None and len(shown) >= limit):
            continue
        shown.add(key)
        created = str(hit.get("created_at") or "")
        when = _when(created)
        who = _WHO.get(role) or _WHO.get(str(hit.get("kind", "")), "remembered")
        head = f"{len(shown):>2}. {who}" + (f", {when}" if when else "")
        session = str(meta.get("session_id") or "")
        if session:
            day, _, clock = when.rpartition(", ")
            if session not in sessions:
                same_day = sum(1 for label in sessions.values() if label.startswith(f"session of {day}"))
                sessions[session] = f"session of {day or 'an earlier day'}" + (
                    f" (#{same_day + 1})" if same_day else ""
                )
            head = f"{len(shown):>2}. {who}" + (f" at {clock}" if clock else "") + f" · {sessions[session]}"
        if verbose:
            head += f" · {hit.get('kind', '')} {float(hit.get('score', 0.0)):.3f} {session}".rstrip()
        lines += [head, f"    {text}"]
    if not lines:
        lines = ["nothing found"]
    if page.get("degraded"):
        lines.append("(Neo4j is unreachable: these come from the recent-items cache in Redis)")
    return lines


@click.command("search")
@click.argument("query")
@learner_option
@click.option(
    "--kind",
    type=click.Choice(["archival", "conversation"]),
    default="archival",
    show_default=True,
    help="archival: memories, summaries and notes; conversation: every past message, verbatim.",
)
@click.option("--limit", type=click.IntRange(1, 50), default=5, show_default=True, help="Results to show.")
@click.option("--verbose", "-v", is_flag=True, help="Also show each result's kind, score and session id.")
def search_command(query: str, learner_id: str, kind: str, limit: int, verbose: bool) -> int:
    """Search what the learner said and what was remembered for QUERY: what, when, which session."""

    async def work(settings: Settings) -> int:
        from agent.context import Context
        from agent.memory.stores import search_stores

        recipe = Context().search_recipe
        async with open_resources(settings, tracing=False) as resources:
            # The product's stores: conversation search also sees messages the kernel has not written yet.
            archival, recall = search_stores(resources)
            if kind == "archival":
                # Tool renderings and repeats are skipped: ask for more than will be shown.
                result = await archival.search(
                    learner_id, query, page=0, page_size=min(50, 3 * limit), recipe=recipe
                )
            else:
                result = await recall.search(learner_id, query, page=0, page_size=min(50, 3 * limit))
        click.echo("\n".join(format_hits(result.to_dict(), verbose=verbose, limit=limit)))
        return 0

    return run(work)
