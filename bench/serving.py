"""The production serving mode under load and under a killed worker, printed as one line.

``agent.server.production`` (stock langgraph-api on the Postgres + Redis runtime
``langgraph-runtime-pg``; docs/serving-production.md) is started from the serving venv
(``make serve-prod-install``) twice, each time on a database of its own:

1. **One worker**: ``--sessions`` learners each send ``--turns`` requests, one after the other
   on their own thread, all learners at once (``runs.wait``); turns per second over the
   measured turns (a warm-up turn per learner is not counted).
2. **N workers** (``--workers``): the same load, then the kill: every learner's thread gets
   one more request as a background run (``runs.create``), ``--kill-runs`` K of them; once
   every worker is busy (N x ``--jobs`` runs running), one worker is ``kill -9``-ed. The
   runtime notices the dead worker when its runs' heartbeats lapse (5 s here) and queues
   them again; the supervisor starts a new worker. Every run is then joined.

Counted after the kill: completed (runs that ended ``success``, of K), duplicated (a request
found more than once in its thread), lost (a request missing from its thread or left
unanswered, plus checkpoints that were in a thread before the kill and are gone after it).

    .venv/bin/python -m bench.serving [--workers 2] [--sessions 12] [--turns 3] [--jobs 4]

``--load 500`` runs ``bench.concurrency``'s load instead, over HTTP against N workers: 500
learners at once, each on its own thread, ``TURNS`` turns of its questions one after the
other (``runs.wait``, no client timeout), at most ``--in-flight`` requests at the server at
once (the others wait in the client: a queued ``runs.wait`` costs the runtime two PostgreSQL
reads a second); one line with the turns completed, the errors by kind, the turns whose wait
answered before its run's last state, the runs swept, turns/s and the p50/p95 s per turn.

The chat model is the offline policy (no key): the numbers measure the serving path, the
graph and the stores, not a provider. Turns per second are the machine's, next to its cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from agent.memory.erasure import erase_learner
from agent.resources import Resources
from agent.settings import Settings
from bench.concurrency import QUESTION, TURNS, LevelResult, RssSampler, neo4j_pid, run_level
from bench.kernel.turn_report import pct

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the server helpers live under tests/
from tests.integration.langgraph_server import Learner  # noqa: E402
from tests.integration.prod_server import ProdServer, prod_available  # noqa: E402

ENGINE = "langgraph-api 0.11.1 + langgraph-runtime-pg 0.11.1.post1"
JOIN_TIMEOUT_S = 300.0


def say(message: str) -> None:
    """Progress on stderr; stdout carries the one result line."""
    print(f"[serving] {message}", file=sys.stderr, flush=True)


@dataclass
class Session:
    """One learner, its client and its thread."""

    learner: Learner
    client: LangGraphClient
    thread: str
    requests: list[str]


@dataclass
class KillResult:
    """What the kill left behind."""

    in_flight: int
    completed: int
    duplicated: int
    lost: int


async def open_sessions(server: ProdServer) -> list[Session]:
    """A thread per learner, each with one warm-up turn (not measured)."""
    sessions = []
    for learner in server.learners.values():
        client = learner.client(server.url)
        thread = (await client.threads.create())["thread_id"]
        sessions.append(Session(learner, client, thread, []))
    await asyncio.gather(*(turn(s, "Hello, I am learning SQL joins.") for s in sessions))
    return sessions


async def turn(session: Session, request: str) -> None:
    """One request on the session's thread, waited for; a failed run raises, an empty reply is named."""
    session.requests.append(request)
    output = await session.client.runs.wait(
        session.thread, "kag", input={"request": request}, raise_error=True
    )
    if not isinstance(output, dict) or not output.get("response"):
        # the run succeeded (a failed one raised above); the runtime's wait can answer with an
        # earlier state of the run (docs/serving-production.md): the thread's state says which
        values = (await session.client.threads.get_state(session.thread))["values"]
        early = values.get("response")
        what = "runs.wait answered early (the thread has the reply)" if early else "empty reply"
        say(f"{what} on thread {session.thread} to {request!r}: {str(output)[:300]}")


async def throughput(sessions: list[Session], turns: int) -> float:
    """Turns per second with every session sending ``turns`` requests one after the other."""

    async def run(session: Session) -> None:
        for i in range(turns):
            await turn(
                session, f"Remember fact {i}: a LEFT JOIN keeps unmatched rows ({uuid.uuid4().hex[:6]})."
            )

    started = time.perf_counter()
    await asyncio.gather(*(run(s) for s in sessions))
    return len(sessions) * turns / (time.perf_counter() - started)


async def history_ids(session: Session) -> set[str]:
    """The ids of every checkpoint of the session's thread."""
    history = await session.client.threads.get_history(session.thread, limit=1000)
    return {c["checkpoint"]["checkpoint_id"] for c in history}


async def wait_busy(sessions: list[Session], runs: list[dict[str, Any]], busy: int) -> set[str]:
    """Wait until ``busy`` runs are running (every worker has work); the ids of those in flight."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        statuses = await asyncio.gather(
            *(s.client.runs.get(s.thread, r["run_id"]) for s, r in zip(sessions, runs, strict=True))
        )
        running = sum(r["status"] == "running" for r in statuses)
        in_flight = {r["run_id"] for r in statuses if r["status"] in ("pending", "running")}
        if running >= busy or len(in_flight) < busy:
            return in_flight
        await asyncio.sleep(0.05)
    raise RuntimeError(f"fewer than {busy} runs were running after 120 s")


async def join(session: Session, run_id: str) -> None:
    """Wait for the run to end, reconnecting when the worker that held the connection was killed."""
    while True:
        try:
            await session.client.runs.join(session.thread, run_id)
            return
        except httpx.TransportError:  # the connection went with the killed worker: ask again
            await asyncio.sleep(1.0)


async def kill_mid_run(server: ProdServer, sessions: list[Session]) -> KillResult:
    """Background runs on every thread, ``kill -9`` a busy worker, join them all and count."""
    before = await asyncio.gather(*(history_ids(s) for s in sessions))
    runs = []
    for session in sessions:
        request = f"Remember that my locker number is {uuid.uuid4().hex[:8]}."
        session.requests.append(request)
        runs.append(await session.client.runs.create(session.thread, "kag", input={"request": request}))
    in_flight = await wait_busy(sessions, runs, server.workers * server.jobs)
    pid = server.kill_worker()
    say(f"kill -9 worker {pid} with {len(in_flight)} runs in flight")
    await asyncio.wait_for(
        asyncio.gather(*(join(s, r["run_id"]) for s, r in zip(sessions, runs, strict=True))),
        JOIN_TIMEOUT_S,
    )
    final = await asyncio.gather(
        *(s.client.runs.get(s.thread, r["run_id"]) for s, r in zip(sessions, runs, strict=True))
    )
    attempts = [r.get("metadata", {}).get("run_attempt") for r in final]
    say(f"run statuses: {sorted({r['status'] for r in final})}; attempts seen in metadata: {attempts}")
    completed = sum(r["status"] == "success" for r in final if r["run_id"] in in_flight)
    duplicated, lost = 0, sum(r["status"] != "success" for r in final)  # every run of the phase must end well
    for session, ids in zip(sessions, before, strict=True):
        values = (await session.client.threads.get_state(session.thread))["values"]
        humans = [m["content"] for m in values.get("fifo_queue", []) if m["type"] == "human"]
        duplicated += sum(max(humans.count(r) - 1, 0) for r in session.requests)
        lost += sum(r not in humans for r in session.requests) + len(ids - await history_ids(session))
    return KillResult(len(in_flight), completed, duplicated, lost)


def make_server(workdir: Path, workers: int, jobs: int, sessions: int) -> ProdServer:
    """A production server with ``sessions`` fresh learners."""
    learners = {
        f"s{i}": Learner(f"serving-{uuid.uuid4().hex[:8]}", f"tok-{uuid.uuid4().hex}")
        for i in range(sessions)
    }
    workdir.mkdir(parents=True)
    return ProdServer(workdir, learners=learners, workers=workers, jobs=jobs)


async def measured(server: ProdServer, turns: int, kill: bool) -> tuple[float, KillResult | None]:
    """Start ``server``, measure, optionally kill a worker; always stop it and erase its learners."""
    await asyncio.to_thread(server.start)
    try:
        sessions = await open_sessions(server)
        rate = await throughput(sessions, turns)
        say(f"{server.workers} worker(s): {rate:.2f} turns/s")
        return rate, (await kill_mid_run(server, sessions) if kill else None)
    except Exception:
        say(f"server log tail:\n{server.log_tail()}")  # the log goes with its temporary directory
        raise
    finally:
        await cleanup(server)


@dataclass
class Load:
    """The load's result and the turns whose ``runs.wait`` answer was an earlier state."""

    level: LevelResult
    early: int
    swept: int = 0
    """Runs the runtime found with a lapsed heartbeat and queued again (its log's "Swept stale run")."""


async def load(server: ProdServer, in_flight: int) -> Load:
    """``bench.concurrency``'s level over HTTP: every learner at once, ``TURNS`` turns each.

    A turn is the learner's request answered: ``runs.wait`` (which raises on a failed run),
    and, when its answer has no reply, the thread's state after the run (the checkpoint is
    the durable result; ``early`` counts those turns, see docs/serving-production.md).
    At most ``in_flight`` requests are at the server at once (0: no limit), the others wait
    in the client: this runtime's ``runs.wait`` polls PostgreSQL every 0.5 s while its run is
    queued, and 500 of them took the workers' CPU from the runs (docs/serving-production.md).
    """
    await asyncio.to_thread(server.start)
    early = 0
    gate = asyncio.Semaphore(in_flight or len(server.learners))
    try:
        clients = [
            get_client(url=server.url, headers={"Authorization": f"Bearer {lr.token}"}, timeout=None)
            for lr in server.learners.values()
        ]
        # at once, right before the load: a client whose connection idled while 499 others
        # created theirs one by one found it closed by the server's keep-alive timeout (ReadError)
        threads = [t["thread_id"] for t in await asyncio.gather(*(c.threads.create() for c in clients))]

        async def turn(s: int, i: int) -> bool:
            nonlocal early
            async with gate:
                output = await clients[s].runs.wait(
                    threads[s], "kag", input={"request": QUESTION.format(i=i, s=s)}, raise_error=True
                )
            if isinstance(output, dict) and output.get("response"):
                return False
            values = (await clients[s].threads.get_state(threads[s]))["values"]
            if not values.get("response"):
                raise RuntimeError(f"no response: {str(output)[:120]}")
            early += 1
            return False

        sampler = RssSampler(neo4j_pid(Settings.from_env()))
        level = await run_level("production", len(clients), turn, sampler, progress=30.0)
        return Load(level, early, server.log_path.read_text(errors="replace").count("Swept stale run "))
    except Exception:
        say(f"server log tail:\n{server.log_tail()}")
        raise
    finally:
        await cleanup(server)


async def cleanup(server: ProdServer) -> None:
    """Stop ``server``, drop its database, delete its checkpoints and erase its learners."""
    await asyncio.to_thread(server.discard)
    resources = Resources(Settings.from_env())
    try:
        keys = [k async for k in resources.redis.scan_iter(match=f"{server.prefix}:*", count=1000)]
        for i in range(0, len(keys), 1000):
            await resources.redis.delete(*keys[i : i + 1000])
        gate = asyncio.Semaphore(16)  # 500 learners one by one took minutes

        async def erase(learner_id: str) -> None:
            async with gate:
                await erase_learner(resources, learner_id)

        await asyncio.gather(*(erase(lr.learner_id) for lr in server.learners.values()))
    finally:
        await resources.aclose()


def load_line(workers: int, jobs: int, in_flight: int, done: Load) -> str:
    """The load's one line."""
    result = done.level
    errors = sum(result.errors.values())
    kinds = "; ".join(f"{k} x{n}" for k, n in result.errors.most_common()) or "none"
    return (
        f"serving load: {ENGINE}, workers {workers} x {jobs} jobs, sessions {result.sessions} "
        f"({in_flight or result.sessions} requests in flight at most), "
        f"turns {result.turns}/{result.sessions * TURNS}, errors {errors} ({kinds}), "
        f"wait answered early {done.early}, runs swept {done.swept}, "
        f"turns/s {result.throughput:.2f}, p50 {pct(result.latencies or [0.0], 0.5):.1f} s, "
        f"p95 {pct(result.latencies or [0.0], 0.95):.1f} s ({os.cpu_count()} cores)"
    )


def result_line(workers: int, runs: int, one: float, many: float, kill: KillResult) -> str:
    """The issue's line, with the machine's core count beside the ratio."""
    return (
        f"serving: {ENGINE}, workers {workers}, runs {runs}, killed mid-run {kill.in_flight}, "
        f"completed {kill.completed}/{kill.in_flight}, duplicated {kill.duplicated}, lost {kill.lost}, "
        f"turns/s 1 worker {one:.2f}, {workers} workers {many:.2f} "
        f"(ratio {many / one:.2f}; {os.cpu_count()} cores)"
    )


async def main_async(args: argparse.Namespace) -> str:
    """Both servers, one after the other; the result line."""
    with tempfile.TemporaryDirectory(prefix="kag-serving-") as tmp:
        one = make_server(Path(tmp) / "one", 1, args.jobs, args.sessions)
        rate_one, _ = await measured(one, args.turns, kill=False)
        many = make_server(Path(tmp) / "many", args.workers, args.jobs, args.sessions)
        rate_many, kill = await measured(many, args.turns, kill=True)
    assert kill is not None
    runs = args.sessions * (2 * (args.turns + 1) + 1)  # warm-up + measured on each server, + the kill
    return result_line(args.workers, runs, rate_one, rate_many, kill)


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=4, help="runs one worker executes at once")
    parser.add_argument("--sessions", type=int, default=12, help="learners at once in the throughput runs")
    parser.add_argument("--turns", type=int, default=3, help="measured turns per learner")
    parser.add_argument("--load", type=int, metavar="N", help="only bench.concurrency's load: N sessions")
    parser.add_argument(
        "--in-flight",
        type=int,
        help="--load: requests at the server at once (default 2 x workers x jobs; 0: every session's)",
    )
    args = parser.parse_args()
    unavailable = prod_available()
    if unavailable:
        raise SystemExit(f"serving: {unavailable}")
    if args.load:
        with tempfile.TemporaryDirectory(prefix="kag-serving-") as tmp:
            server = make_server(Path(tmp) / "load", args.workers, args.jobs, args.load)
            server.heartbeat = None  # the production default: see tests/integration/prod_server.py
            in_flight = 2 * args.workers * args.jobs if args.in_flight is None else args.in_flight
            print(load_line(args.workers, args.jobs, in_flight, asyncio.run(load(server, in_flight))))
        return
    if args.sessions <= args.workers * args.jobs:
        parser.error("--sessions must exceed --workers x --jobs, so every worker is busy at the kill")
    print(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
