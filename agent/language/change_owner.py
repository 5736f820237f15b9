"""Whose and which thing a change names: another owner's, another thing, or none (issue 39, L6).

A change told as an ellipsis ("Did eleven more over the weekend", "Lost 20 last night") is far by
meaning from the total it changes, so the fact store (``agent.memory.fact_changes.changed_fact``)
takes a loose fit only when the change names no other thing: the noun phrases before its first
number name whose value changes ("My dog gained 2 kilos", "The football final was pushed back"),
unless the change names its thing by a pronoun ("took $380 of it", "three new ones") or the phrase
acts on the learner ("The TA gave me another four days"); a total told of another person ("… for her
car") changes only when the change names that person again. Whoever acts, the owner of the thing the
verb changes, its object or the object of "to", "from", "off", "out of", decides ("she added 20 minutes
to my daily limit" is the learner's; "he cut 10 minutes off his limit" is his), and a person of the
learner's with a value of their own ("My wife is on page 210") is another owner: whose a number is
reads ``number_owners``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent.language.grammar import is_learner, parse, token_at
from agent.language.number_owners import (
    SAYS,
    THIRD,
    anothers_values,
    first_number_verb,
    group_size,
    groups_count,
    learners_step,
    number_owner,
)
from agent.language.numerals import numbers, without_current
from agent.language.people import anothers, is_group
from agent.language.portions import own_share
from agent.language.quantities import AS_MANY_AGAIN

if TYPE_CHECKING:
    from spacy.tokens import Token

_NAMED = re.compile(r"\b(?:the|my|our|his|her|their|its|your|\w+'s)\s+", re.I)
_NOT_NAMING = re.compile(
    r"^(?:the|my|our|his|her|their|its|your|a|an|of|to|in|on|at|for|by|with|back|up|down|was|is|are|were|got"
    r"|gets|has|have|had|and|but|so|this|that|all|some|from|into|out)$",
    re.I,
)


def _word_key(word: str) -> str:
    return word.lower().removesuffix("'s").removesuffix("s")


def names_another_thing(new: str, old: str, *, counted: bool = False) -> bool:
    """True when the change names what changes and that is not what ``old`` is about.

    ``counted``: the change names the unit ``old`` counts ("Wrapped up the travel module, +35 words"): then a
    phrase the work was done on or at (``_where_from``: "the travel module", "At the beach") is where the
    amount came from, not the thing it counts.

    The noun phrases before the change's first number ("The gym raised its fee by 10", "My dog
    gained 2 kilos", "The football final was pushed back") name whose value changes; one of
    them must share a word with ``old`` ("HR cut everyone's training budget", "the oral
    sessions" of "My oral exam"), and not only its last word after another modifier
    ("football final" is not "statistics final"). A change naming nothing ("Did eleven more
    over the weekend") names no other thing.
    """
    if names_another_owner(new, old):
        return True
    phrases, words = _thing_phrases(new, counted=counted), _words(old)
    if phrases and _chunk_names(_head_of_change(new), words):
        return False  # "training budgets across the company were cut": the budget is named, not the company
    # a group that acts names the thing too when it is the old one's ("The club is raising the fee 25%")
    named = [*phrases, *_thing_phrases(new, actors=True)]
    return bool(phrases) and not any(_names(p, words) for p in named)


def _chunk_names(head: str, words: set[str]) -> bool:
    """True when a noun phrase of ``head`` (the parse's, with no article) names a thing of ``words``.

    Not the subject of a verb with an object: that one acts on the thing ("Haddad gave …").
    """
    for chunk in parse(head).noun_chunks:
        verb = chunk.root.head
        if chunk.root.dep_ == "nsubj" and any(c.dep_ in {"dobj", "dative"} for c in verb.children):
            continue  # "Haddad gave the other section an extra week": who acts is not the thing changed
        phrase = [_word_key(t.text) for t in chunk if t.pos_ in {"NOUN", "PROPN", "ADJ"}]
        if phrase and _names(phrase, words):
            return True
    return False


_OWNED = re.compile(
    r"(?:^|[,;:.!?]\s*)(?:(?:my|our|his|her|their)\s+([\w-]+)|(?:(?:the|a|an|this|that)\s+(?:[\w-]+\s+){0,2})?"
    r"([A-Za-z][\w-]*)'s)\b",
    re.I,
)
_THEIRS = re.compile(r"(?:his|her|their)\s", re.I)
_NO_OWNER = {"let", "it", "that", "there", "here", "what", "everyone", "everybody", "today", "week", "year"}
_NO_OWNER |= {"she", "he", "who", "where", "how"}  # "she's the best": a pronoun's "is", no owner


def _change_number(new: str, *, dates: bool = False) -> int | None:
    """Where the change's number is: the first, or the learner's told after another's count.

    "My colleague did 15 km yesterday, I only managed 6": the 15 is another's, the 6 the learner's
    change (``number_owner``); with no number of the learner's after it, the first is the change's.
    """
    found = numbers(new, dates=dates)
    if not found:
        return None
    if number_owner(new, found[0].start) != "learner":
        mine = [n for n in found[1:] if number_owner(new, n.start) == "learner"]
        if mine and any(number_owner(new, n.start) == "another" for n in found[:1]):
            return mine[0].start
    return found[0].start


def _head_span(new: str) -> tuple[int, int]:
    """Where the words of the change's own clause before its number are (all the text when none)."""
    at = _change_number(new, dates=True)
    return (_clause_start(new, at), at) if at is not None else (0, len(new))


def _head_of_change(new: str) -> str:
    """The words of the change's own clause before its first number (all the text when it has none)."""
    start, end = _head_span(new)
    return new[start:end]


_CLAUSAL = frozenset({"advcl", "ccomp", "conj", "parataxis", "csubj", "relcl", "acl"})


def _clause_start(text: str, at: int) -> int:
    """Where the clause holding ``text[at:]`` starts (the parse): a cause before it is another clause.

    "And now their CFO can't make it, so it slides again by one more day": the change is the clause of
    "slides", its thing "it"; the clause of "make" is why. A verb of saying before the number opens the
    reported words ("My mentor says 15% more …").
    """
    doc = parse(text)
    verb = token_at(doc, at)
    while verb is not None and verb.pos_ not in {"VERB", "AUX"} and verb.head.i != verb.i:
        verb = verb.head
    if verb is None or verb.pos_ not in {"VERB", "AUX"}:
        return 0
    if verb.lemma_.lower() in SAYS and verb.idx < at:
        return verb.idx + len(verb.text)
    parts = [verb, *(t for c in verb.children if c.dep_ not in _CLAUSAL for t in c.subtree)]
    return min(t.idx for t in parts)


def _words(text: str) -> set[str]:
    return {_word_key(w) for w in re.findall(r"[\w']+", without_current(text))}


_REFERS_BACK = re.compile(
    r"\b(?:of|from|out\s+of|off|on|to|into|in|with)\s+(?:it|them|that)\b|\b(?:new|more|extra)\s+ones\b"
    r"|\bof\s+(?:what(?:'s|\s+(?:is|was))\s+left|what\s+remains?|the\s+remaining)\b"
    rf"|{AS_MANY_AGAIN}",
    re.I,
)
"""The change names its thing by a pronoun ("took $380 of it", "three new ones", "half of what's left"): what
it is about is the conversation's, and the phrases before are a cause or an actor ("The flight to Lisbon");
"paid with it", "half as many again" (the count told before) too."""
_ACTOR = re.compile(r"^[\w'-]*(?:\s+[\w'-]+){0,3}?\s+(?:\w+\s+){0,2}?(?:me|us)\b", re.I)
"""After a phrase: a verb and the learner ("The TA gave me another four days"): the phrase acts."""


def _thing_phrases(new: str, *, actors: bool = False, counted: bool = False) -> list[list[str]]:
    """The phrases of the change's head that name what changes, not who or what changed it.

    None when the change names its thing by a pronoun ("took $380 of it", "The board halved it
    after the audit": the other phrases are why or when). A group acting on a value ("The council
    added another 400", "HR cut the grant by 10%") is who changed it: the learner's value, given,
    cut or held by an organisation, is not the group's own thing (``acting_group``); ``actors``: the
    phrases of that group alone; ``counted``: without the phrases the work was done on or at
    (``_where_from``).
    """
    start, end = _head_span(new)
    head = new[start:end]
    if _REFERS_BACK.search(new) or _pronoun_object(new):
        return []
    group = acting_group(new)
    actor = range(0) if group is None else range(group.left_edge.idx, group.right_edge.idx + 1)
    return [
        p
        for at, p in _phrases(head)
        if not _ACTOR.match(head[at:].split(None, 1)[-1])
        and (start + at in actor) == actors
        and not (counted and _where_from(new, start + at))
    ]


_HOLDS = frozenset({"to", "into", "from", "of", "off", "in", "for"})
"""Prepositions whose object holds the amount ("to my fund", "out of it"), not where or when."""


def _where_from(new: str, at: int) -> bool:
    """True when the phrase at ``at`` is what the work was done on, or where or when (the parse).

    The object of a verb ("Wrapped up the travel module, +35 words": the module is where the words
    came from) or of a preposition of place or time ("At the beach I read 15 more"); not a subject, a
    possessor, nor the object of "to", "into", "from", "of" ("20 new words to the Czech deck": the
    deck holds them).
    """
    doc = parse(new)
    word = next((t for t in doc if t.idx >= at and t.dep_ in {"det", "poss"}), None)
    noun = None if word is None else word.head
    while noun is not None and noun.dep_ in {"compound", "poss"} and noun.head.i != noun.i:
        noun = noun.head  # "At my parents' place", "the animals unit": the phrase's head noun
    if noun is None:
        return False
    if noun.dep_ == "dobj":
        return not _measured(noun.head)  # "raised its fee by 10 dollars": the fee is what changed
    return noun.dep_ == "pobj" and noun.head.lower_ not in _HOLDS


def _measured(verb: Token) -> bool:
    """True when ``verb`` is measured by an amount ("raised its fee by 10 dollars", "cut it 10 dollars").

    Not an amount set apart by a comma or colon ("Finished the second act: another 1,800 words"): what
    the work yielded, told beside it.
    """
    by = (p for c in verb.children if c.dep_ == "prep" and c.lower_ == "by" for p in c.children)
    firsts = (next(t for t in c.subtree if not t.is_punct) for c in verb.children if c.dep_ == "npadvmod")
    return any(not verb.doc[t.i - 1].is_punct for t in firsts if t.i > 0) or any(p.dep_ == "pobj" for p in by)


def _pronoun_object(new: str) -> bool:
    """True when a verb before the change's first number acts on "it" or "them" ("cut it by a third")."""
    end = _head_span(new)[1]
    return any(
        t.lower_ in {"it", "them"} and t.dep_ == "dobj" and t.idx < end and t.head.pos_ == "VERB"
        for t in parse(new)
    )


def _change_subject(new: str) -> Token | None:
    """The subject of the verb of the change's first number (with none, of its main verb)."""
    verb, _ = first_number_verb(new)
    if verb is None or verb.pos_ not in {"VERB", "AUX"}:
        verb = next((t for t in parse(new) if t.dep_ == "ROOT" and t.pos_ in {"VERB", "AUX"}), None)
    if verb is None:
        return None
    return next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)


def acting_group(new: str) -> Token | None:
    """The group that acts in the change ("The council added another 400"), when it is no other's.

    The active subject of the change's verb whose head noun names a group (``people.is_group``):
    an organisation the learner is in or deals with gives, cuts or holds the learner's value. None
    for a group told as another's ("the other club", "Ana's group": ``people.anothers``).
    """
    subject = _change_subject(new)
    if subject is None or subject.dep_ != "nsubj" or is_learner(subject) or not is_group(subject):
        return None
    if not _acts_on(subject.head):
        return None  # "The gym membership went up 5%": what changes, not who changes it
    return None if anothers(subject) else subject


def _acts_on(verb: Token) -> bool:
    """True when ``verb`` acts on something: an object, a recipient, or an amount it gives ("chipped in 450").

    Not a difference by "by" ("went up by 10"): the subject of such a verb is the thing that changed.
    """
    if any(c.dep_ in {"dobj", "dative"} for c in verb.children):
        return True
    preps = (c for c in verb.children if c.dep_ == "prep" and c.lower_ != "by")
    amounts = (p for c in preps for p in c.children if p.dep_ == "pobj")
    return any(t.pos_ == "NUM" for p in amounts for t in (p, *p.children))  # "in another 450", "in 250 euros"


def _anothers_group(new: str, old: str) -> bool:
    """True when the change's subject is a group not the learner's.

    "The other club", "another ward" (``people.anothers``); "The vision group got 5,000 more
    hours" beside "My research group has …" (``current_versions.other_group``).
    """
    from agent.language.current_versions import other_group  # noqa: PLC0415 - the parse loads only when asked

    subject = _change_subject(new)
    if subject is None or is_learner(subject) or not is_group(subject):
        return False
    return bool(anothers(subject)) or other_group(new, [old])


def _phrases(head: str) -> list[tuple[int, list[str]]]:
    """The noun phrases after a determiner or a possessive in ``head``: (where, up to three words)."""
    phrases = []
    for match in _NAMED.finditer(head):
        phrase = []
        for word in re.findall(r"[\w'-]+", head[match.end() :])[:3]:
            if _NOT_NAMING.match(word):
                break
            phrase.append(_word_key(word))
        if phrase:
            phrases.append((match.start(), phrase))
    return phrases


def names_a_thing(new: str) -> bool:
    """True when the change names what changes ("the report got …"), not an ellipsis ("Did eleven more")."""
    return bool(_thing_phrases(new))


def names_another_owner(new: str, old: str) -> bool:
    """True when the change's clause opens on another owner's thing, one ``old`` does not name.

    "My dog gained 2 kilos", "Mei's sister learned 40 new kanji", "My instructor has put in 3000
    hours"; not when a later phrase names ``old``'s thing ("My supervisor doubled the GPU credit":
    the actor) or the learner acts ("My teacher told me to add 8 more bpm").
    """
    if _anothers_group(new, old) or _received_elsewhere(new, old):
        return True  # "The other club got 500 more", "The vision group got 5,000 more hours"
    head, words = _head_of_change(new).strip(), _words(old)
    owners = [m for m in _OWNED.finditer(head) if _word_key(m.group(1) or m.group(2)) not in _NO_OWNER]
    at = _change_number(new)
    owner = number_owner(new, at) if at is not None else ""
    if anothers_values(old):
        # "My flatmate has saved €5,000 for her car": another's value, changed only when named again
        # ("My flatmate's fund", or as the change's subject: "Karan has done another 20"); a group's
        # thing the learner acts on is named by its thing ("We grew the travel fund 12%" of "The choir's
        # travel fund is at 5,000 pounds")
        named = [_word_key(m.group(1) or m.group(2)) for m in owners] + _subject_words(new)
        acts = owner == "learner" and any(_names(p, words) for p in _thing_phrases(new))
        return not acts and not any(w in words for w in named)
    if owner == "another":
        return True  # "My teacher learned 50 in her first week", "Her stipend went up by 50 too"
    if owner == "learner":
        return False  # "My mum added 20 euros to my book budget": the learner's thing, whoever acts
    other = [m for m in owners if _word_key(m.group(1) or m.group(2)) not in words]
    if not other or re.search(r"\b(?:me|I)\b", head[other[0].end() :]):
        return False  # "My teacher told me to add 8 more bpm": the learner's own value
    # "My supervisor doubled the GPU credit": a later phrase names the learner's thing; "My brother
    # lowered his limit": his, her or their thing is the other owner's
    after = [p for at, p in _phrases(head) if at > other[0].end() and not _THEIRS.match(head[at:])]
    return not any(_names(p, words) for p in after)


_RECEIVES = frozenset({"get", "receive", "earn", "win"})
"""Lemmas of verbs whose subject is who gets the amount ("the lab next door got a 5000 euro top-up")."""


def _received_elsewhere(new: str, old: str) -> bool:
    """True when a party not the learner's, nor named by ``old``, receives the change's amount (the parse).

    "The chess club down the hall just got a $2,000 grant": the subject of a verb of receiving is who the
    money is for; "the robotics budget got another $100" names the old fact's thing, "my fund got 50 more"
    is the learner's, "Got 40 dollars from my dad" has no other subject.
    """
    subject, at = _change_subject(new), _change_number(new)
    if subject is None or subject.dep_ != "nsubj" or subject.head.lemma_.lower() not in _RECEIVES:
        return False
    if any(t.dep_ == "acomp" for t in subject.head.children):
        return False  # "the plot is getting good": a state the subject comes into, nothing received
    number = next((t for t in subject.doc if t.idx == at), None)
    if number is None or subject.head not in number.ancestors:
        return False
    path = [number, *(a for a in number.ancestors if subject.head in a.ancestors)]
    if any(t.dep_ == "pobj" for t in path):
        return False  # "Mum got through 100": work got through, not an amount received
    if is_learner(subject) or any(is_learner(t) for t in subject.subtree if t.dep_ == "poss"):
        return False
    if subject.pos_ == "PRON":
        return False  # "it got another 200": the conversation's thing
    # the subject and what the parse hangs between it and its verb ("the lab next door", "down the hall")
    span = subject.doc[subject.left_edge.i : subject.head.i]
    # "upstairs" of "the office upstairs" is the subject's; "just" of "just got" is the verb's
    kept = [t for t in span if t.pos_ in {"NOUN", "PROPN", "ADJ"} or (t.pos_ == "ADV" and t.head == subject)]
    words = [(t.i, _word_key(t.text)) for t in kept]
    head = [w for i, w in words if i <= subject.i]
    after = [w for i, w in words if i > subject.i]  # "the lab next door": another lab than the learner's
    known = _words(old)
    return not _names(head, known) or bool(after and not any(w in known for w in after))


def _names(phrase: list[str], words: set[str]) -> bool:
    """True when ``phrase`` names a thing of ``words``: a shared word, not only a head after a modifier."""
    shared = [i for i, w in enumerate(phrase) if w in words]
    return bool(shared) and (shared[0] < len(phrase) - 1 or len(phrase) == 1 or phrase[0] in words)


def _subject_words(text: str) -> list[str]:
    """The words of the subject of the clause of ``text``'s first number ("Karan has done another 20")."""
    verb, _ = first_number_verb(text)
    subject = None if verb is None else next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subject is None or is_learner(subject) or subject.lower_ in THIRD:
        return []
    return [_word_key(t.text) for t in subject.subtree if t.pos_ in {"NOUN", "PROPN"}]


def crosses_a_group(new: str, old: str) -> bool:
    """True when one of the change and the total is a group's count and the other the learner's own.

    "and I did 9 more myself" is no change of "Our choir has sung 400 hours between the 30 of us", nor
    "We sang another 20 as a choir" of "I've sung 35 hours"; a change naming the group ("The choir added
    another 50") changes its count (``number_owners.groups_count``).
    """
    if group_size(old) and learners_step(new):
        return True  # "I added 12 more myself" is no change of "we are 5 people in the chat"
    # "the circle read 300 together, 40 of those were mine (now 95)": the learner's share made it theirs
    group_old = groups_count(old) and own_share(without_current(old)) is None
    if groups_count(new):
        return not group_old
    head = _words(_head_of_change(new))  # the group named before the change's number ("The crew planted …")
    return group_old and not any(w in _words(old) and w in head for w in _subject_words(new))
