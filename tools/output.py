"""How tool results look to the model: compact JSON, no score breakdowns, to save tokens.

Shared by the MemGPT memory tools (``tools/memory_tools.py``) and the cognitive
memory tools (``tools/cognitive_tools.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

HIT_FIELDS = ("id", "text", "score", "created_at", "kind")
"""The fields of a ``SearchHit`` every compact result keeps."""
PAGE_FIELDS = ("page", "has_more", "degraded")
"""The fields of a ``SearchPage`` every compact result keeps."""
MESSAGE_META = ("session_id", "role")
"""Metadata kept for recall and archival hits."""
HIT_TEXT_CHARS = 400
"""A hit's text is cut here (``truncated: true``): a consolidated episode or long summary
would otherwise fill working memory, and its originals come back as their own hits."""


def dumps(value: Any) -> str:
    """JSON text of a tool result (dates and other values as strings)."""
    return json.dumps(value, default=str)


def compact_hit(hit: Mapping[str, Any], meta_keys: Iterable[str] = MESSAGE_META) -> dict[str, Any]:
    """One search hit as the model sees it: its main fields plus the named metadata that is set."""
    row = {k: hit[k] for k in HIT_FIELDS if k in hit}
    text = str(row.get("text") or "")
    if len(text) > HIT_TEXT_CHARS:
        row["text"], row["truncated"] = text[: HIT_TEXT_CHARS - 1] + "…", True
    row["score"] = round(float(row.get("score") or 0.0), 4)
    meta = hit.get("metadata") or {}
    for key in meta_keys:
        value = meta.get(key)
        if value is not None and value != "" and value != []:
            row[key] = value
    return row


def compact_page(page: Mapping[str, Any], meta_keys: Iterable[str] = MESSAGE_META) -> str:
    """A ``SearchPage.to_dict()`` as compact JSON text: hits, page, has_more, degraded."""
    keys = tuple(meta_keys)
    hits = [compact_hit(hit, keys) for hit in page.get("results", [])]
    return dumps({"results": hits, **{k: page[k] for k in PAGE_FIELDS if k in page}})
