"""How the text of one environment variable becomes a typed value.

Both ``agent.settings.Settings`` and ``agent.context.Context`` read ``KAG_*`` variables
with this parser; it lives below both so that ``Context`` does not import the settings
module, which checks every ``KAG_<CONTEXT FIELD>`` against ``Context`` (an import circle
otherwise). The errors name the variable (``ConfigError``).
"""

from __future__ import annotations

from typing import Any

from agent.errors import ConfigError

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def parse_bool(var: str, raw: str) -> bool:
    """``raw`` as a boolean (1/0, true/false, yes/no, on/off); ``ConfigError`` naming ``var``."""
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(var, f"expected true/false, got {raw!r}")


def parse_env_value(var: str, raw: str, kind: type) -> Any:
    """Parse one environment value as ``kind`` (bool, int, float, str or a comma-separated tuple)."""
    if kind is bool:
        return parse_bool(var, raw)
    if kind is tuple:
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    try:
        return kind(raw.strip()) if kind in (int, float) else kind(raw)
    except ValueError:
        raise ConfigError(var, f"expected {kind.__name__}, got {raw!r}") from None
