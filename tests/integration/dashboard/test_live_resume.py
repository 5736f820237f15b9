"""The live stream resumes from ``Last-Event-ID``: after a reconnect no note is lost or repeated."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from agent.notes.artifacts import read_since
from agent.resources import Resources
from tests.integration.dashboard.seed import seed_note

pytestmark = [pytest.mark.integration, pytest.mark.server]
FRAME = re.compile(r"id: (\S+)\nevent: ARTIFACT_READY\ndata: (.*)\n")


async def events_after(
    url: str, token: str, last_id: str | None, want: int, seconds: float = 30
) -> list[tuple[str, str]]:
    """``(stream id, data)`` of the first ``want`` notes the stream sends (within ``seconds``)."""
    headers = {"Authorization": f"Bearer {token}"}
    if last_id is not None:
        headers["Last-Event-ID"] = last_id
    text = ""
    async with (
        httpx.AsyncClient(base_url=url, timeout=60) as http,
        http.stream("GET", "/dashboard/api/live", headers=headers) as response,
    ):
        assert response.status_code == 200
        try:
            async with asyncio.timeout(seconds):
                async for chunk in response.aiter_text():
                    text += chunk
                    if len(FRAME.findall(text)) >= want:
                        break
        except TimeoutError:
            pass
    return FRAME.findall(text)


async def test_live_stream_resumes_after_the_last_id_it_sent(dashboard_server, resources: Resources) -> None:
    cai = dashboard_server.learners["cai"]
    first = await seed_note(
        resources, cai.learner_id, "window function", "A window function computes over a frame."
    )
    second = await seed_note(
        resources, cai.learner_id, "partition by", "PARTITION BY splits the rows into frames."
    )
    stream = await read_since(resources.redis, cai.learner_id, "0-0")
    ids = [e.stream_id for e in stream if e.artifact["note_id"] in {first, second}]
    assert len(ids) == 2
    everything = await events_after(dashboard_server.url, cai.token, "0-0", want=len(stream))
    assert [sid for sid, _ in everything][-2:] == ids
    resumed = await events_after(dashboard_server.url, cai.token, ids[0], want=1)
    assert [sid for sid, _ in resumed] == [ids[1]] and second in resumed[0][1]
    assert await events_after(dashboard_server.url, cai.token, ids[1], want=1, seconds=4) == []
