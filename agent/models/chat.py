"""Chat model factory: Gemini with a key, the offline policy without one."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.errors import ConfigError
from agent.models.capabilities import capabilities_of
from agent.models.offline_policy import OfflinePolicyModel
from agent.settings import OFFLINE_MODEL, Settings

# The design's production settings; every one can be overridden.
PRODUCTION_PARAMS: dict[str, Any] = {"temperature": 0.4, "top_p": 0.95, "max_tokens": 2048}


def make_chat_model(settings: Settings, **overrides: Any) -> BaseChatModel:
    """Build the chat model ``settings.chat_model_id`` names.

    ``overrides`` (``temperature``, ``top_p``, ``max_tokens``, …) win over the
    production defaults.
    """
    model_id = settings.chat_model_id
    if model_id == OFFLINE_MODEL:
        return OfflinePolicyModel()
    from langchain.chat_models import init_chat_model

    provider = model_id.partition(":")[0]
    params = {**PRODUCTION_PARAMS, **overrides}
    if provider == "google_genai":
        if not settings.google_api_key:
            raise ConfigError("GOOGLE_API_KEY", f"required for model {model_id!r}")
        params.setdefault("google_api_key", settings.google_api_key)
    return init_chat_model(model_id, **params)


def is_offline_policy(model: object) -> bool:
    """True for a rule-based model (the offline policy), directly or behind ``bind_tools``.

    Read from what the model declares (``agent.models.capabilities``), not from its type.
    """
    return model is not None and not capabilities_of(model).language_model
