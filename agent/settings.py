"""Settings read from the environment once and passed explicitly.

Explicit keyword arguments always win over environment variables:
``Settings.from_env(redis_url=...)`` ignores ``KAG_REDIS_URL``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any
from urllib.parse import urlparse

from agent.errors import ConfigError

DEFAULT_NEO4J_PASSWORD = "kag-dev-password"
DEFAULT_GEMINI_MODEL = "google_genai:gemini-2.5-flash"
DEFAULT_GEMINI_EMBEDDINGS = "google_genai:models/gemini-embedding-001"
OFFLINE_MODEL = "offline-policy"
MINILM = "minilm"

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
}
_BOOLEANS = {"langsmith_tracing", "trace_content"}


@dataclass(frozen=True)
class Settings:
    """Connection and provider settings for one KAG process."""

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
        """Read settings from ``environ`` (default ``os.environ``); ``overrides`` win."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        names = {f.name for f in fields(cls)}
        for name, var in _ENV.items():
            raw = env.get(var)
            if raw is None or raw == "":
                continue
            values[name] = _parse_bool(var, raw) if name in _BOOLEANS else raw
        unknown = set(overrides) - names
        if unknown:
            raise TypeError(f"unknown settings: {sorted(unknown)}")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_overrides(self, **overrides: Any) -> Settings:
        """Return a copy with ``overrides`` applied (validated again)."""
        return replace(self, **overrides)


def _parse_bool(var: str, raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(var, f"expected true/false, got {raw!r}")
