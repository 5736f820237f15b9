"""The offline policy model: a deterministic ``BaseChatModel`` that is not an LLM.

KAG uses it when no ``GOOGLE_API_KEY`` is set, because no model weights can be
fetched on an offline machine. It exercises the real tool loop with a fixed,
documented policy, applied sentence by sentence to the latest learner message (sentences from
the language layer, ``agent.language.sentences``: "functools.wraps" stays in its sentence).

**Cognitive rules first** (``agent.models.offline_cognition``, rules C1–C6, when the
cognitive tools are bound); rules 1–2 below only cover what C6 leaves.

1. **Goals and plans go to ``current_goals``** (``_GOAL``: "I want to…", "my next step…",
   "by Friday"). Goals are checked before facts, so "I am planning to…" is a goal.
2. **Facts about the learner go to ``user_profile``** (``_FACT``: "I am…", "my name is…").
3. A note to keep (``_KEEP``: "remember that…", "for the record…") becomes
   ``archival_memory_insert(content=…)``.
4. **Profile and goal questions are answered from core memory.** The policy reads
   the CORE MEMORY block of the system message (``<section>…</section>``, see
   ``agent/heartbeat/prompts.core_memory_block``). A question about the learner's
   goals or plans ("what is my goal?", "what am I planning?") is answered with the
   ``current_goals`` lines; a question naming a profile topic (job/work, name,
   level/background, where I live; "who am I?", "what do you know about me?") is
   answered with the ``user_profile`` lines on that topic, quoted. No search is made.
   When core memory holds nothing on the topic, rule 5 applies.
5. **Other questions about the past are searched** (``_PAST``): ``archival_memory_search``, or
   ``conversation_search`` when about what was *said* (``_SAID``), with the question's content
   words (``search_query``). When an archival search yields no learner statement on the
   query, the policy tries ``conversation_search`` once.
6. **Answers quote the best-matching learner statement** of the search results, with the day
   it was said (``agent.models.offline_reading.best_statement``).
7. **A request to explain a concept is answered from the learner's own notes**
   (``agent.models.offline_tutor``).
8. Planned calls run one per step, in order; then the model answers in a learner's words
   (``agent.models.offline_replies``). Every call already made in the turn (matched by name
   and arguments) counts as done, so a plan that changes after a core memory write never
   repeats a call. Core memory lines are facts, not quotes (``agent.models.offline_core``).

Every message carries ``response_metadata["is_llm"] = False`` and starts with
``OFFLINE_BANNER`` so no one mistakes it for a language model. Its final replies
(no tool calls) are tutor boilerplate: ``is_policy_reply`` identifies them, and the
heartbeat keeps them out of recall storage and extractive summaries, so searches,
summaries and notes only ever hold what the learner said and what tools stored.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agent.language.fact_parts import completed
from agent.language.facts import fact_slot
from agent.language.questions import is_question
from agent.language.sentences import sentence_spans, split_sentences
from agent.models.capabilities import RULES, ModelCapabilities
from agent.models.offline_cognition import (
    IDENTITY_PREDICATES,
    CognitivePlanner,
    Sentence,
    pending_action,
    procedure_actions,
    reminder_actions,
    reminder_mentions,
)
from agent.models.offline_core import pinned_actions, section_lines
from agent.models.offline_fact_questions import fact_fallback, overrides_core
from agent.models.offline_reading import (
    OFFLINE_BANNER,
    best_statement,
    call_args,
    read_core_memory,
    result_data,
)
from agent.models.offline_replies import compose_reply, core_answer
from agent.models.offline_tutor import explain_query
from agent.text import QUERY_STOP_WORDS

POLICY_VERSION = "kag-offline-policy/4"
SEARCH_TOOLS = ("archival_memory_search", "conversation_search")

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


def is_policy_reply(message: BaseMessage) -> bool:
    """The policy's own words (a final reply, not a tool call): tutor boilerplate, never learner data."""
    return (
        isinstance(message, AIMessage)
        and message.response_metadata.get("is_llm") is False
        and not message.tool_calls
    ) or (isinstance(message.content, str) and message.content.startswith(OFFLINE_BANNER))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w'+#-]+", text.lower()))


def answer_from_core(question: str, core: Mapping[str, str]) -> tuple[str, list[str]] | None:
    """``(section, lines)`` of core memory that answer a profile or goal question, else ``None``."""
    if not is_question(question):
        return None
    if _GOAL_QUESTION.search(question):
        lines = section_lines(core, "current_goals")
        return ("current_goals", lines) if lines else None
    profile = section_lines(core, "user_profile")
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
    text: str, available: set[str], core: Mapping[str, str] | None = None, context: str = ""
) -> list[tuple[str, dict[str, Any]]]:
    """Return the ordered tool calls the policy makes for one learner message.

    The cognitive rules (``agent.models.offline_cognition``) go first; a question that
    core memory ``core`` answers (rule 4) plans no search. ``context`` is the learner's
    previous message (it may name the procedure this one tells).
    """
    core = core or {}
    found = completed(sentence_spans(text), text)
    texts = [sentence for _, sentence in found]
    procedures, consumed = procedure_actions(texts, [text[start:] for start, _ in found], available, context)
    sentences = [_classify(sentence, core) for sentence in texts]
    planner = CognitivePlanner(sentences, available, core, search_query)
    actions: list[tuple[str, dict[str, Any]]] = []
    for i, s in enumerate(sentences):
        if i in procedures:
            actions.append(procedures[i])
        if i in consumed:
            continue
        if s.question:  # the statement a question carries first ("Moved to Rotterdam, so which …?")
            actions.extend(planner.fact_actions(i))
        cognitive = planner.actions(i)
        if cognitive is not None:
            actions.extend(cognitive)
            continue
        sentence, question = s.text, s.question
        if s.answered:
            continue
        concept = explain_query(sentence) if not _PAST.search(sentence) else None
        if concept and "note_search" in available:
            actions.append(("note_search", {"query": concept}))
        elif question and _PAST.search(sentence):
            tool = "conversation_search" if _SAID.search(sentence) else "archival_memory_search"
            if tool not in available:  # the other search, when only one is bound
                tool = next((t for t in SEARCH_TOOLS if t in available), tool)
            actions.append((tool, {"query": search_query(sentence)}))
        elif s.keep:
            content = _KEEP.sub("", sentence, count=1).strip() or sentence
            actions.append(("archival_memory_insert", {"content": content}))
        elif s.goal:
            actions.append(("core_memory_append", {"section": "current_goals", "content": sentence}))
        elif not question and _FACT.search(sentence):
            actions.append(("core_memory_append", {"section": "user_profile", "content": sentence}))
    section_of = _cognitive_section if "remember_fact" in available else _plain_section
    return [(name, args) for name, args in pinned_actions(actions, core, section_of) if name in available]


def _cognitive_section(clause: str) -> str | None:
    """Rule C6's sections for one clause: goals, then identity (name, job, study, level)."""
    slot = fact_slot(clause)
    if _GOAL.search(clause) or (slot is not None and slot[1] == "goal"):
        return "current_goals"
    return "user_profile" if slot is not None and slot[1] in IDENTITY_PREDICATES else None


def _plain_section(clause: str) -> str | None:
    """Rules 1-2's sections for one clause (no fact store bound): goals, then learner facts."""
    if _GOAL.search(clause):
        return "current_goals"
    return "user_profile" if _FACT.search(clause) else None


def _classify(sentence: str, core: Mapping[str, str]) -> Sentence:
    question = is_question(sentence)
    return Sentence(
        text=sentence,
        question=question,
        answered=bool(question and core and answer_from_core(sentence, core)),
        keep=not question and bool(_KEEP.match(sentence)),
        goal=not question and bool(_GOAL.search(sentence)),
    )


def search_query(sentence: str) -> str:
    """Keep the content words of a question, the way a search box wants them."""
    words = re.findall(r"[\w.+#-]+", sentence.lower())
    kept = [w for w in words if w not in QUERY_STOP_WORDS and w not in _RECALL_VERBS]
    return " ".join(kept) or sentence.strip()


def _conversation_fallback(
    results: Sequence[tuple[str | None, Any, Mapping[str, Any]]], available: set[str]
) -> tuple[str, dict[str, Any]] | None:
    """Rule 5: an archival search without a learner statement is retried in conversation, once."""
    if "conversation_search" not in available or any(name == "conversation_search" for name, _, _ in results):
        return None
    for name, data, args in results:
        hits = data.get("results") if isinstance(data, dict) else None
        query = str(args.get("query", ""))
        if name == "archival_memory_search" and isinstance(hits, list) and not best_statement(query, hits):
            return "conversation_search", {"query": query}
    return None


class OfflinePolicyModel(BaseChatModel):
    """Deterministic tool-calling policy used offline. It is not an LLM."""

    kag_capabilities: ClassVar[ModelCapabilities] = RULES
    """What it can do (``agent.models.capabilities``): no language of its own, no schema."""
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
        earlier = [m.text for m in messages[:last_human] if isinstance(m, HumanMessage)]
        core = read_core_memory(messages)
        after = messages[last_human + 1 :]
        done = [m for m in after if isinstance(m, ToolMessage)]
        available = set(self.tool_names)
        made = [
            (c["name"], dict(c.get("args") or {}))
            for m in after
            for c in getattr(m, "tool_calls", None) or []
        ]
        resolved = [str(args.get("reminder_id")) for name, args in made if name == "resolve_reminder"]
        plan = [
            *reminder_actions(messages, resolved, available),
            *plan_actions(request, available, core, earlier[-1] if earlier else ""),
        ]
        results = [(m.name, result_data(m), call_args(after, m.tool_call_id)) for m in done]
        action = pending_action(plan, made) or fact_fallback(results, available)
        action = action or _conversation_fallback(results, available)
        if action is not None:
            return self._call(request, len(made), *action)
        core_answers = [
            core_answer(*found)
            for raw in split_sentences(request)
            if not overrides_core(raw, available | {name for name, _ in made})
            and (found := answer_from_core(raw, core))
        ]
        asked = any(is_question(s) or explain_query(s) for s in split_sentences(request))
        reminders = reminder_mentions(messages, results)
        return self._reply(compose_reply(reminders, core_answers, results, asked=asked))

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
