"""Settings read from the environment once and passed explicitly.

This module is the one place KAG reads its configuration from the environment
(``Context`` fills its defaulted knobs from ``KAG_<FIELD>`` with the same
parser, ``agent.env.parse_env_value``). Explicit keyword arguments always win over
environment variables: ``Settings.from_env(redis_url=...)`` ignores ``KAG_REDIS_URL``.

A ``.env`` file never overrides the shell: ``load_env_file`` (called by the ``kag``
CLI, and by ``kag serve`` before it starts ``langgraph dev``) sets only the
variables the environment does not already have. ``langgraph.json`` names no
``env`` file on purpose: ``langgraph_api.cli.run_server`` patches ``os.environ``
with every value of that file, so it would override the shell.
"""

from __future__ import annotations

import difflib
import hashlib
import ipaddress
import logging
import os
import sys
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from agent.context import Context
from agent.env import parse_env_value
from agent.errors import ConfigError

log = logging.getLogger("kag.settings")

DEFAULT_NEO4J_PASSWORD = "kag-dev-password"
DEFAULT_GEMINI_MODEL = "google_genai:gemini-2.5-flash"
DEFAULT_GEMINI_EMBEDDINGS = "google_genai:models/gemini-embedding-001"
OFFLINE_MODEL = "offline-policy"
MINILM = "minilm"
ENV_FILE = ".env"
"""The dotenv file ``load_env_file`` reads by default (relative to the working directory)."""

# field name -> environment variable
_ENV = {
    "neo4j_uri": "KAG_NEO4J_URI",
    "neo4j_user": "KAG_NEO4J_USER",
    "neo4j_password": "KAG_NEO4J_PASSWORD",
    "neo4j_database": "KAG_NEO4J_DATABASE",
    "redis_url": "KAG_REDIS_URL",
    "google_api_key": "GOOGLE_API_KEY",
    "model": "KAG_MODEL",
    "embeddings": "KAG_EMBEDDINGS",
    "langsmith_tracing": "LANGSMITH_TRACING",
    "langsmith_api_key": "LANGSMITH_API_KEY",
    "langsmith_project": "LANGSMITH_PROJECT",
    "langsmith_endpoint": "LANGSMITH_ENDPOINT",
    "trace_content": "KAG_TRACE_CONTENT",
    "auth_tokens": "KAG_AUTH_TOKENS",
    "auth_tokens_file": "KAG_AUTH_TOKENS_FILE",
    "checkpoint_ttl": "KAG_CHECKPOINT_TTL",
    "checkpoint_keep": "KAG_CHECKPOINT_KEEP",
    "checkpoint_prefix": "KAG_CHECKPOINT_PREFIX",
    "ingest_mode": "KAG_INGEST_MODE",
    "kernel_batch_size": "KAG_KERNEL_BATCH_SIZE",
    "kernel_flush_seconds": "KAG_KERNEL_FLUSH_SECONDS",
    "kernel_max_backlog": "KAG_KERNEL_MAX_BACKLOG",
    "kernel_in_server": "KAG_KERNEL_IN_SERVER",
    "reflection_interval_seconds": "KAG_REFLECTION_INTERVAL_SECONDS",
    "embed_threads": "KAG_EMBED_THREADS",
    "embed_onnx_path": "KAG_EMBED_ONNX_PATH",
    "studio_anonymous": "KAG_STUDIO_ANONYMOUS",
    "server_url": "LANGGRAPH_API_URL",
}
_KINDS: dict[str, type] = {
    "langsmith_tracing": bool,
    "trace_content": bool,
    "checkpoint_ttl": int,
    "checkpoint_keep": int,
    "kernel_batch_size": int,
    "kernel_flush_seconds": float,
    "kernel_max_backlog": int,
    "kernel_in_server": bool,
    "reflection_interval_seconds": int,
    "embed_threads": int,
    "studio_anonymous": bool,
}
INGEST_MODES = ("kernel", "sync")

OTHER_KAG_VARIABLES = frozenset(
    {
        "KAG_NEO4J_PORT",  # scripts/services.sh, docker-compose.yml
        "KAG_REDIS_PORT",  # scripts/services.sh, docker-compose.yml
        "KAG_NEO4J_HEAP",  # scripts/services.sh
        "KAG_SERVICES_DIR",  # scripts/services.sh
        "KAG_NOTEBOOK_SMALL",  # notebooks/
        "KAG_LOCOMO_PATH",  # bench/locomo/dataset.py
        "KAG_KERNEL_RESULTS",  # notebooks/04_kernel.ipynb, bench/kernel/report.py
    }
)
"""``KAG_*`` variables read by scripts, notebooks and the bench, not by the product."""

_WARNED: set[str] = set()


def read_env(var: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The non-empty value of ``var`` in ``environ`` (default ``os.environ``), else None."""
    raw = (os.environ if environ is None else environ).get(var)
    return raw if raw not in (None, "") else None


def known_variables() -> frozenset[str]:
    """Every ``KAG_*`` variable that names a Settings or Context field (or a script's knob)."""
    context_vars = {f"KAG_{f.name.upper()}" for f in fields(Context)}
    return frozenset({*_ENV.values(), *context_vars, *OTHER_KAG_VARIABLES})


def warn_unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """Warn (once per name per process) about ``KAG_*`` variables no field reads; return them."""
    known = known_variables()
    unknown = sorted(var for var in environ if var.startswith("KAG_") and var not in known)
    for var in unknown:
        if var not in _WARNED:
            _WARNED.add(var)
            close = difflib.get_close_matches(var, known, n=1)
            guess = f"did you mean {close[0]}?" if close else "a typo?"
            log.warning("ignoring unknown environment variable %s (%s see agent/settings.py)", var, guess)
    return unknown


def load_env_file(
    path: str | Path = ENV_FILE, environ: MutableMapping[str, str] | None = None
) -> dict[str, str]:
    """Fill ``environ`` (default ``os.environ``) from the dotenv file at ``path``; never override.

    Only variables the environment has not set at all are taken from the file (a
    variable the shell set to an empty string stays empty). A missing file is not
    an error. Returns what was set.
    """
    target = os.environ if environ is None else environ
    file = Path(path)
    if not file.is_file():
        return {}
    from dotenv import dotenv_values  # local: keeps ``import agent.settings`` light

    applied = {
        name: value for name, value in dotenv_values(file).items() if value is not None and name not in target
    }
    target.update(applied)
    return applied


def check_context_variables(environ: Mapping[str, str] | None = None) -> None:
    """Check every ``KAG_<FIELD>`` of ``Context`` in ``environ``; a bad one is a ``ConfigError`` naming it.

    ``Context`` itself names the field (``pressure_threshold``), since it is also
    built from explicit values; here the value came from a variable, so the error
    names the variable (``KAG_PRESSURE_THRESHOLD``) and the value it holds.
    """
    env = os.environ if environ is None else environ
    raw_values: dict[str, str] = {}
    values: dict[str, Any] = {}
    for f in fields(Context):
        var = f"KAG_{f.name.upper()}"
        raw = read_env(var, env)
        if raw is None:
            continue
        raw_values[f.name] = raw
        values[f.name] = parse_env_value(var, raw, type(f.default))
    if not values:
        return
    try:
        Context(**values)
    except ConfigError as exc:
        if exc.variable not in raw_values:
            raise
        var = f"KAG_{exc.variable.upper()}"
        raise ConfigError(var, f"{exc.problem} (got {raw_values[exc.variable]!r})") from None


def _check_range(name: str, value: object, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(_ENV[name], f"expected a number in [{low}, {high}], got {value!r}")


@dataclass(frozen=True)
class Settings:
    """Connection, provider and server settings for one KAG process."""

    neo4j_uri: str = "bolt://127.0.0.1:7687"
    """Bolt URI of Neo4j (KAG_NEO4J_URI)."""
    neo4j_user: str = "neo4j"
    """Neo4j user (KAG_NEO4J_USER)."""
    neo4j_password: str = field(default=DEFAULT_NEO4J_PASSWORD, repr=False)
    """Neo4j password (KAG_NEO4J_PASSWORD); the dev default suits the local scripts only."""
    neo4j_database: str = "neo4j"
    """Neo4j database name (KAG_NEO4J_DATABASE)."""
    redis_url: str = "redis://127.0.0.1:6379/0"
    """Redis URL (KAG_REDIS_URL)."""
    google_api_key: str | None = field(default=None, repr=False)
    """Gemini key (GOOGLE_API_KEY). Unset means offline mode."""
    model: str = ""
    """Chat model as ``provider:name`` (KAG_MODEL). Empty picks Gemini or the offline policy."""
    embeddings: str = ""
    """Embeddings as ``provider:name`` or ``minilm`` (KAG_EMBEDDINGS). Empty picks by key."""
    langsmith_tracing: bool = False
    """Opt-in LangSmith tracing (LANGSMITH_TRACING)."""
    langsmith_api_key: str | None = field(default=None, repr=False)
    """LangSmith key (LANGSMITH_API_KEY)."""
    langsmith_project: str = "kag"
    """LangSmith project (LANGSMITH_PROJECT)."""
    langsmith_endpoint: str | None = None
    """LangSmith endpoint (LANGSMITH_ENDPOINT)."""
    trace_content: bool = False
    """Send run inputs/outputs (messages, core memory) with traces (KAG_TRACE_CONTENT); off by default."""
    auth_tokens: str = field(default="", repr=False)
    """Server token table ``token:learner-id,...`` (KAG_AUTH_TOKENS); see ``agent.server.tokens``."""
    auth_tokens_file: str = ""
    """Path of a JSON token table ``{"token": "learner-id"}`` (KAG_AUTH_TOKENS_FILE)."""
    checkpoint_ttl: int | None = None
    """Server checkpoint expiry in seconds, refreshed on read (KAG_CHECKPOINT_TTL); None: never."""
    checkpoint_keep: int = 500
    """Checkpoints the server keeps per thread namespace (KAG_CHECKPOINT_KEEP; 0: all). Each
    step stores the channels it changed whole, so an unbounded thread grows by 100-250 KB a
    turn (``bench.checkpoint_growth``); 500 is about 50 turns of time travel."""
    checkpoint_prefix: str = ""
    """Server checkpoint key prefix (KAG_CHECKPOINT_PREFIX); empty: the saver's default."""
    ingest_mode: str = "kernel"
    """How recall logging reaches Neo4j (KAG_INGEST_MODE): ``kernel`` (the Redis Stream and the
    kernel worker, off the hot path) or ``sync`` (written in the step: the old path, for benches)."""
    kernel_batch_size: int = 50
    """Events the kernel worker takes per batch (KAG_KERNEL_BATCH_SIZE, 1..1000)."""
    kernel_flush_seconds: float = 10.0
    """Longest wait before a partial batch is written (KAG_KERNEL_FLUSH_SECONDS, 0..300)."""
    kernel_max_backlog: int = 10_000
    """Stream depth past which producers are slowed and turns report degraded (KAG_KERNEL_MAX_BACKLOG)."""
    kernel_in_server: bool = True
    """Run the kernel worker and the reflection crons in the LangGraph server (KAG_KERNEL_IN_SERVER)."""
    reflection_interval_seconds: int = 300
    """How often the server reflects over recently active learners (KAG_REFLECTION_INTERVAL_SECONDS)."""
    embed_threads: int = 0
    """Torch intra-op threads of the offline MiniLM model (KAG_EMBED_THREADS, 0..64; 0: torch's
    default, one per core). 1 helps on a machine oversubscribed by other processes, where OpenMP
    teams stall each other; on a quiet machine the worker's batches gain from every core.
    With the ONNX export (``agent.models.onnx_encoder``) it sets the foreground session's
    intra-op threads; the kernel worker's background session always has one."""
    embed_onnx_path: str = ""
    """The offline MiniLM model exported to ONNX by ``make install`` (KAG_EMBED_ONNX_PATH); empty:
    ``<environment>/share/kag/all-MiniLM-L6-v2.onnx`` (``onnx_model_path``). Missing or unchecked:
    MiniLM runs on sentence-transformers (torch) instead, with one warning."""

    studio_anonymous: bool = False
    """Let LangGraph Studio in without a token (KAG_STUDIO_ANONYMOUS), as ``langgraph dev``'s
    ``langgraph-studio-user``; honoured only on a loopback bind (``studio_anonymous_allowed``)."""
    server_url: str = ""
    """The URL the LangGraph server serves on (LANGGRAPH_API_URL, set by ``langgraph dev`` itself)."""

    def __post_init__(self) -> None:
        """Validate every field; errors name the environment variable."""
        uri = urlparse(self.neo4j_uri)
        if uri.scheme not in {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}:
            raise ConfigError(_ENV["neo4j_uri"], f"expected bolt:// or neo4j:// URI, got {self.neo4j_uri!r}")
        if not uri.hostname:
            raise ConfigError(_ENV["neo4j_uri"], f"no host in {self.neo4j_uri!r}")
        if not self.neo4j_user:
            raise ConfigError(_ENV["neo4j_user"], "must not be empty")
        if len(self.neo4j_password) < 8:
            raise ConfigError(_ENV["neo4j_password"], "Neo4j 5 needs at least 8 characters")
        red = urlparse(self.redis_url)
        if red.scheme not in {"redis", "rediss", "unix"}:
            raise ConfigError(_ENV["redis_url"], f"expected redis:// URL, got {self.redis_url!r}")
        if red.scheme != "unix" and not red.hostname:
            raise ConfigError(_ENV["redis_url"], f"no host in {self.redis_url!r}")
        if self.model and self.model != OFFLINE_MODEL and ":" not in self.model:
            raise ConfigError(_ENV["model"], f"use 'provider:model' or '{OFFLINE_MODEL}', got {self.model!r}")
        if self.embeddings and self.embeddings != MINILM and ":" not in self.embeddings:
            raise ConfigError(
                _ENV["embeddings"], f"use 'provider:model' or '{MINILM}', got {self.embeddings!r}"
            )
        if self.langsmith_tracing and not self.langsmith_api_key:
            raise ConfigError(_ENV["langsmith_api_key"], "required when LANGSMITH_TRACING is true")
        if self.ingest_mode not in INGEST_MODES:
            raise ConfigError(_ENV["ingest_mode"], f"expected {INGEST_MODES}, got {self.ingest_mode!r}")
        _check_range("kernel_batch_size", self.kernel_batch_size, 1, 1000)
        _check_range("kernel_flush_seconds", self.kernel_flush_seconds, 0, 300)
        _check_range("kernel_max_backlog", self.kernel_max_backlog, 100, 10_000_000)
        _check_range("reflection_interval_seconds", self.reflection_interval_seconds, 10, 86_400)
        _check_range("embed_threads", self.embed_threads, 0, 64)
        ttl = self.checkpoint_ttl
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0):
            raise ConfigError(_ENV["checkpoint_ttl"], f"expected a positive number of seconds, got {ttl!r}")
        keep = self.checkpoint_keep
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
            raise ConfigError(_ENV["checkpoint_keep"], f"expected 0 (all) or a count, got {keep!r}")

    @property
    def kernel_prefix(self) -> str:
        """Redis key prefix of the kernel stream and write backlog: one per Neo4j database.

        A stream feeds one database, so a worker of another deployment sharing the Redis
        never drains it: ``kag`` for the default database, ``kag-<hash>`` for any other.
        """
        if (self.neo4j_uri, self.neo4j_database) == ("bolt://127.0.0.1:7687", "neo4j"):
            return "kag"
        digest = hashlib.sha256(f"{self.neo4j_uri}|{self.neo4j_database}".encode()).hexdigest()
        return f"kag-{digest[:8]}"

    @property
    def studio_anonymous_allowed(self) -> bool:
        """True when Studio may come in without a token: asked for, and the server binds loopback only."""
        host = urlparse(self.server_url).hostname or ""
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        return self.studio_anonymous and loopback

    @property
    def onnx_model_path(self) -> Path:
        """Where the ONNX export of the offline MiniLM model is (or goes): explicit, else in the venv."""
        if self.embed_onnx_path:
            return Path(self.embed_onnx_path).expanduser()
        return Path(sys.prefix) / "share" / "kag" / "all-MiniLM-L6-v2.onnx"

    @property
    def offline(self) -> bool:
        """True when no Gemini key is configured."""
        return not self.google_api_key

    @property
    def chat_model_id(self) -> str:
        """The chat model to build: explicit, else Gemini with a key, else offline."""
        if self.model:
            return self.model
        return OFFLINE_MODEL if self.offline else DEFAULT_GEMINI_MODEL

    @property
    def embeddings_id(self) -> str:
        """The embeddings to build: explicit, else Gemini with a key, else MiniLM."""
        if self.embeddings:
            return self.embeddings
        return MINILM if self.offline else DEFAULT_GEMINI_EMBEDDINGS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read settings from ``environ`` (default ``os.environ``); ``overrides`` win.

        Unknown ``KAG_*`` variables (a typo such as ``KAG_MAX_STEP``) are logged
        once as a warning; the run-time knobs (``KAG_<CONTEXT FIELD>``) are checked
        here too, so a bad one fails at start with an error naming the variable.
        """
        env = os.environ if environ is None else environ
        warn_unknown_variables(env)
        check_context_variables(env)
        values: dict[str, Any] = {}
        names = {f.name for f in fields(cls)}
        for name, var in _ENV.items():
            raw = read_env(var, env)
            if raw is not None:
                values[name] = parse_env_value(var, raw, _KINDS.get(name, str))
        unknown = set(overrides) - names
        if unknown:
            raise TypeError(f"unknown settings: {sorted(unknown)}")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_overrides(self, **overrides: Any) -> Settings:
        """Return a copy with ``overrides`` applied (validated again)."""
        return replace(self, **overrides)
