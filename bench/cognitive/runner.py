"""Run the cognitive suite: each scenario through the real heartbeat, then its probes on both searches.

Used by ``python -m bench.cognitive``, ``kag eval cognitive`` and the tests. For each scenario:

1. a fresh learner (a UUID) and a fresh ``ManualClock``; a ``Resources`` bundle over the
   run's shared Neo4j driver, Redis client, embeddings and chat model carries that clock;
2. every learner message is one request to the heartbeat
   (``graphs.heartbeat.make_builder(bundle).compile(checkpointer=InMemorySaver())``, one
   thread per session), sent with the clock at the session's date plus one minute per
   message; every request carries ``session_id`` = the scenario's session id, and the
   last of a session ``end_session: true``. Ingestion is the product's own path: the
   chat model decides which tools to call (the offline policy by default, so no LLM);
   Sessions are days apart: before each session after the first, the kernel worker
   drains the learner (``KernelWorker.drain``), as the server's worker would have done
   within its flush interval; with ``drain=False`` the probes see what the Redis tail
   serves before any drain (reads-your-writes), the state of a search inside a session;
3. the custom stream events of each request are kept: ``{"phase": "reminder", ...}``
   events are the reminder firings of that turn, and the others (with the output
   ``memory_state``) feed the metacognition figures (``bench.cognitive.metacognition``);
4. after each session, the probes naming it run on KAG's search and the baseline's
   (``bench.cognitive.probes``), with the clock one minute after the session's last
   message, and are scored (``bench.cognitive.scoring``);
5. the learner is erased unless ``keep``.

A scenario that raises is recorded with its error (its probes fail with it) and the
run goes on with the next one.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from agent.clock import ManualClock
from agent.context import Context
from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import MINILM, OFFLINE_MODEL, Settings
from bench.cognitive.dataset import MESSAGE_GAP, CognitiveDataset, Probe, Scenario, Session
from bench.cognitive.probes import BASELINE, KAG, SearchOutcome, baseline_search, kag_search
from bench.cognitive.scoring import ProbeVerdict, ReminderVerdict, TurnFirings, score_probe, score_reminders
from graphs.heartbeat import make_builder

Search = Callable[[MemoryStores, str, Probe], Awaitable[SearchOutcome]]
SEARCHES: dict[str, Search] = {KAG: kag_search, BASELINE: baseline_search}
REMINDER_PHASE = "reminder"
MODELS = ("offline", "gemini")
_EVENT_TEXT_CAP = 300


@dataclass(frozen=True)
class CognitiveConfig:
    """What to run."""

    path: str
    scenarios: tuple[str, ...] = ()
    """Scenario ids to run (empty: all)."""
    baseline: bool = True
    model: str = "offline"
    """``offline`` (the offline policy, MiniLM: no LLM) or ``gemini`` (settings from the environment)."""
    keep: bool = False
    """Keep the learners' data instead of erasing it."""
    drain: bool = True
    """Drain the kernel worker before each later session (the days between sessions)."""
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])

    @property
    def systems(self) -> tuple[str, ...]:
        """The searches every probe runs on."""
        return (KAG, BASELINE) if self.baseline else (KAG,)


@dataclass
class TurnRecord:
    """One learner message: what the heartbeat answered, reported and fired."""

    session: str
    turn: int
    request: str
    response: str = ""
    memory_state: dict[str, Any] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    """The request's custom stream events (long strings cut), reminder firings included."""
    fired: list[str] = field(default_factory=list)
    """Ids of the reminders that fired on this turn."""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "session": self.session,
            "turn": self.turn,
            "request": self.request,
            "response": self.response,
            "memory_state": self.memory_state,
            "fired": self.fired,
            "events": self.events,
            "seconds": round(self.seconds, 2),
        }


@dataclass
class ProbeResult:
    """One probe on every system."""

    index: int
    probe: Probe
    outcomes: dict[str, SearchOutcome] = field(default_factory=dict)
    verdicts: dict[str, ProbeVerdict] = field(default_factory=dict)
    error: str | None = None

    def passed(self, system: str) -> bool:
        """Whether the probe passed on ``system`` (False when it could not run)."""
        verdict = self.verdicts.get(system)
        return bool(verdict and verdict.passed)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        p = self.probe
        return {
            "index": self.index,
            "after": p.after,
            "query": p.query,
            "k": p.k,
            "first": p.first,
            "as_of": p.as_of.isoformat() if p.as_of else None,
            "in_order": p.in_order,
            "expect": [{"all": list(i.all), "session": p.session_of(i)} for i in p.expect],
            "error": self.error,
            "systems": {
                s: {**self.outcomes[s].to_dict(), **self.verdicts[s].to_dict()}
                for s in self.outcomes
                if s in self.verdicts
            },
        }


@dataclass
class ScenarioResult:
    """A finished scenario."""

    scenario: Scenario
    learner_id: str
    turns: list[TurnRecord] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    reminders: list[ReminderVerdict] = field(default_factory=list)
    reminder_states: list[dict[str, Any]] = field(default_factory=list)
    """The learner's reminders in the store at the end (status, trigger), for diagnosis."""
    seconds: float = 0.0
    error: str | None = None

    def firings(self) -> list[TurnFirings]:
        """The reminder firings of every turn, tagged with the scenario id."""
        return [TurnFirings(t.session, t.turn, list(t.fired), self.scenario.id) for t in self.turns]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "id": self.scenario.id,
            "level": self.scenario.level,
            "learner_id": self.learner_id,
            "seconds": round(self.seconds, 1),
            "error": self.error,
            "probes": [p.to_dict() for p in self.probes],
            "reminders": [v.to_dict() for v in self.reminders],
            "reminder_states": self.reminder_states,
            "turns": [t.to_dict() for t in self.turns],
        }


@dataclass
class CognitiveResult:
    """A finished run of one dataset with one chat model."""

    config: CognitiveConfig
    dataset: CognitiveDataset
    scenarios: list[ScenarioResult]
    chat_model: str
    embeddings: str
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems the probes ran on."""
        return self.config.systems


def bench_settings(model: str = "offline") -> Settings:
    """Offline: the offline policy and MiniLM whatever the environment says. Gemini: the environment."""
    if model == "offline":
        return Settings.from_env(model=OFFLINE_MODEL, embeddings=MINILM)
    settings = Settings.from_env()
    if settings.offline:
        from agent.errors import ConfigError

        raise ConfigError("GOOGLE_API_KEY", "--model gemini needs a Gemini key")
    return settings


def _compact(value: Any) -> Any:
    """``value`` with long strings cut and non-JSON values as text (events can carry whole prompts)."""
    if isinstance(value, str):
        return value if len(value) <= _EVENT_TEXT_CAP else value[:_EVENT_TEXT_CAP] + "…"
    if isinstance(value, dict):
        return {str(k): _compact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_compact(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return _compact(str(value))


def firing_ids(event: dict[str, Any], turn_key: str) -> list[str]:
    """The reminders one ``reminder`` event reports, by id (description, else a per-event placeholder)."""
    listed = event.get("reminders") or event.get("fired")
    items = listed if isinstance(listed, list) else [event]
    ids = []
    for n, item in enumerate(items):
        if isinstance(item, dict):
            rid = item.get("id") or item.get("reminder_id") or item.get("description")
        else:
            rid = item if isinstance(item, str) else None
        ids.append(str(rid) if rid else f"{turn_key}#{n}")
    return ids


async def send(graph: Any, learner_id: str, session: Session, turn: int, text: str) -> TurnRecord:
    """One learner message through the heartbeat, its custom events kept."""
    last = turn == len(session.learner) - 1
    context: dict[str, Any] = {"session_id": session.id}
    if last:
        context["end_session"] = True
    payload = {"learner_id": learner_id, "request": text, "context": context}
    config = {"configurable": {"thread_id": f"{learner_id}-{session.id}"}}
    record = TurnRecord(session.id, turn, text)
    started = time.perf_counter()
    async for mode, chunk in graph.astream(
        payload, config, context=Context(), stream_mode=["custom", "values"]
    ):
        if mode == "values":
            record.response = str(chunk.get("response", record.response) or "")
            record.memory_state = dict(chunk.get("memory_state") or record.memory_state)
            continue
        if not isinstance(chunk, dict):
            continue
        record.events.append(_compact(chunk))
        if chunk.get("phase") == REMINDER_PHASE:
            record.fired.extend(firing_ids(chunk, f"{session.id}:{turn}:{len(record.events)}"))
    record.seconds = time.perf_counter() - started
    return record


async def run_probe(
    stores: MemoryStores,
    learner_id: str,
    scenario: Scenario,
    index: int,
    probe: Probe,
    systems: Sequence[str],
) -> ProbeResult:
    """Search and score one probe on every system."""
    dates = {s.id: s.date for s in scenario.sessions}
    result = ProbeResult(index, probe)
    for system in systems:
        outcome = await SEARCHES[system](stores, learner_id, probe)
        result.outcomes[system] = outcome
        result.verdicts[system] = score_probe(probe, outcome.hits, dates)
    return result


async def run_scenario(
    base: Resources, scenario: Scenario, config: CognitiveConfig, echo: Callable[[str], object] | None = None
) -> ScenarioResult:
    """Drive one scenario through the heartbeat and score its probes and reminder checks."""
    learner = str(uuid.uuid4())
    clock = ManualClock(scenario.sessions[0].date)
    bundle = Resources(
        base.settings,
        chat_model=base.chat_model,
        embeddings=base.embeddings,
        neo4j_driver=base.neo4j,
        redis_client=base.redis,
        clock=clock,
    )  # shares the run's clients: never closed here
    graph = make_builder(bundle).compile(checkpointer=InMemorySaver())
    stores = MemoryStores.wire(bundle)
    worker = build_worker(bundle, stores)
    result = ScenarioResult(scenario, learner)
    started = time.perf_counter()
    try:
        for number, session in enumerate(scenario.sessions):
            if config.drain and number:
                await worker.drain(learner)
            for turn, text in enumerate(session.learner):
                clock.set(session.message_time(turn))
                result.turns.append(await send(graph, learner, session, turn, text))
            clock.set(session.end + MESSAGE_GAP)
            for index, probe in scenario.probes_after(session.id):
                result.probes.append(await run_probe(stores, learner, scenario, index, probe, config.systems))
        reminders = getattr(stores, "reminders", None)
        if reminders is not None:
            result.reminder_states = [_compact(r.to_dict()) for r in await reminders.list(learner)]
    except Exception as exc:  # a product failure is a result, not the end of the run
        result.error = f"{type(exc).__name__}: {exc}"
        done = {p.index for p in result.probes}
        result.probes.extend(
            ProbeResult(i, p, error=result.error) for i, p in enumerate(scenario.probes) if i not in done
        )
    finally:
        if not config.keep:
            await erase_learner(bundle, learner)
    result.reminders = score_reminders(scenario.reminders, result.firings())
    result.seconds = time.perf_counter() - started
    if echo is not None:
        echo(progress_line(result, config.systems))
    return result


def progress_line(result: ScenarioResult, systems: Sequence[str]) -> str:
    """``dev-L3-quiz (L3): 4 turns, probes kag 2/2 baseline 0/2, reminders 0/0, 6.1 s``."""
    n = len(result.probes)
    probes = " ".join(f"{s} {sum(p.passed(s) for p in result.probes)}/{n}" for s in systems)
    checks = f"{sum(v.passed for v in result.reminders)}/{len(result.reminders)}"
    line = (
        f"{result.scenario.id} ({result.scenario.level}): {len(result.turns)} turns, "
        f"probes {probes}, reminder checks {checks}, {result.seconds:.1f} s"
    )
    return line + (f"  ERROR {result.error}" if result.error else "")


async def run_cognitive(
    config: CognitiveConfig,
    dataset: CognitiveDataset,
    *,
    resources: Resources | None = None,
    echo: Callable[[str], object] | None = print,
) -> CognitiveResult:
    """Run every selected scenario in order; ``resources`` (else a bundle from ``config.model``) is shared."""
    own = resources is None
    resources = resources or Resources(bench_settings(config.model))
    scenarios = dataset.select(config.scenarios).scenarios
    results = []
    try:
        for i, scenario in enumerate(scenarios, start=1):
            if echo is not None:
                echo(f"[{i}/{len(scenarios)}] {scenario.id} ({scenario.level}, {scenario.turns} turns) …")
            results.append(await run_scenario(resources, scenario, config, echo))
    finally:
        if own:
            await resources.aclose()
    return CognitiveResult(
        config=config,
        dataset=dataset,
        scenarios=results,
        chat_model=resources.settings.chat_model_id,
        embeddings=resources.settings.embeddings_id,
    )
