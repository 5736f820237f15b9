"""Commands that talk through the heartbeat graph: ``kag ask``, ``kag chat``, ``kag demo``.

Each opens one ``Resources`` bundle and one Redis checkpoint saver
(``agent.checkpoint.AsyncRedisSaver``), so a thread survives between commands:
``kag ask --thread T`` and ``kag chat --thread T`` continue the same conversation.
Every run names its learner as the threads' owner (``owned_config``), so another
learner's thread is refused and ``kag erase`` finds every thread the learner wrote.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import click

from graphs.cli.common import get_console, learner_option, open_resources, run

if TYPE_CHECKING:
    from agent.context import Context
    from agent.settings import Settings

CHAT_HELP = "/end [TEXT] closes the session and writes its notes · /quit leaves · Ctrl-D leaves"


def request_context(thread_id: str, concept: str | None, *, end_session: bool) -> dict[str, Any]:
    """The design's request ``context``: session id, the concept studied, whether the session ends."""
    context: dict[str, Any] = {"session_id": thread_id, "end_session": end_session}
    if concept:
        context["current_concept"] = concept
    return context


async def run_request(
    graph: Any,
    learner_id: str,
    request: str,
    thread_id: str,
    context: Context,
    *,
    concept: str | None = None,
    end_session: bool = False,
    show_phases: bool = True,
) -> dict:
    """Stream one request through ``graph``, printing every phase if asked; return the output."""
    from rich.markup import escape

    from agent.checkpoint.owners import owned_config
    from agent.validation import validate_learner_id

    # The learner owns the thread's checkpoints, as on the server: erasure finds them by owner.
    config = owned_config(thread_id, validate_learner_id(learner_id))
    output: dict = {}
    payload = {
        "learner_id": learner_id,
        "request": request,
        "context": request_context(thread_id, concept, end_session=end_session),
    }
    async for mode, chunk in graph.astream(
        payload, config, context=context, stream_mode=["custom", "values"]
    ):
        if mode == "values":
            output = {k: chunk[k] for k in ("response", "artifacts", "memory_state") if k in chunk}
            continue
        if not show_phases:
            continue
        phase = chunk.get("phase")
        details = {k: v for k, v in chunk.items() if k != "phase"}
        if phase == "think" and details.get("tool_calls"):
            details = {"step": details["step"], "tool_calls": details["tool_calls"]}
        get_console().print(f"   [cyan]{phase:<8}[/cyan] {escape(json.dumps(details, default=str)[:220])}")
    return output


async def close_session(
    graph: Any, learner_id: str, thread_id: str, context: Context, *, concept: str | None = None
) -> dict | None:
    """Close the thread's session without a learner message: only the ``notes`` step runs.

    The request context is marked ``end_session`` as if the last answer had carried it
    (``aupdate_state(..., as_node="think")``; routing reads state alone), then the run
    resumes with no input, so nothing joins the conversation or its summary. ``None``
    when the thread has nothing to close (no answer yet).
    """
    from agent.checkpoint.owners import owned_config
    from agent.validation import validate_learner_id

    config = owned_config(thread_id, validate_learner_id(learner_id))
    snapshot = await graph.aget_state(config)
    if not (snapshot.values or {}).get("fifo_queue"):
        return None
    ending = {
        **(snapshot.values.get("context") or {}),
        **request_context(thread_id, concept, end_session=True),
    }
    config = await graph.aupdate_state(config, {"context": ending}, as_node="think")
    output: dict = {}
    async for chunk in graph.astream(None, config, context=context, stream_mode="values"):
        output = {k: chunk[k] for k in ("artifacts", "memory_state") if k in chunk}
    return output


@asynccontextmanager
async def heartbeat(settings: Settings) -> AsyncIterator[Any]:
    """The heartbeat graph compiled with the Redis checkpoint saver, for one command."""
    from agent.checkpoint import AsyncRedisSaver
    from agent.checkpoint.base import DEFAULT_PREFIX
    from graphs.heartbeat import make_builder

    # The server's prefix (KAG_CHECKPOINT_PREFIX) too: one store of threads, one erasure.
    prefix = settings.checkpoint_prefix or DEFAULT_PREFIX
    keep = settings.checkpoint_keep or None
    async with (
        open_resources(settings) as resources,
        AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix, keep=keep) as saver,
    ):
        await saver.setup()
        yield make_builder(resources).compile(checkpointer=saver, name="kag")


def format_notes(artifacts: list[dict[str, Any]]) -> list[str]:
    """The notes a session wrote, one block of lines per note, named by concept."""
    if not artifacts:
        return ["no notes were written for this session"]
    names = {a["note_id"]: str(a.get("content", "")).split(":", 1)[0] for a in artifacts}
    lines = [f"{len(artifacts)} note(s) written (kag notes export DIR saves them as Markdown):"]
    for artifact in artifacts:
        tags = ", ".join(artifact.get("tags") or [])
        lines.append(f"- {names[artifact['note_id']]}" + (f"  [{tags}]" if tags else ""))
        body = str(artifact.get("content", "")).split(":", 1)[-1].strip()
        lines.append(f"  {body}")
        links = artifact.get("links") or []
        if links:
            earlier = len([n for n in links if n not in names])
            named = [names[n] for n in links if n in names]
            lines.append(
                "  linked to: " + ", ".join(named + ([f"{earlier} earlier note(s)"] if earlier else []))
            )
    return lines


# ----- kag ask -----
@click.command("ask")
@click.argument("question")
@learner_option
@click.option("--thread", "thread_id", metavar="ID", help="Thread to continue (default: the learner id).")
@click.option("--concept", metavar="C", help="The concept being studied, e.g. sql.joins.")
@click.option("--end-session", is_flag=True, help="Close the session after the answer and write its notes.")
def ask_command(
    question: str, learner_id: str, thread_id: str | None, concept: str | None, end_session: bool
) -> int:
    """Send one QUESTION through the heartbeat and print the output as JSON."""

    async def work(settings: Settings) -> int:
        from agent.context import Context

        async with heartbeat(settings) as graph:
            out = await run_request(
                graph,
                learner_id,
                question,
                thread_id or learner_id,
                Context(),
                concept=concept,
                end_session=end_session,
            )
        get_console().print_json(json.dumps(out, default=str))
        return 0

    return run(work)


# ----- kag chat -----
@click.command("chat")
@learner_option
@click.option("--thread", "thread_id", metavar="ID", help="Thread to continue (default: a new one).")
@click.option("--concept", metavar="C", help="The concept being studied, e.g. sql.joins.")
@click.option("--phases", is_flag=True, help="Print the heartbeat's phases as they run.")
def chat_command(learner_id: str, thread_id: str | None, concept: str | None, phases: bool) -> int:
    """Talk to the tutor on one thread; reads lines from stdin (pipe them in to script a session)."""
    thread_id = thread_id or f"{learner_id}-{uuid.uuid4().hex[:8]}"

    async def work(settings: Settings) -> int:
        from agent.context import Context

        context = Context()
        interactive = sys.stdin.isatty()
        click.echo(f"chat: learner {learner_id}, thread {thread_id}. {CHAT_HELP}")
        async with heartbeat(settings) as graph:
            while True:
                if interactive:
                    click.echo("you> ", nl=False)
                line = await asyncio.to_thread(sys.stdin.readline)
                if not line:
                    break  # end of input: leave without closing the session
                text = line.strip()
                if not text:
                    continue
                if text in {"/quit", "/exit"}:
                    break
                end = text == "/end" or text.startswith("/end ")
                request = text[4:].strip() if end else text
                if text.startswith("/") and not end:
                    click.echo(f"unknown command {text.split()[0]}; {CHAT_HELP}")
                    continue
                if end and not request:  # closing says nothing: no learner line joins the session
                    closed = await close_session(graph, learner_id, thread_id, context, concept=concept)
                    if closed is None:
                        click.echo("nothing to close: this session has no messages yet")
                        break
                    click.echo("\n".join(format_notes(closed.get("artifacts") or [])))
                    break
                out = await run_request(
                    graph,
                    learner_id,
                    request,
                    thread_id,
                    context,
                    concept=concept,
                    end_session=end,
                    show_phases=phases,
                )
                click.echo(f"kag> {out.get('response', '')}")
                if end:
                    click.echo("\n".join(format_notes(out.get("artifacts") or [])))
                    break
        click.echo(f"bye (continue with: kag chat --learner {learner_id} --thread {thread_id})")
        return 0

    return run(work)


# ----- kag demo -----
@click.command("demo")
def demo_command() -> int:
    """Run the scripted three-session demo on the embedded defaults."""
    return run(demo)


async def demo(settings: Settings) -> int:
    """The three-session demo; 0 when pressure crossed 70%, every check passed, and notes were written.

    Each session-3 turn is a ``graphs.demo_script.Probe`` naming the exact fact its reply
    must quote; the demo prints pass/fail per probe. ``graphs.demo_script.memory_checks``
    then asks the cognitive stores for the updated fact (now and ``as_of`` a time between
    sessions 1 and 2), the reminder that fired exactly once, and the recalled procedure.
    """
    from rich.markup import escape
    from rich.table import Table

    from agent.clock import system_clock
    from agent.context import Context
    from agent.memory.stores import MemoryStores
    from graphs.demo_script import DEMO_MAX_TOKENS, PROBES, SESSIONS, Probe, memory_checks, probe_passes

    console = get_console()
    learner_id = f"demo-{uuid.uuid4().hex[:8]}"
    context = Context(max_tokens=DEMO_MAX_TOKENS)
    crossed, notes = 0, 0
    probes = {probe.request: probe for probe in PROBES}
    verdicts: list[tuple[Probe, bool]] = []
    out: dict = {}
    replies: list[str] = []
    between = ""
    console.rule("[bold]KAG demo[/bold]")
    console.print(
        f"model: [bold]{settings.chat_model_id}[/bold]"
        + (" (the offline policy: deterministic rules, NOT an LLM)" if settings.offline else "")
        + f" · embeddings: {settings.embeddings_id} · learner: {learner_id}"
        + f" · max_tokens: {DEMO_MAX_TOKENS} (demo budget; default 8192)"
    )
    async with heartbeat(settings) as graph:
        for index, (title, turns) in enumerate(SESSIONS):
            if index == 1:
                between = system_clock().isoformat()  # after session 1, before session 2
            console.rule(title)
            thread_id = f"{learner_id}-{title.split(':')[0]}"
            for i, request in enumerate(turns):
                console.print(f"[bold green]learner>[/bold green] {escape(request)}")
                last = i == len(turns) - 1
                out = await run_request(
                    graph, learner_id, request, thread_id, context, concept="sql.joins", end_session=last
                )
                notes += len(out.get("artifacts", []))
                response = out.get("response", "")
                replies.append(response)
                console.print(f"[bold magenta]kag>[/bold magenta] {escape(response)}\n")
                if request in probes:
                    probe = probes[request]
                    ok = probe_passes(probe, response)
                    verdicts.append((probe, ok))
                    mark = "[green]PASS[/green]" if ok else "[bold red]FAIL[/bold red]"
                    console.print(f"probe {mark}: expects {escape(repr(probe.expect))} from {probe.source}\n")
                state = out.get("memory_state", {})
                crossed = max(crossed, state.get("archive_successes", 0))
        console.rule("final output (the design's output schema)")
        console.print_json(json.dumps(out, default=str))
    async with open_resources(settings) as resources:
        checks = await memory_checks(
            MemoryStores.wire(resources), learner_id, between=between, replies=replies
        )
    recalled = len(verdicts) == len(PROBES) and all(ok for _, ok in verdicts)
    recalled = recalled and all(ok for _, ok in checks)
    table = Table(title="demo checks")
    table.add_column("check")
    table.add_column("result")
    table.add_row("pressure crossed 70% and auto-archived", "yes" if crossed else "NO")
    for probe, ok in verdicts:
        table.add_row(
            f"probe: {escape(probe.request)} → {escape(repr(probe.expect))}",
            "PASS" if ok else "FAIL",
        )
    for check, ok in checks:
        table.add_row(f"memory: {escape(check)}", "PASS" if ok else "FAIL")
    table.add_row("Zettelkasten notes written (ARTIFACT_READY)", str(notes) if notes else "NO")
    console.print(table)
    return 0 if crossed and recalled and notes else 1
