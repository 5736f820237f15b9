"""Whose value a statement gives: the learner's or another's (the parse, ``agent.language.grammar``).

One reader for the write side (``agent.language.facts``, ``fact_parts``) and the read side
(``agent.language.current_versions``, the net): the subject of the statement's first clause and the
possessor of the thing it changes. "My sister's test is 30 June", "My colleague Rui finished all 40",
"Ana's score went up", "she got a 7", "the other team has until Friday", "I think Rui finished", "My
brother finished the whole trilogy" (a peer's own deed: ``agent.language.acted_on``), "Wren says their
rent is 700, mine's higher" (a named speaker's "their"; "mine" only compares) are another's; "My
teacher says my score is now 7", "The teacher put me in the B2 class", "Prof. Hallberg has taken over
my supervision", "My stipend is 500", "Our team budget is €4,000" are the learner's. People are told
by the parse, spaCy's NER (a name) and a MiniLM classifier of nouns of persons
(``current_values.is_person``: "sister", "study buddy"), not by a list (``people.anothers`` reads whose
a subject is); a message that mixes the two is cut into its clauses (``clause_owners``), so only the
learner's is stored. It names closed classes only: "other", pronouns, dependency labels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.language.acted_on import about_learner, plays_a_role, standing
from agent.language.current_values import main_clause
from agent.language.grammar import is_learner, owner_of, parse, subject_of
from agent.language.own_values import has_a_value
from agent.language.parse_slips import an_amount, relative_clause
from agent.language.people import (
    NAMES,
    anothers,
    by_name,
    entity_label,
    followed_by_third_person,
    is_name,
    named,
    peer,
    person,
    person_name,
    possessed,
    role_of,
)

if TYPE_CHECKING:
    from spacy.tokens import Token

LEARNER = "learner"
OTHER = frozenset({"other", "another"})
"""Determiners and adjectives (a closed class) that say a person or group is not the learner's."""
_TOP = frozenset({"ROOT", "conj", "parataxis"})
"""Dependencies of a clause of its own (and an ``advcl`` without a conjunction: ``_top``)."""
_CLAUSES = frozenset({"ccomp", "xcomp", "advcl"})
SHARED_BY = frozenset({"conj", "xcomp", "pcomp"})
"""Dependencies of a verb that shares its subject with the one it hangs on ("got in and started")."""
_SPOKEN = frozenset({"ccomp", "csubj"})
_NAMING = frozenset({"compound", "nmod"})
"""Dependencies of a word that names the thing its head is ("<brand> Pro")."""
_LEAD_IN = frozenset({":", "-", "–", "—"})
"""Punctuation that ends a lead-in before what it reports ("<body> emailed: …")."""


def _speech(head: Token) -> Token | None:
    """The reported clause of ``head`` with a subject of its own ("says my score is 7", "I think Rui …")."""
    return next(
        (
            c
            for c in head.children
            if c.dep_ == "ccomp"
            and (head.lemma_ != "be" or c.i < head.i)  # "my supervisor is X, she's …": no speech (a slip)
            and subject_of(c, shared_by=frozenset()) is not None
            and not relative_clause(head, c)
        ),
        None,
    )


def _clause_owner(head: Token, depth: int = 0, *, heard: bool = False) -> str:
    """Whose value the clause of ``head`` gives: "learner" or another's words (``whose``).

    ``heard``: the clause's speech frame is read already (``_frame``), so it is read alone.
    """
    speech = None if heard else _speech(head)
    if speech is not None and depth < 3:
        # what someone says of whom: "My teacher says my score is now 7" is the learner's,
        # "I think Rui finished all 40" and "Rui told me he's done" are Rui's
        frame, said = (speech, head) if _frame(head, speech) else (head, speech)
        reported = _clause_owner(said, depth + 1, heard=said is head)
        if reported == LEARNER:
            reported = _speakers_own(frame, said) or reported
        if said is head or reported != LEARNER or _gives_a_value(said) or _of_the_learner(said):
            return reported  # a lead-in frame only says who told it: what it reports is read alone
        # an opinion with no value of the learner's is the speaker's ("My cousin says dashboards are easy")
    subject = _after_a_heading(head, subject_of(head, shared_by=SHARED_BY))
    if subject is None:  # the parser's slip: a name as a compound of the verb ("My flatmate Tunde works …")
        subject = next((c for c in head.children if c.dep_ == "compound" and c.i < head.i), None)
    if subject is None or subject.dep_ == "expl" or is_learner(subject) or an_amount(subject):
        return LEARNER
    subject = possessed(subject) or subject  # "my friend Pim's supervisor is …": Pim's supervisor
    other = anothers(subject)
    # a person told of as he or she acts on their own things ("…at Heidelberg and he hates it"),
    # unless the clause names the learner ("told me to rest")
    # ... nor when the clause tells what the person achieved ("passed the exam with 870")
    known = not followed_by_third_person(subject) and not _own_result(head)
    about = about_learner(head, known=known, deeds=peer(subject))
    if not other or about or _names_the_person(head, subject):
        return LEARNER
    role = role_of(subject) or subject  # "My tutor <name> was replaced by …": the learner's by the role
    if LEARNER in {owner_of(subject), owner_of(role)} and subject.dep_ == "nsubjpass":
        # the learner's person in the passive is the learner's thing ("My supervisor was replaced by
        # Prof. Lindqvist") unless told of as he or she ("My dad was transferred to Hamburg and he …")
        # or a peer named, with no one acting ("my flatmate <name> got hired as …": their own change)
        theirs = by_name(subject) and peer(subject) and not any(c.dep_ == "agent" for c in head.children)
        return other if theirs or followed_by_third_person(subject) else LEARNER
    # "My uncle came back from <city> and brought me a <brand model>": a deed of the person's own, then
    # the thing given to the learner in a verb joined to it (the learner's now)
    given = (c for c in head.children if c.dep_ == "conj" and _given_to_the_learner(c))
    return LEARNER if any(_gives_a_value(c) for c in given) else other


def _frame(head: Token, speech: Token) -> bool:
    """``speech`` is a lead-in the parser hung on what it reports ("<body> emailed: <what they said>").

    A complement clause that ends before its head, cut from it by a colon or a dash: the head's own
    clause is what was said, and ``speech`` only says who said it. "<body> wrote: the hall had a leak,
    so my test got moved to …" tells the learner's value, not the sender's.
    """
    end = speech.right_edge.i  # the colon may be the frame's last word or the next one
    return end < head.i and any(t.text in _LEAD_IN for t in head.doc[end : end + 2])


def _after_a_heading(head: Token, subject: Token | None) -> Token | None:
    """``subject``, or the verb's subject after a colon when ``subject`` heads a verbless lead-in.

    The parser may take a heading's noun ("Email from <body> this morning: the sitting is on …",
    "News from the office: my shift moved …") for the subject of the verb after the colon, beside that
    clause's own subject: the heading says where the news came from, the clause after it whose it is.
    """
    if subject is None or subject.i > head.i:
        return subject
    colons = [t.i for t in head.doc[subject.i : head.i] if t.text == ":"]
    later = [
        c for c in head.children if c.dep_ in ("nsubj", "nsubjpass") and colons and colons[0] < c.i < head.i
    ]
    return later[0] if later else subject


def _speakers_own(head: Token, speech: Token) -> str:
    """The possessor "their" when a person told by name says it of their own thing, else "".

    "My classmate Wren says their tuition was 9,000": a person told by name speaks of their own
    thing ("they" of one person); "The college says their fees went up" may be the learner's.
    """
    subject = subject_of(speech, shared_by=frozenset())
    speaker = subject_of(head, shared_by=SHARED_BY)
    if subject is None or speaker is None or not anothers(speaker):
        return ""
    if not (named(speaker) or (is_name(speaker) and person_name(speaker))):
        return ""
    return next((c.text for c in subject.children if c.dep_ == "poss" and c.lower_ == "their"), "")


def _own_result(verb: Token) -> bool:
    """True when ``verb``'s number measures what its subject did, not a change to a thing.

    "passed the AWS exam with 870", "finished the Python track in 3 weeks", "got a B2 on the DELE":
    a score the subject got ("with", or the object itself), or the time a past deed took ("in"),
    against "moved the exam to 11 May" or "wants the proposal by June", which give a thing its
    value. Read on the prepositions (a closed class) and the object.
    """
    verbs = [verb, *(c for c in verb.children if c.dep_ == "conj" and c.pos_ == "VERB")]  # "took, passed"
    for deed in verbs:
        objects = [t for c in deed.children if c.dep_ == "dobj" for t in (c, *c.children)]
        given = any(c.dep_ in {"dative", "iobj"} for c in deed.children)  # "gave the seminar two more days"
        if not given and any(_a_number(t) for t in objects):
            return True  # the object is the value: "got a B2", "did 50 cards"
        inner = {t.i for c in deed.children if c.dep_ in _TOP | _CLAUSES for t in c.subtree}
        for prep in (t for t in deed.subtree if t.i not in inner and t.dep_ == "prep"):
            # on the verb or on its object ("finished the whole set in 40 minutes")
            told = prep.lower_ == "with" or (prep.lower_ == "in" and deed.tag_ == "VBD")
            if told and any(_a_number(t) for t in prep.subtree):
                return True
    return False


def _a_number(token: Token) -> bool:
    """A number or a code with digits ("870", "B2"), not an ordinal word ("a first draft")."""
    return token.pos_ == "NUM" or any(ch.isdigit() for ch in token.text)


def _of_the_learner(head: Token) -> bool:
    """True when the clause of ``head`` has the learner or a thing of theirs as its subject."""
    subject = subject_of(head, shared_by=SHARED_BY)
    if subject is None or standing(subject):
        return False  # "X says his laptop cost 2000, mine's cheaper": a comparison, no value of the learner's
    return is_learner(subject) or owner_of(subject) == LEARNER


def _names_the_person(head: Token, subject: Token) -> bool:
    """True for "My teacher is Frau Obermaier": the copula gives a person a name (not a date: "30 June")."""
    if head.lemma_ != "be" or not person(subject) or owner_of(subject) not in {"", LEARNER}:
        return False  # "Pim's supervisor is Prof. X" names another's person
    # the parser may hang the name on a later verb ("… is Dr. <name>, answers emails at 2am"): the word after
    told = [*(c for c in head.children if c.dep_ == "attr"), *head.doc[head.i + 1 : head.i + 2]]
    return any(c.pos_ in NAMES and entity_label(c) != "DATE" for c in told)


def _top_clauses(text: str) -> list[Token]:
    """The heads of the clauses ``text`` is made of: the first (``main_clause``), then the others."""
    first = main_clause(text)
    if first is None:
        # the parser's slip: no verb at the root ("… still has R9000 because she's a team lead" hangs
        # "has" on "lead"), or tags the verb a noun ("my brother studies on Tuesdays"): the first
        # verb, or the root, with a subject of its own heads the first clause
        verbs = (t for t in parse(text) if t.pos_ in {"VERB", "AUX"} or t.dep_ == "ROOT")
        first = next((t for t in verbs if any(c.dep_ in {"nsubj", "nsubjpass"} for c in t.children)), None)
    if first is None:
        return []
    rest = [t for t in parse(text) if _top(t) and t.i != first.i]
    return [first, *rest]


def _top(head: Token) -> bool:
    """True when ``head`` heads a clause of its own.

    A root, a conjoined or juxtaposed clause, or one the small parser hangs as an adverbial clause
    though no conjunction leads it ("Did another 9 this week, Rui …").
    """
    if head.pos_ not in {"VERB", "AUX"}:
        return False
    return head.dep_ in _TOP or (head.dep_ == "advcl" and not any(c.dep_ == "mark" for c in head.children))


def _clause_text(head: Token) -> str:
    """The words of ``head``'s clause, without the clauses joined to it."""
    inner = {t.i for c in head.children if c.dep_ in _TOP | {"ccomp"} for t in c.subtree}
    return " ".join(t.text for t in head.subtree if t.i not in inner)


def whose(text: str) -> str:
    """Whose value ``text`` gives: "learner", or the other's words ("my sister", "Rui", "she").

    The subject of its first clause and the possessor of the thing it changes: the learner ("I",
    none: "Did another 9"), a thing or group of the learner's ("My stipend", "our team"), an
    institution or a person acting on the learner's thing ("The teacher put me in B2", "My tutor
    moved our lesson"), or what another says of the learner's ("My teacher says my score is now 7")
    are the learner's. Another person ("she", "my sister's test", "My colleague Rui", "Ana's",
    "the other team") is not, unless a later clause of the learner's gives a value ("My stipend is
    500; my flatmate gets 650" holds the learner's value too). People are read by the parse, NER
    and the ``PEOPLE`` classifier of nouns of persons (``current_values.is_person``), not by a list.
    """
    if not isinstance(text, str) or not text.strip():
        return LEARNER
    heads = _top_clauses(text)
    if not heads:
        return LEARNER
    first = _clause_owner(heads[0])
    if first == LEARNER:
        return LEARNER
    for head in heads[1:]:
        if not _learners_clause(head):
            continue
        if _gives_a_value(head):
            # "I sat the mock on Friday, my sister's is in June", "Grandma chipped in, so the trip
            # budget is 15% more": the learner's value too
            return LEARNER
    # "<old one> left, so <name> is the one signing my forms now": a later clause, even one led by a
    # conjunction, names the learner's person by the role they play for the learner (``plays_a_role``)
    later = (t for t in parse(text) if t.dep_ == "advcl" and t.i > heads[0].i and t.pos_ in {"VERB", "AUX"})
    return LEARNER if any(plays_a_role(head) for head in [*heads[1:], *later]) else first


def _learners_clause(head: Token) -> bool:
    """True when the clause of ``head`` is the learner's or a thing's, not a person's.

    "…, so she keeps sending me Excel tips" is a person's; "…, my budget is 15% more" a thing's.
    """
    if head.pos_ not in {"VERB", "AUX"}:
        return False
    subject = subject_of(head)
    thing = subject is not None and subject.dep_ != "csubj" and not anothers(subject)  # not a clause
    return subject is None or is_learner(subject) or thing or _given_to_the_learner(head)


def _gives_a_value(head: Token) -> bool:
    """True when the clause of ``head``, or one of the learner's or a thing's hung on it, holds a value.

    The small parser reads "thanks to a room clash" / "because of a strike" as a clause and hangs
    what follows under it ("…, thanks to a room clash the resit is on 23 May instead": "is" under
    "clash"), so the value sits one clause down.
    """
    parts = [head, *(c for c in head.children if c.dep_ == "ccomp" and _learners_clause(c))]
    return any(has_a_value(_clause_text(part)) for part in parts)


def _given_to_the_learner(head: Token) -> bool:
    """True when the clause of ``head`` gives the learner a thing of the giver's or a named thing.

    "My uncle upgraded and gave me his laptop", "… handed me her old Kindle", "… brought me a <brand
    model>": what a person gives the learner from their own things, or a thing told by its name, is the
    learner's now, though the giver is the subject ("sent me a photo of the 92" gives no such thing).
    """
    to_me = any(
        is_learner(r) or any(is_learner(g) for g in r.children if g.dep_ == "pobj")
        for r in head.children
        if r.dep_ in {"dative", "iobj"}
    )
    given = [o for o in head.children if o.dep_ == "dobj"]
    theirs = any(c.dep_ == "poss" and not is_learner(c) for o in given for c in o.children)
    # a named thing: the object, or a word naming it ("a <brand> Pro", the tagger's noun), is a name
    name = any(t.pos_ == "PROPN" for o in given for t in (o, *o.children) if t is o or t.dep_ in _NAMING)
    return to_me and (theirs or name)


def remark_of_another(text: str) -> bool:
    """``text`` is another person's words ("my classmate says I'll miss my old keyboard", "Ana thinks …")."""
    heads = _top_clauses(text) if isinstance(text, str) and text.strip() else []
    if not heads or _speech(heads[0]) is None:
        return False
    speaker = subject_of(heads[0], shared_by=frozenset())
    return speaker is not None and bool(anothers(speaker))


def others(text: str) -> bool:
    """True when ``text`` gives another person's value, not the learner's (``whose``)."""
    return whose(text) != LEARNER


def clause_owners(text: str) -> list[tuple[str, str]]:
    """``text`` cut where a clause starts with a subject of its own, each piece with whose value it gives.

    "Did another 9 this week, my colleague Rui finished all 40" -> ``[("Did another 9 this week",
    "learner"), ("my colleague Rui finished all 40", "my colleague Rui")]``, so the write side keeps
    the learner's clause and leaves the other's (``agent.language.fact_parts.now_part``). Each clause is
    read in the whole sentence ("Karthik hit 1600, he's insane": "he" tells Karthik is a person); a
    text of one clause is read whole (``whose``).
    """
    if not isinstance(text, str) or not text.strip():
        return []
    doc = parse(text)
    starts: dict[int, Token] = {}
    for head in doc:
        subject = next((c for c in head.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
        if not _top(head) or subject is None:
            continue
        start = subject.left_edge.i  # the head's own subtree may hold a clause before it ("Finished 5, …")
        # a conjunct's own words before its subject ("…: she's sick, so my viva got pushed to …", "…, so
        # from this month <name> is …"): its connective and adjuncts, nearest first
        for lead in sorted(head.lefts, key=lambda c: -c.i) if head.dep_ == "conj" else ():
            if lead.i < start and lead.right_edge.i == start - 1 and lead.dep_ not in {"punct", "cc"}:
                start = lead.left_edge.i
        if start > 0 and (doc[start - 1].is_punct or doc[start - 1].dep_ == "cc"):
            starts[start] = head
    if not starts:
        heads = _top_clauses(text)
        return [(text.strip(), LEARNER if heads and _takes_over(heads[0]) else whose(text))]
    bounds = [0, *sorted(starts), len(doc)]
    out = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        words = doc[start:end]
        while len(words) and (words[-1].is_punct or words[-1].dep_ == "cc"):
            words = words[:-1]  # the comma or "and" that joins the next clause
        # the small parser may hang the first clause on a later one ("Karthik is at 1750, he's a machine")
        reported = (t for t in words if _top(t) or (t.pos_ in {"VERB", "AUX"} and t.dep_ in _SPOKEN))
        head = starts.get(start) or next(reported, None)
        if len(words):
            owner = LEARNER if head is None or _takes_over(head) else _clause_owner(head)
            out.append((words.text, owner))
    return out


def _takes_over(head: Token) -> bool:
    """A peer takes over a thing of the learner's ("my cousin took over my shifts at <place>").

    The thing is the peer's now (``whose`` reads the clause as the peer's, so the read never shows it
    as the learner's value), but the write keeps it with the learner's words: it tells the learner's
    old value is theirs no longer (``fact_order.called_old`` reads it so).
    """
    subject = subject_of(head, shared_by=SHARED_BY)
    if subject is None or not peer(subject):
        return False
    return about_learner(head, known=False) and not about_learner(head, known=False, deeds=True)
