"""``kag``: the command line.

- ``kag smoke``: one round trip through Neo4j, Redis, embeddings and the offline model.
- ``kag demo``: the scripted three-session conversation through the heartbeat.
- ``kag ask LEARNER REQUEST``: one request through the heartbeat.
- ``kag eval ablations [--small]``: every ablation variant and baseline over the learner script.
- ``kag eval locomo [PATH] [--presets ...]``: LoCoMo evidence recall@k of every search preset.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import logging
import runpy
import sys
import uuid
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.errors import KAGError

if TYPE_CHECKING:  # heavy imports stay inside the commands, so ``kag --help`` is fast
    from rich.console import Console

    from agent.context import Context
    from agent.settings import Settings

EVALUATIONS = {
    "locomo": ("bench.locomo", "LoCoMo retrieval (evidence recall@k); see python -m bench.locomo -h"),
    "ablations": ("bench.ablations", "ablation variants and baselines; see python -m bench.ablations -h"),
}
"""``kag eval NAME`` → the bench module it runs as ``python -m MODULE``."""


@cache
def get_console() -> Console:
    """The shared rich console (imported on first use)."""
    from rich.console import Console

    return Console()


async def _run_request(
    graph: Any, learner_id: str, request: str, thread_id: str, context: Context, *, end_session: bool = False
) -> dict:
    """Stream one request, printing every phase; return the output."""
    from rich.markup import escape

    config = {"configurable": {"thread_id": thread_id}}
    output: dict = {}
    request_context = {"session_id": thread_id, "current_concept": "sql.joins", "end_session": end_session}
    async for mode, chunk in graph.astream(
        {"learner_id": learner_id, "request": request, "context": request_context},
        config,
        context=context,
        stream_mode=["custom", "values"],
    ):
        if mode == "values":
            output = {k: chunk[k] for k in ("response", "artifacts", "memory_state") if k in chunk}
            continue
        phase = chunk.get("phase")
        details = {k: v for k, v in chunk.items() if k != "phase"}
        if phase == "think" and details.get("tool_calls"):
            details = {"step": details["step"], "tool_calls": details["tool_calls"]}
        get_console().print(f"   [cyan]{phase:<8}[/cyan] {escape(json.dumps(details, default=str)[:220])}")
    return output


async def demo(settings: Settings) -> int:
    """Run the three-session demo on the embedded defaults."""
    from rich.markup import escape
    from rich.table import Table

    from agent.checkpoint import AsyncRedisSaver
    from agent.context import Context
    from agent.resources import Resources
    from graphs.demo_script import DEMO_MAX_TOKENS, SESSIONS
    from graphs.heartbeat import make_builder

    console = get_console()
    resources = Resources(settings)

    learner_id = f"demo-{uuid.uuid4().hex[:8]}"
    context = Context(max_tokens=DEMO_MAX_TOKENS)
    crossed, recalled, notes = 0, False, 0
    console.rule("[bold]KAG demo[/bold]")
    console.print(
        f"model: [bold]{settings.chat_model_id}[/bold]"
        + (" (the offline policy: deterministic rules, NOT an LLM)" if settings.offline else "")
        + f" · embeddings: {settings.embeddings_id} · learner: {learner_id}"
        + f" · max_tokens: {DEMO_MAX_TOKENS} (demo budget; default 8192)"
    )
    try:
        async with AsyncRedisSaver.from_conn_string(settings.redis_url) as saver:
            await saver.setup()
            graph = make_builder(resources).compile(checkpointer=saver, name="kag")
            for title, turns in SESSIONS:
                console.rule(title)
                thread_id = f"{learner_id}-{title.split(':')[0]}"
                for i, request in enumerate(turns):
                    console.print(f"[bold green]learner>[/bold green] {escape(request)}")
                    last = i == len(turns) - 1
                    out = await _run_request(graph, learner_id, request, thread_id, context, end_session=last)
                    notes += len(out.get("artifacts", []))
                    console.print(f"[bold magenta]kag>[/bold magenta] {escape(out.get('response', ''))}\n")
                    state = out.get("memory_state", {})
                    crossed = max(crossed, state.get("archive_successes", 0))
                    if title.startswith("session-3") and "From your memory" in out.get("response", ""):
                        recalled = recalled or "nothing matched" not in out["response"]
            console.rule("final output (the design's output schema)")
            console.print_json(json.dumps(out, default=str))
    finally:
        await resources.aclose()
    table = Table(title="demo checks")
    table.add_column("check")
    table.add_column("result")
    table.add_row("pressure crossed 70% and auto-archived", "yes" if crossed else "NO")
    table.add_row("session 3 recalled archived facts via search", "yes" if recalled else "NO")
    table.add_row("Zettelkasten notes written (ARTIFACT_READY)", str(notes) if notes else "NO")
    console.print(table)
    return 0 if crossed and recalled and notes else 1


async def smoke(settings: Settings) -> int:
    """Touch every service once: Neo4j, Redis, embeddings, one offline tool call."""
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from rich.markup import escape

    from agent.resources import Resources

    console = get_console()
    resources = Resources(settings)
    probe = f"smoke-{uuid.uuid4().hex[:8]}"
    try:
        await resources.neo4j.execute_query("MERGE (p:KagProbe {id: $id})", id=probe)
        records, _, _ = await resources.neo4j.execute_query(
            "MATCH (p:KagProbe {id: $id}) RETURN p.id AS id", id=probe
        )
        await resources.neo4j.execute_query("MATCH (p:KagProbe {id: $id}) DELETE p", id=probe)
        console.print(f"neo4j   write/read ok: {records[0]['id']}")
        await resources.redis.set(f"kag:smoke:{probe}", "ok", ex=60)
        console.print(f"redis   write/read ok: {await resources.redis.get(f'kag:smoke:{probe}')}")
        vector = resources.embeddings.embed_query("SQL joins combine rows from two tables")
        console.print(f"embed   {resources.embeddings.model_name}: dimension {len(vector)}")

        @tool
        def core_memory_append(section: str, content: str) -> str:
            """Append to core memory."""
            return "ok"

        reply = resources.chat_model.bind_tools([core_memory_append]).invoke([HumanMessage("I am Ana.")])
        console.print(escape(f"model   {settings.chat_model_id} tool call: {reply.tool_calls}"))
        return 0 if reply.tool_calls else 1
    finally:
        await resources.aclose()


async def ask(settings: Settings, learner_id: str, request: str, thread_id: str) -> int:
    """Send one request through the heartbeat and print the output."""
    from agent.checkpoint import AsyncRedisSaver
    from agent.context import Context
    from agent.resources import Resources
    from graphs.heartbeat import make_builder

    resources = Resources(settings)
    try:
        async with AsyncRedisSaver.from_conn_string(settings.redis_url) as saver:
            await saver.setup()
            graph = make_builder(resources).compile(checkpointer=saver)
            out = await _run_request(graph, learner_id, request, thread_id, Context())
            get_console().print_json(json.dumps(out, default=str))
    finally:
        await resources.aclose()
    return 0


def run_evaluation(name: str, args: list[str]) -> int:
    """Hand ``kag eval NAME ARGS...`` to ``python -m bench.NAME ARGS...``; return its exit code.

    The bench package is located by name at run time (``runpy``), never imported
    by the product, so the import contract "agent, graphs, tools never import
    bench" holds and the CLI keeps no copy of the benchmark logic.
    """
    module, _ = EVALUATIONS[name]
    if not _bench_available(module):
        get_console().print(f"[red]error:[/red] {module} not found: kag eval needs a source checkout")
        return 2
    saved = sys.argv[:]
    sys.argv = [f"python -m {module}", *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as done:
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        get_console().print(str(code))
        return 1
    finally:
        sys.argv = saved
    return 0


def _bench_available(module: str) -> bool:
    """True when ``module`` can be found; falls back to this source checkout's root.

    An editable install made before ``bench`` became a package does not map it,
    so the checkout root (the parent of ``graphs/``) is tried as well.
    """
    try:
        if importlib.util.find_spec(module) is not None:
            return True
    except ModuleNotFoundError:
        pass
    root = Path(__file__).resolve().parents[1]
    if not (root / "bench" / "__init__.py").is_file():
        return False
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def build_parser() -> argparse.ArgumentParser:
    """The ``kag`` argument parser (imports nothing heavy)."""
    parser = argparse.ArgumentParser(prog="kag", description=(__doc__ or "kag").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("smoke", help="touch Neo4j, Redis, embeddings and the model once")
    sub.add_parser("demo", help="run the three-session demo")
    p_ask = sub.add_parser("ask", help="send one request through the heartbeat")
    p_ask.add_argument("learner_id")
    p_ask.add_argument("request")
    p_ask.add_argument("--thread", default=None)
    p_eval = sub.add_parser("eval", help="evaluations (run the bench package)")
    evals = p_eval.add_subparsers(dest="evaluation", required=True)
    for name, (_, help_text) in EVALUATIONS.items():
        evals.add_parser(name, help=help_text, add_help=False)  # main() hands these over unparsed
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kag`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) >= 2 and argv[0] == "eval" and argv[1] in EVALUATIONS:
        return run_evaluation(argv[1], argv[2:])  # everything after the name is the bench's
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        from agent.settings import Settings

        settings = Settings.from_env()
        if args.command == "smoke":
            return asyncio.run(smoke(settings))
        if args.command == "demo":
            return asyncio.run(demo(settings))
        return asyncio.run(ask(settings, args.learner_id, args.request, args.thread or args.learner_id))
    except KAGError as exc:
        get_console().print(f"[red]error:[/red] {exc}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
