"""The offline policy model: a deterministic ``BaseChatModel`` that is not an LLM.

KAG uses it when no ``GOOGLE_API_KEY`` is set, because no model weights can be
fetched on an offline machine. It exercises the real tool loop with a fixed,
documented policy, applied to the latest learner message:

1. Each sentence that states a fact about the learner ("I am…", "my name is…",
   "I work…", "I prefer…") becomes ``core_memory_append(section="user_profile")``.
2. Each sentence that states a goal ("I want to…", "my goal is…", "I need to
   learn…", "by Friday") becomes ``core_memory_append(section="current_goals")``.
3. A sentence that asks to keep material ("remember that…", "note:", "save
   this:", "for the record…") becomes ``archival_memory_insert(content=…)``.
4. A question about the past ("what did…", "remember…", "last time", "earlier",
   "did I…") becomes ``archival_memory_search(query=…)``; when it is about what
   was *said* in conversation ("we discussed", "I told you", "I said") it becomes
   ``conversation_search(query=…)`` instead.
5. Planned calls run one per step, in order. When all have returned, the model
   answers by quoting what the tools returned.
6. Anything else gets a short, honest reply that this is the offline policy.

Every message carries ``response_metadata["is_llm"] = False`` and starts with
``OFFLINE_BANNER`` so no one mistakes it for a language model.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agent.text import QUERY_STOP_WORDS

OFFLINE_BANNER = "[offline policy, not an LLM]"
POLICY_VERSION = "kag-offline-policy/1"

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_GOAL = re.compile(
    r"\b(i want to|i'd like to|i would like to|my goal|i need to (learn|master|understand)|"
    r"i plan to|i'm trying to|i am trying to|i hope to|by (monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|next week|tomorrow))\b",
    re.I,
)
_FACT = re.compile(
    r"^\s*(i am|i'm|my name is|call me|i work|i live|i study|i prefer|i like|i love|i hate|"
    r"i have|i've been|i struggle|i find|my (favorite|favourite|level|background|job|major))\b",
    re.I,
)
_PAST = re.compile(
    r"\b(what did|what was|what were|remember|recall|last time|earlier|before|previous|"
    r"did i|have i|what do you know about|what have we|remind me)\b",
    re.I,
)
_KEEP = re.compile(r"^\s*(remember that|note:|note that|save this:?|for the record,?|keep in mind)\s*", re.I)
_SAID = re.compile(r"\b(we discussed|we talked|i told you|i said|did i say|did i mention|we covered)\b", re.I)
_QUESTION_WORDS = re.compile(r"^\s*(what|when|where|who|which|how|why|did|do|does|have|can)\b", re.I)


def plan_actions(text: str, available: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """Return the ordered tool calls the policy makes for one learner message."""
    actions: list[tuple[str, dict[str, Any]]] = []
    for raw in _SENTENCE.findall(text):
        sentence = raw.strip()
        if not sentence:
            continue
        is_question = sentence.endswith("?") or bool(_QUESTION_WORDS.match(sentence))
        if is_question and _PAST.search(sentence):
            tool = "conversation_search" if _SAID.search(sentence) else "archival_memory_search"
            if tool not in available:
                tool = "archival_memory_search" if "archival_memory_search" in available else tool
            actions.append((tool, {"query": search_query(sentence)}))
        elif not is_question and _KEEP.match(sentence):
            content = _KEEP.sub("", sentence, count=1).strip() or sentence
            actions.append(("archival_memory_insert", {"content": content}))
        elif not is_question and _GOAL.search(sentence):
            actions.append(("core_memory_append", {"section": "current_goals", "content": sentence}))
        elif not is_question and _FACT.search(sentence):
            actions.append(("core_memory_append", {"section": "user_profile", "content": sentence}))
    return [(name, args) for name, args in actions if name in available]


def search_query(sentence: str) -> str:
    """Keep the content words of a question, the way a search box wants them."""
    words = re.findall(r"[\w.+#-]+", sentence.lower())
    kept = [w for w in words if w not in QUERY_STOP_WORDS]
    return " ".join(kept) or sentence.strip()


def _quote_tool_result(message: ToolMessage) -> str:
    text = message.text if isinstance(message.content, list) else str(message.content)
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return text.strip()[:400]
    if not isinstance(data, dict):
        return json.dumps(data)[:400]
    hits = data.get("results")
    if isinstance(hits, list):
        if not hits:
            return "nothing matched in memory"
        return " | ".join(str(h.get("text", h))[:240] for h in hits[:3])
    if data.get("ok") and data.get("section"):
        return f"noted in core memory ({data['section']})"
    if data.get("ok") and data.get("id"):
        return f"stored in archival memory as {data['id']}"
    return json.dumps(data)[:400]


class OfflinePolicyModel(BaseChatModel):
    """Deterministic tool-calling policy used offline. It is not an LLM."""

    tool_names: tuple[str, ...] = ()
    """Names of bound tools (set by ``bind_tools``)."""

    @property
    def _llm_type(self) -> str:
        return "kag-offline-policy"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"policy": POLICY_VERSION}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools the way chat models do; the policy only calls bound tools."""
        names = tuple(convert_to_openai_tool(t)["function"]["name"] for t in tools)
        return self.model_copy(update={"tool_names": names}).bind(**kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self.decide(messages)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def decide(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """Apply the policy to a conversation and return the next message."""
        last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=None)
        if last_human is None:
            return self._reply("I have no learner message to act on.")
        request = messages[last_human].text
        done = [m for m in messages[last_human + 1 :] if isinstance(m, ToolMessage)]
        plan = plan_actions(request, set(self.tool_names))
        if len(done) < len(plan):
            name, args = plan[len(done)]
            digest = hashlib.sha1(f"{request}|{name}|{len(done)}".encode()).hexdigest()[:10]
            call_id = f"offline-{len(done)}-{digest}"
            return AIMessage(
                content="",
                tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}],
                response_metadata=self._metadata(),
            )
        if done:
            quoted = "; ".join(f"{m.name or 'tool'}: {_quote_tool_result(m)}" for m in done)
            return self._reply(f"From your memory — {quoted}")
        return self._reply(
            "I can store facts and goals you tell me and search what you learned before; "
            "I cannot reason about new material. Set GOOGLE_API_KEY to use Gemini."
        )

    def _reply(self, text: str) -> AIMessage:
        return AIMessage(content=f"{OFFLINE_BANNER} {text}", response_metadata=self._metadata())

    @staticmethod
    def _metadata() -> dict[str, Any]:
        return {"model_name": "kag-offline-policy", "policy": POLICY_VERSION, "is_llm": False}
