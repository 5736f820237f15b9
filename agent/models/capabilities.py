"""What a chat model can do, as the model declares it.

Callers used to recognise the offline policy by its type (``isinstance``) or by the text of
its replies. A model now says what it can do with a class attribute, ``kag_capabilities``
(a :class:`ModelCapabilities`), and callers ask :func:`capabilities_of`: a new rule-based
model needs no change anywhere else, and nothing above ``agent.models`` imports a concrete
model class to find out.

- ``language_model``: it writes its own text. False for a rule-based policy: its replies
  are boilerplate, never learner data, and work that needs language (note extraction,
  summaries, linking judgements) takes its rule-based path instead.
- ``structured_output``: it can fill a schema (``with_structured_output``). False for the
  offline policy and for LangChain's fake chat models, which only replay scripted text.

A model that declares nothing is a language model with structured output, except
LangChain's fake chat models (the tests' scripted models), which cannot declare anything.
"""

from __future__ import annotations

from dataclasses import dataclass

CAPABILITIES_ATTRIBUTE = "kag_capabilities"
"""The class attribute a model declares its :class:`ModelCapabilities` in."""
_FAKE_MODULE = "langchain_core.language_models.fake"


@dataclass(frozen=True)
class ModelCapabilities:
    """What a chat model can do (see the module docstring)."""

    language_model: bool = True
    structured_output: bool = True


LANGUAGE_MODEL = ModelCapabilities()
"""An LLM: the default for a model that declares nothing."""
SCRIPTED = ModelCapabilities(language_model=True, structured_output=False)
"""LangChain's fake chat models: scripted text stands in for a language model's, no schema."""
RULES = ModelCapabilities(language_model=False, structured_output=False)
"""A rule-based policy (the offline model): no language of its own, no schema."""
NO_MODEL = ModelCapabilities(language_model=False, structured_output=False)
"""What ``None`` (no model configured) can do."""


def capabilities_of(model: object) -> ModelCapabilities:
    """What ``model`` can do (directly or behind ``bind_tools``); ``None`` can do nothing."""
    if model is None:
        return NO_MODEL
    bound = getattr(model, "bound", model)
    declared = getattr(bound, CAPABILITIES_ATTRIBUTE, None)
    if isinstance(declared, ModelCapabilities):
        return declared
    if any(cls.__module__.startswith(_FAKE_MODULE) for cls in type(bound).__mro__):
        return SCRIPTED
    return LANGUAGE_MODEL


def has_structured_output(model: object) -> bool:
    """True when ``model`` can fill a schema: never the offline policy, a fake or ``None``."""
    return capabilities_of(model).structured_output
