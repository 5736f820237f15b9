"""Heartbeat overhead and compile scaling, as ratios against in-process baselines.

Two measurements, both with a scripted chat model so the figures are the graph's
own cost (the model's latency is the design's budget, not ours):

1. **Turn cost.** ``--turns`` turns of one learner through the real heartbeat
   (Redis saver, Neo4j recall logging, archival search, auto-archive at a small
   ``max_tokens``), each turn = tool call + answer. Baseline: a minimal two-node
   ReAct ``StateGraph`` (model → tool → model) on ``InMemorySaver`` with a no-op
   tool, same scripted model, same turn count. Printed: p50/p95 per turn, and the
   ratio heartbeat / baseline; archive turns are reported separately.
2. **Compile scaling.** ``compile_prompt`` + token count over FIFO queues of
   10 … 2,000 messages; ratio of time per message against the 10-message queue
   (≈ 1 means O(queue), as the design states).

    .venv/bin/python -m bench.heartbeat [--turns 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from tqdm import tqdm

from agent.checkpoint import AsyncRedisSaver  # noqa: E402
from agent.context import Context  # noqa: E402
from agent.heartbeat.tokens import count_messages  # noqa: E402
from agent.heartbeat.working_memory import compile_prompt  # noqa: E402
from agent.resources import Resources  # noqa: E402
from agent.settings import Settings  # noqa: E402
from graphs.heartbeat import make_builder  # noqa: E402

FILLER = "We went through another worked example of joins, step by step, with a small table. " * 4


class LoopingModel(BaseChatModel):
    """Scripted by the last message: a question → one search call; a tool result → an answer.

    A summarisation request (the archive node's prompt) gets a fixed short summary, so the
    script never desynchronises when auto-archive calls the model.
    """

    tool_name: str = "archival_memory_search"
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "bench-looping"

    def bind_tools(self, tools: Any, **kwargs: Any) -> LoopingModel:
        """Tools are ignored: the script decides."""
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.calls += 1
        last = messages[-1]
        if isinstance(last, HumanMessage) and last.text.startswith("Summarise the conversation"):
            reply = AIMessage(content="The learner practised SQL joins with worked examples.")
        elif isinstance(last, ToolMessage):
            reply = AIMessage(content=f"Answer {self.calls}: {FILLER}")
        else:
            call = {
                "name": self.tool_name,
                "args": {"query": "joins example"},
                "id": f"c{self.calls}",
                "type": "tool_call",
            }
            reply = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])


class BaselineState(TypedDict):
    """State of the minimal ReAct baseline."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation."""


@tool
def archival_memory_search(query: str) -> str:
    """No-op stand-in tool for the baseline graph."""
    return f"nothing stored about {query}"


def baseline_graph(model: LoopingModel) -> Any:
    """Model → tool → model, no memory management, on InMemorySaver."""

    def think(state: BaselineState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: BaselineState) -> str:
        return "act" if state["messages"][-1].tool_calls else END

    builder = StateGraph(BaselineState)
    builder.add_node("think", think)
    builder.add_node("act", ToolNode([archival_memory_search]))
    builder.add_edge(START, "think")
    builder.add_conditional_edges("think", route, ["act", END])
    builder.add_edge("act", "think")
    return builder.compile(checkpointer=InMemorySaver())


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_baseline(turns: int) -> list[float]:
    """Per-turn seconds of the baseline graph."""
    graph = baseline_graph(LoopingModel())
    cfg = {"configurable": {"thread_id": f"bench-base-{uuid.uuid4().hex[:8]}"}}
    times = []
    for i in tqdm(range(turns), desc="baseline ReAct", unit="turn"):
        t0 = time.perf_counter()
        await graph.ainvoke({"messages": [HumanMessage(content=f"Question {i}: {FILLER}")]}, cfg)
        times.append(time.perf_counter() - t0)
    return times


async def run_heartbeat(settings: Settings, turns: int, max_tokens: int) -> tuple[list[float], list[bool]]:
    """Per-turn seconds of the real heartbeat, and whether each turn archived."""
    model = LoopingModel()
    resources = Resources(settings, chat_model=model)
    learner = f"bench-hb-{uuid.uuid4().hex[:10]}"
    prefix = f"kag-bench-ckpt-{uuid.uuid4().hex[:6]}"
    ctx = Context(max_tokens=max_tokens, zettelkasten=False)
    times, archived = [], []
    try:
        async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
            await saver.setup()
            graph = make_builder(resources).compile(checkpointer=saver)
            cfg = {"configurable": {"thread_id": learner}}
            before = 0
            for i in tqdm(range(turns), desc="heartbeat", unit="turn"):
                t0 = time.perf_counter()
                out = await graph.ainvoke(
                    {"learner_id": learner, "request": f"Question {i}: {FILLER}"}, cfg, context=ctx
                )
                times.append(time.perf_counter() - t0)
                count = out["memory_state"].get("archive_attempts", 0)
                archived.append(count > before)
                before = count
            keys = [k async for k in saver.client.scan_iter(match=f"{prefix}:*", count=1000)]
            if keys:
                await saver.client.delete(*keys)
        async with resources.neo4j.session(database=resources.database) as session:
            await session.run("MATCH (n {learner_id: $l}) DETACH DELETE n", l=learner)
        stale = [k async for k in resources.redis.scan_iter(match=f"*{learner}*")]
        if stale:
            await resources.redis.delete(*stale)
    finally:
        await resources.aclose()
    return times, archived


def compile_scaling(sizes: list[int], repeats: int = 20) -> list[tuple[int, float]]:
    """Seconds per compile+count for each queue size."""
    core = {"user_profile": "Name: Ada. Level: beginner.", "current_goals": "Master SQL joins by Friday."}
    out = []
    for n in sizes:
        queue: list[AnyMessage] = []
        for i in range(n):
            cls = HumanMessage if i % 3 == 0 else AIMessage
            queue.append(
                cls(content=f"message {i}: {FILLER}")
                if i % 3 != 2
                else ToolMessage(content=f"result {i}", tool_call_id=f"t{i}")
            )
        t0 = time.perf_counter()
        for _ in range(repeats):
            count_messages(compile_prompt(core, queue, text_protocol=False))
        out.append((n, (time.perf_counter() - t0) / repeats))
    return out


def main() -> None:
    """Run both measurements and print ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--max-tokens", type=int, default=3000, help="small, so archiving happens")
    parser.add_argument("--warmup", type=int, default=3, help="turns left out (schema setup, model load)")
    args = parser.parse_args()
    settings = Settings.from_env()

    base = asyncio.run(run_baseline(args.turns))
    beat, archived = asyncio.run(run_heartbeat(settings, args.turns, args.max_tokens))
    base, beat, archived = base[args.warmup :], beat[args.warmup :], archived[args.warmup :]
    plain = [t for t, a in zip(beat, archived, strict=True) if not a]
    with_archive = [t for t, a in zip(beat, archived, strict=True) if a]

    print(f"\nTurn cost over {len(beat)} turns after {args.warmup} warm-up (tool call + answer)")
    print(f"{'graph':<28}{'p50 ms':>10}{'p95 ms':>10}{'p50 ratio':>12}{'p95 ratio':>12}")
    b50, b95 = pct(base, 0.5), pct(base, 0.95)
    rows = [
        ("baseline ReAct (memory)", base),
        ("heartbeat, no archive", plain),
        ("heartbeat, archive turns", with_archive),
    ]
    for name, vals in rows:
        if not vals:
            print(f"{name:<28}{'-':>10}")
            continue
        p50, p95 = pct(vals, 0.5), pct(vals, 0.95)
        print(f"{name:<28}{p50 * 1e3:>10.1f}{p95 * 1e3:>10.1f}{p50 / b50:>12.1f}{p95 / b95:>12.1f}")
    print(
        f"archive turns: {len(with_archive)} of {len(beat)}; mean all turns "
        f"{statistics.mean(beat) * 1e3:.1f} ms vs baseline {statistics.mean(base) * 1e3:.1f} ms"
    )

    scaling = compile_scaling([10, 100, 500, 2000])
    per_msg0 = scaling[0][1] / scaling[0][0]
    print("\nCompile + token count vs queue size (ratio of time per message to the 10-message queue)")
    print(f"{'queue':>8}{'ms':>10}{'per-msg ratio':>16}")
    for n, secs in scaling:
        print(f"{n:>8}{secs * 1e3:>10.2f}{(secs / n) / per_msg0:>16.2f}")


if __name__ == "__main__":
    main()
