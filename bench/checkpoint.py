"""Benchmark the Redis checkpoint saver against InMemorySaver and SqliteSaver.

Workload: ``--threads`` conversation threads (default 20), each driven through
``--steps`` turns (default 1,000) of a small two-channel graph with ``graph.invoke``;
one turn = one invoke = 3 checkpoints. All three sync savers run the same workload in
this process, one after another; then every thread is listed by all three savers in
turn (interleaved, so load spikes hit them alike). Not a test: it prints figures and writes JSON to
``bench/results/``.

    .venv/bin/python -m bench.checkpoint [--steps 1000] [--threads 20] [--learner ada]

``--learner`` runs every turn as that authenticated learner (``langgraph_auth_user_id`` in
the config, as the LangGraph server's auth puts it), so the Redis saver's writes claim
their threads as served writes do (``agent.checkpoint.owners``).

``list`` lists a whole thread; ``list_page`` its newest 10 checkpoints (``limit=10``),
which is what a LangGraph server thread-history request reads.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict

import redis
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from agent.checkpoint import RedisSaver  # noqa: E402
from agent.settings import Settings  # noqa: E402

RESULTS = Path(__file__).parent / "results"
OPS = ("put", "put_writes", "get_tuple", "list", "list_page")
HISTORY_PAGE = 10  # what a LangGraph server thread-history request lists by default


class Turn(TypedDict, total=False):
    """State of the benchmark graph: one learner turn."""

    profile: str  # set once, never changes: stored once by the Redis saver
    question: str
    answer: str
    turns: int


def build_graph() -> StateGraph:
    def respond(state: Turn) -> Turn:
        return {"answer": f"re: {state['question']}", "turns": state.get("turns", 0) + 1}

    builder = StateGraph(Turn)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder


def instrument(saver: BaseCheckpointSaver, samples: dict[str, list[float]]) -> None:
    """Time the saver calls LangGraph makes by wrapping them on the instance."""
    for name in ("put", "put_writes", "get_tuple"):
        real = getattr(saver, name)

        def timed(*args: Any, _real: Callable = real, _name: str = name, **kw: Any) -> Any:
            start = time.perf_counter()
            try:
                return _real(*args, **kw)
            finally:
                samples[_name].append(time.perf_counter() - start)

        setattr(saver, name, timed)


def pct(values: list[float], p: float) -> float:
    """Percentile in milliseconds (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] * 1000


def drive(
    name: str, saver: BaseCheckpointSaver, steps: int, threads: int, learner: str | None = None
) -> dict[str, Any]:
    """Drive the write workload through ``saver`` (as ``learner`` when given); figures and samples."""
    samples: dict[str, list[float]] = defaultdict(list)
    instrument(saver, samples)
    graph = build_graph().compile(checkpointer=saver)
    profile = "learner profile " * 200  # ~3 KB that never changes
    start = time.perf_counter()
    with tqdm(total=steps * threads, desc=f"{name:>13}", unit="turn", leave=True) as bar:
        for step in range(steps):
            for tid in thread_ids(threads):
                inputs: Turn = {"question": f"q{step}"}
                if step == 0:
                    inputs["profile"] = profile
                configurable = {"thread_id": tid}
                if learner:
                    configurable["langgraph_auth_user_id"] = learner
                graph.invoke(inputs, {"configurable": configurable})
                bar.update()
    elapsed = time.perf_counter() - start
    return {
        "saver": name,
        "turns": steps * threads,
        "seconds": elapsed,
        "turns_per_s": steps * threads / elapsed,
        "samples": samples,
    }


def thread_ids(threads: int) -> list[str]:
    """The benchmark's thread ids."""
    return [f"bench-{i}" for i in range(threads)]


def read_all(
    savers: dict[str, BaseCheckpointSaver], results: dict[str, dict[str, Any]], threads: int
) -> None:
    """List every thread in full, then its newest page, interleaving the savers.

    Round-robin per thread, so a burst of load on this shared machine hits every saver
    alike instead of whichever happened to run then.
    """
    counts = dict.fromkeys(savers, 0)
    for tid in tqdm(thread_ids(threads), desc="list (interleaved)", unit="thread", leave=False):
        config = {"configurable": {"thread_id": tid}}
        for name, saver in savers.items():
            samples = results[name]["samples"]
            t0 = time.perf_counter()
            counts[name] += sum(1 for _ in saver.list(config))
            samples["list"].append(time.perf_counter() - t0)
        for _ in range(5):  # the newest page of history, as the server and Studio ask for it
            for name, saver in savers.items():
                t0 = time.perf_counter()
                page = list(saver.list(config, limit=HISTORY_PAGE))
                results[name]["samples"]["list_page"].append(time.perf_counter() - t0)
                assert len(page) == HISTORY_PAGE
    for name, r in results.items():
        samples = r.pop("samples")
        r["checkpoints"] = counts[name]
        r["checkpoints_per_thread"] = counts[name] // threads
        r["checkpoints_per_s"] = counts[name] / r["seconds"]
        r["ms"] = {op: {"p50": pct(samples[op], 50), "p95": pct(samples[op], 95)} for op in OPS}
        r["calls"] = {op: len(samples[op]) for op in OPS}


def memory_bytes(saver: InMemorySaver) -> int:
    """Serialized bytes InMemorySaver holds (checkpoints, metadata, blobs, writes)."""
    total = 0
    for namespaces in saver.storage.values():
        for checkpoints in namespaces.values():
            total += sum(len(c[1]) + len(m[1]) for c, m, _ in checkpoints.values())
    total += sum(len(v[1]) for v in saver.blobs.values())
    total += sum(len(w[2][1]) for ws in saver.writes.values() for w in ws.values())
    return total


def redis_bytes(client: redis.Redis, prefix: str) -> tuple[int, int, int]:
    """(MEMORY USAGE sum, stored value bytes, key count) over ``prefix``."""
    keys = list(client.scan_iter(match=f"{prefix}:*", count=2000))
    usage = stored = 0
    for i in range(0, len(keys), 500):
        chunk = keys[i : i + 500]
        with client.pipeline(transaction=False) as pipe:
            for k in chunk:
                pipe.memory_usage(k, samples=0)
                pipe.type(k)
            replies = pipe.execute()
        usage += sum(r or 0 for r in replies[0::2])
        with client.pipeline(transaction=False) as pipe:
            for k, kind in zip(chunk, replies[1::2], strict=True):
                if kind == b"hash":
                    pipe.hvals(k)
                elif kind == b"string":
                    pipe.strlen(k)
            for reply in pipe.execute():
                stored += reply if isinstance(reply, int) else sum(len(v) for v in reply)
    return usage, stored, len(keys)


def round_trips_per_get(saver: RedisSaver, thread_id: str) -> int:
    """Count the transport sends one get_tuple makes."""
    sends: list[int] = []
    real = saver._send
    saver._send = lambda batch: sends.append(1) or real(batch)  # type: ignore[method-assign]
    try:
        saver.get_tuple({"configurable": {"thread_id": thread_id}})
    finally:
        del saver._send
    return len(sends)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="turns per thread")
    parser.add_argument("--threads", type=int, default=20, help="conversation threads")
    parser.add_argument("--redis-url", default=Settings.from_env().redis_url)
    parser.add_argument("--learner", default=None, help="run every turn as this authenticated learner")
    args = parser.parse_args()
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    prefix = f"kag:bench:{uuid.uuid4().hex[:10]}"
    results: dict[str, dict[str, Any]] = {}

    memory = InMemorySaver()
    results["InMemorySaver"] = drive("InMemorySaver", memory, args.steps, args.threads, args.learner)
    db = RESULTS / f"checkpoint-{stamp}.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    sqlite_saver = SqliteSaver(conn)
    results["SqliteSaver"] = drive("SqliteSaver", sqlite_saver, args.steps, args.threads, args.learner)
    client = redis.Redis.from_url(args.redis_url)
    try:
        with RedisSaver.from_conn_string(args.redis_url, key_prefix=prefix) as saver:
            saver.setup()
            results["RedisSaver"] = drive("RedisSaver", saver, args.steps, args.threads, args.learner)
            savers = {"InMemorySaver": memory, "SqliteSaver": sqlite_saver, "RedisSaver": saver}
            read_all(savers, results, args.threads)
            results["RedisSaver"]["get_tuple_round_trips"] = round_trips_per_get(saver, "bench-0")
        results["InMemorySaver"]["bytes_total"] = memory_bytes(memory)
        results["SqliteSaver"]["bytes_total"] = sum(p.stat().st_size for p in db.parent.glob(f"{db.name}*"))
        usage, stored, nkeys = redis_bytes(client, prefix)
        results["RedisSaver"].update(bytes_total=usage, value_bytes=stored, keys=nkeys)
    finally:
        conn.close()
        keys = list(client.scan_iter(match=f"{prefix}:*", count=2000))
        for i in range(0, len(keys), 1000):
            client.unlink(*keys[i : i + 1000])
        client.close()
        for p in db.parent.glob(f"{db.name}*"):
            p.unlink()

    for r in results.values():
        r["bytes_per_checkpoint"] = r["bytes_total"] / max(r["checkpoints"], 1)
    report(results, args)
    out = RESULTS / f"checkpoint-{stamp}.json"
    out.write_text(json.dumps({"args": vars(args), "results": results}, indent=2))
    Console().print(f"results written to {out}")


def report(results: dict[str, dict[str, Any]], args: argparse.Namespace) -> None:
    """Print the latency table, ratios and the targets."""
    console = Console(width=120)
    names = list(results)
    table = Table(title=f"checkpoint savers: {args.threads} threads x {args.steps} turns")
    table.add_column("metric")
    for n in names:
        table.add_column(n, justify="right")
    table.add_column("Redis / Sqlite", justify="right")
    table.add_column("Redis / InMemory", justify="right")
    red, sql, mem = results["RedisSaver"], results["SqliteSaver"], results["InMemorySaver"]

    def row(label: str, get: Callable[[dict[str, Any]], float], fmt: str = "{:.3f}") -> None:
        vals = [get(results[n]) for n in names]
        ratios = [f"{get(red) / get(o):.2f}x" if get(o) else "-" for o in (sql, mem)]
        table.add_row(label, *(fmt.format(v) for v in vals), *ratios)

    for op in OPS:
        for p in ("p50", "p95"):
            row(f"{op} {p} ms", lambda r, op=op, p=p: r["ms"][op][p])
    row("turns / s", lambda r: r["turns_per_s"], "{:.0f}")
    row("checkpoints / s", lambda r: r["checkpoints_per_s"], "{:.0f}")
    row("bytes / checkpoint", lambda r: r["bytes_per_checkpoint"], "{:.0f}")
    console.print(table)
    per_thread = red["checkpoints_per_thread"]
    speedup = sql["ms"]["list"]["p50"] / red["ms"]["list"]["p50"]
    floor = sql["ms"]["list"]["p50"] / mem["ms"]["list"]["p50"]
    page = sql["ms"]["list_page"]["p50"] / red["ms"]["list_page"]["p50"]
    console.print(
        f"targets: put p95 {red['ms']['put']['p95']:.3f} ms <= sqlite "
        f"{sql['ms']['put']['p95']:.3f} ms: {red['ms']['put']['p95'] <= sql['ms']['put']['p95']}"
        f" | get_tuple round trips: {red['get_tuple_round_trips']}"
        f" | list of a {args.steps}-turn thread ({per_thread} checkpoints) vs sqlite: "
        f"{speedup:.2f}x faster (target >= 2x: {speedup >= 2}; InMemorySaver, no I/O at all, "
        f"is {floor:.2f}x faster than sqlite)"
        f" | newest {HISTORY_PAGE} of that thread vs sqlite: {page:.2f}x faster"
    )
    console.print(
        f"redis: {red['keys']} keys, MEMORY USAGE {red['bytes_total'] / 1e6:.1f} MB, "
        f"stored values {red['value_bytes'] / 1e6:.1f} MB; "
        f"median over samples: {statistics.median(r['turns_per_s'] for r in results.values()):.0f}"
        " turns/s"
    )


if __name__ == "__main__":
    main()
