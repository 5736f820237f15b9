"""The offline policy model: a deterministic ``BaseChatModel`` that is not an LLM.

KAG uses it when no ``GOOGLE_API_KEY`` is set, because no model weights can be
fetched on an offline machine. It exercises the real tool loop with a fixed,
documented policy, applied sentence by sentence to the latest learner message:

1. **Goals and plans go to ``current_goals``.** A statement such as "I want to…",
   "I'd like to…", "my goal is…", "I need to learn…", "I plan to…", "I am planning
   to…", "next I will…", "I will … next", "my next step…" or "by Friday" becomes
   ``core_memory_append(section="current_goals")``. Goals are checked before facts,
   so "I am planning to…" is a goal, not a profile fact.
2. **Facts about the learner go to ``user_profile``.** "I am…", "my name is…",
   "I work…", "I prefer…", "my job…" become
   ``core_memory_append(section="user_profile")``.
3. "remember that…", "note:", "save this:", "for the record…" becomes
   ``archival_memory_insert(content=…)``.
4. **Profile and goal questions are answered from core memory.** The policy reads
   the CORE MEMORY block of the system message (``<section>…</section>``, see
   ``agent/heartbeat/prompts.core_memory_block``). A question about the learner's
   goals or plans ("what is my goal?", "what am I planning?") is answered with the
   ``current_goals`` lines; a question naming a profile topic (job/work, name,
   level/background, where I live; "who am I?", "what do you know about me?") is
   answered with the ``user_profile`` lines on that topic, quoted. No search is made.
   When core memory holds nothing on the topic, rule 5 applies.
5. **Other questions about the past are searched**: "what did…", "remember…",
   "last time", "earlier", "did I…" become ``archival_memory_search(query=…)``, or
   ``conversation_search(query=…)`` when about what was *said* ("I said", "we
   discussed"). The query keeps content words only (``agent.text.QUERY_STOP_WORDS``
   and the recall verbs in ``_RECALL_VERBS``). When an archival search yields no
   learner statement on the query, the policy tries ``conversation_search`` once.
6. **Answers quote the best-matching learner statement** of the search results:
   candidates are hits whose ``role`` is ``user``/``human`` (or have no role: archival
   inserts), and the ``- user:`` lines of archived summaries. Questions, the
   policy's own replies and banner, tool-call renderings (``[calls …]``) and
   assistant/tool lines are never candidates. The candidate sharing the most query
   word stems wins (ties: the higher-ranked hit); the answer quotes it
   (``You said: "…"``). No candidate on the query → the answer says nothing matched.
7. Planned calls run one per step, in order. When all have returned, the model
   answers ("From your memory — …"). Anything else gets a short, honest reply that
   this is the offline policy and cannot teach new material.

Every message carries ``response_metadata["is_llm"] = False`` and starts with
``OFFLINE_BANNER`` so no one mistakes it for a language model. Its final replies
(no tool calls) are tutor boilerplate: ``is_policy_reply`` identifies them, and the
heartbeat keeps them out of recall storage and extractive summaries, so searches,
summaries and notes only ever hold what the learner said and what tools stored.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agent.text import QUERY_STOP_WORDS, light_stem

OFFLINE_BANNER = "[offline policy, not an LLM]"
POLICY_VERSION = "kag-offline-policy/2"
CALL_MARK = "[calls "  # how the heartbeat renders a tool call in recall storage
LEARNER_ROLES = frozenset({"user", "human"})  # recall storage says "user", LangChain "human"
SEARCH_TOOLS = ("archival_memory_search", "conversation_search")

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_GOAL = re.compile(
    r"\b(i want to|i'd like to|i would like to|my goal|my goals|my next step|"
    r"i need to (learn|master|understand)|"
    r"i plan to|i am planning|i'm planning|i am going to|i'm going to|next,? i will|next,? i'll|"
    r"i will\b.*\bnext|i'll\b.*\bnext|i'm trying to|i am trying to|i hope to|"
    r"by (monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|tomorrow))\b",
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
_SAID = re.compile(
    r"\b(we discussed|we talked|did we (discuss|talk|cover)|i told you|i said|did i say|"
    r"did i mention|we covered)\b",
    re.I,
)
_QUESTION_WORDS = re.compile(
    r"^\s*(what|when|where|who|which|how|why|did|do|does|have|can|am|is|are)\b", re.I
)
_GOAL_QUESTION = re.compile(
    r"\b(my|our) (goals?|plans?|aims?|targets?|next steps?)\b|"
    r"\bwhat (am i|are we) (planning|aiming|working towards|trying)\b|"
    r"\bwhat do i (want|plan|need) to\b|\bwhat('s| is| are) (next|planned)\b",
    re.I,
)
_ABOUT_ME = re.compile(r"\b(who am i|what do you know about me|about myself)\b", re.I)
_MINE = re.compile(r"\b(i|my|me)\b", re.I)
PROFILE_TOPICS: dict[str, frozenset[str]] = {
    "work": frozenset(
        ["job", "jobs", "work", "works", "working", "worked", "profession", "occupation", "career"]
    ),
    "name": frozenset(["name", "named"]),
    "level": frozenset(["level", "beginner", "intermediate", "advanced", "background", "experience"]),
    "home": frozenset(["live", "lives", "living", "home"]),
}
"""Profile topics a question can name; a core memory line is on a topic when it shares a word."""
_RECALL_VERBS = frozenset(
    {"say", "said", "says", "tell", "told", "talk", "talked", "discuss", "discussed"}
    | {"mention", "mentioned", "earlier", "before", "ago"}
)
_CORE_SECTION = re.compile(r"<([a-z][a-z0-9_]*)>\n(.*?)\n</\1>", re.S)
_ROLE_LINE = re.compile(r"^\s*-?\s*(user|assistant|tool|summary):\s*(.*)$", re.I)


def is_question(sentence: str) -> bool:
    """A sentence ending in ``?`` or opening with a question word."""
    return sentence.strip().endswith("?") or bool(_QUESTION_WORDS.match(sentence))


def is_policy_reply(message: BaseMessage) -> bool:
    """The policy's own words (a final reply, not a tool call): tutor boilerplate, never learner data."""
    return (
        isinstance(message, AIMessage)
        and message.response_metadata.get("is_llm") is False
        and not message.tool_calls
    ) or (isinstance(message.content, str) and message.content.startswith(OFFLINE_BANNER))


def read_core_memory(messages: Sequence[BaseMessage]) -> dict[str, str]:
    """The CORE MEMORY sections rendered in the system message(s) of a prompt."""
    sections: dict[str, str] = {}
    for message in messages:
        if isinstance(message, SystemMessage) and "CORE MEMORY" in message.text:
            block = message.text[message.text.index("CORE MEMORY") :]
            for name, text in _CORE_SECTION.findall(block):
                if text.strip() and text.strip() != "(empty)":
                    sections[name] = text.strip()
    return sections


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w'+#-]+", text.lower()))


def answer_from_core(question: str, core: Mapping[str, str]) -> tuple[str, list[str]] | None:
    """``(section, lines)`` of core memory that answer a profile or goal question, else ``None``."""
    if not is_question(question):
        return None
    if _GOAL_QUESTION.search(question):
        lines = [ln.strip() for ln in core.get("current_goals", "").splitlines() if ln.strip()]
        return ("current_goals", lines) if lines else None
    profile = [ln.strip() for ln in core.get("user_profile", "").splitlines() if ln.strip()]
    if not profile:
        return None
    if _ABOUT_ME.search(question):
        return "user_profile", profile
    if not _MINE.search(question):
        return None
    asked = _words(question)
    for topic in PROFILE_TOPICS.values():
        if asked & topic:
            lines = [ln for ln in profile if _words(ln) & topic]
            return ("user_profile", lines) if lines else None
    return None


def plan_actions(
    text: str, available: set[str], core: Mapping[str, str] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """Return the ordered tool calls the policy makes for one learner message.

    A question that core memory ``core`` answers (rule 4) plans no search.
    """
    actions: list[tuple[str, dict[str, Any]]] = []
    for raw in _SENTENCE.findall(text):
        sentence = raw.strip()
        if not sentence:
            continue
        question = is_question(sentence)
        if question and core and answer_from_core(sentence, core):
            continue
        if question and _PAST.search(sentence):
            tool = "conversation_search" if _SAID.search(sentence) else "archival_memory_search"
            if tool not in available:  # the other search, when only one is bound
                tool = next((t for t in SEARCH_TOOLS if t in available), tool)
            actions.append((tool, {"query": search_query(sentence)}))
        elif not question and _KEEP.match(sentence):
            content = _KEEP.sub("", sentence, count=1).strip() or sentence
            actions.append(("archival_memory_insert", {"content": content}))
        elif not question and _GOAL.search(sentence):
            actions.append(("core_memory_append", {"section": "current_goals", "content": sentence}))
        elif not question and _FACT.search(sentence):
            actions.append(("core_memory_append", {"section": "user_profile", "content": sentence}))
    return [(name, args) for name, args in actions if name in available]


def search_query(sentence: str) -> str:
    """Keep the content words of a question, the way a search box wants them."""
    words = re.findall(r"[\w.+#-]+", sentence.lower())
    kept = [w for w in words if w not in QUERY_STOP_WORDS and w not in _RECALL_VERBS]
    return " ".join(kept) or sentence.strip()


def _stems(text: str) -> set[str]:
    return {light_stem(w) for w in re.findall(r"[\w+#]+", text.lower()) if w not in QUERY_STOP_WORDS}


def _is_boilerplate(text: str) -> bool:
    return OFFLINE_BANNER in text or CALL_MARK in text or text.startswith("From your memory")


def learner_statements(hit: Mapping[str, Any]) -> list[str]:
    """What the learner stated in one search hit (rule 6): no questions, replies or tool calls."""
    role = str(hit.get("role") or "user").lower()
    text = str(hit.get("text") or "")
    if role not in LEARNER_ROLES or not text.strip():
        return []
    found: list[str] = []
    for line in text.splitlines():
        match = _ROLE_LINE.match(line)
        if match:
            if match.group(1).lower() != "user":
                continue
            line = match.group(2)
        line = line.strip()
        if line and not is_question(line) and not _is_boilerplate(line):
            found.append(line)
    return found


def best_statement(query: str, hits: Sequence[Mapping[str, Any]]) -> str | None:
    """The learner statement sharing the most query stems (ties: the higher-ranked hit)."""
    wanted = _stems(query)
    best, best_score = None, 0
    for hit in hits:
        if not isinstance(hit, Mapping):
            continue
        for statement in learner_statements(hit):
            score = len(wanted & _stems(statement))
            if score > best_score:
                best, best_score = statement, score
    return best


def _result_data(message: ToolMessage) -> Any:
    text = message.text if isinstance(message.content, list) else str(message.content)
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def _call_args(messages: Sequence[BaseMessage], call_id: str | None) -> dict[str, Any]:
    for message in messages:
        for call in getattr(message, "tool_calls", None) or []:
            if call.get("id") == call_id:
                return dict(call.get("args") or {})
    return {}


def _quote_tool_result(message: ToolMessage, args: Mapping[str, Any]) -> str:
    data = _result_data(message)
    if not isinstance(data, dict):
        return str(data).strip()[:400]
    hits = data.get("results")
    if isinstance(hits, list):
        query = str(args.get("query", ""))
        statement = best_statement(query, hits)
        if statement:
            return f'You said: "{statement[:400]}"'
        return f"nothing you said matched '{query}'" if query else "nothing matched in memory"
    if data.get("ok") and data.get("section"):
        return f"noted in core memory ({data['section']})"
    if data.get("ok") and data.get("id"):
        return f"stored in archival memory as {data['id']}"
    return json.dumps(data)[:400]


def _core_quote(section: str, lines: Sequence[str]) -> str:
    return f"core memory ({section}): " + " ".join(f'"{line}"' for line in lines)


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
        core = read_core_memory(messages)
        after = messages[last_human + 1 :]
        done = [m for m in after if isinstance(m, ToolMessage)]
        available = set(self.tool_names)
        plan = plan_actions(request, available, core)
        if len(done) < len(plan):
            return self._call(request, len(done), *plan[len(done)])
        fallback = self._fallback_search(done, after, available)
        if fallback is not None and len(done) == len(plan):
            return self._call(request, len(done), "conversation_search", fallback)
        parts = [
            _core_quote(*found)
            for raw in _SENTENCE.findall(request)
            if (found := answer_from_core(raw.strip(), core)) is not None
        ]
        for message in done:
            args = _call_args(after, message.tool_call_id)
            parts.append(f"{message.name or 'tool'}: {_quote_tool_result(message, args)}")
        if parts:
            return self._reply("From your memory — " + "; ".join(parts))
        return self._reply(
            "I can store facts and goals you tell me and search what you learned before; "
            "I cannot reason about new material. Set GOOGLE_API_KEY to use Gemini."
        )

    @staticmethod
    def _fallback_search(
        done: Sequence[ToolMessage], after: Sequence[BaseMessage], available: set[str]
    ) -> dict[str, Any] | None:
        """Rule 5: an archival search without a learner statement is retried in conversation."""
        if "conversation_search" not in available or any(m.name == "conversation_search" for m in done):
            return None
        for message in done:
            if message.name != "archival_memory_search":
                continue
            args = _call_args(after, message.tool_call_id)
            data = _result_data(message)
            hits = data.get("results") if isinstance(data, dict) else None
            if isinstance(hits, list) and not best_statement(str(args.get("query", "")), hits):
                return {"query": str(args.get("query", ""))}
        return None

    def _call(self, request: str, index: int, name: str, args: dict[str, Any]) -> AIMessage:
        digest = hashlib.sha1(f"{request}|{name}|{index}".encode()).hexdigest()[:10]
        return AIMessage(
            content="",
            tool_calls=[{"name": name, "args": args, "id": f"offline-{index}-{digest}", "type": "tool_call"}],
            response_metadata=self._metadata(),
        )

    def _reply(self, text: str) -> AIMessage:
        return AIMessage(content=f"{OFFLINE_BANNER} {text}", response_metadata=self._metadata())

    @staticmethod
    def _metadata() -> dict[str, Any]:
        return {"model_name": "kag-offline-policy", "policy": POLICY_VERSION, "is_llm": False}
