"""Which way an amount in a learner's sentence goes: added, or taken away (issue 39, L6).

``direction`` reads it from the words right around the number, as ``agent.language.quantities``
asks for each amount of a change: "another N", "N more", "gained N", "+N" add; "N fewer", "lost
N", "cut N", "take N out of it" take away; money "spent" changes a fund only when it is drawn from
one ("spent €350 of it"), money "earned" or given to the learner adds. MiniLM does not encode
direction (docs/decisions/language-layer.md), so these are short closed lists, as in
``agent.language.directions`` (which reads the direction of a change "by N" from its verb).
"""

from __future__ import annotations

import re

from agent.language.numerals import PERCENT_AFTER, SYMBOL_BEFORE, Number
from agent.language.stocks import given_to_learner
from agent.language.units import is_money, spent_money, unit_of

_APPROXIMATELY = r"about|around|roughly|nearly|almost|approximately|some"
FILLER = rf"(?:(?:a|an|the|me|us|my|our|another|all|of|{_APPROXIMATELY})\s+)*"
"""Words between a verb of change and its amount: determiners, and approximators ("cut roughly 400 words")."""
_UP_BEFORE = re.compile(
    rf"\b(?:another(?:\s+[a-z]+(?=\s+of\b))?|add(?:s|ed|ing)?|gain(?:s|ed|ing)?|plus|an?\s+extra|extra|added\s+on"
    rf"|put(?:s|ting)?\s+(?:in|aside|away)|chipped\s+in|deposited"
    rf"|topped\s+up(?:(?:\s+(?:my|our|his|her|their|the|it|them)(?:\s+\w+){{0,2}}?)?\s+(?:by|with))?"
    rf"|(?:went|goes|gone|go|was|is|moved|climbed|jumped)\s+up|rose|climbed|jumped"
    rf"|(?:raise|rise|increase|boost|hike)\s+of)\s+{FILLER}$",
    re.I,
)
"""Before an amount added: "another 60", "gained 45", "put in 9 hours", "went up eleven points"."""
_DOWN_BEFORE = re.compile(
    rf"\b(?:lost|lose|loses|losing|minus|cut|cuts|removed?|removes|deleted?|took|takes?|shaved|dropped|trim(?:med|s)?"
    rf"|subtract(?:ed|s)?|(?:take|takes|taking)\s+(?:off|away)|took\s+away"
    rf"|knock(?:ed|s)?|sold|gave\s+away|threw\s+(?:out|away))"
    rf"\s+{FILLER}$",
    re.I,
)
_UP_AFTER = re.compile(
    r"^\s+(?:[A-Za-z]+\s+)?(?:more|new|extra|additional|further|added)\b(?!\s+than)"
    r"|^\s+(?:[A-Za-z]+\s+){0,3}?(?:back|into)\b(?!\s+(?:down|to|from|home))|^\s*(?:raise|rise|increase|boost|hike)\b",
    re.I,
)
"""After an amount added: "12 more", "3,200 words added", "put €150 back"/"into" (not "3 more than")."""
_DOWN_AFTER = re.compile(
    r"^\s+(?:[A-Za-z]+\s+)?(?:fewer|less)\b(?!\s+than)|^\s+(?:[A-Za-z]+\s+){0,3}?(?:out\s+of\s+(?:it|the|my|our)"
    r"|dropped\s+out|quit|left)\b|^\s*(?:cut|drop|decrease|reduction|discount)\b|^\s+(?:[A-Za-z]+\s+){0,2}?gone\b(?!\s+(?:on|to|up|by))",
    re.I,
)
"""After an amount taken away: "5 fewer", "take $70 out of it", "four dropped out", "a £50 discount"."""
_FROM_A_FUND = re.compile(
    r"^[^.;!?]*?\b(?:of|from|out\s+of)\s+(?:it|that|the|my|our)\b|^\s+(?:[A-Za-z]+\s+)?(?:of|from|out\s+of)\s+\w",
    re.I,
)
"""After money spent: where from ("of it", "from my savings", "$140 of credits"), so it changes a fund."""
_MONEY_IN_BEFORE = re.compile(rf"\b(?:earned|received|saved|got|made|won)\s+{FILLER}$", re.I)
"""Before an amount of money added: "earned $200 from tutoring" (money only: "got 3 hours" is none)."""
_SPENT_BEFORE = re.compile(
    rf"\b(?:spen[dt]s?|spending|paid|pay(?:s|ing)?|used|withdr[ae]w[ns]?|withdrawing|borrowed|pull(?:s|ed|ing)?)"
    rf"\s+{FILLER}$",
    re.I,
)
"""Before an amount of money taken away: "spent €350", "pulled £75" (money only)."""
_WITHDRAWN_BEFORE = re.compile(rf"\b(?:withdr[ae]w[ns]?|withdrawing)\s+{FILLER}$", re.I)
"""Before an amount withdrawn: out of a fund by the verb's meaning ("Withdrew 1,000 rand to book the
test"), whatever the currency is called."""
_GONE_ON = re.compile(r"^\s+(?:[A-Za-z]+\s+)?(?:went|goes|gone|go)\s+on\b", re.I)
"""After an amount of money spent: "another €45 went on printing" (money only)."""
_GIVEN_AFTER = re.compile(r"^\s+(?:came\s+in|arrived|went\s+(?:in|into))\b", re.I)
"""After an amount of money added: "€200 came in from tutoring" (money only)."""
_SIGNED = re.compile(r"(?:^|[\s(:;,])(?P<sign>[+\-\u2212])$")
"""A sign written on the amount ("+40 words", "-3 km", "pages: +17"): its direction, as a learner logs it."""


def text_before(text: str, n: Number) -> str:
    """The text before ``n`` without a currency symbol that belongs to it ("cut it by €300")."""
    return SYMBOL_BEFORE.sub("", text[: n.start])


def direction(text: str, n: Number) -> float | None:
    """+1 or -1 when the words around the number say it is added or taken away, else None."""
    before, after = text_before(text, n), PERCENT_AFTER.sub("", text[n.end :], count=1)  # "15% more"
    signed = _SIGNED.search(before)
    if signed is not None:
        return 1.0 if signed["sign"] == "+" else -1.0
    if _UP_AFTER.match(after):
        return 1.0
    if _DOWN_AFTER.match(after) or _DOWN_BEFORE.search(before):
        return -1.0  # "lost another 50": the verb, not "another", says which way
    if _WITHDRAWN_BEFORE.search(before):
        return -1.0
    spent = _SPENT_BEFORE.search(before)
    gone = _GONE_ON.match(after)
    if gone and is_money(unit_of(text, n)):
        return -1.0  # "another $45 went on hosting": spent, whatever "another" tallies
    if gone and unit_of(text, n) is None and re.match(r"\s+an?\b", after[gone.end() :], re.I):
        return -1.0  # "another 60 gone on a phrasebook": a thing bought, the money left unnamed
    if spent and spent_money(unit_of(text, n)):
        # "spent €350 of it": money taken from the fund; "spent another $45 on storage" tallies spending
        # from one (never an amount added); "spent $30 on a pizza" is no change
        return -1.0 if _FROM_A_FUND.search(after) or re.search(r"\banother\b", spent.group(), re.I) else None
    money_in = _GIVEN_AFTER.match(after) or _MONEY_IN_BEFORE.search(before) or given_to_learner(text, n.start)
    if money_in and is_money(unit_of(text, n)):
        return 1.0  # "my parents chipped in €1,000", "€200 came in from tutoring"
    return 1.0 if _UP_BEFORE.search(before) else None
