"""Numbers in learner text: in digits or words, and written back as the learner wrote them.

- :func:`numbers`: the numbers a text writes, in digits ("1,200", "5.5", a decimal comma "3,2" where
  no thousands group can be: one or two digits after it) or in words up to the
  thousands ("twelve", "twenty-five", "a hundred and five", "a dozen"), not those of a date or a
  time ("May 4", "10:30", "2026") unless asked; no library for English number words is
  installed, so the small closed vocabulary of number words is here (numbers are a closed
  class; ``number-parser`` or ``numerizer`` on PyPI could replace it).
- ``CURRENCY``: the currency a sign before a number names ("€800": euros; from Unicode's names).
- :func:`number_written`, :func:`number_text`: a number as written, with its currency symbol
  or percent sign, and a computed value written the same way ("€1,800" plus 450: "€2,250").
- :func:`current_value`, :func:`without_current`: the "(now …)" value a changed fact carries.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_NOT_A_NAME = frozenset({"sign", "mark", "currency", "symbol", "small", "fullwidth"})


def _currency_name(sign: str) -> str:
    """The currency a sign names, from its Unicode name ("₵", CEDI SIGN: "cedis"; "฿", … BAHT: "bahts")."""
    words = [w for w in unicodedata.name(sign, "").lower().split() if w not in _NOT_A_NAME]
    return (words[-1] if words else "money") + "s"


CURRENCY = {c: _currency_name(c) for c in map(chr, range(0x10000)) if unicodedata.category(c) == "Sc"}
"""The currency a sign before a number names: every currency sign Unicode knows, named by Unicode (a
learner writes "₦9,000" one day and "1,500 naira" the next)."""
SIGNS = re.escape("".join(CURRENCY))
"""The currency signs, for a regular expression's character class."""
SYMBOL_BEFORE = re.compile(rf"([{SIGNS}])\s*$")
"""A currency symbol right before a number."""
PERCENT_AFTER = re.compile(r"^\s*(?:%|per\s*cent|percent)", re.I)
"""A percent sign or word right after a number."""

_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
_UNITS += " sixteen seventeen eighteen nineteen"
_SMALL = {w: i for i, w in enumerate(_UNITS.split())}
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = {w: 10 * (i + 2) for i, w in enumerate(_TENS_WORDS.split())}
_SCALES = {"hundred": 100, "thousand": 1000}
_SMALL_RE = "|".join(_SMALL)
_TENS_RE = "|".join(_TENS)
_UPTO_99 = rf"(?:(?:{_TENS_RE})(?:[\s-]+(?:{_SMALL_RE}))?|{_SMALL_RE})"
_WORD_NUMBER = re.compile(
    rf"\b(?:half\s+an(?=\s+hour\b)|(?:a|half\s+a|{_UPTO_99})\s+dozen|(?:a|{_UPTO_99})\s+(?:hundred|thousand)(?:\s+(?:and\s+)?{_UPTO_99})?|{_UPTO_99})\b",
    re.I,
)
_DECIMAL_COMMA = r"(?<![\w.,])\d+,\d{1,2}(?![\w.,]*\d)"
"""A number written with a decimal comma ("3,2 km", "12,75"): one or two digits after the comma can be no
thousands group, so the comma is the decimal mark of a learner who writes numbers that way."""
_IN_A_NAME = r"(?<![^\W\d_]-)"
"""Not digits a hyphen joins to a word: part of a name ("TI-84", "COVID-19", "Kafka-3"), no amount."""
_DIGITS = re.compile(
    rf"{_IN_A_NAME}(?:{_DECIMAL_COMMA}|(?<![\w.])\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?(?![\w.]*\d)"
    rf"|(?<![\w.,])\d+(?:\.\d+)?(?![\w.]*\d))"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b"
)
"""A month's name or its abbreviation, a whole word ("marked 70 essays" holds no month)."""
_DATE_NUMBER = re.compile(
    rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}[:/]\d{1,2}\b|\b(?:19|20)\d\d\b",
    re.I,
)
"""Numbers that are part of a date or a time ("May 4", "3rd", "10:30", "2026"): no amounts."""


@dataclass(frozen=True)
class Number:
    """A number written in ``text``: where it is and its value."""

    start: int
    end: int
    value: float


def _word_value(phrase: str) -> float:
    words = re.split(r"[\s-]+", phrase.lower().replace(" and ", " "))
    if words == ["half", "an"]:  # "half an hour": a half of the unit after it
        return 0.5
    if words[-1] == "dozen":  # "a dozen", "two dozen", "half a dozen"
        if words[0] in ("a", "half"):
            return 6.0 if words[0] == "half" else 12.0
        return 12.0 * _word_value(" ".join(words[:-1]))
    total, part = 0, 0
    for word in words:
        if word == "a":
            part = 1
        elif word in _SCALES:
            total += max(part, 1) * _SCALES[word]
            part = 0
        else:
            part += _SMALL.get(word, 0) + _TENS.get(word, 0)
    return float(total + part)


def _digits_value(digits: str) -> float:
    """The value of a number in digits: a decimal comma as a decimal mark, else commas group thousands."""
    if re.fullmatch(_DECIMAL_COMMA, digits):
        return float(digits.replace(",", "."))
    return float(digits.replace(",", ""))


def decimal_comma(like: str) -> bool:
    """True when ``like`` writes a number with a decimal comma ("3,2 km"; not "1,500" nor "1,500.5")."""
    return isinstance(like, str) and re.search(_DECIMAL_COMMA, like) is not None


def numbers(text: str, *, dates: bool = False) -> list[Number]:
    """The numbers ``text`` writes, in digits or words, in order; not those of a date unless ``dates``."""
    if not isinstance(text, str):
        return []
    skip = [] if dates else [m.span() for m in _DATE_NUMBER.finditer(text) if not _counts_a_noun(text, m)]
    found = [Number(m.start(), m.end(), _digits_value(m.group())) for m in _DIGITS.finditer(text)]
    found += [Number(m.start(), m.end(), _word_value(m.group())) for m in _WORD_NUMBER.finditer(text)]
    kept = [n for n in found if not any(a <= n.start < b for a, b in skip)]
    return sorted(kept, key=lambda n: n.start)


_YEAR_LIKE = re.compile(r"(?:19|20)\d\d")
_TIME_PREPOSITIONS = frozenset({"in", "since", "until", "till", "by", "from", "before", "after", "during"})
"""Prepositions a year follows ("in 2019", "since 2020"): a closed class, so no parse can mistake them."""


_AMOUNT_OUT = re.compile(r"\s+(?:out\s+of|off|from|into|back\s+into|towards?)\b", re.I)
"""After a year-like object of its verb: where the amount went ("moved 2010 out of it", "put 2000 in")."""


def _counts_a_noun(text: str, match: re.Match[str]) -> bool:
    """True when a year-like number counts the plural noun it modifies ("2000 pesos"), or is an amount moved.

    The parse says whether the number modifies a noun (``nummod`` of a plural, as "2,000 pesos" would); a
    year modifies one after a determiner or a possessive ("my 2024 results", "the 2025 budget") or follows
    a preposition of time ("In 2019 students joined"), so those stay dates.
    """
    if not _YEAR_LIKE.fullmatch(match.group()):
        return False
    from agent.language.grammar import parse  # noqa: PLC0415  (spaCy only for a year-like number)

    token = next((t for t in parse(text) if t.idx == match.start()), None)
    if token is not None and token.dep_ == "dobj" and token.i > 0 and token.nbor(-1) == token.head:
        return _AMOUNT_OUT.match(text[match.end() :]) is not None  # "moved 2010 out of it": an amount moved
    if not re.match(r"\s+[^\W\d]", text[match.end() :]):
        return False
    if token is None or token.dep_ != "nummod" or token.head.tag_ not in ("NNS", "NNPS"):
        return False
    before = token.nbor(-1) if token.i > 0 else None
    return before is None or (
        before.tag_ not in ("DT", "PRP$", "POS") and before.lower_ not in _TIME_PREPOSITIONS
    )


def current_value(text: str) -> str | None:
    """The value a changed fact was resolved to ("… (now 210)" -> "210"), or None."""
    match = re.search(r"\(now ([^()]+)\)\s*$", text) if isinstance(text, str) else None
    return match.group(1).strip() if match else None


def without_current(text: str) -> str:
    """``text`` without its resolved "(now …)" value."""
    return re.sub(r"\s*\(now [^()]+\)\s*$", "", text) if isinstance(text, str) else ""


def number_text(value: float, like: str = "") -> str:
    """``value`` as the learner wrote ``like``, the number it changes ("210", "5.5", "€2,250", "55%").

    A thousands separator, a decimal comma ("3,2" plus 1.5 is "4,7"), a currency symbol before and a
    percent sign after are kept: the answer reads as the learner's own number ("€1,800" plus "€450" is
    "€2,250", not "2250").
    """
    # "14,200" keeps its separator; a number too small to show one ("$850") takes the usual one
    grouped = bool(re.search(r"\d,\d{3}", like)) or not re.search(r"\d{4}", like)
    digits = f"{value:,.0f}" if grouped else str(int(value))
    if value != int(value):
        digits = f"{value:,g}" if grouped else f"{value:g}"
    if decimal_comma(like):
        digits = f"{value:.2f}".rstrip("0").rstrip(".").replace(".", ",")  # "3,2" plus "1,5" is "4,7"
    symbol = re.match(rf"\s*([{SIGNS}])", like)
    percent = re.search(r"\d\s*(?:%|per\s*cent|percent)\s*$", like, re.I)
    return (symbol.group(1) if symbol else "") + digits + ("%" if percent else "")


def number_written(text: str, n: Number) -> str:
    """The number ``n`` of ``text`` as written, with a currency symbol before or a percent sign after."""
    symbol = SYMBOL_BEFORE.search(text[: n.start])
    percent = PERCENT_AFTER.match(text[n.end :])
    return (symbol.group(1) if symbol else "") + text[n.start : n.end] + ("%" if percent else "")
