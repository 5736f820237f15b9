"""Word-level helpers the notes package shares: concept stems over ``agent.text``'s stop words."""

from __future__ import annotations

import re

from agent.text import STOP_WORDS

WORD = re.compile(r"[a-z][a-z0-9+#_-]*")
"""A lowercase word (letters first; digits, ``+#_-`` allowed after)."""


def stem(word: str) -> str:
    """A plural normaliser for concept names: ``joins`` -> ``join``, ``matches`` -> ``match``.

    "-es" goes only after a sibilant (``indexes``, ``classes``), so a word ending in "e" and
    its plural meet (``closures`` -> ``closure``, not ``closur``); "-ies" -> "-y" (``queries``).
    Not ``agent.text.light_stem``: the search stemmer keeps four letters, so it
    leaves "rows" whole, and changing it would move the retrieval figures.
    """
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_stems(text: str) -> set[str]:
    """Stemmed lowercase words of ``text`` (stopwords kept: the lint needs them)."""
    return {stem(w) for w in WORD.findall(text.lower())}


def concept_stems(concept: str) -> set[str]:
    """Content-word stems of a concept's most specific segment."""
    # "sql.joins" is matched by its most specific segment, "joins".
    specific = concept.lower().rsplit(".", 1)[-1]
    return {stem(w) for w in WORD.findall(specific) if w not in STOP_WORDS}


def normalise_concept(concept: str) -> str:
    """A concept's comparable form: most specific dotted segment, words stemmed.

    ``"sql.joins"`` -> ``"join"``, ``"LEFT JOIN"`` -> ``"left join"``, ``"left_joins"`` -> ``"left join"``.
    """
    specific = concept.lower().rsplit(".", 1)[-1].replace("_", " ").replace("-", " ")
    return " ".join(stem(w) for w in re.findall(r"[a-z0-9+#]+", specific))


# ----- prose: what a learner or tutor said, without banners, tool renderings or questions -----

_BRACKETED = re.compile(
    r"\[calls [^\n]*?\)\]"  # a tool call as recall storage renders it: [calls name({...})]
    r"|\[(?:FUNCTION|FINAL_ANSWER)\]"  # the text tool protocol's markers
    r"|\[[^\]\n]{0,60}\bnot an llm\b[^\]\n]{0,20}\]",  # the offline policy's banner
    re.I,
)
_ROLE_PREFIX = re.compile(r"^\s*-?\s*(assistant|user|human|ai|tutor|learner|system|tool)\s*:", re.I)
_BOILERPLATE = re.compile(
    r"api[_ ]?key|\bgemini\b|\bllm\b|language model|offline policy|core memory|archival memory|"
    r"recall storage|from your memory|nothing matched in memory|stored in archival|noted in core",
    re.I,
)
_TUTOR_SELF = re.compile(
    r"^\s*(i|i'm|i've|i'll|i'd|let me|let's|we'll|we've|shall we)\b"
    r"|^\s*(great|good|nice|excellent|interesting) (question|job|work|point)\b"
    r"|^\s*(hi|hello|hey|welcome|thanks|thank you|you're welcome|no problem|sure|of course)\b",
    re.I,
)
_LEAD_INS = (
    re.compile(
        r"^(so|oh|ok|okay|right|yes|yeah|yep|well|and|also|now|hmm|ah|aha|exactly|correct)\b[,:!]?\s+", re.I
    ),
    re.compile(r"^(i see|i get it|got it|i think|i guess|i believe|in short|basically)\b[,:]?\s+", re.I),
    re.compile(
        r"^(please\s+)?(remember|note|recall|notice|keep in mind|for the record)\b(\s+that)?[,:]?\s+", re.I
    ),
    re.compile(
        r"^i\s+(also\s+|just\s+|now\s+|finally\s+)?(learned|learnt|read|heard|realised|realized|"
        r"understand|understood|know|noticed|found out|discovered|remember)\b(\s+that)?[,:]?\s+",
        re.I,
    ),
)


def clean_prose(text: str) -> str:
    """``text`` without banners, tool-call renderings and protocol markers."""
    return " ".join(_BRACKETED.sub(" ", text).split())


def is_boilerplate(sentence: str, *, tutor: bool) -> bool:
    """Talk about the tutor or its tools, greetings and praise, quoted transcript lines."""
    if _BOILERPLATE.search(sentence) or _ROLE_PREFIX.match(sentence) or "[calls" in sentence:
        return True
    return tutor and bool(_TUTOR_SELF.match(sentence))


def strip_lead_in(sentence: str) -> str:
    """Drop discourse openers ("So", "Remember that", "I learned that") from a statement."""
    previous = None
    while previous != sentence:
        previous = sentence
        for pattern in _LEAD_INS:
            sentence = pattern.sub("", sentence, count=1)
    return sentence[:1].upper() + sentence[1:] if sentence else sentence


# ----- noun phrases: the terms a sentence names -----


def _words(text: str) -> list[str]:
    """The words of a word list written as one string (ruff's SIM905 asks for list literals)."""
    return text.split()


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9+#_'-]*|\d+(?:\.\d+)?|[^\sA-Za-z0-9]")
DETERMINERS = frozenset(
    _words("a an the this that these those my your our their its his her each every some any no")
)
_SUBJECTS = frozenset(_words("i you we they he she it"))
# Tokens after which a gerund is a noun ("about hashing", "is overfitting", "the sorting").
_NOMINAL_CONTEXT = frozenset(
    _words("a an the this that these those about of on in with for from is are was were , : ( and or")
) | {""}
# Words after which a preceding "-s" word is a verb ("keeps every", "returns only").
_VERB_FOLLOWERS = DETERMINERS | frozenset(
    _words("all only both them it up out just also always never exactly how whether what why")
)
# Common verbs (any form) that the stop-word list leaves in; they never head a term.
_VERBS_TEXT = """
    find finds found keep keeps kept learn learns learned learnt confuse confuses confused
    confusing mix mixes mixed compare compares combine combines describe describes contain
    contains represent represents compute computes allow allows produce produces prevent
    prevents ensure ensures avoid avoids happen happens become becomes became belong belongs
    depend depends appear appears disappear disappears forget forgets forgot wonder wonders seem
    seems revise revises supervise supervises switch switches apply applies refer refers remove
    removes create creates returns matches collapses stores holds held builds built splits drops
    fills helps adds gives gave given lets probes breaks broke work works ran wrote felt practise
    practises
"""
VERBS = frozenset(_words(_VERBS_TEXT))
"""Verb forms the stop-word list leaves in that never head a term (ambiguous nouns left out)."""
# Adverbs and modals the stop-word list leaves in: they end a term.
_ADVERBS = frozenset(
    _words("never always often usually sometimes again already cannot rarely seldom soon instead together")
)
# Stop words that still end a term after a content word ("base case", "run time", "edge cases").
_TAIL_NOUNS = frozenset(_words("case cases time times part parts question questions answer answers"))
# Two-word code keywords whose second word is a stop word ("GROUP BY", "ORDER BY").
_KEYWORD_PAIRS = frozenset({("group", "by"), ("order", "by"), ("partition", "by"), ("sort", "by")})
MAX_TERM_WORDS = 3


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _is_caps_word(token: str) -> bool:
    return len(token) >= 2 and token.isalpha() and token.isupper()


def acronyms(text: str) -> set[str]:
    """Lowercased acronyms ``text`` uses: one ALL-CAPS word of 2–6 letters ("CTE", "SQL", "GPUs").

    An acronym names a thing by its form, however short or rare, as a multi-word term does.
    A capitalised call ("RANK()") is code, and a run of capitals ("GROUP BY") is a keyword
    phrase (``noun_phrases``), so neither counts; stop words ("WITH", "AS") never do.
    """
    tokens = _TOKEN.findall(text)
    found: set[str] = set()
    for index, token in enumerate(tokens):
        word = token[:-1] if token.endswith("s") and len(token) > 2 else token
        nxt = tokens[index + 1] if index + 1 < len(tokens) else ""
        prev = tokens[index - 1] if index else ""
        if not (_is_caps_word(word) and len(word) <= 6) or word.lower() in STOP_WORDS or nxt == "(":
            continue
        if _is_caps_word(prev) or _is_caps_word(nxt):
            continue  # part of an ALL-CAPS run: a keyword phrase, not an acronym
        found.add(word.lower())
    return found


def _trimmed(run: list[str], *, nominal: bool) -> str:
    """A run of content words as a term: verbs, participles and adverbs cut from its ends ("" if none left).

    A gerund heads a term only after an article, a preposition or "is" (``nominal``: "about
    hashing", "Overfitting means"), never after a verb ("find confusing").
    """
    words = list(run)
    while words and (
        words[-1] in VERBS or words[-1].endswith(("ed", "ly")) or (words[-1].endswith("ing") and not nominal)
    ):
        words.pop()
    while words and (
        words[0].endswith("ly") or (words[0].endswith("ing") and not nominal and len(words) > 1)
    ):
        words.pop(0)
    return " ".join(words[-MAX_TERM_WORDS:])


def _caps_run_end(tokens: list[str], index: int) -> int:
    """The index after the run of ALL-CAPS words starting at ``index`` (``index`` when there is none)."""
    end = index
    while end < len(tokens) and _is_caps_word(tokens[end]):
        end += 1
    return end


def noun_phrases(sentence: str) -> list[str]:
    """Terms a sentence names, lowercase, in order: runs of content words, 1–3 words.

    A heuristic chunker (no tagger): a run of words outside ``STOP_WORDS`` and ``VERBS``
    ends at a stop word or punctuation; a word right after a pronoun is a verb
    ("I find"); an ``-s`` word followed by a determiner ("keeps every") or by
    another content word ("compares rows") is a verb; a term never ends in
    ``-ed``/``-ing``/``-ly``; runs of two or more ALL-CAPS words are one term
    ("GROUP BY", "FULL OUTER JOIN").
    """
    tokens = _TOKEN.findall(sentence)
    out: list[str] = []
    run: list[str] = []
    before = [""]  # the token before the current run

    def flush() -> None:
        term = _trimmed(run, nominal=before[0] in _NOMINAL_CONTEXT)
        run.clear()
        if term:
            out.append(term)

    def start(index: int) -> None:
        if not run:
            before[0] = tokens[index - 1].lower() if index else ""

    index = 0
    while index < len(tokens):
        token = tokens[index]
        # ALL-CAPS runs of two or more words are code keywords: one term.
        caps = _caps_run_end(tokens, index)
        if caps - index >= 2:
            flush()
            out.append(" ".join(t.lower() for t in tokens[index:caps][-MAX_TERM_WORDS:]))
            index = caps
            continue
        low = token.lower()
        nxt = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
        prev = tokens[index - 1].lower() if index else ""
        after_term = bool(run) or (prev[:1].isalpha() and (prev not in STOP_WORDS or prev in _TAIL_NOUNS))
        plural_last = bool(run) and _plural(run[-1]) and not _is_caps_word(tokens[index - 1])
        if not token[0].isalpha():
            flush()
        elif run and (run[-1], low) in _KEYWORD_PAIRS:
            run.append(low)
            flush()
        elif run and low in _TAIL_NOUNS:
            run.append(low)  # "base case", "constant time": filler words that end a term
            flush()
        elif low in STOP_WORDS or low in VERBS or low in _ADVERBS or len(low) < 3 or "'" in low:
            flush()
        elif not run and prev in _SUBJECTS:
            flush()  # "I find", "it builds": a verb after a subject pronoun
        elif after_term and _plural(low) and not _is_caps_word(token) and nxt in _VERB_FOLLOWERS:
            flush()  # "keeps every", "returns only"
        elif plural_last and len(run) >= 2:
            run.pop()  # "self join compares rows": a plural inside a run is a verb
            flush()
            start(index)
            run.append(low)
        elif plural_last:
            flush()  # "ids binary search": a plural ends its term
            start(index)
            run.append(low)
        else:
            start(index)
            run.append(low)
        index += 1
    flush()
    return out


def term_key(phrase: str) -> str:
    """The comparable form of a term (``normalise_concept`` of it)."""
    return normalise_concept(phrase)
