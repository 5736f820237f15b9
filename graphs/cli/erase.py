"""``kag erase LEARNER``: delete everything KAG stores for one learner (``agent.memory.erasure``).

Asks the user to type the learner id again (``--yes`` skips it, for scripts), then prints
what went, one line per store. A store that is down leaves its part: the command names
it in one ``error:`` line and exits with status 2; running it again finishes the job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from graphs.cli.common import ExpectedFailure, open_resources, run

if TYPE_CHECKING:
    from agent.settings import Settings


@click.command("erase")
@click.argument("learner_id", metavar="LEARNER")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation (for scripts).")
def erase_command(learner_id: str, yes: bool) -> int:
    """Erase LEARNER everywhere: checkpoints of every thread, Redis keys, Neo4j nodes."""
    from agent.errors import InvalidInputError
    from agent.validation import validate_learner_id

    try:
        learner_id = validate_learner_id(learner_id)
    except InvalidInputError as exc:
        raise ExpectedFailure(str(exc)) from exc
    if not yes:
        typed = click.prompt(f"This deletes every memory, note and conversation of {learner_id}. Type its id")
        if typed.strip() != learner_id:
            raise ExpectedFailure("the id typed does not match; nothing was erased")

    async def work(settings: Settings) -> int:
        from agent.memory.erasure import ErasureIncompleteError, erase_learner

        async with open_resources(settings) as resources:
            try:
                report = await erase_learner(resources, learner_id)
            except ErasureIncompleteError as exc:
                for line in exc.report.lines():
                    click.echo(line)
                raise ExpectedFailure(str(exc)) from exc
        for line in report.lines():
            click.echo(line)
        click.echo(f"erased {learner_id}")
        # The server's own thread and run records live in the server process; its erase route
        # runs this same erasure plus them (the checkpoints of server threads went above).
        click.echo("server: its thread records go with the dashboard's 'Delete my data' (same erasure)")
        return 0

    # No service check first: a store that is down is reported with what it still holds.
    return run(work, services=())
