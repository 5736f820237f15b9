"""A new learner's first session gives notes worth keeping (issue 42, "Done when").

Each session is what ``kag chat`` holds offline: five learner statements (who they are, a
single-word and a multi-word concept defined, an example, a confusion), each answered by the
offline policy. The notes go through the offline extractor the pipeline picks for the offline
policy, and are exported as Markdown as ``kag notes export`` writes them.
"""

from __future__ import annotations

import pytest

from agent.models.offline_policy import OFFLINE_BANNER, OfflinePolicyModel
from agent.models.offline_replies import NOTED
from agent.notes.extraction import extractor_for
from agent.notes.markdown import note_filenames, note_markdown
from agent.notes.models import NoteDraft, compose_text
from agent.notes.offline import offline_extract
from agent.notes.offline_prose import without_example_marker
from agent.notes.text import stem
from bench.note_checks import prose_of, repeated_sentences

pytestmark = pytest.mark.unit

# (learner lines, the files the session's notes are named, words of the learner's introduction)
SESSIONS = {
    "python": (
        [
            "Hi, I'm Lena and I'm a second-year biology student learning Python.",
            "A list comprehension builds a new list from an iterable in a single expression.",
            "For example, [x * x for x in range(5)] gives the squares from 0 to 16.",
            "A dictionary maps keys to values, and looking up a key stays fast even in a big dictionary.",
            "I'm not sure when a generator is better than a list comprehension.",
        ],
        {"list-comprehension.md", "dictionary.md"},
        ("Lena", "biology"),
    ),
    "javascript": (
        [
            "Hello, I'm Tomás, a junior web developer learning JavaScript.",
            "A closure is a function that remembers the variables of the scope where it was created.",
            "For example, makeCounter() returns a function that keeps its own count between calls.",
            "An arrow function is a shorter way to write a function expression, "
            "and it has no this of its own.",
            "I keep mixing up closures and callbacks.",
        ],
        {"closure.md", "arrow-function.md"},
        ("Tomás", "developer"),
    ),
    "maths": (
        [
            "Hi, I'm Amara and I'm a first-year maths student.",
            "A prime number has exactly two divisors, 1 and itself.",
            "For example, 13 is prime because only 1 and 13 divide it.",
            "A derivative measures how fast a function changes at a point.",
            "I'm confused about why the derivative of a constant is zero.",
        ],
        {"prime-number.md", "derivative.md"},
        ("Amara", "first-year"),
    ),
    "spanish": (
        [
            "Hi, my name is Kenji and I'm learning Spanish for a trip to Mexico.",
            "The preterite tense describes actions that were completed in the past.",
            "For example, ayer comí tacos means yesterday I ate tacos.",
            "A cognate is a word that looks and means the same in two languages, like hospital.",
            "I'm not sure when to use the preterite tense and when to use the imperfect.",
        ],
        {"preterite-tense.md", "cognate.md"},
        ("Kenji", "Mexico"),
    ),
    "music": (
        [
            "Hey, I'm Noor, I play the piano and I'm learning music theory.",
            "A major scale follows the pattern whole, whole, half, whole, whole, whole, half.",
            "For example, C major uses only the white keys.",
            "A chord is three or more notes played together.",
            "I find it confusing why a minor chord sounds sad.",
        ],
        {"major-scale.md", "chord.md"},
        ("Noor", "piano"),
    ),
    "statistics": (
        [
            "Hi, I'm Ole, I work as a nurse and I'm starting a statistics course.",
            "A p-value is the probability of seeing data at least this extreme "
            "if the null hypothesis is true.",
            "Correlation measures how strongly two variables move together.",
            "For example, height and weight are correlated in adults.",
            "I don't get why correlation does not mean causation.",
        ],
        {"p-value.md", "correlation.md"},
        ("Ole", "nurse"),
    ),
}


def session(lines: list[str]) -> list[dict[str, str]]:
    """The transcript ``kag chat`` stores: each statement, then the offline policy's reply."""
    turns = []
    for index, line in enumerate(lines):
        reply = (
            f"{OFFLINE_BANNER} Got it: you said so."
            if index in (0, len(lines) - 1)
            else f"{OFFLINE_BANNER} {NOTED}"
        )
        turns += [{"role": "user", "content": line}, {"role": "assistant", "content": reply}]
    return turns


def exported(drafts: list[NoteDraft]) -> dict[str, str]:
    """The vault ``kag notes export`` writes for these drafts: file name -> Markdown."""
    notes = [
        {**d.model_dump(), "id": f"note_{i}", "text": compose_text(d), "links": []}
        for i, d in enumerate(drafts)
    ]
    names = note_filenames(notes)
    return {names[n["id"]]: note_markdown(n, names) for n in notes}


@pytest.mark.parametrize("name", SESSIONS)
async def test_a_first_session_gives_notes_worth_keeping(name: str) -> None:
    lines, files, introduction = SESSIONS[name]
    drafts, failures, _ = await extractor_for(OfflinePolicyModel()).extract(session(lines), None)
    assert failures == []
    vault = exported(drafts)
    assert set(vault) == files, "one note per defined concept, each file named by its concept"
    for draft in drafts:
        assert draft.concept.lower() in draft.definition.lower(), "a definition of its own concept"
        assert lines[0] not in draft.model_dump_json(), "the introduction is about the learner"
    example_line = next(line for line in lines if line.startswith("For example"))
    examples = [d.personal_example for d in drafts if d.personal_example]
    assert examples == [without_example_marker(example_line)], "the example kept, without its marker"
    assert [d.open_question for d in drafts if d.open_question] == [lines[-1]], "the confusion, to revisit"
    assert not any(lines[-1] in d.key_insight for d in drafts), "a confusion is not an insight"
    for markdown in vault.values():
        assert repeated_sentences([prose_of(markdown)]) == [], "no text twice"
        assert not any(word in prose_of(markdown) for word in introduction)
        assert "offline policy" not in markdown and NOTED not in markdown


def test_a_single_word_the_learner_defines_once_is_a_concept() -> None:
    said = [{"role": "user", "content": "A dictionary maps keys to values, even in a big dictionary."}]
    assert [d.concept for d in offline_extract(said, None)] == ["dictionary"]
    for definition in (
        "Recursion is when a function calls itself.",
        "Tempo is the speed of the beat.",
        "Mitochondria are organelles that make energy for the cell.",
        "A chord is three or more notes played together.",
        "The tonic means the first note of a scale.",
    ):
        assert len(offline_extract([{"role": "user", "content": definition}], None)) == 1, definition


@pytest.mark.parametrize(
    "statement",
    [
        "Python is fun.",  # a judgement, not what a kind of thing is
        "Python is very popular.",
        "The dictionary was slow yesterday.",  # an episode
        "The dictionary keeps my phone numbers in order.",  # a particular thing, not a kind
        "My dictionary maps names to phone numbers.",  # the learner's own thing
        "Homework takes forever.",  # says nothing of the kind
    ],
)
def test_a_single_word_said_once_without_a_definition_is_no_concept(statement: str) -> None:
    assert offline_extract([{"role": "user", "content": statement}], None) == []


def test_the_offline_policys_replies_are_not_material_nor_stand_between_an_example_and_its_definition() -> (
    None
):
    lines = SESSIONS["python"][0][1:3]
    drafts = offline_extract(session(["Hi.", *lines, "Thanks."]), None)
    assert [(d.concept, d.personal_example) for d in drafts] == [
        ("list comprehension", "[x * x for x in range(5)] gives the squares from 0 to 16.")
    ]
    handed_back = session(lines) + [
        {"role": "assistant", "content": f"{OFFLINE_BANNER} Your own note: a generator yields values lazily."}
    ]
    assert "generator" not in " ".join(d.model_dump_json() for d in offline_extract(handed_back, None))


def test_plural_and_singular_of_a_word_ending_in_e_are_one_term() -> None:
    assert stem("closures") == stem("closure") == "closure"
    assert (stem("matches"), stem("indexes"), stem("queries"), stem("classes")) == (
        "match",
        "index",
        "query",
        "class",
    )


def test_an_example_opening_with_code_keeps_its_case() -> None:
    assert without_example_marker("For example, makeCounter() returns a function.") == (
        "makeCounter() returns a function."
    )
    assert without_example_marker("For example, height and weight move together.") == (
        "Height and weight move together."
    )


def test_an_example_illustrates_the_subject_of_the_sentence_before_not_every_term_it_names() -> None:
    lines = [
        "Ownership means each value has exactly one owner at a time.",
        "A borrow checker enforces the ownership rules at compile time.",
        "For example, moving a String into a function makes the old variable unusable.",
    ]
    drafts = {d.concept: d for d in offline_extract(session(lines), None)}
    assert set(drafts) == {"ownership", "borrow checker"}
    assert drafts["borrow checker"].personal_example.startswith("Moving a String into a function")
    assert drafts["ownership"].personal_example == "", "one example, on the note it illustrates"
