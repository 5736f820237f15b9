"""Redis restarts mid-run: turns and checkpoint writes wait briefly instead of failing (issue 18).

Each test owns a redis-server on a free port (``tests.private_redis``); the shared :6379
is never restarted. A restart replays the AOF (``LOADING`` for about two seconds here:
20,000 keys, slowed by Redis's ``key-load-delay``), and the clients' pooled connections
all go stale. The shared Neo4j is used as usual, with a fresh learner per test.
"""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio.retry
from langchain_core.messages import HumanMessage

from agent.checkpoint import AsyncRedisSaver
from agent.context import Context
from agent.errors import StoreUnavailableError
from agent.memory.core import CoreMemoryStore
from agent.models.offline_policy import OfflinePolicyModel
from agent.redis_retry import RETRIES, retry_budget
from agent.resources import Resources
from graphs.heartbeat import make_builder
from tests.private_redis import PrivateRedis

LOADING_KEYS = 20_000
LOAD_DELAY_US = 50  # about 1-2 s of LOADING: inside the retry budget (5.75-11.5 s)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop(signal.SIGKILL)


@pytest.fixture
async def bundle(private_redis: PrivateRedis, resources: Resources) -> AsyncIterator[Resources]:
    """Shared Neo4j and embeddings; Redis is the private server, through the retrying client."""
    settings = resources.settings.with_overrides(redis_url=private_redis.url)
    own = Resources(
        settings,
        chat_model=OfflinePolicyModel(),
        embeddings=resources.embeddings,
        neo4j_driver=resources.neo4j,
    )
    yield own
    await own.redis.aclose()


def _restart_into_loading(server: PrivateRedis) -> None:
    server.populate(LOADING_KEYS)
    server.restart(key_load_delay=LOAD_DELAY_US, wait=False)
    assert server.reply().startswith("-LOADING"), "the restart should still be loading"


async def test_turns_and_checkpoints_wait_for_a_loading_redis(
    private_redis: PrivateRedis, bundle: Resources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn after a restart waits out ``LOADING`` in its retries' backoffs, inside the retry budget.

    The waits are counted, not timed (a loaded machine stretches a turn's wall time, not them):
    each backoff is recorded as the retrying client really sleeps it.
    """
    _, high = retry_budget()
    slept: list[float] = []

    async def backoff(seconds: float) -> None:
        slept.append(seconds)
        await real_sleep(seconds)

    real_sleep = redis.asyncio.retry.sleep
    learner = f"restart-{uuid.uuid4().hex[:10]}"
    config = {"configurable": {"thread_id": learner}}
    ctx = Context(max_tokens=200_000)
    async with AsyncRedisSaver.from_conn_string(private_redis.url) as saver:
        await saver.setup()
        graph = make_builder(bundle).compile(checkpointer=saver)
        await graph.ainvoke({"learner_id": learner, "request": "My name is Dana."}, config, context=ctx)
        before = len([c async for c in saver.alist(config)])

        _restart_into_loading(private_redis)  # every pooled connection is now stale, and Redis loads
        monkeypatch.setattr(redis.asyncio.retry, "sleep", backoff)
        out = await graph.ainvoke(
            {"learner_id": learner, "request": "Remember that a primary key identifies a row."},
            config,
            context=ctx,
        )
        assert out["response"]
        # It waited (stale connections and LOADING are retried, not errors), and briefly: all its
        # retries together slept less than one command's whole budget (LOADING lasts about 1-2 s).
        assert slept and sum(slept) <= high
        assert private_redis.reply() == "+PONG"

        state = await graph.aget_state(config)
        humans = [m.content for m in state.values["messages"] if isinstance(m, HumanMessage)]
        assert humans[-2:] == ["My name is Dana.", "Remember that a primary key identifies a row."]
        assert len([c async for c in saver.alist(config)]) > before


async def test_stale_pooled_connections_are_replaced(private_redis: PrivateRedis, bundle: Resources) -> None:
    learner = f"stale-{uuid.uuid4().hex[:10]}"
    core = CoreMemoryStore(bundle.redis)
    cfg = {"configurable": {"thread_id": learner, "checkpoint_ns": ""}}
    async with AsyncRedisSaver.from_conn_string(private_redis.url, key_prefix="kag-test-stale") as saver:
        await saver.setup()
        await core.append(learner, "human", "likes SQL")
        graph = make_builder(bundle).compile(checkpointer=saver)
        run_config = {"configurable": {"thread_id": learner}}
        await graph.ainvoke({"learner_id": learner, "request": "hello"}, run_config)
        latest = await saver.aget_tuple(cfg)
        assert latest is not None
        for _ in range(3):
            killed = int(private_redis.cli("CLIENT", "KILL", "TYPE", "normal"))
            assert killed >= 2  # the saver's and the stores' pooled connections
            await saver.aput_writes(latest.config, [("probe", 1)], task_id=f"task-{_}")
            assert (await core.read(learner))["human"].endswith("likes SQL")
        again = await saver.aget_tuple(latest.config)
        assert again is not None and ("probe", 1) in [(c, v) for _, c, v in again.pending_writes]


async def test_a_redis_that_stays_down_is_a_clear_error_within_the_budget(
    private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client waits out its whole retry budget, and no more, before the clear error.

    The waits are counted, not timed: redis-py's retry sleeps through ``redis.asyncio.retry.sleep``,
    which records each backoff (and yields) instead of sleeping, so a loaded machine cannot
    stretch or shrink what is measured. Every connection attempt still goes to the dead server.
    """
    low, high = retry_budget()
    slept: list[float] = []

    async def backoff(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0)

    async with AsyncRedisSaver.from_conn_string(private_redis.url) as saver:
        await saver.setup()
        private_redis.stop(signal.SIGKILL)
        monkeypatch.setattr(redis.asyncio.retry, "sleep", backoff)
        with pytest.raises(StoreUnavailableError, match="Redis is unreachable"):
            await saver.aget_tuple({"configurable": {"thread_id": "gone"}})
    assert len(slept) == RETRIES  # one backoff before each retry
    assert low <= sum(slept) <= high


async def test_a_redis_that_keeps_loading_says_so(
    private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the whole retry budget the error says Redis is loading (the backoffs counted, not slept)."""
    low, high = retry_budget()
    slept: list[float] = []

    async def backoff(seconds: float) -> None:
        slept.append(seconds)
        await asyncio.sleep(0)

    async with AsyncRedisSaver.from_conn_string(private_redis.url) as saver:
        await saver.setup()
        # A loading Redis answers only between every 1,024 keys it replays: the lower the per-key delay,
        # the sooner each of the 14 retries (4 round trips each) hears LOADING. Measured here: the
        # retries took 7.6 s, LOADING lasted 64 s (at 200 us a key and half the keys: 19.5 s and 40 s).
        private_redis.populate(20 * LOADING_KEYS)
        private_redis.restart(key_load_delay=50, wait=False)
        monkeypatch.setattr(redis.asyncio.retry, "sleep", backoff)
        with pytest.raises(StoreUnavailableError, match="still loading its data"):
            await saver.aget_tuple({"configurable": {"thread_id": "loading"}})
        assert private_redis.reply().startswith("-LOADING"), "the error came while Redis was loading"
    assert len(slept) == RETRIES and low <= sum(slept) <= high  # the whole budget, and no more
