"""LangSmith tracing: opt-in, learner ids hashed, content hidden unless asked for.

Tracing is on only when ``LANGSMITH_TRACING=true`` **and** ``LANGSMITH_API_KEY``
is set (``Settings`` refuses the first without the second). ``configure_tracing``
then installs one ``langsmith.Client`` as the process-wide client; otherwise it
switches tracing off globally, so no tracer and no client exist and nothing
leaves the machine.

What a trace carries when tracing is on:

- always: run names, tags (``kag``, ``kag:<phase>``), timings, status, error text,
  and metadata: ``learner_hash`` (``agent.validation.learner_hash``), ``phase``,
  ``step``, plus LangGraph's ids (thread, run, assistant, graph, node). Metadata
  values that name a learner (``owner``, ``user_id``, ``learner_id``,
  ``langgraph_auth_user_id``) are replaced with their hash before sending;
- only with ``KAG_TRACE_CONTENT=true``: inputs and outputs (prompts, messages,
  core memory, tool arguments and results). By default they are sent empty.
"""

from __future__ import annotations

from typing import Any

import langsmith
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM

from agent.settings import Settings
from agent.validation import learner_hash

IDENTITY_KEYS = frozenset({"owner", "user_id", "learner_id", "langgraph_auth_user_id"})
"""Metadata keys whose values name a learner; traced as hashes."""


def tracing_enabled(settings: Settings) -> bool:
    """True when both LANGSMITH_TRACING and LANGSMITH_API_KEY are set."""
    return settings.langsmith_tracing and bool(settings.langsmith_api_key)


def run_metadata(learner_id: str, phase: str, step: int | None = None) -> dict[str, Any]:
    """Trace metadata of one heartbeat phase: hashes and counters only."""
    meta: dict[str, Any] = {"learner_hash": learner_hash(learner_id), "phase": phase}
    if step is not None:
        meta["step"] = step
    return meta


def trace_config(
    learner_id: str, phase: str, step: int | None = None, *, run_name: str | None = None
) -> RunnableConfig:
    """Config for a model or tool call made by ``phase``: metadata, tags and run name.

    Tagged ``langgraph.constants.TAG_NOSTREAM``: no internal model call streams its tokens to a
    client's ``messages`` stream (the heartbeat relays the answer itself,
    ``agent.heartbeat.chat_stream``).
    """
    return {
        "metadata": run_metadata(learner_id, phase, step),
        "tags": ["kag", f"kag:{phase}", TAG_NOSTREAM],
        "run_name": run_name or phase,
    }


def scrub_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """Replace learner-naming values with their hash (applied by the client before sending)."""
    return {
        key: learner_hash(value) if key in IDENTITY_KEYS and isinstance(value, str) and value else value
        for key, value in metadata.items()
    }


def make_client(settings: Settings) -> langsmith.Client:
    """A LangSmith client that hides content unless ``settings.trace_content``."""
    hide = not settings.trace_content
    return langsmith.Client(
        api_url=settings.langsmith_endpoint,
        api_key=settings.langsmith_api_key,
        hide_inputs=hide,
        hide_outputs=hide,
        hide_metadata=scrub_metadata,
    )


def configure_tracing(settings: Settings | None = None) -> langsmith.Client | None:
    """Install the tracing client, or switch tracing off; returns the client or None.

    Idempotent for equal settings. Nothing calls it at import: it runs when a
    process starts using KAG, before any model call is traced. ``Resources``
    calls it when built (CLI, bench, scripts and the server's per-loop bundle),
    and the server's checkpointer factory (``agent.server.checkpointer``) calls
    it at server start, before the first run.
    """
    settings = settings or Settings.from_env()
    if settings in _INSTALLED:
        return _INSTALLED[settings]
    client = None
    if tracing_enabled(settings):
        client = make_client(settings)
        langsmith.configure(client=client, enabled=True, project_name=settings.langsmith_project)
    else:
        langsmith.configure(client=None, enabled=False)
    _INSTALLED.clear()
    _INSTALLED[settings] = client
    return client


_INSTALLED: dict[Settings, langsmith.Client | None] = {}
