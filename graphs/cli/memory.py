"""``kag memory show|edit`` (core memory in Redis) and ``kag search`` (archival and recall memory).

Both go through the same stores the tools use (``agent.memory``), with the same
limits: section names, the per-section character limit (``KAG_CORE_SECTION_LIMIT``),
at most 12 sections, learner ids, page sizes.
"""

from __future__ import annotations

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
        async with open_resources(settings) as resources:
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
        async with open_resources(settings) as resources:
            store = core_store(resources)
            if old is None:
                sections = await store.append(learner_id, section, text)
            else:
                sections = await store.replace(learner_id, section, old, text)
        for line in format_sections({section: sections.get(section, "")}):
            click.echo(line)
        return 0

    return run(work, services=("redis",))


def format_hits(page: dict[str, Any]) -> list[str]:
    """Search results as numbered lines: score, kind, date, then the text."""
    hits = page.get("results") or []
    if not hits:
        return ["no results"]
    lines = []
    for i, hit in enumerate(hits, 1):
        meta = hit.get("metadata") or {}
        where = " ".join(str(meta[k]) for k in ("role", "session_id") if meta.get(k))
        created = str(hit.get("created_at") or "")[:19]
        lines.append(
            f"{i:>2}. {float(hit.get('score', 0.0)):.3f}  {hit.get('kind', '')}  {created}  {where}".rstrip()
        )
        lines.append(f"    {' '.join(str(hit.get('text', '')).split())}")
    if page.get("degraded"):
        lines.append("(degraded: Neo4j is unreachable; these come from the recent-items cache in Redis)")
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
def search_command(query: str, learner_id: str, kind: str, limit: int) -> int:
    """Search the learner's archival memory or past conversations for QUERY."""

    async def work(settings: Settings) -> int:
        from agent.context import Context
        from agent.memory.stores import MemoryStores

        recipe = Context().search_recipe
        async with open_resources(settings) as resources:
            # The product's stores: conversation search also sees messages the kernel has not written yet.
            stores = MemoryStores.wire(resources)
            if kind == "archival":
                archival = stores.archival
                result = await archival.search(learner_id, query, page=0, page_size=limit, recipe=recipe)
            else:
                result = await stores.recall.search(learner_id, query, page=0, page_size=limit)
        for line in format_hits(result.to_dict()):
            click.echo(line)
        return 0

    return run(work)
