"""What the offline policy pins in core memory: facts about the learner, not what they said.

A learner introduces themselves the way people talk: "Hi, my name is Ana and I work as a
data analyst." Core memory is read on every turn, so it keeps the facts, one per line
("My name is Ana.", "I work as a data analyst."), not the greeting word for word; and a
sentence holding a name and a goal ("My name is Bob and my goal is …") feeds both
``user_profile`` and ``current_goals``.

``pinned_actions`` rewrites the policy's planned core memory writes that way. The planner
(``agent.models.offline_cognition``) still decides *whether* a sentence is pinned and which
line it replaces; this module decides *what the line says*. A write whose line is already
in its section is dropped, and a replace whose new lines are the old one or already kept is
dropped too, so the plan converges on the next step as it did when lines were whole sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Action = tuple[str, dict[str, Any]]
SectionOf = Callable[[str], str | None]
"""A clause -> the core section it belongs in (``user_profile``, ``current_goals``) or None."""

_OPENER = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening)|dear tutor|"
    r"nice to meet you|thanks|thank you|ok(?:ay)?|so(?!\s+(?:far|much|many|that)\b)|well|oh|actually|"
    r"anyway|by the way|"
    r"just so you know|fyi)\b(?:\s+there)?[\s,!.:;-]*",
    re.I,
)
"""Greetings and discourse openers: how a sentence is said, not what it says about the learner."""
_CLAUSE_BREAK = re.compile(r"\s*(?:;|,?\s+(?:and|but|so|while)\s+|,\s+)(?=(?:i|i'm|i've|i'd|my)\b)", re.I)
"""Where a sentence starts a new first-person clause: "… Ana and I work …", "…; my goal is …"."""


def without_opener(text: str) -> str:
    """``text`` without leading greetings or openers ("Hi, well, my name is Ana" -> "my name is Ana")."""
    previous = None
    while previous != text:
        previous, text = text, _OPENER.sub("", text, count=1)
    return text.strip()


def as_line(clause: str) -> str:
    """A core memory line: capitalised, one closing full stop."""
    clause = clause.strip().rstrip(" ,;:-")
    if not clause:
        return ""
    clause = clause[0].upper() + clause[1:]
    return clause if clause[-1] in ".!?" else f"{clause}."


def clauses(sentence: str) -> list[str]:
    """The first-person clauses of a sentence, greetings dropped."""
    return [c for c in (without_opener(part) for part in _CLAUSE_BREAK.split(sentence)) if c]


def core_entries(sentence: str, section: str, section_of: SectionOf) -> list[tuple[str, str]]:
    """``(section, line)`` per fact the sentence pins; ``section`` is where the planner put it.

    A clause no section claims is dropped (it stays in the fact store); when no clause is
    claimed for ``section``, the sentence without its greeting is kept there whole, so a
    write the planner asked for is never lost.
    """
    entries = [(sec, as_line(c)) for c in clauses(sentence) if (sec := section_of(c)) is not None]
    if not any(sec == section for sec, _ in entries):
        whole = as_line(without_opener(sentence))
        entries = [(section, whole), *[(sec, line) for sec, line in entries if line != whole]]
    return list(dict.fromkeys(entries))


def section_lines(core: Mapping[str, str], section: str) -> list[str]:
    """The non-empty lines of a core memory section, stripped."""
    return [ln.strip() for ln in core.get(section, "").splitlines() if ln.strip()]


def pinned_actions(actions: Sequence[Action], core: Mapping[str, str], section_of: SectionOf) -> list[Action]:
    """The planned actions with core memory writes holding facts, one per line (module docstring)."""
    out: list[Action] = []

    def append(section: str, line: str) -> None:
        action = ("core_memory_append", {"section": section, "content": line})
        if line and line not in section_lines(core, section) and action not in out:
            out.append(action)

    for name, args in actions:
        if name == "core_memory_append":
            for section, line in core_entries(str(args["content"]), str(args["section"]), section_of):
                append(section, line)
        elif name == "core_memory_replace" and args.get("new_content"):
            section, old = str(args["section"]), str(args["old_content"])
            entries = core_entries(str(args["new_content"]), section, section_of)
            kept = section_lines(core, section)
            # a line already kept is not written again; only what is new replaces the old line
            new = " ".join(ln for sec, ln in entries if sec == section and (ln == old or ln not in kept))
            if new and new != old:
                out.append((name, {**args, "new_content": new}))
            for sec, line in entries:
                if sec != section:
                    append(sec, line)
        else:
            out.append((name, args))
    return out
