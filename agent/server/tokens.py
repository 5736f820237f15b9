"""Bearer tokens → learner ids for the LangGraph server (dev token table).

Two sources, merged; either may be absent:

- ``KAG_AUTH_TOKENS``: ``"token:learner-id,token:learner-id"``;
- ``KAG_AUTH_TOKENS_FILE``: a JSON object ``{"token": "learner-id", ...}``.

A token that maps to two learners, a short token or a bad learner id is a ``ConfigError``
naming the variable. Only SHA-256 digests of the tokens are kept in memory; the values come
from ``Settings`` or a mapping passed in (this module reads no environment).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent.errors import ConfigError, InvalidInputError
from agent.settings import Settings
from agent.validation import validate_learner_id

TOKENS_VAR = "KAG_AUTH_TOKENS"
TOKENS_FILE_VAR = "KAG_AUTH_TOKENS_FILE"
MIN_TOKEN_CHARS = 8


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenTable:
    """Which learner each bearer token authenticates (by token digest)."""

    learners: Mapping[str, str] = field(default_factory=dict, repr=False)
    """SHA-256 hex digest of a token → learner id."""

    @property
    def configured(self) -> bool:
        """True when at least one token is known."""
        return bool(self.learners)

    def learner_for(self, token: str) -> str | None:
        """The learner ``token`` authenticates, or None."""
        return self.learners.get(_digest(token)) if token else None

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, str]], variable: str) -> TokenTable:
        """Validate ``(token, learner)`` pairs; ``variable`` is named in errors."""
        learners: dict[str, str] = {}
        for token, learner in pairs:
            if len(token) < MIN_TOKEN_CHARS or any(c.isspace() or c in ",:" for c in token):
                raise ConfigError(
                    variable,
                    f"tokens need at least {MIN_TOKEN_CHARS} characters and no whitespace, ',' or ':' "
                    f"(the one for learner {learner!r} does not qualify)",
                )
            try:
                learner = validate_learner_id(learner)
            except InvalidInputError as exc:
                raise ConfigError(variable, str(exc)) from None
            key = _digest(token)
            if learners.get(key, learner) != learner:
                raise ConfigError(variable, f"one token maps to {learners[key]!r} and {learner!r}")
            learners[key] = learner
        return cls(learners)

    def merged(self, other: TokenTable, variable: str) -> TokenTable:
        """Both tables; a token mapped to two learners is an error."""
        for key, learner in other.learners.items():
            if self.learners.get(key, learner) != learner:
                raise ConfigError(variable, f"a token maps to {self.learners[key]!r} elsewhere")
        return TokenTable({**self.learners, **other.learners})

    @classmethod
    def from_values(cls, inline: str = "", file_path: str = "") -> TokenTable:
        """The table of ``inline`` pairs (``KAG_AUTH_TOKENS`` syntax) merged with a JSON file's."""
        table = cls.from_pairs(_parse_inline(inline or ""), TOKENS_VAR)
        path = (file_path or "").strip()
        if path:
            table = table.merged(cls.from_pairs(_read_file(path), TOKENS_FILE_VAR), TOKENS_FILE_VAR)
        return table

    @classmethod
    def from_settings(cls, settings: Settings) -> TokenTable:
        """The table ``settings.auth_tokens`` and ``settings.auth_tokens_file`` describe."""
        return cls.from_values(settings.auth_tokens, settings.auth_tokens_file)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TokenTable:
        """The table of ``KAG_AUTH_TOKENS[_FILE]`` in ``environ`` (default: via ``Settings``)."""
        if environ is None:
            return cls.from_settings(Settings.from_env())
        return cls.from_values(environ.get(TOKENS_VAR, ""), environ.get(TOKENS_FILE_VAR, ""))


def _parse_inline(raw: str) -> list[tuple[str, str]]:
    pairs = []
    for item in filter(None, (part.strip() for part in raw.split(","))):
        token, sep, learner = item.partition(":")
        if not sep:
            raise ConfigError(TOKENS_VAR, "expected 'token:learner-id' pairs separated by ','")
        pairs.append((token.strip(), learner.strip()))
    return pairs


def _read_file(path: str) -> list[tuple[str, str]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(TOKENS_FILE_VAR, f"cannot read JSON from {path!r}: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ConfigError(TOKENS_FILE_VAR, 'expected a JSON object {"token": "learner-id", ...}')
    return [(str(k), v) for k, v in data.items()]
