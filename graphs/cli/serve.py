"""``kag serve``: the LangGraph dev server for this project, found from anywhere, failing in one line.

The project is the directory holding KAG's ``langgraph.json``, found in this order:
``KAG_PROJECT_DIR``; the current directory or one above it; the source the ``kag``
package was installed from (an editable install). Its ``.env`` is loaded without
overriding the shell (langgraph.json names no env file: the server would let the file
override the shell), the settings and the token table are checked before the server
starts (a bad value is one ``error:`` line, not a traceback from inside the server), and
logs carry no colour codes when stdout is not a terminal or ``NO_COLOR`` is set.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import click

from graphs.cli.common import ExpectedFailure, load_settings

PROJECT_VAR = "KAG_PROJECT_DIR"
CONFIG = "langgraph.json"
NOT_FOUND = (
    f"no KAG project found ({CONFIG} with the kag graph): run kag serve inside the checkout "
    f"or set {PROJECT_VAR}=/path/to/kag"
)


def is_project(directory: Path) -> bool:
    """``directory`` holds a ``langgraph.json`` that serves the ``kag`` graph."""
    try:
        config = json.loads((directory / CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and "kag" in (config.get("graphs") or {})


def find_project(cwd: Path, environ: Mapping[str, str], installed: Path) -> Path:
    """The project directory (module docstring's order); ``ExpectedFailure`` naming the fix."""
    named = environ.get(PROJECT_VAR)
    if named:
        if not is_project(Path(named)):
            raise ExpectedFailure(f"{PROJECT_VAR}={named}: no {CONFIG} with the kag graph there")
        return Path(named).resolve()
    for directory in (cwd, *cwd.parents):
        if is_project(directory):
            return directory
    if is_project(installed):
        return installed
    raise ExpectedFailure(NOT_FOUND)


def colour_environment(environ: Mapping[str, str], *, tty: bool) -> dict[str, str]:
    """What the server's environment needs so its logs are plain text off a terminal."""
    if tty and not environ.get("NO_COLOR"):
        return {}
    # langgraph_api renders logs with structlog's ConsoleRenderer(colors=LOG_COLOR).
    return {"LOG_COLOR": "false", "NO_COLOR": environ.get("NO_COLOR") or "1"}


def check_token_table() -> None:
    """Load the token table as the server will: a malformed one is one ``error:`` line now."""
    from agent.errors import ConfigError
    from agent.server.tokens import TokenTable

    try:
        TokenTable.from_settings(load_settings())
    except ConfigError as exc:
        raise ExpectedFailure(str(exc)) from exc


@click.command(
    "serve",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.option("--port", type=int, default=None, help="Port (default: 2024, or the next free one).")
@click.option("--host", default=None, help="Interface to bind (default: 127.0.0.1).")
@click.option("--no-browser", is_flag=True, help="Do not open LangGraph Studio in a browser.")
@click.argument("extra", nargs=-1, type=click.UNPROCESSED)
def serve_command(port: int | None, host: str | None, no_browser: bool, extra: tuple[str, ...]) -> int:
    """Serve the tutor's graphs (kag, zettelkasten, reflection, consult) on a local LangGraph server.

    Works from any directory: the project is found through KAG_PROJECT_DIR, the current
    directory or its parents, or the installed source. The project's .env is read without
    overriding the shell; settings and the token table are checked first. Any other
    option (EXTRA) goes to `langgraph dev` unchanged, e.g. `kag serve -- --n-jobs-per-worker 4`.
    """
    installed = Path(__file__).resolve().parents[2]
    project = find_project(Path.cwd(), os.environ, installed)
    from agent.settings import load_env_file

    load_env_file(project / ".env")  # the project's .env, wherever kag serve was started
    check_token_table()  # also loads .env from the cwd and checks every setting
    langgraph = Path(sys.executable).with_name("langgraph")
    if not langgraph.exists():
        raise ExpectedFailure(f"{langgraph} not found: install the project (make install)")
    os.environ.update(colour_environment(os.environ, tty=sys.stdout.isatty()))
    args = ["--config", str(project / CONFIG)]
    args += ["--port", str(port)] if port is not None else []
    args += ["--host", host] if host else []
    args += ["--no-browser"] if no_browser else []
    os.chdir(project)  # the config's relative paths ("." and ./graphs/...) are the project's
    os.execv(str(langgraph), [str(langgraph), "dev", *args, *extra])
    return 0  # not reached
