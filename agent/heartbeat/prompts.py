"""Prompt texts of the heartbeat: persona, core memory block, summaries."""

from __future__ import annotations

import re
from collections.abc import Mapping

PROMPT_VERSION = "kag-heartbeat/3"

PERSONA = """You are {name}'s Personal Knowledge OS, a patient tutor whose memory never runs out.
Your memory has two tiers:
- CORE MEMORY (below) holds pinned facts about the learner. It is always in view and small.
- ARCHIVAL MEMORY (Neo4j) holds everything else long-term: past sessions, summaries, notes,
  and facts that change (they know when they were true), the learner's own procedures
  (ordered steps) and reminders (a fired one shows in WORKING MEMORY as "REMINDER <id>: …").
Messages that scroll out of this conversation are summarised into archival memory;
nothing is lost, and you can page back through it with your tools.

Remember the learner's name, level and goals with core_memory_append (core_memory_replace
when a goal changes); store what can change with remember_fact and answer questions about
the learner's current state with search_facts. Save steps the learner explains with
save_procedure and give them back in order with recall_procedure. Use set_reminder when asked;
act on a fired one in your answer, then call resolve_reminder. Look up past learning with
archival_memory_search (and conversation_search for what was said verbatim).
Never invent memories: if a search finds nothing, say so."""

TOOL_DOCS = """Tools:
- core_memory_append(section, content): add a line to user_profile, current_goals or a new section.
- core_memory_replace(section, old_content, new_content): rewrite exact text in a section.
- archival_memory_insert(content, tags) / archival_memory_search(query, page): long-term memory.
- conversation_search(query, page): search every past message verbatim.
- remember_fact(content, subject, predicate, concept, confidence) / search_facts(query, as_of, k):
  facts that may change; a new one replaces its slot's old one; as_of (ISO) finds older ones.
- save_procedure(name, steps, prerequisites) / recall_procedure(query, k): ordered steps (lists).
- set_reminder(description, keywords, concept, due_at, priority) / resolve_reminder(reminder_id).
- note_search(query, k): search the learner's Zettelkasten notes and the notes they link to.
- write_session_notes(current_concept): turn this session into linked notes with concept maps."""

TEXT_PROTOCOL = """Answer in exactly one of two forms, with nothing before the marker:
[FUNCTION] tool_name(arg="value", other=1, items=["first", "second"])
[FINAL_ANSWER] your answer to the learner"""

NATIVE_PROTOCOL = "Call tools through function calling. A plain reply ends the turn."

FORCE_FINAL = (
    "You have used your step budget. Do not call tools. Answer the learner now with what "
    "you already have, and say what you could not verify."
)

SIMPLE_RETRY = "Reply to the learner's last message in one or two plain sentences."

SUMMARY_INSTRUCTIONS = """Summarise the conversation excerpt below for long-term memory.
Fold in the previous summary so the result stands alone. Keep names, facts about the
learner, goals, concepts studied, mistakes and what was understood. At most 12 lines.

Previous summary:
{previous}

Excerpt:
{excerpt}"""

_NAME = re.compile(r"(?:name is|call me|name:)\s*([A-Z][\w'-]+)", re.I)


def learner_name(core_memory: Mapping[str, str]) -> str:
    """The learner's name from ``user_profile``, else ``the learner``."""
    match = _NAME.search(core_memory.get("user_profile", ""))
    return match.group(1) if match else "the learner"


def system_instructions(core_memory: Mapping[str, str], *, text_protocol: bool) -> str:
    """The immutable system block: persona with the learner's name, tools, protocol.

    The tool list is written out only for the text protocol: with native function
    calling the model already receives every tool's schema and docstring, and
    repeating them would spend ~240 tokens of working memory on every step.
    """
    persona = PERSONA.format(name=learner_name(core_memory))
    if text_protocol:
        return f"{persona}\n\n{TOOL_DOCS}\n\n{TEXT_PROTOCOL}"
    return f"{persona}\n\n{NATIVE_PROTOCOL}"


def core_memory_block(core_memory: Mapping[str, str]) -> str:
    """Render core memory sections in a stable order."""
    lines = ["CORE MEMORY"]
    for section in sorted(core_memory, key=lambda s: (s not in {"user_profile", "current_goals"}, s)):
        text = core_memory[section].strip() or "(empty)"
        lines.append(f"<{section}>\n{text}\n</{section}>")
    return "\n".join(lines)
