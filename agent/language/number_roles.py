"""What a number in learner text stands for in its clause: the value, or something else.

A statement's number is not always the learner's value. Read from the words of its clause (from the
last clause break or a coordinated clause of the learner's own, ``clause_before``):

- **A target, bound or price** ("… to get past 1500", "the fee is €7,500", "the limit is 12,000"),
  or a number in a negated, planned or wished clause (``NOT_DONE``): ``stated_as_target``.
- **A change not done** (``not_done``): "I didn't add 5 more", "might push it back a week".
- **A whole another number is part of** ("8 of the 20 mediums", "3/5"): ``of_a_total``.
- **The verb that states it** ("I've played 300 games": "play"; "is at", "has": "be"): ``stated_by``.

``agent.language.quantities`` (a change stated as an amount), ``agent.language.shifts``,
``agent.language.differences`` and ``agent.language.restated`` read numbers through these; what a number
says of a stock or of money (held, given, drawn, paid) is ``agent.language.stocks``'.
The words are short closed lists (MiniLM does not encode direction or modality).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from agent.language.grammar import is_learner, parse, token_at
from agent.language.numerals import SIGNS, Number, numbers
from agent.language.units import is_money, unit_after, unit_of

if TYPE_CHECKING:
    from spacy.tokens import Token

NOT_DONE = re.compile(
    r"\b(?:not|no|never|n't|want|wants|wanted|plan|plans|planning|hope|hopes|hoping|going\s+to|gonna|need|needs"
    r"|should|could|would|might|may|will|'ll|'d|if|unless|try|trying|aim|aiming|wish|can)\b"
    r"|n't\b",
    re.I,
)
"""Before the amount in its clause: the change is negated, planned or hypothetical."""
_TARGET = re.compile(
    r"\b(?:get\s+(?:past|to|above|over|below|under)|reach|hit|pass|break|above|over|below|under|at\s+least"
    r"|goal|target|aim|aiming|wants?|hope|hoping|fee|fees|cost|costs|price|tuition"
    r"|limit|cap|ceiling|max|maximum|min|minimum|quota|up\s+to|at\s+most|no\s+more\s+than|requires?|required)\b",
    re.I,
)
"""Before a number in its clause: the number is a target, a bound or a price, not the value ("… to get past
1500", "€1,800 put aside so far, and the fee is €7,500", "the limit is 12,000")."""
_OF_TOTAL = re.compile(
    r"^\s*(?:[A-Za-z]+\s+){0,2}?(?:of|out\s+of|/)\s*(?:the|my|our|all|those|these|an?)?"
    rf"\s*(?:possible|maximum|max)?\s*[{SIGNS}]?\s*$",
    re.I,
)
"""Between two numbers: the second is the whole the first is part of ("8 of the 20 mediums", "3/5", "8,400
words of a 15,000 limit")."""


def of_a_total(text: str, found: list[Number]) -> list[Number]:
    """The numbers of ``found`` that are a whole another number is part of ("I've done 8 of the 20")."""
    return [n for m, n in zip(found, found[1:], strict=False) if _OF_TOTAL.match(text[m.end : n.start])]


def stated_as_target(text: str, n: Number) -> bool:
    """True when ``n`` is a target or a wish of ``text`` ("my lead wants it above 80"), not its value."""
    clause = clause_before(text, n.start)
    return bool(_TARGET.search(clause) or NOT_DONE.search(clause))


def names_a_bound(text: str) -> bool:
    """True when ``text`` names a target, a bound or a price ("knocks 800,000 off the fee", "the cap")."""
    return bool(_TARGET.search(text))


def stated_as_bound(text: str, n: Number) -> bool:
    """True when ``n`` is a target, a bound or a price ("the limit is 12,000"), not "I can play 9"."""
    return bool(_TARGET.search(clause_before(text, n.start)))


_MONTH_MAY = re.compile(r"\bMay(?=\s+\d)|\b(?:in|of|by|since|until|from|early|late|mid)\s+May\b")
""""May" as the month: before a day or after a preposition of time ("lost 1 kilo in May and another 2")."""


def not_done(text: str, start: int) -> bool:
    """True when the clause before ``start`` negates, plans or supposes its change ("might push it back")."""
    clause = _MONTH_MAY.sub("Mon", clause_before(text, start))  # the month, not the verb
    return bool(NOT_DONE.search(clause))


_NEW_CLAUSE = re.compile(
    r"\b(?:and|but|while|whereas)\s+(?=(?:I|we)(?:'\w+)?\b|(?:have|has|had|got|did|am)\b)", re.I
)
"""A coordinated clause of the learner's own ("I need 40 hours … and I've got 26 done", "… and have 35"): a
new clause."""


def clause_before(text: str, start: int) -> str:
    """The words of the clause before ``start`` (from the last clause break or "and I …")."""
    head = re.sub(r"(?<=\d)[.,](?=\d)", "0", text[:start])  # "14,200", "5.5": no clause break
    cut = max(head.rfind(c) for c in ".;:!?,")
    joined = [m.start() for m in _NEW_CLAUSE.finditer(head, cut + 1)]
    return text[max([cut + 1, *joined]) : start]


_STATE = {"be", "have", "at", "reach", "total", "stand", "sit", "get"}
"""Verbs that state a total ("My thesis is at 14,200 words", "My deck has 180 cards")."""


def stated_by(text: str, n: Number) -> str | None:
    """The lemma of the verb before the number ``n`` of ``text`` ("I've played 300 games": "play").

    A state ("is at", "has") reads as ``"be"``; None when no verb stands right before it.
    """
    import simplemma  # noqa: PLC0415

    words = [w.lower() for w in re.findall(r"[A-Za-z']+", clause_before(text, n.start))][-3:]
    for word in reversed(words):
        if word in ("a", "an", "the", "of", "my", "our", "about", "around", "only", "already", "just", "now"):
            continue
        lemma = simplemma.lemmatize(word.split("'")[-1] or word, lang="en")
        return "be" if lemma in _STATE or word.endswith(("'s", "'m", "'re")) else lemma
    return None


def work_done(text: str, n: Number) -> tuple[str, str | None] | None:
    """``(verb, unit)`` when the amount at ``n`` is work done told with a verb in the past, or None.

    The verb opens the amount's clause (``clause_before``: "Wrote 1,350 words", "Tom ran 20, I did 11"),
    with only a connective, the learner and adverbs before it ("I only managed 6", "while I did 2") and
    adverbs after ("I managed just 30"): ``done_verb``. It names what it counts ("... words"), or it
    stands beside another's count in an earlier clause and counts what that one does ("My colleague
    did 15 km, I only managed 6": km). The learner's count beside another's is the learner's work.
    """
    verb = done_verb(text, n)
    if verb is None and not joint_work(text, n.start):
        measured = measured_work(text, n)
        if measured is not None:
            return measured
        unit = unit_of(text, n)
        return ("do", unit) if unit is not None and day_amount(text, n, unit) else None
    if verb is None or joint_work(text, n.start):
        return None
    unit = unit_after(text, n.end)
    if unit is not None:
        return verb, unit
    clause = n.start - len(clause_before(text, n.start))
    earlier = [m for m in numbers(text) if m.end <= clause]
    mine = re.search(r"\b(?:I|we)\b|^\W*[a-z]+\s+through\b", text[clause : n.start], re.I)
    if mine and not earlier and verb in PRO_VERBS:
        return verb, None  # "I did 9 myself tonight": more of whatever the learner's count counts
    later = [m for m in numbers(text) if m.start >= n.end]
    joined = bool(later) and re.search(r"\band\b", text[n.end : later[0].start]) is not None
    if not earlier and not joined and _bare_object(text, n):
        return "do", None  # "finished a dozen today": no subject, so the learner's work
    return (verb, unit_after(text, earlier[-1].end)) if earlier and mine else None


def measured_work(text: str, n: Number) -> tuple[str, str] | None:
    """``("do", unit)`` when the amount measures work done ("I did a 2h session", "a 90-minute run").

    The parse: the amount is the number of a measure word ("2 hour", "90-minute", "2h", "10 km") that
    modifies a noun, and that noun is what a verb in the past did (its object, or the object of its
    preposition: "went for a 10 km run"), the learner's or with no subject. The measure word is the unit.
    """
    doc = parse(text)
    token = token_at(doc, n.start)
    if token is None or token.pos_ != "NUM":
        return None
    glued = text[n.end : token.idx + len(token.text)]  # "2h": the unit written on the number
    measure = token if glued.isalpha() else token.head if token.dep_ == "nummod" else None
    if measure is None or measure.dep_ not in ("compound", "amod", "nmod") or measure.i == measure.head.i:
        return None
    noun = measure.head
    up = noun.head.head if noun.dep_ == "pobj" else noun.head
    # "Did a 90-minute session": the small parser may read the object of a verb first as its subject
    inverted = noun.dep_ == "nsubj" and noun.i > up.i
    if noun.dep_ not in ("dobj", "pobj") and not inverted:
        return None
    if up.tag_ not in ("VBD", "VBN") or up.lemma_.lower() in _LOSS:
        return None
    subjects = [c for c in up.children if c.dep_ in ("nsubj", "nsubjpass") and c.i != noun.i]
    if any(not is_learner(c) for c in subjects):
        return None  # "my coworker did a 3-hour workshop": another's work
    return "do", glued or measure.text


def _bare_object(text: str, n: Number) -> bool:
    """True when the amount at ``n`` is the object of a verb with no subject and counts nothing it names.

    "Finished a dozen today", "knocked out 7 before lunch": the learner drops the subject and the counted
    word, as one does of a count the conversation is about; the number is the verb's object (the parse).
    """
    doc = parse(text)
    token = token_at(doc, n.start)
    if token is not None and token.dep_ in ("det", "nummod", "quantmod") and token.head.lower_ == "dozen":
        token = token.head  # "two dozen", "a dozen": the amount's head word
    if token is None or (token.pos_, token.lower_ == "dozen") not in (("NUM", False), ("NOUN", True)):
        return False
    if any(c.dep_ == "prep" and c.lower_ == "of" for c in token.children):
        return False  # "finished 12 of the 40 sections": it names what it counts
    if token.dep_ == "nummod" and _a_time(token.head):
        token = token.head  # "finished 12 today": the parse hangs the amount on the time word after it
    elif token.dep_ not in ("dobj", "npadvmod", "nummod"):
        return False  # the parse reads a bare amount as the verb's object, measure or number
    verb = token.head
    helped = any(c.dep_ in ("aux", "auxpass") for c in verb.children)
    past = verb.tag_ == "VBD" or (verb.tag_ == "VBN" and not helped)
    if verb.pos_ != "VERB" or not past or verb.dep_ != "ROOT" or verb.lemma_.lower() in _STATE:
        return False  # "and got 78" shares a subject, "rated 1432" modifies a noun, "got 97" is a score
    others = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass", "expl", "dobj") and c.i != token.i]
    return not others  # "Retook the mock on Saturday: 71" has an object of its own


_PERIOD_OR_MONTH = re.compile(
    r"\b(?:days?|weeks?|fortnights?|months?|terms?|semesters?|quarters?|years?|so\s+far)\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b",
    re.I,
)
"""A time word of a whole period ("this month", "in March"): an amount of it is the period's total."""


def day_amount(text: str, n: Number, unit: str) -> bool:
    """True when the amount at ``n`` is a day's work told with no verb ("today 9 km along the canal").

    A diary line: a day named before the amount ("sunday long run: 14 km", ``dateparser``), no verb up to the
    end of the amount's clause (the parse), and a counted unit that is neither money nor a span of days; a
    whole period named ("this week 30 km") makes it that period's total instead.
    """
    import dateparser  # noqa: PLC0415 - about two seconds to import: only for a verbless amount

    if is_money(unit) or re.match(r"(?:days?|weeks?|fortnights?|months?|years?)\b", unit, re.I):
        return False
    doc = parse(text)
    if not any(t.pos_ in ("NOUN", "PROPN") for t in doc if n.end <= t.idx < n.end + len(unit)):
        return False  # "7.5 overall": a grade, not a counted thing
    end = next((t.idx for t in doc if t.idx >= n.end and t.text in {",", ".", ";", "!", "?"}), len(text))
    # a gerund under a noun or preposition is no verb of the clause ("2 hours of strumming")
    verbs = [t for t in doc if t.idx < end and t.pos_ in ("VERB", "AUX") and not _in_a_noun_phrase(t)]
    if verbs or _PERIOD_OR_MONTH.search(text[:end]):
        return False
    # a day of the past or today: "tomorrow 10 km" is a plan
    settings = {"PREFER_DATES_FROM": "past", "RELATIVE_BASE": _ANY_DAY}
    amount = range(n.start, n.end)
    words = [t.text for t in doc if t.idx < end and t.is_alpha and t.pos_ != "NUM" and t.idx not in amount]
    if any(t.head.lower_ in ("for", "until", "till", "by") for t in doc if t.idx < end and t.is_alpha):
        return False  # "For today: 20 flashcards" is a plan, "by friday 30 km" a target
    phrases = words + [" ".join(pair) for pair in zip(words, words[1:], strict=False)]  # "this morning"
    days = [dateparser.parse(p, languages=["en"], settings=settings) for p in phrases]
    return any(d is not None for d in days) and all(d is None or d.date() <= _ANY_DAY.date() for d in days)


def _in_a_noun_phrase(token: Token) -> bool:
    """True when ``token`` is a gerund under a noun or a preposition ("2 hours of chords and strumming")."""
    return token.tag_ == "VBG" and token.dep_ != "ROOT" and token.head.pos_ in ("NOUN", "PROPN", "ADP")


_ANY_DAY = datetime(2000, 1, 5, 12)
"""Whether a word names a day of the past does not depend on when it is read."""


PRO_VERBS = frozenset({"do", "manage"})
"""Verbs that stand for any work ("I did 6", "I managed 3"): they add to a total told with a verb of work."""


def done_verb(text: str, n: Number) -> str | None:
    """The lemma of a verb in the past opening the amount's clause ("Wrote 1,350 words": "write"), or None.

    The past by ``simplemma`` (a word whose lemma differs and is no plural or third person of it: "wrote"
    -> "write", "did" -> "do"; not "words", "reads": "read" stays unread, as a tag of the past read "I read
    2 chapters of another textbook" as work on the learner's); before it, only "I", "we" and adverbs (the
    parse). A loss is no work done ("forgot 10").
    """
    import simplemma  # noqa: PLC0415 - loaded only when an amount has no direction word

    start = n.start - len(clause_before(text, n.start))
    skip = {"PUNCT", "SYM", "CCONJ", "SCONJ"}  # "… while I managed 2", "$", ","
    tokens = [t for t in parse(text) if start <= t.idx < n.start and t.pos_ not in skip]
    while len(tokens) > 1 and (tokens[-1].pos_ == "ADV" or tokens[-1].dep_ == "prt"):
        tokens.pop()  # "I managed just 30", "knocked out 7": an adverb or a verb's particle
    tokens = [t for t in tokens if not _a_time(t)]  # "Yesterday I cycled 30 km", "Last week I swam 2 km"
    through = len(tokens) > 1 and tokens[-1].lower_ == "through"
    tokens = tokens[:-1] if through else tokens  # "got through 14", "worked through 12": work of any kind
    if not tokens or len(tokens) > 3:
        return None
    if any(t.pos_ != "ADV" and t.lower_ not in ("i", "we") for t in tokens[:-1]):
        return None
    word = tokens[-1].lower_
    lemma = simplemma.lemmatize(word, lang="en").lower()  # "wednesday" -> "Wednesday" is no past
    past = lemma != word and word not in (lemma + "s", lemma + "es") and not word.endswith("ing")
    # "read 40 pages this week", opening the clause with no subject: the parse's past ("I read" stays unread)
    past = past or (lemma == word and tokens[-1].tag_ == "VBD" and len(tokens) == 1)
    if past and lemma in _CAUSATIVE:
        lemma = work_got_done(text, n) or lemma  # "I got 4 done", "had 3 solved": the participle is the work
    return None if not past or lemma in _LOSS else "do" if through else lemma


_CAUSATIVE = frozenset({"get", "have"})
"""Verbs that tell work by its result ("got 4 done", "had 12 marked"): the participle after the amount."""


def work_got_done(text: str, n: Number) -> str | None:
    """The lemma of the participle an amount is the subject or object of ("got 4 done": "do"), or None."""
    token = token_at(parse(text), n.start)
    if token is not None and token.dep_ == "nummod":
        token = token.head  # "got 20 cards reviewed": the counted noun is what was done
    if token is None:
        return None
    after = [token.head] if token.head.i > token.i else []
    after += [c for c in token.children if c.dep_ == "acl"]
    if token.head.lemma_.lower() in _CAUSATIVE:  # "I have 14 hours logged": the parse hangs it on "have"
        after += [c for c in token.head.children if c.dep_ in ("ccomp", "xcomp", "oprd") and c.i > token.i]
    done = next((t for t in after if t.tag_ in ("VBN", "VBD")), None)
    return None if done is None else done.lemma_.lower()


def joint_work(text: str, start: int) -> bool:
    """True when the number's clause tells work done with someone ("my partner and I did 10 hours together").

    The verb's subject joins the learner with another (a conjunct, the parse) or the learner does it together:
    the amount is the group's, not the learner's (their share, when told, is ``portions.own_share``).
    """
    verb = verb_of(text, start)
    if verb is None:
        return False
    subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
    group = {t.lower_ for s in subjects if s.conjuncts for t in (s, *s.conjuncts)}
    together = any(c.lower_ == "together" for c in verb.children)
    # "Mum and dad agreed on 25% more": a pair without the learner is no joint work of the learner's
    return bool(group & {"i", "me"}) or (together and any(s.lower_ in ("i", "we", "me") for s in subjects))


def _a_time(token: Token) -> bool:
    """True when ``token`` is (a word of) a time before the verb: "Yesterday I cycled", "Last week I swam"."""
    return any(
        (t.dep_, t.pos_) == ("npadvmod", "NOUN") and t.head.pos_ == "VERB" for t in (token, token.head)
    )


_LOSS = {"forget", "miss", "skip", "fail", "lose", "drop", "abandon", "waste"}
"""Verbs of work not done or undone: their amount adds to nothing."""


def verb_of(text: str, start: int) -> Token | None:
    """The verb of the clause of the number at ``text[start:]`` (the parse), or None."""
    verb = token_at(parse(text), start)
    while verb is not None and verb.pos_ not in {"VERB", "AUX"} and verb.head.i != verb.i:
        verb = verb.head
    return verb if verb is not None and verb.pos_ in {"VERB", "AUX"} else None
