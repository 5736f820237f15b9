"""The offline policy's cognitive memory rules: facts, procedures and reminders.

``agent.models.offline_policy`` applies these rules first, and its older core/archival
rules to whatever they leave. They only fire when the tools they call are bound
(``tools/cognitive_tools.py``); without them the policy behaves as before. The phrase
rules come from the language layer the stores read with too, so the policy and the stores
agree: ``agent.language.facts``, ``procedures`` and ``reminders``.

Per message (procedures span sentences, so they are read on the whole message):

C1. **A fired reminder is acted on first.** Each ``REMINDER <id>: <description>`` slot of
    the prompt's WORKING MEMORY block (``agent.heartbeat.slots.read_slots``) becomes
    ``resolve_reminder(reminder_id=<id>)``, and the answer starts with
    ``Reminder: <description>``. A reminder already resolved in this turn is not
    resolved again.
C2. **A procedure the learner states** ("Here is how I write a LEFT JOIN: first …, then
    …", ``agent.language.procedures.parse_procedure``) becomes ``save_procedure(name, steps)``;
    its sentences take no other rule. One told as a sequence without an introduction ("first I
    bump the version, then …", ``agent.language.told_procedures``) is saved too, named from
    the message or the learner's previous one; its sentences keep their other rules.
C3. **A request for the learner's own steps** ("how do I write a LEFT JOIN again?", "I
    forgot how I …", "what were my steps?", ``is_procedure_request``) becomes one
    ``recall_procedure(query=procedure_query(…))`` (the sentence naming the task wins);
    the answer lists the steps of the best procedure in order (``1. … 2. …``).

Per sentence:

C4. **A reminder request** ("remind me to review GROUP BY when we reach HAVING",
    ``agent.language.reminders.parse_reminder``; a question such as "can you remind me to …?" too)
    becomes ``set_reminder(description, keywords | concept | due_at)``. A time
    is passed as its phrase ("the day after tomorrow"): the reminder store resolves it
    against the session's clock, and the plan's arguments stay the same at every step.
C5. **A question about the learner's current state** — a wh-question in the first
    person, present tense ("where do I live now?", "which editor do I use?", "what am I
    working towards?", "what is my exam date?"), not about the past conversation ("what
    did I say", "last time", "before") — becomes ``search_facts(query=content words)``
    and is answered with the best *current* fact: the first hit whose predicate the
    question names (``offline_fact_questions.QUESTION_PREDICATES``), else the top hit. Core memory answers a
    profile/goal question first (rule 4 of the policy) unless the question asks for the
    value *now* ("now", "currently", "right now", "these days", "still"), which is what
    the bi-temporal fact store knows (the answer then leaves the pinned line out). "How
    …" questions are tutoring, never fact searches. A fact search with no hit is retried
    once as ``archival_memory_search``.
C6. **A statement about the learner** (``agent.language.facts.is_fact_statement``; not "remember
    that …", which stays an archival insert) becomes ``remember_fact(content=sentence)``, one per
    clause that fills its own slot (``fact_parts.fact_parts``); a question stores the statement it
    carries first (``fact_parts.stated_part``: "Moved to Rotterdam, so which course …?");
    the fact store infers the slot and supersedes the old fact ("Actually, I moved to
    Hanoi" closes "I live in Da Nang"). Core memory keeps only what a tutor needs pinned,
    and mirrors the fact store's supersession there:

    - identity (fact slots name, job, study, level) goes to ``user_profile``; goals and
      plans (the policy's goal phrasings, or the ``goal`` slot) go to ``current_goals``;
      everything else (where they live, their tools, preferences) lives in facts only;
    - a statement whose slot already has a line in that section (same
      ``agent.language.facts.fact_slot``), or whose message retires a value a line names
      (``replaced_values``: "I reached my joins goal", "switched from Jupyter"),
      **replaces** that line with ``core_memory_replace``; otherwise it is appended.
      A line that states the learner's name is only replaced by a new name;
    - within one message, the statements that fill the same slot are **one fact** (their
      sentences joined, written at the last one, so "I reached my joins goal! My new goal
      is …" keeps both the completion and the new goal in one step), and only the last
      touches core memory; a goal completion followed by a new goal lets the new goal
      replace the old line; a completion alone deletes the goal line it names;
    - a statement already in the section verbatim is not written again.

The policy plans from the prompt it is given at each step; because written lines are
skipped (last point) and every call already made in the turn is matched against the
plan, the plan converges and no call is made twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from agent.language.fact_parts import fact_parts, stated_part
from agent.language.facts import NAMES, fact_slot, is_fact_statement, replaced_values
from agent.language.procedures import (
    is_procedure_request,
    parse_procedure,
    procedure_query,
    procedure_task,
)
from agent.language.reminders import DEFAULT_PHRASE, parse_reminder
from agent.language.told_procedures import told_procedure
from agent.models.offline_core import section_lines
from agent.models.offline_fact_questions import is_fact_question, overrides_core
from agent.models.offline_reading import reminder_slots

Action = tuple[str, dict[str, Any]]
IDENTITY_PREDICATES = frozenset({"name", "job", "study", "level"})
"""Fact slots pinned in ``user_profile`` as well as stored as facts."""
_NAME_LINE = re.compile(r"\b(?:my name is|call me|name:)", re.I)
_COMPLETION = re.compile(r"\bi\s+(?:reached|achieved|met|hit|finished|completed)\s+my\b.*\bgoal\b", re.I)


@dataclass(frozen=True)
class Sentence:
    """One sentence of the learner message, as the policy classified it."""

    text: str
    question: bool
    answered: bool
    """Core memory answers it (the policy's rule 4)."""
    keep: bool
    """An explicit "remember that …" (the policy's archival rule)."""
    goal: bool
    """Matches the policy's goal phrasings."""


def reminder_mentions(
    messages: Sequence[BaseMessage], results: Sequence[tuple[str | None, Any, Mapping[str, Any]]]
) -> list[str]:
    """Rule C1's answer: ``Reminder: <description>`` per fired reminder (slots, then resolved ones)."""
    described = dict(reminder_slots(messages))
    for name, data, args in results:
        if name == "resolve_reminder" and isinstance(data, Mapping) and data.get("ok"):
            described.setdefault(
                str(data.get("id") or args.get("reminder_id")), str(data.get("description") or "")
            )
    return [f"Reminder: {text}" for text in described.values() if text]


def reminder_actions(
    messages: Sequence[BaseMessage], resolved: Sequence[str], available: set[str]
) -> list[Action]:
    """Rule C1: resolve each fired reminder once (``resolved``: ids resolved earlier in the turn)."""
    if "resolve_reminder" not in available:
        return []
    ids = list(dict.fromkeys([*resolved, *(rid for rid, _ in reminder_slots(messages))]))
    return [("resolve_reminder", {"reminder_id": rid}) for rid in ids]


def procedure_actions(
    sentences: Sequence[str], rests: Sequence[str], available: set[str], context: str = ""
) -> tuple[dict[int, Action], set[int]]:
    """Rules C2 and C3: ``({sentence index: action}, consumed sentence indexes)``.

    ``rests[i]`` is the message from sentence ``i`` to its end, so a procedure stated
    over several sentences is read whole, from the sentence that introduces it. A procedure
    told as a sequence without an introduction (``agent.language.told_procedures``) is named
    from the message or ``context`` (the learner's previous message); its sentences keep their
    other rules (they may state facts too).
    """
    if "save_procedure" in available:
        start = max((i for i, rest in enumerate(rests) if parse_procedure(rest)), default=None)
        parsed = parse_procedure(rests[start]) if start is not None else None
        if start is not None and parsed is not None:
            name, steps = parsed
            return {start: ("save_procedure", {"name": name, "steps": steps})}, set(range(start, len(rests)))
        told = told_procedure(sentences, context)
        if told is not None:
            return {told.start: ("save_procedure", {"name": told.name, "steps": told.steps})}, set()
    if "recall_procedure" not in available:
        return {}, set()
    asks = [i for i, s in enumerate(sentences) if is_procedure_request(s) and not _names_a_reminder(s)]
    if not asks:
        return {}, set()
    named = next((i for i in asks if procedure_task(sentences[i])), asks[0])
    return {asks[0]: ("recall_procedure", {"query": procedure_query(sentences[named])})}, set(asks)


def _names_a_reminder(sentence: str) -> bool:
    """A reminder request with a trigger of its own wins over a procedure reading.

    "When we get to slicing, don't let me forget to ask how negative steps work" asks to be
    reminded, whatever its words share with "what are my steps for …"; "Can you remind me how I
    write a LEFT JOIN?" names no trigger (the one-day default) and stays a request for the steps.
    """
    reminder = parse_reminder(sentence)
    return reminder is not None and reminder.get("when") != DEFAULT_PHRASE


def pending_action(plan: Sequence[Action], made: Sequence[Action]) -> Action | None:
    """The first planned call not made yet this turn (calls are matched by name and arguments)."""
    left = [_key(call) for call in made]
    for action in plan:
        key = _key(action)
        if key in left:
            left.remove(key)
        else:
            return action
    return None


def _key(action: Action) -> str:
    return json.dumps([action[0], action[1]], sort_keys=True, default=str)


def _fact_parts(sentence: Sentence) -> list[tuple[str, tuple[str, str] | None]]:
    """``(text, slot)`` of each fact ``sentence`` states (rule C6), none for a question without one."""
    if sentence.keep:
        return []
    if sentence.question:
        head = stated_part(sentence.text)
        return [] if head is None or parse_reminder(sentence.text) is not None else [(head, fact_slot(head))]
    if not is_fact_statement(sentence.text) or parse_reminder(sentence.text) is not None:
        return []  # a statement about the learner (rule C6), not a reminder request
    return [(part, fact_slot(part)) for part in fact_parts(sentence.text)]


def _names_value(line: str, values: Sequence[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(v)}(?!\w)", line, re.I) for v in values if v)


class CognitivePlanner:
    """The per-sentence rules C4–C6 over one learner message."""

    def __init__(
        self,
        sentences: Sequence[Sentence],
        available: set[str],
        core: Mapping[str, str],
        query_of: Callable[[str], str],
    ) -> None:
        """Classify the message once: slots, what it retires, the statements per slot."""
        self.available = available
        self.core = core
        self.query_of = query_of
        self.sentences = list(sentences)
        self.retired = [v for s in sentences for v in replaced_values(s.text)]
        self.parts = [_fact_parts(s) for s in sentences]
        """Per sentence, the facts it states: ``(text, slot)`` per clause (``fact_parts.fact_parts``), or the
        statement part of a sentence that asks (``fact_parts.stated_part``)."""
        same: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for i, parts in enumerate(self.parts):
            for j, (_, slot) in enumerate(parts):
                if slot is not None:
                    same.setdefault(slot, []).append((i, j))
        self.same_slot = same
        """The (sentence, part) of the statements filling each slot: one fact, written at the last."""
        self.new_goal_follows = [
            any(self._is_goal(t) and not _COMPLETION.search(t.text) for t in sentences[i + 1 :])
            for i in range(len(sentences))
        ]

    def _is_goal(self, sentence: Sentence) -> bool:
        slot = fact_slot(sentence.text)
        return sentence.goal or (slot is not None and slot[1] == "goal")

    def actions(self, index: int) -> list[Action] | None:
        """The cognitive actions for sentence ``index``, or None to leave it to the older rules."""
        s = self.sentences[index]
        if "set_reminder" in self.available and not s.keep:
            before = self.sentences[index - 1].text if index else ""  # an event dated just before
            reminder = parse_reminder(s.text, context=before)
            if reminder is not None:
                args = {"description": reminder["description"]}
                for key in ("keywords", "concept"):
                    if reminder.get(key):
                        args[key] = reminder[key]
                if reminder.get("when"):  # the store resolves the phrase against the session's clock
                    args["due_at"] = reminder["when"]
                return [("set_reminder", args)]
        if s.question:
            searchable = "search_facts" in self.available and is_fact_question(s.text)
            if searchable and (not s.answered or overrides_core(s.text, self.available)):
                # The whole question: MiniLM reads "Where do I live now?" better than "live now",
                # and the read-time net can only order values that the search returned.
                return [("search_facts", {"query": s.text.strip().rstrip("?").strip() or s.text})]
            return None
        if "remember_fact" not in self.available or not self.parts[index]:
            return None
        return self.fact_actions(index)

    def fact_actions(self, index: int) -> list[Action]:
        """``remember_fact`` (and core memory) per fact sentence ``index`` states, each slot written once.

        For a sentence that asks, only its statement part ("Moved to Rotterdam last week, so which
        Dutch course …?"); the policy reads the question itself as before.
        """
        if "remember_fact" not in self.available:
            return []
        out: list[Action] = []
        for j, (text, slot) in enumerate(self.parts[index]):
            together = self.same_slot.get(slot, [(index, j)]) if slot is not None else [(index, j)]
            if together[-1] != (index, j):
                continue  # a later statement of the message fills the same slot: one fact, written there
            content = " ".join(self.parts[i][k][0] for i, k in together)
            out.append(("remember_fact", {"content": content}))
            if not self.sentences[index].question:
                out.extend(self._core_update(index, text, slot, whole=len(self.parts[index]) == 1))
        return out

    def _core_update(
        self, index: int, text: str, slot: tuple[str, str] | None, *, whole: bool
    ) -> list[Action]:
        s = self.sentences[index]
        goal = self._is_goal(s) if whole else slot is not None and slot[1] == "goal"
        if goal:
            section = "current_goals"
        elif (slot is not None and slot[1] in IDENTITY_PREDICATES) or NAMES.search(text):
            section = "user_profile"  # a name beside a home is pinned from its clause (offline_core)
        else:
            return []
        if not {"core_memory_append", "core_memory_replace"} & self.available:
            return []
        lines = section_lines(self.core, section)
        if text in lines:
            return []
        old = self._line_to_replace(slot, lines)
        completion = bool(_COMPLETION.search(text))
        if completion and self.new_goal_follows[index]:
            return []  # the new goal replaces the completed one
        if old is not None and "core_memory_replace" in self.available:
            new = "" if completion else text
            return [("core_memory_replace", {"section": section, "old_content": old, "new_content": new})]
        if completion or "core_memory_append" not in self.available:
            return []
        return [("core_memory_append", {"section": section, "content": text})]

    def _line_to_replace(self, slot: tuple[str, str] | None, lines: Sequence[str]) -> str | None:
        """The core line this statement supersedes: same fact slot, else one naming a retired value."""
        for line in reversed(lines):
            if _NAME_LINE.search(line) and (slot is None or slot[1] != "name"):
                continue  # never drop the learner's name for another fact
            if slot is not None and fact_slot(line) == slot:
                return line
            if self.retired and _names_value(line, self.retired):
                return line
        return None
