"""A chat model declares what it can do; callers read the declaration, not the model's type."""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agent.models.capabilities import (
    LANGUAGE_MODEL,
    RULES,
    SCRIPTED,
    ModelCapabilities,
    capabilities_of,
    has_structured_output,
)
from agent.models.chat import is_offline_policy
from agent.models.offline_policy import OfflinePolicyModel
from tests.scripted_models import ScriptedChatModel


class _RuleBot(FakeListChatModel):
    """Another rule-based model: not the offline policy's class, and it says so."""

    kag_capabilities: ClassVar[ModelCapabilities] = RULES


class _Llm(FakeListChatModel):
    """A model (outside LangChain's fake module by declaration) that fills schemas."""

    kag_capabilities: ClassVar[ModelCapabilities] = LANGUAGE_MODEL

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:  # pragma: no cover - never called
        return ChatResult(generations=[ChatGeneration(message=AIMessage("x"))])


def test_the_offline_policy_declares_it_is_rules_behind_bind_tools_too() -> None:
    model = OfflinePolicyModel()
    assert capabilities_of(model) == RULES
    assert capabilities_of(model.bind_tools([])) == RULES
    assert is_offline_policy(model) and not has_structured_output(model)


def test_a_declaration_wins_over_the_type() -> None:
    # The old checks (isinstance OfflinePolicyModel) called this a language model.
    assert is_offline_policy(_RuleBot(responses=["ok"]))
    assert not has_structured_output(_RuleBot(responses=["ok"]))
    assert has_structured_output(_Llm(responses=["ok"]))  # a fake's subclass that declares a schema


def test_undeclared_models_fakes_and_none() -> None:
    assert capabilities_of(ScriptedChatModel(responses=[])) == SCRIPTED
    assert not is_offline_policy(ScriptedChatModel(responses=[]))
    assert not has_structured_output(ScriptedChatModel(responses=[]))
    assert capabilities_of(object()) == LANGUAGE_MODEL
    assert not has_structured_output(None) and not is_offline_policy(None)
