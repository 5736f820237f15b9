"""Kill what KAG depends on mid-run and count what survived; every count must match.

Three faults, each on fresh learners, never touching the shared Neo4j or Redis processes:

1. **Redis crash mid-run.** ``--sessions`` sessions of ``--turns`` turns run at once over a
   private redis-server (AOF, fsync always; ``tests.private_redis``) holding 20,000 filler
   keys. After a third of the turns it is ``kill -9``-ed and restarted with a slowed AOF
   replay, so clients meet dead sockets and then ``LOADING``. Counted: failed turns, human
   messages in each thread's checkpoint, core-memory lines, messages logged to Neo4j.
2. **Neo4j outage mid-session.** Turns 2 and 3 of each session run on a bundle whose Bolt
   driver points at a closed port (degraded mode: writes parked in Redis), the rest on the
   real Neo4j; then the backlog is replayed. Counted: every message id of the checkpointed
   conversation is in Neo4j exactly once, nothing left parked or dead-lettered.
3. **LangGraph server killed mid-run.** A ``langgraph dev`` (``tests.integration.langgraph_server``)
   is ``kill -9``-ed once the second run has checkpointed a step, then restarted. The dev
   server keeps run records in memory (snapshotted every 10 s), so it forgets the run, but
   the thread's checkpoints are in Redis: if the interrupted request reached a checkpoint,
   the client resumes the thread from it (``input=None``), otherwise it sends the request
   again. Counted: every checkpoint from before the kill is still there, each request is
   in the thread exactly once and in order, and the next turn is answered.

    .venv/bin/python -m bench.faults [--sessions 10] [--turns 4] [--only redis neo4j server]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import neo4j
from langchain_core.messages import HumanMessage

from agent.checkpoint import AsyncRedisSaver
from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import Settings
from bench.concurrency import SlowLoopingModel
from graphs.heartbeat import make_builder

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the private-service helpers live under tests/
from tests.private_redis import PrivateRedis, free_port  # noqa: E402

DEV_SERVER_FLUSH_S = 10  # langgraph_runtime_inmem._persistence._flush_interval
CTX = Context(max_tokens=200_000, zettelkasten=False)  # nothing archived: the queue keeps every message


@dataclass
class Row:
    """One count: what should exist after the fault, and what does."""

    fault: str
    what: str
    expected: int
    found: int

    @property
    def ok(self) -> bool:
        """True when nothing was lost or doubled."""
        return self.expected == self.found


def say(text: str) -> None:
    """A progress line on stderr."""
    print(f"[faults] {text}", file=sys.stderr, flush=True)


async def neo4j_counts(driver: neo4j.AsyncDriver, database: str, learners: list[str]) -> dict[str, Any]:
    """Message nodes (all, human, distinct ids) of ``learners`` in Neo4j."""
    async with driver.session(database=database) as session:
        result = await session.run(
            "MATCH (m:Message) WHERE m.learner_id IN $ls "
            "RETURN count(m) AS n, count(DISTINCT m.id) AS ids, "
            "sum(CASE WHEN m.role IN ['user', 'human'] THEN 1 ELSE 0 END) AS human, collect(m.id) AS all_ids",
            ls=learners,
        )
        return dict(await result.single())


async def cleanup_neo4j(driver: neo4j.AsyncDriver, database: str, learners: list[str]) -> None:
    """Delete the learners' nodes from the shared Neo4j."""
    async with driver.session(database=database) as session:
        await session.run("MATCH (n) WHERE n.learner_id IN $ls DETACH DELETE n", ls=learners)
        await session.run("MATCH (n:Learner) WHERE n.id IN $ls DETACH DELETE n", ls=learners)


def queue_ids(values: dict[str, Any]) -> list[str]:
    """Ids of the checkpointed conversation's messages."""
    return [str(m.id) for m in values.get("fifo_queue", [])]


# ----- 1. Redis crash mid-run -------------------------------------------------------------------
async def redis_crash(settings: Settings, sessions: int, turns: int, workdir: Path) -> list[Row]:
    """Crash and restart a private Redis while sessions run; count what survived."""
    server = PrivateRedis(workdir / "redis-crash")
    server.dir.mkdir(parents=True)
    server.start()
    server.populate(20_000)
    shared = Resources(settings)
    bundle = Resources(
        settings.with_overrides(redis_url=server.url),
        chat_model=SlowLoopingModel(),
        embeddings=shared.embeddings,
        neo4j_driver=shared.neo4j,
    )
    learners = [f"faults-redis-{uuid.uuid4().hex[:8]}-{s}" for s in range(sessions)]
    core = CoreMemoryStore(bundle.redis)
    done, failures = 0, []
    crashed = asyncio.Event()
    try:
        async with AsyncRedisSaver.from_conn_string(server.url) as saver:
            await saver.setup()
            graph = make_builder(bundle).compile(checkpointer=saver)

            async def session(learner: str) -> None:
                nonlocal done
                for i in range(turns):
                    try:
                        await graph.ainvoke(
                            {"learner_id": learner, "request": f"Turn {i}: what is a LEFT JOIN?"},
                            {"configurable": {"thread_id": learner}},
                            context=CTX,
                        )
                        await core.append(learner, "current_goals", f"goal {i}")
                    except Exception as exc:  # noqa: BLE001 - every failed turn is counted
                        failures.append(f"{type(exc).__name__}: {exc}")
                    done += 1

            async def crash() -> None:
                while done < sessions * turns // 3:
                    await asyncio.sleep(0.05)
                say(f"kill -9 redis after {done} turns; restarting with a slowed AOF replay")
                await asyncio.to_thread(server.restart, key_load_delay=50, wait=False, sig=signal.SIGKILL)
                say(f"redis answers {server.reply()!r}")
                crashed.set()

            started = time.monotonic()
            await asyncio.gather(crash(), *(session(lr) for lr in learners))
            say(f"redis crash: {sessions * turns} turns in {time.monotonic() - started:.1f} s")
            humans = 0
            for learner in learners:
                state = await graph.aget_state({"configurable": {"thread_id": learner}})
                humans += sum(isinstance(m, HumanMessage) for m in state.values.get("fifo_queue", []))
            lines = 0
            for learner in learners:
                lines += len((await core.read(learner))["current_goals"].splitlines())
            # The kernel stream survived the crash in the AOF; drain it as the worker would.
            stores = MemoryStores.wire(bundle)
            for learner in learners:
                await stores.settle(learner)
        counts = await neo4j_counts(shared.neo4j, shared.database, learners)
        expected = sessions * turns
        for failure in failures[:5]:
            say(f"failed turn: {failure[:200]}")
        return [
            Row("redis kill -9", "turns that failed (expected 0)", 0, len(failures)),
            Row("redis kill -9", "human messages in checkpoints", expected, humans),
            Row("redis kill -9", "core-memory lines", expected, lines),
            Row("redis kill -9", "messages logged to Neo4j", 4 * expected, counts["n"]),
        ]
    finally:
        await cleanup_neo4j(shared.neo4j, shared.database, learners)
        await bundle.redis.aclose()
        await shared.aclose()
        server.stop(signal.SIGKILL)


# ----- 2. Neo4j outage mid-session ---------------------------------------------------------------
async def neo4j_outage(settings: Settings, sessions: int, turns: int, workdir: Path) -> list[Row]:
    """Run turns 2-3 of each session with Neo4j unreachable, replay, and compare ids."""
    server = PrivateRedis(workdir / "redis-neo4j")
    server.dir.mkdir(parents=True)
    server.start()
    shared = Resources(settings)
    redis_settings = settings.with_overrides(redis_url=server.url)
    redis = Resources(redis_settings).redis  # one client: both bundles share the outage breaker
    dead = neo4j.AsyncGraphDatabase.driver(
        f"bolt://127.0.0.1:{free_port()}", auth=("neo4j", "x"), connection_timeout=1.0
    )
    model = SlowLoopingModel()
    common = {"chat_model": model, "embeddings": shared.embeddings, "redis_client": redis}
    down = Resources(redis_settings, neo4j_driver=dead, **common)
    up = Resources(redis_settings, neo4j_driver=shared.neo4j, **common)
    learners = [f"faults-neo4j-{uuid.uuid4().hex[:8]}-{s}" for s in range(sessions)]
    degraded: dict[str, int] = dict.fromkeys(learners, 0)
    failures: list[str] = []
    try:
        async with AsyncRedisSaver.from_conn_string(server.url) as saver:
            await saver.setup()
            graph_down = make_builder(down).compile(checkpointer=saver)
            graph_up = make_builder(up).compile(checkpointer=saver)

            async def session(learner: str) -> None:
                for i in range(turns):
                    graph = graph_down if i in (1, 2) else graph_up
                    try:
                        out = await graph.ainvoke(
                            {
                                "learner_id": learner,
                                "request": f"Turn {i}: remember that an index speeds reads.",
                            },
                            {"configurable": {"thread_id": learner}},
                            context=CTX,
                        )
                    except Exception as exc:  # noqa: BLE001 - every failed turn is counted
                        failures.append(f"{type(exc).__name__}: {exc}")
                        continue
                    degraded[learner] += bool(out["memory_state"].get("degraded"))

            await asyncio.gather(*(session(lr) for lr in learners))
            stores = MemoryStores.wire(up)  # registered last: replay routes to the live Neo4j
            assert stores.core.graph is not None
            backlog = stores.recall.backlog
            assert backlog is not None
            await backlog.wait_idle()
            while backlog.neo4j_suspended():
                await asyncio.sleep(0.1)
            replayed = await backlog.replay(stores.archival, stores.recall, stores.core.graph)
            for learner in learners:  # and the messages the kernel stream kept meanwhile
                replayed += await stores.settle(learner)
            pending = sum([await backlog.pending(lr) for lr in learners])
            dead_letters = sum([await redis.xlen(backlog.dead_key(lr)) for lr in learners])
            say(f"neo4j outage: {sum(degraded.values())} degraded turns; replayed by hand: {replayed}")
            expected_ids: set[str] = set()
            for learner in learners:
                state = await graph_up.aget_state({"configurable": {"thread_id": learner}})
                expected_ids.update(queue_ids(state.values))
        counts = await neo4j_counts(shared.neo4j, shared.database, learners)
        found = set(counts["all_ids"])
        return [
            Row("neo4j outage", "turns that failed (expected 0)", 0, len(failures)),
            Row(
                "neo4j outage",
                "sessions with >= 2 turns run degraded",
                sessions,
                sum(n >= 2 for n in degraded.values()),
            ),
            Row(
                "neo4j outage",
                "checkpointed messages found in Neo4j",
                len(expected_ids),
                len(expected_ids & found),
            ),
            Row("neo4j outage", "Neo4j messages (no duplicates)", len(expected_ids), counts["n"]),
            Row("neo4j outage", "human messages in Neo4j", sessions * turns, counts["human"]),
            Row("neo4j outage", "writes still parked + dead-lettered", 0, pending + dead_letters),
        ]
    finally:
        await cleanup_neo4j(shared.neo4j, shared.database, learners)
        await dead.close()
        await redis.aclose()
        await shared.aclose()
        server.stop(signal.SIGKILL)


# ----- 3. LangGraph server killed mid-run --------------------------------------------------------
async def server_kill(workdir: Path) -> list[Row]:
    """``kill -9`` a ``langgraph dev`` mid-run, restart it, resume the thread."""
    from tests.integration.langgraph_server import DevServer, Learner

    learner = Learner(f"faults-srv-{uuid.uuid4().hex[:8]}", f"tok-{uuid.uuid4().hex}")
    server = DevServer(workdir / "server", learners={"ada": learner})
    server.workdir.mkdir(parents=True)
    await asyncio.to_thread(server.start)
    requests = [
        "I am learning SQL joins.",
        "Remember that a LEFT JOIN keeps unmatched rows.",
        "What did I say?",
    ]
    try:
        client = learner.client(server.url)
        thread = (await client.threads.create())["thread_id"]
        await client.runs.wait(thread, "kag", input={"request": requests[0]})
        # The dev server snapshots its run records every 10 s; a kill -9 sooner would restore
        # run 1 as unfinished and run it again (its request doubled). Production servers keep
        # run records in Postgres; here we wait one flush so only the checkpoints are tested.
        await asyncio.sleep(DEV_SERVER_FLUSH_S + 1)
        before = await client.threads.get_history(thread, limit=1000)
        run = await client.runs.create(thread, "kag", input={"request": requests[1]})
        # wait for the run to checkpoint at least one step, then kill the server mid-run
        for _ in range(400):
            if len(await client.threads.get_history(thread, limit=1000)) > len(before):
                break
            await asyncio.sleep(0.01)
        assert server.proc is not None
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=30)
        say(f"server killed during run {run['run_id']}; restarting")
        await asyncio.to_thread(server.start)
        client = learner.client(server.url)
        after_kill = await client.threads.get_history(thread, limit=1000)
        kept = {c["checkpoint"]["checkpoint_id"] for c in after_kill}
        survived = sum(c["checkpoint"]["checkpoint_id"] in kept for c in before)
        for old in await client.runs.list(thread, limit=100):  # runs the server restored: let them end
            if old["status"] in ("pending", "running"):
                say(
                    f"server kill: the server restored run {old['run_id'][-6:]} ({old['status']}); joining it"
                )
                await client.runs.join(thread, old["run_id"])
        state = await client.threads.get_state(thread)
        pending = state["values"].get("request")
        say(f"server kill: after restart next={state['next']}, checkpointed request={pending!r}")
        resumed = 0
        if state["next"] and pending == requests[1]:
            # the interrupted turn reached a checkpoint: resume it from there (no input)
            await client.runs.wait(thread, "kag", input=None)
            resumed = 1
        humans_after_resume = [
            m
            for m in (await client.threads.get_state(thread))["values"]["fifo_queue"]
            if m["type"] == "human"
        ]
        if not any(m["content"] == requests[1] for m in humans_after_resume):
            # killed before the request was checkpointed: the client sends it again
            await client.runs.wait(thread, "kag", input={"request": requests[1]})
        output = await client.runs.wait(thread, "kag", input={"request": requests[2]})
        final = (await client.threads.get_state(thread))["values"]
        humans = [m["content"] for m in final["fifo_queue"] if m["type"] == "human"]
        runs = await client.runs.list(thread, limit=100)
        say(f"server kill: runs on the thread: {[(r['status'], r['run_id'][-6:]) for r in runs]}")
        say(f"server kill: requests in the thread: {humans}")
        say(
            f"server kill: resumed the interrupted turn: {bool(resumed)}; "
            f"answer: {str(output.get('response'))[:60]!r}"
        )
        return [
            Row("server kill -9", "checkpoints from before the kill", len(before), survived),
            Row("server kill -9", "each request once in the thread", len(requests), len(humans)),
            Row("server kill -9", "requests in order", 1, int(humans == requests)),
            Row("server kill -9", "final turn answered", 1, int(bool(output.get("response")))),
        ]
    finally:
        await asyncio.to_thread(server.stop)
        await drop_server_data(server.prefix, learner.learner_id)


async def drop_server_data(prefix: str, learner_id: str) -> None:
    """Delete the dev server's checkpoint keys and the learner's data from the shared services."""
    bundle = Resources(Settings.from_env())
    try:
        await cleanup_neo4j(bundle.neo4j, bundle.database, [learner_id])
        keys = [k async for k in bundle.redis.scan_iter(match=f"{prefix}:*", count=1000)]
        keys += [k async for k in bundle.redis.scan_iter(match=f"*{learner_id}*", count=1000)]
        for i in range(0, len(keys), 1000):
            await bundle.redis.delete(*keys[i : i + 1000])
    finally:
        await bundle.aclose()


def print_table(rows: list[Row]) -> None:
    """What survived, per fault."""
    print(f"\n{'fault':<16}{'count':<46}{'expected':>9}{'found':>7}  ok")
    print("-" * 82)
    for r in rows:
        print(f"{r.fault:<16}{r.what:<46}{r.expected:>9}{r.found:>7}  {'yes' if r.ok else 'NO'}")
    lost = [r for r in rows if not r.ok]
    print(f"{len(rows) - len(lost)}/{len(rows)} counts match; {'0 lost' if not lost else 'MISMATCH'}")


async def run(args: argparse.Namespace) -> list[Row]:
    """Run the chosen faults in turn."""
    settings = Settings.from_env()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="kag-faults-") as tmp:
        workdir = Path(tmp)
        if "redis" in args.only:
            rows += await redis_crash(settings, args.sessions, args.turns, workdir)
        if "neo4j" in args.only:
            rows += await neo4j_outage(settings, args.sessions, args.turns, workdir)
        if "server" in args.only:
            rows += await server_kill(workdir)
    return rows


def main() -> None:
    """Parse arguments, run the faults, print the table; exit 1 on any mismatch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--turns", type=int, default=4, help="at least 4: the outage covers turns 2-3")
    parser.add_argument(
        "--only", nargs="+", default=["redis", "neo4j", "server"], choices=["redis", "neo4j", "server"]
    )
    parser.add_argument("--verbose", action="store_true", help="keep KAG's outage log lines")
    args = parser.parse_args()
    if not args.verbose:  # outages are the point here: their ERROR lines would bury the table
        logging.getLogger("agent").setLevel(logging.CRITICAL)
    rows = asyncio.run(run(args))
    print_table(rows)
    sys.exit(0 if all(r.ok for r in rows) else 1)


if __name__ == "__main__":
    main()
