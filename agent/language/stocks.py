"""What a number in learner text says of a stock or of money: held, given, drawn from, paid for.

A number's clause may tell a stock the learner holds or a change of it, read from the verb of the clause
(``number_roles.verb_of``, the parse):

- **Money given to the learner for a thing** ("my aunt gave me 300 for the fund"): ``given_to_learner``.
- **A stock the learner holds** ("I prepaid 20 lessons", "I have 30 hours of credit"): ``held``.
- **An amount drawn from or given to a stock** ("spent 120 on pipette tips", "used 2.5 of those hours",
  "bought a logger for 95 dollars", "gave me 5 bonus hours"): ``stock_change``.
- **A price** ("got it for 9 euros"), no sum the learner holds: ``a_price``.

``agent.language.quantities`` (a change stated as an amount), ``agent.language.amount_directions`` and
``agent.language.old_amounts`` read numbers through these. The verbs are short closed lists (MiniLM does
not encode direction).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.language.grammar import is_learner, parse, token_at
from agent.language.number_roles import verb_of
from agent.language.numerals import SYMBOL_BEFORE, Number
from agent.language.units import is_money, spent_money, unit_of

if TYPE_CHECKING:
    from spacy.tokens import Token


def _object_of(text: str, n: Number, verb: Token) -> bool:
    """True when the number ``n`` is ``verb``'s object, its noun's number, or right after it (the parse)."""
    token = next((t for t in parse(text) if t.idx == n.start), None)
    return token is not None and (token.head == verb or token.i == verb.i + 1)


def given_to_learner(text: str, start: int, *, purpose: bool = True) -> bool:
    """True when the number's clause gives it to the learner for a thing: "my aunt gave me 300 for the fund".

    A ``purpose`` ("for", "towards") is asked for, as pay for a task is no money for a fund ("gave me €20 to
    water her plants"); units of a stock need none ("Kata gave me 2 free lessons as a bonus").
    """
    verb = verb_of(text, start)
    if verb is None:
        return False
    if purpose and not any(t.lower_ in _TOWARD and verb in (t.head, t.head.head) for t in verb.subtree):
        return False
    number = next(t for t in verb.doc if t.idx <= start < t.idx + len(t.text))
    path = [number, *(a for a in number.ancestors if a.i != verb.i and verb in a.ancestors)]
    if any(t.dep_ == "pobj" for t in path):
        return False  # "gives me a training budget of €800": the value of a fund named, not money given
    recipients = [c for c in verb.children if c.dep_ in {"dative", "iobj", "dobj"}]  # "handed me ₹5": dobj
    recipients += [p for c in verb.children if c.lower_ == "to" for p in c.children if p.dep_ == "pobj"]
    return any(is_learner(r) for r in recipients)


_TOWARD = frozenset({"for", "toward", "towards"})


_BUYS = frozenset({"buy", "book", "order", "purchase", "pay", "rent", "cost"})
"""Lemmas of verbs of buying: money told with one in the past was paid out (a closed class, as ``_DRAWS``)."""
_HELD = frozenset({"have", "get", "prepay", "receive"}) | (_BUYS - {"cost"})
"""Lemmas of verbs that hold a stock ("I prepaid 20 lessons", "I have 30 hours of credit", "paid for 20 hours
of lessons": what is bought is held): what is used of it, or given to the learner of its kind, changes it; a
tally of work ("I've finished 18 novels") is none."""


def held(text: str, n: Number) -> bool:
    """True when the number ``n`` of ``text`` is a stock the learner holds, by the verb of its clause."""
    verb = verb_of(text, n.start)
    if verb is None or verb.lemma_.lower() not in _HELD:
        return False
    number = token_at(verb.doc, n.start)
    described = (
        [] if number is None else [c for t in (number, number.head) for c in t.children if c.dep_ == "acl"]
    )
    return not described  # "I've got $2,350 saved up": savings (or what is left, told by its own words)


_DRAWN_BEFORE = re.compile(
    r"\b(?:(?P<money>spent|paid)|used)\s+(?:(?:a|an|the|me|us|my|our|another|all|of)\s+)*$", re.I
)
"""Before an amount drawn from a stock: spent or paid (money, its unit told or not), used ("used 3 of them");
in the past, as work done is told ("I pay 80 dollars a month" is a price)."""


_OF_IT = re.compile(r"^\s+(?:[a-z]+\s+)?of\s+(?:it|that|this)\b(?!\s+\w+ing\b)", re.I)
"""After an amount: a part of the value the pronoun names ("35 of it"), not "two of it being …"."""
_OF_THEM = re.compile(r"^\s+of\s+(?:them|those|these)\b(?!\s+(?:were|was|are|is)\b)", re.I)
"""After an amount: a part of the things told before ("60 of them"), not who ("3 of them were mine")."""
_DRAWS = frozenset({"spend", "use", "eat", "take", "burn", "blow", "swallow", "cost", "withdraw"})
"""Lemmas of verbs that take a part of a value away (a closed class: MiniLM does not encode direction)."""


def stock_change(text: str, n: Number) -> tuple[float, str] | None:
    """The sign and kind of an amount drawn from or given to a stock (``quantities.Amount.stock``), or None.

    "spent 120 on pipette tips", "paid $15 for solder" (money spent), "used 2.5 of those hours" draw; "the
    platform gave me 5 bonus hours for a referral" gives (money given is a plain increment). Money spent on a
    thing changes only money left ("We have $1,500 left", ``differences``): "spent $30 on a pizza" changes
    no savings.
    """
    unit = unit_of(text, n)
    verb = verb_of(text, n.start)
    if _OF_IT.match(text[n.end :]) and verb is not None and verb.lemma_.lower() in _DRAWS:
        return -1.0, "of_it"  # "spent 35 of it", "the train ate 140 of it": a part of the value "it" names
    drawn = _DRAWN_BEFORE.search(SYMBOL_BEFORE.sub("", text[: n.start]))
    if drawn is None and _drawn_after(text, n):
        return -1.0, "spent" if unit is None or is_money(unit) else "used"  # "2 more hours gone"
    if drawn is not None and not drawn["money"]:
        return -1.0, "used"
    if drawn is not None and (unit is None or spent_money(unit)):
        return -1.0, "spent"  # "Spent 4 hours on the audiobook" is work done, not money drawn
    # a past verb's object ("cleared 60 of them"), not an aside ("I managed 7, two of them hard")
    worked = verb is not None and verb.tag_ in {"VBD", "VBN"} and _object_of(text, n, verb)
    if drawn is None and worked and _OF_THEM.match(text[n.end :]):
        return -1.0, "of_them"  # "cleared 60 of them", "binned 30 of those": work through a pile
    bought = _bought(verb, unit)
    if bought is not None:
        return -1.0, bought
    past = verb is not None and verb.tag_ in {"VBD", "VBN"}  # "the free tier gives me 1,000 a day": a state
    if past and unit is not None and not is_money(unit) and given_to_learner(text, n.start, purpose=False):
        return 1.0, "given"
    return None


_FROM_IT = frozenset({"with", "from", "of"})
_ANOTHER = re.compile(r"\b(?:more|another|extra)\b", re.I)
"""Beside an amount: one more of the same ("2 more hours", "another 3"), which way the verb says."""


def drawn_again(text: str, n: Number) -> bool:
    """True when ``n`` is drawn from a stock again: "used 2 more hours", "another 3 hours used".

    "more" beside the amount says another draw, not which way: the drawing verb does (``stock_change``).
    """
    if not _ANOTHER.search(text[max(0, n.start - 12) : n.end + 6]):
        return False
    drawn = stock_change(text, n)
    return drawn is not None and drawn[0] < 0


_PHRASE = frozenset({"NUM", "ADJ", "NOUN", "ADV", "DET", "ADP", "PROPN"})
"""Parts of speech of the counted noun's phrase ("2 more hours of lessons"), up to the verb after it."""


def _drawn_after(text: str, n: Number) -> bool:
    """True when a past participle after the amount's phrase draws it: "2 more hours gone", "3 more used up".

    The first verb after the number (the parse), with only the counted noun's phrase between, is a drawing
    participle (``_DRAWS``), or gone with no place it went ("went into the deck" adds): the amount was
    taken from the stock, whatever "more" says.
    """
    doc = parse(text)
    token = next((t for t in doc if t.idx == n.start), None)
    label = token is not None and token.head.i < token.i and token.head.pos_ in ("NOUN", "PROPN")
    if token is None or label or text[: n.start].rstrip().endswith("#"):
        return False  # "problem 12 took me an hour", "#60": a label, no amount
    for after in doc[token.i + 1 :]:
        if after.pos_ in ("VERB", "AUX"):
            lemma = after.lemma_.lower()
            gone = lemma == "go" and not any(c.dep_ in ("prep", "prt", "advmod") for c in after.children)
            return after.tag_ in ("VBN", "VBD") and (lemma in _DRAWS or gone)
        if after.pos_ not in _PHRASE:
            return False
    return False


def _bought(verb: Token | None, unit: str | None) -> str | None:
    """``"of_it"`` or ``"spent"`` when an amount of money is what the learner paid for a thing, else None.

    The clause's verb buys in the past ("bought a logger for 95 dollars", "booked the hotel, 210 euros",
    "the flat cost me 400"; the parse), the learner's or with no subject (a price that costs the learner:
    "me"). Paid "with it" / "out of it" names the value drawn ("of_it"); else it is money spent
    (``quantities.Amount.stock``).
    """
    if verb is None or not is_money(unit) or verb.tag_ not in {"VBD", "VBN"}:
        return None
    lemma = verb.lemma_.lower()
    if lemma not in _BUYS:
        return None
    payer = [
        c
        for c in verb.children
        if c.dep_ in (("dative", "iobj") if lemma == "cost" else ("nsubj", "nsubjpass"))
    ]
    if (lemma == "cost" and not payer) or any(not is_learner(c) for c in payer):
        return None  # "my friend bought one for 300", "the course cost 300": no money of the learner's
    pronouns = [t for t in verb.subtree if t.dep_ == "pobj" and t.lower_ in ("it", "that", "this")]
    drawn_from = any(t.head.lower_ in _FROM_IT for t in pronouns)
    return "of_it" if drawn_from else "spent"


def a_price(text: str, n: Number) -> bool:
    """True when the amount of money ``n`` is what something cost, the object of "for" ("got it for 9 euros").

    A price is no sum the learner holds, so no change resolves against it ("spent a third of what was left"
    is not a third of the price). The parse: the amount (or the money word it counts) hangs off "for" as its
    object; a purpose after a held sum ("I've got 600 euros for books") leaves the sum the verb's object.
    """
    if not is_money(unit_of(text, n)):
        return False
    token = next((t for t in parse(text) if t.idx == n.start), None)
    if token is None:
        return False
    held_by = token.head if token.dep_ in ("nummod", "compound") else token
    return held_by.dep_ == "pobj" and held_by.head.lower_ == "for"
