"""What the offline policy says back, in the words a learner uses.

The policy's final reply is built from what its tools returned this turn. A learner reads
it, so it names no tool, section or id:

- what was stored is acknowledged in plain words, in the second person ("Got it: your
  name is Ana and you work as a data analyst."), once, however many stores it reached;
- an answer from memory quotes the learner's own words and says where they came from:
  your profile, your goals, what you told me (since 12 May), what you said on 12 May,
  your own steps, your own note (``agent.models.offline_tutor``);
- a search that finds nothing says so about the learner's words ("I found nothing you
  said about window functions").

The honesty marker (``OFFLINE_BANNER``) is added once, in front, by the policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from agent.models.offline_core import without_opener
from agent.models.offline_fact_questions import best_fact
from agent.models.offline_reading import best_statement, learner_statements
from agent.models.offline_tutor import note_answer

Result = tuple[str | None, Any, Mapping[str, Any]]
"""``(tool name, parsed result, call args)`` of one call made this turn."""
QUOTE_CHARS = 400
NOTHING_TO_DO = (
    "I can keep what you tell me about yourself, find what you said before and hand back your own "
    "notes; offline I can't teach new material. Set GOOGLE_API_KEY to use Gemini."
)
"""The reply when a message asks for something the offline tutor cannot do."""
NOTED = "Noted; it goes into your notes when this session ends."
"""The reply to a statement no rule stores (a learner explaining a concept): the session's notes keep it."""
SECTION_WORDS = {"user_profile": "your profile", "current_goals": "your goals"}
"""Core memory sections as a learner knows them."""

_PERSON = [
    (r"\bI am\b", "you are"),
    (r"\bI'm\b", "you're"),
    (r"\bI was\b", "you were"),
    (r"\bI've\b", "you've"),
    (r"\bI'd\b", "you'd"),
    (r"\bI'll\b", "you'll"),
    (r"\bI\b", "you"),
    (r"\bmyself\b", "yourself"),
    (r"\bmine\b", "yours"),
    (r"\bmy\b", "your"),
    (r"\bme\b", "you"),
]


def second_person(statement: str) -> str:
    """A learner's statement said back to them: "My name is Ana." -> "your name is Ana"."""
    text = without_opener(statement).rstrip(" .!")
    for pattern, words in _PERSON:
        text = re.sub(pattern, words, text, flags=re.I)
    return text


def day_words(stamp: object) -> str:
    """An ISO time as a learner says a day: ``12 May``; "" when it is not a time."""
    try:
        when = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return ""
    return f"{when.day} {when:%B}"


def _quote(text: object) -> str:
    text = " ".join(str(text or "").split())
    return f'"{text[:QUOTE_CHARS]}"'


def _steps(steps: Sequence[Any]) -> str:
    return " ".join(f"{i}. {str(step).strip().rstrip('.')}." for i, step in enumerate(steps, start=1))


def core_answer(section: str, lines: Sequence[str]) -> str:
    """A profile or goal question answered from core memory, quoting the learner's lines."""
    return f"From {SECTION_WORDS.get(section, 'what I keep about you')}: " + " ".join(map(_quote, lines))


def _search_answer(data: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    hits = [h for h in data.get("results") or [] if isinstance(h, Mapping)]
    query = str(args.get("query", ""))
    statement = best_statement(query, hits)
    if statement is None:
        return f"I found nothing you said about {query}." if query else "I found nothing on that."
    hit = next((h for h in hits if statement in learner_statements(h)), {})
    day = day_words(hit.get("created_at"))
    return f"You said {f'on {day}' if day else 'earlier'}: {_quote(statement)}"


def _fact_answer(data: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    query = str(args.get("query", ""))
    fact = best_fact(query, [h for h in data.get("results") or [] if isinstance(h, Mapping)])
    if fact is None:
        return f"You haven't told me about {query}."
    if args.get("as_of"):
        return f"As of {day_words(args['as_of']) or args['as_of']}, you had told me: {_quote(fact['text'])}"
    since = day_words(fact.get("valid_from"))
    return f"From what you told me{f' (since {since})' if since else ''}: {_quote(fact['text'])}"


def _procedure_answer(data: Mapping[str, Any], args: Mapping[str, Any]) -> str:
    hits = [h for h in data.get("results") or [] if isinstance(h, Mapping)]
    if not hits:
        return f"I have no steps of yours saved for {args.get('query', 'that')}."
    top = hits[0]
    steps = top.get("steps")
    if isinstance(steps, list) and steps:
        return f"Your own steps to {top.get('name') or args.get('query', '')}: {_steps(steps)}"
    return f"Your own steps: {str(top.get('text', ''))[:600]}"


def _reminder_words(data: Mapping[str, Any]) -> str:
    keywords = [str(k) for k in data.get("keywords") or []]
    if keywords:
        return f"when {' or '.join(keywords)} comes up"
    if data.get("concept"):
        return f"when we reach {data['concept']}"
    day = day_words(data.get("due_at"))
    return f"on {day}" if day else "later"


def stored_words(name: str | None, data: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """What a write says back ("your name is Ana"), or None for a tool that stores nothing."""
    if name == "remember_fact":
        told = second_person(str(data.get("content") or args.get("content") or ""))
        return f"{told} (this replaces what you told me before)" if data.get("superseded") else told
    if name == "core_memory_append":
        return second_person(str(args.get("content") or ""))
    if name == "core_memory_replace":
        new = str(args.get("new_content") or "")
        return second_person(new) if new else f"that is done: {second_person(str(args.get('old_content')))}"
    return None


def _told(acknowledged: Sequence[str]) -> str:
    """``Got it: a; b.`` with what is said twice (the fact and its core line) said once."""
    said: list[str] = []
    for words in acknowledged:
        if words and not any(words.lower() in earlier.lower() for earlier in said):
            said.append(words)
    return f"Got it: {'; '.join(said)}." if said else ""


def result_words(name: str | None, data: Any, args: Mapping[str, Any]) -> str:
    """What the reply says about one answer-giving tool result ("" for none)."""
    if not isinstance(data, Mapping):
        return ""
    if name == "note_search":
        return note_answer(str(args.get("query", "")), data)
    if name == "search_facts" and isinstance(data.get("results"), list):
        return _fact_answer(data, args)
    if name == "recall_procedure" and isinstance(data.get("results"), list):
        return _procedure_answer(data, args)
    if isinstance(data.get("results"), list):  # the memory searches, and any retrieval bound in their place
        return _search_answer(data, args)
    if not data.get("ok"):
        return ""
    if name == "archival_memory_insert":
        return f"I'll keep that for later: {_quote(args.get('content'))}."
    if name == "save_procedure":
        steps = data.get("steps") or args.get("steps") or []
        return f"Saved your steps to {data.get('name') or args.get('name', '')}: {_steps(steps)}"
    if name == "set_reminder":
        return f"I'll remind you to {data.get('description', '')} {_reminder_words(data)}."
    return ""


def compose_reply(
    reminders: Sequence[str], core_answers: Sequence[str], results: Sequence[Result], *, asked: bool = True
) -> str:
    """The reply text (without the marker): reminders, what was stored, then the answers.

    With nothing to say, a question (``asked``) gets what the offline tutor can do, and a
    statement is acknowledged: the notes written at the end of the session hold it.
    """
    acknowledged = []
    answers = []
    for name, data, args in results:
        stored = stored_words(name, data, args) if isinstance(data, Mapping) and data.get("ok") else None
        if stored is not None:
            acknowledged.append(stored)
        else:
            answers.append(result_words(name, data, args))
    parts = [*reminders, _told(acknowledged), *core_answers, *answers]
    return " ".join(part for part in parts if part) or (NOTHING_TO_DO if asked else NOTED)
