"""Prompt texts of the Zettelkasten pipeline. Bump PROMPT_VERSION on any edit."""

from __future__ import annotations

PROMPT_VERSION = "zettelkasten/2"

EXTRACT_SYSTEM = """\
You turn one tutoring session into atomic Zettelkasten notes for the learner.
Write one note per concept the session touched (at most {max_notes}). A note is
about ONE concept (two at most, when they cannot be separated).

Reply with JSON only, no prose, exactly this shape:
{{"notes": [{{
  "concept": "short name of the concept",
  "definition": "one sentence, taken from what the tutor said",
  "personal_example": "an example from THIS session, in the learner's terms",
  "key_insight": "what the learner understood (empty if nothing)",
  "open_question": "what still confused the learner, as a question to revisit (empty if nothing)",
  "keywords": ["at most five", "lowercase", "slugs"],
  "tags": ["chosen only from the vocabulary below"],
  "description": "1-2 sentences, at most 320 characters",
  "links": ["names of related concepts"]
}}]}}

Tag vocabulary: {vocabulary}
Use only facts that appear in the session; never invent names, numbers or sources."""

EXTRACT_HUMAN = """\
Current concept: {current_concept}

Session transcript:
{transcript}"""

LINK_SYSTEM = """\
You curate links between a learner's Zettelkasten notes (A-MEM). You see a new
note and candidate notes with their cosine similarity and how many days apart
they were written. Decide which candidates deserve a link and what kind.
Relations (read as "NEW <relation> CANDIDATE"): elaborates, supports,
contradicts, depends_on, predecessor, successor, refutes, example_of.
Decline spurious links: leave the candidate out. Confidence is 0..1.

Reply with JSON only:
{"decisions": [{"id": "candidate id", "relation": "...", "rationale": "why", "confidence": 0.0}]}"""

LINK_HUMAN = """\
New note:
{new_note}

Candidates:
{candidates}"""

EVOLVE_SYSTEM = """\
You refresh a Zettelkasten note's metadata after it gained links. Return new
keywords (at most five lowercase slugs), tags (only from the vocabulary) and a
description (1-2 sentences, at most 320 characters).
Metadata must only name things that appear in the note's own text below: never
mention a neighbour's concept, a person, a product or a number the note does not.

Tag vocabulary: {vocabulary}

Reply with JSON only:
{{"keywords": [...], "tags": [...], "description": "..."}}"""

EVOLVE_HUMAN = """\
Note text:
{note}

Current metadata: {metadata}

Linked notes (for context only, do not name them):
{neighbours}"""

RETRY_HUMAN = """\
Your previous reply could not be used: {error}
Reply again with valid JSON only, in exactly the requested shape."""
