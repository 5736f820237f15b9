r"""Read a request body as JSON without letting any input reach a 5xx.

The server guard parses every request body here before a route sees it. Python's ``json``
recurses once per nesting level: a body nested ~1,000 deep (2 KB) raised ``RecursionError``
and became a 500 before authentication. Here, before anything is parsed:

- the body must be UTF-8 (no BOM needed, none refused: JSON has no other encoding);
- nesting is measured without recursion (string contents dropped, then a running
  sum over the brackets, all in C loops) and bounded by ``MAX_JSON_DEPTH``;

then ``json.loads`` runs with hooks that refuse numbers a JSON peer cannot hold
(integers beyond 64 bits, floats that overflow to infinity, ``NaN``/``Infinity``),
and the result must encode back to UTF-8 (a lone ``\ud800`` escape is refused).
Each refusal is a 422 with a one-line reason. A body that simply is not JSON is
left to the route (every route answers malformed JSON with its own 4xx).
"""

from __future__ import annotations

import json
from array import array
from itertools import accumulate
from typing import Any, Final

MAX_JSON_DEPTH: Final = 100
"""Deepest nesting of objects and arrays a body may have (a run's input needs fewer than 20)."""
MAX_INT_DIGITS: Final = 20
"""Digits of the longest integer literal read at all (2**64 has 20)."""
INT_LIMIT: Final = 2**64
"""Integers must lie strictly between -2**64 and 2**64 (what 64-bit JSON peers hold)."""
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
"""Opening brackets become +1 and closing ones -1 (read as signed bytes)."""


class BodyRefusedError(Exception):
    """A body the server refuses before any route reads it: a status and a one-line reason."""

    def __init__(self, status: int, detail: str) -> None:
        """Keep what the client is told."""
        super().__init__(detail)
        self.status = status
        self.detail = detail


class NotJson:
    """The body is not JSON at all (the route answers it with its own 4xx)."""


NOT_JSON: Final = NotJson()


def nesting_depth(body: bytes) -> int:
    """How deeply objects and arrays nest in ``body`` (0 for a scalar), in linear time, no recursion."""
    # Escapes only occur inside strings: drop escaped backslashes, then escaped quotes (left to
    # right, as JSON pairs them); what lies between the remaining quotes is string content.
    unescaped = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(unescaped.split(b'"')[::2])
    brackets = outside.translate(_STEPS, _NOT_BRACKETS)
    return max(accumulate(array("b", brackets)), default=0)


def _bounded_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    value = int(literal) if digits <= MAX_INT_DIGITS else INT_LIMIT
    if not -INT_LIMIT < value < INT_LIMIT:
        shown = literal[:24] + ("..." if len(literal) > 24 else "")
        raise BodyRefusedError(422, f"a number in the JSON body needs more than 64 bits: {shown}")
    return value


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise BodyRefusedError(422, f"a number in the JSON body overflows a double: {literal[:24]}")
    return value


def _no_constant(name: str) -> Any:
    raise BodyRefusedError(422, f"the JSON body holds {name}, which JSON does not allow")


def parse_body(body: bytes) -> Any:
    """The JSON value of ``body``; ``NOT_JSON`` when it is not JSON; ``BodyRefusedError`` when unsafe.

    An empty body is ``None`` (the route decides whether it needs one).
    """
    if not body.strip():
        return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyRefusedError(422, f"the request body is not valid UTF-8 (byte {exc.start})") from None
    depth = nesting_depth(body)
    if depth > MAX_JSON_DEPTH:
        raise BodyRefusedError(
            422, f"the JSON body nests {depth} levels deep; at most {MAX_JSON_DEPTH} are accepted"
        )
    try:
        value = json.loads(
            text, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_no_constant
        )
    except (ValueError, RecursionError):  # malformed; RecursionError cannot happen below the depth bound
        return NOT_JSON
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BodyRefusedError(422, "the JSON body holds an unpaired surrogate (\\ud800-\\udfff)") from None
    return value
