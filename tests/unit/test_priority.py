"""Background CPU work runs on one low-priority thread; everything else as before."""

from __future__ import annotations

import asyncio
import os
import sys
import threading

import pytest

from agent.priority import BACKGROUND_NICE, background, in_background, on_background_thread, run_cpu


def where() -> tuple[str, int]:
    """The calling thread's name and nice value."""
    tid = threading.get_native_id()
    return threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, tid)


def base_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_background_work_runs_on_the_low_priority_thread() -> None:
    async def main() -> tuple[tuple[str, int], tuple[str, int], tuple[str, int]]:
        foreground = await run_cpu(where)
        with background():
            assert in_background()
            inside = await run_cpu(where)
            # Tasks started inside inherit the mark (the worker's gathered drains).
            child = await asyncio.create_task(run_cpu(where))
        assert not in_background()
        return foreground, inside, child

    nice = base_nice()
    foreground, inside, child = asyncio.run(main())
    assert not foreground[0].startswith("kag-background")
    assert foreground[1] == nice
    for name, value in (inside, child):
        assert name.startswith("kag-background")
        assert value == min(19, nice + BACKGROUND_NICE)


def test_run_cpu_passes_arguments_and_errors_through() -> None:
    def boom(x: int) -> int:
        raise ValueError(f"bad {x}")

    async def main() -> int:
        with background():
            with pytest.raises(ValueError, match="bad 3"):
                await run_cpu(boom, 3)
            return await run_cpu(pow, 2, 5)

    assert asyncio.run(main()) == 32


def test_the_low_priority_threads_know_they_are_background() -> None:
    async def main() -> tuple[bool, bool, bool]:
        foreground = await run_cpu(on_background_thread)
        with background():
            inside = await run_cpu(on_background_thread)
        return foreground, inside, on_background_thread()

    assert asyncio.run(main()) == (False, True, False)
