"""``kag``: the command line (click; every heavy import waits inside its command).

- ``kag chat``: talk to the tutor on one thread (stdin); ``/end`` writes the session's notes.
- ``kag ask QUESTION``: one request through the heartbeat, printed as JSON.
- ``kag memory show|edit``: a learner's core memory.
- ``kag erase LEARNER``: delete everything stored for a learner (asks for the id; ``--yes``).
- ``kag notes list|show|export``: a learner's Zettelkasten notes (export: Obsidian Markdown).
- ``kag search QUERY``: archival memory or past conversations.
- ``kag smoke``: one round trip through Neo4j, Redis, embeddings and the model.
- ``kag demo``: the scripted three-session conversation.
- ``kag serve``: the local LangGraph server for the project, found from any directory (``graphs.cli.serve``).
- ``kag kernel run|stats``: the memory kernel's worker in plain Python (``--once`` drains), its backlog.
- ``kag reflect``: reflection now, for one learner or every active one.
- ``kag eval locomo|ablations|cognitive ...``: the evaluations, handed to ``python -m bench.<name>``.

Every command reads ``.env`` (only the variables the shell has not set). Expected
failures (a service down, a wrong password, something else on a service's port, a
bad setting) print one ``error:`` line naming the variable or the command to run,
and exit with status 2.
"""

from __future__ import annotations

import importlib.util
import logging
import runpy
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from graphs.cli.common import get_console, run
from graphs.cli.erase import erase_command
from graphs.cli.kernel import kernel_group, reflect_command
from graphs.cli.memory import memory_group, search_command
from graphs.cli.notes import notes_group
from graphs.cli.serve import serve_command
from graphs.cli.session import ask_command, chat_command, demo_command

if TYPE_CHECKING:
    from agent.settings import Settings

__all__ = ["EVALUATIONS", "cli", "get_console", "main", "run_evaluation"]

EVALUATIONS = {
    "locomo": ("bench.locomo", "LoCoMo retrieval (evidence recall@k); see python -m bench.locomo -h"),
    "ablations": ("bench.ablations", "ablation variants and baselines; see python -m bench.ablations -h"),
    "cognitive": (
        "bench.cognitive",
        "cognitive memory suite (PATH: kag-cognitive-v1 scenarios); see python -m bench.cognitive -h",
    ),
}
"""``kag eval NAME`` → the bench module it runs as ``python -m MODULE``."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """KAG: a tutor whose memory never runs out (MemGPT-style memory on LangGraph)."""


cli.add_command(chat_command)
cli.add_command(ask_command)
cli.add_command(memory_group)
cli.add_command(notes_group)
cli.add_command(search_command)
cli.add_command(demo_command)
cli.add_command(kernel_group)
cli.add_command(reflect_command)
cli.add_command(erase_command)
cli.add_command(serve_command)


@cli.command("smoke")
def smoke_command() -> int:
    """Touch every service once: Neo4j, Redis, embeddings, one model tool call."""
    return run(smoke)


async def smoke(settings: Settings) -> int:
    """Write and read a probe in Neo4j and Redis, embed a sentence, ask the model for one tool call."""
    import uuid

    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool

    from agent.graphdb.queries import PROBE_DELETE, PROBE_READ, PROBE_WRITE
    from graphs.cli.common import open_resources

    probe = f"smoke-{uuid.uuid4().hex[:8]}"
    async with open_resources(settings) as resources:
        await resources.neo4j.verify_authentication()
        await resources.neo4j.execute_query(PROBE_WRITE, id=probe)
        records, _, _ = await resources.neo4j.execute_query(PROBE_READ, id=probe)
        await resources.neo4j.execute_query(PROBE_DELETE, id=probe)
        click.echo(f"neo4j   write/read ok: {records[0]['id']}")
        await resources.redis.set(f"kag:smoke:{probe}", "ok", ex=60)
        click.echo(f"redis   write/read ok: {await resources.redis.get(f'kag:smoke:{probe}')}")
        vector = resources.embeddings.embed_query("SQL joins combine rows from two tables")
        click.echo(f"embed   {resources.embeddings.model_name}: dimension {len(vector)}")

        @tool
        def core_memory_append(section: str, content: str) -> str:
            """Append to core memory."""
            return "ok"

        reply = resources.chat_model.bind_tools([core_memory_append]).invoke([HumanMessage("I am Ana.")])
        click.echo(f"model   {settings.chat_model_id} tool call: {reply.tool_calls}")
        return 0 if reply.tool_calls else 1


@cli.group("eval")
def eval_group() -> None:
    """Evaluations: run the bench package (a source checkout) as python -m bench.<name>."""


def _add_evaluation(name: str, help_text: str) -> None:
    @eval_group.command(
        name,
        help=help_text,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        add_help_option=False,
    )
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def evaluation(args: tuple[str, ...]) -> int:
        return run_evaluation(name, list(args))


for _name, (_, _help) in EVALUATIONS.items():
    _add_evaluation(_name, _help)


def run_evaluation(name: str, args: list[str]) -> int:
    """Hand ``kag eval NAME ARGS...`` to ``python -m bench.NAME ARGS...``; return its exit code.

    The bench package is located by name at run time (``runpy``), never imported
    by the product, so the import contract "agent, graphs, tools never import
    bench" holds and the CLI keeps no copy of the benchmark logic.
    """
    module, _ = EVALUATIONS[name]
    if not _bench_available(module):
        click.echo(f"error: {module} not found: kag eval needs a source checkout", err=True)
        return 2
    saved = sys.argv[:]
    sys.argv = [f"python -m {module}", *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as done:
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        click.echo(str(code), err=True)
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
    root = Path(__file__).resolve().parents[2]
    if not (root / "bench" / "__init__.py").is_file():
        return False
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``kag`` console script; returns the exit status."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        result = cli.main(args=argv, prog_name="kag", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("aborted", err=True)
        return 1
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    return result if isinstance(result, int) else 0
