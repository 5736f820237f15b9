"""Checks on an exported note's prose: no sentence said twice (the bench and the note tests read them)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.language.sentences import split_sentences

_WORD = re.compile(r"\w+")


def repeated_sentences(texts: Sequence[str]) -> list[str]:
    """Sentences that occur more than once across ``texts`` (case and spacing ignored).

    Sentences are the language layer's (``agent.language.sentences``): "pandas.DataFrame" is one word.
    """
    seen: set[str] = set()
    repeated: list[str] = []
    for text in texts:
        for raw in split_sentences(text):
            key = " ".join(_WORD.findall(raw.lower()))
            if len(key.split()) < 4:
                continue  # labels and short fragments ("Example:") are not text said twice
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
    return repeated


def prose_of(markdown: str) -> str:
    """The prose of an exported note: no front matter, no mermaid block, no link list."""
    text = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.S)
    text = re.sub(r"```mermaid\n.*?```", "", text, flags=re.S)
    text = re.sub(r"\*\*[^*\n]+:\*\*", "", text)  # the section labels are not what was said
    return text.split("\n## Links", 1)[0]
