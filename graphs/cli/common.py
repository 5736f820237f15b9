"""What every ``kag`` command shares: settings, the console, running a coroutine, one-line errors.

Nothing heavy is imported at module level: ``kag --help`` must stay instant.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from rich.console import Console

    from agent.resources import Resources
    from agent.settings import Settings

T = TypeVar("T")

DEFAULT_LEARNER = "local"
"""The learner the commands act for when ``--learner`` is not given."""

EXIT_EXPECTED_FAILURE = 2
"""Exit code of a configuration or service problem (reported in one line, no traceback)."""

learner_option = click.option(
    "--learner",
    "learner_id",
    default=DEFAULT_LEARNER,
    show_default=True,
    metavar="ID",
    help="Learner id (a UUID or a slug).",
)


class ExpectedFailure(click.ClickException):
    """A failure the user can fix: printed as one ``error:`` line, exit code 2."""

    exit_code = EXIT_EXPECTED_FAILURE

    def show(self, file: Any = None) -> None:
        """Print ``error: MESSAGE`` on stderr (no usage text, no traceback)."""
        click.echo(f"error: {self.format_message()}", err=True, file=file)


@cache
def get_console() -> Console:
    """The shared rich console (imported on first use)."""
    from rich.console import Console

    return Console(highlight=False)


def load_settings() -> Settings:
    """``.env`` (never overriding the shell), then ``Settings.from_env``; bad values → ``ExpectedFailure``."""
    from agent.errors import ConfigError
    from agent.settings import Settings, load_env_file

    load_env_file()
    try:
        return Settings.from_env()
    except ConfigError as exc:
        raise ExpectedFailure(str(exc)) from exc


def run(
    work: Callable[[Settings], Coroutine[Any, Any, T]],
    *,
    services: Iterable[str] = ("neo4j", "redis"),
    settings: Settings | None = None,
) -> T:
    """Check ``services`` by protocol, then run ``work(settings)``; expected failures → ``ExpectedFailure``.

    A failure ``agent.hints.explain`` knows (a service down, a wrong password, a
    foreign program on a port, a bad value) becomes one line; anything else keeps
    its traceback, since it is a bug.
    """
    from agent.hints import check_services, explain

    settings = settings or load_settings()
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # its retry chatter is not for the CLI
    try:
        check_services(settings, services)
        return asyncio.run(work(settings))
    except click.ClickException:
        raise
    except Exception as exc:
        hint = explain(exc, settings)
        if hint is None:
            raise
        raise ExpectedFailure(hint) from exc


@asynccontextmanager
async def open_resources(settings: Settings, *, tracing: bool = True) -> AsyncIterator[Resources]:
    """A ``Resources`` bundle for one command, closed on the way out.

    ``tracing=False``: the command calls no model and runs no graph, so it skips configuring
    LangSmith (``Resources``; the chat model, if ever built, still configures it first).
    """
    from agent.resources import Resources

    resources = Resources(settings, tracing=tracing)
    try:
        yield resources
    finally:
        await resources.aclose()
