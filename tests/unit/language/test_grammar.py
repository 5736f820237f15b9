"""The grammar reader: subject, owner, mood and questions from spaCy's parse (no services)."""

from __future__ import annotations

import pytest

from agent.language import grammar


def _clause(text: str, verb: str) -> grammar.Clause:
    found = [c for c in grammar.clauses(text) if c.verb == verb]
    assert found, f"no clause headed by {verb!r} in {grammar.clauses(text)}"
    return found[0]


@pytest.mark.parametrize(
    ("text", "verb", "by_learner", "subject_head"),
    [
        ("My teacher learned 50 in her first week apparently.", "learn", False, "teacher"),
        ("I learned 27 new kanji this week.", "learn", True, "i"),
        ("Did another 6.5 hours this week.", "do", True, ""),
        ("We moved the meeting to Friday.", "move", True, "we"),
        ("Let's do cells in biology today.", "do", True, "us"),
        ("My study stipend is 500 euros a month; my flatmate gets 650.", "get", False, "flatmate"),
    ],
)
def test_the_subject_and_whether_it_is_the_learner(
    text: str, verb: str, by_learner: bool, subject_head: str
) -> None:
    clause = _clause(text, verb)
    assert clause.by_learner is by_learner
    assert clause.subject_head == subject_head


def test_the_owner_of_the_subject_is_read_through_possessives() -> None:
    assert _clause("My study stipend is 500 euros a month.", "be").owner == "learner"
    assert _clause("My colleague's pronunciation is so good.", "be").owner == "My colleague"
    assert _clause("Rui's database is MongoDB.", "be").owner == "Rui"
    assert _clause("The library was packed today.", "pack").owner == ""


def test_a_conjoined_verb_shares_the_first_verb_s_subject() -> None:
    bought = _clause("I sold the ThinkPad and bought a MacBook Air.", "buy")
    assert bought.by_learner and bought.subject_head == "i"
    # each clause keeps its own words: the first does not hold the second's object
    assert "MacBook" not in _clause("I sold the ThinkPad and bought a MacBook Air.", "sell").text


@pytest.mark.parametrize(
    ("text", "verb", "modal", "negated"),
    [
        ("I might do a summer course in Dresden.", "do", "might", False),
        ("I probably won't even reply to the recruiter.", "reply", "will", True),
        ("I'd love to give a toast in Spanish.", "love", "would", False),
        ("I live in Leipzig now.", "live", "", False),
        ("I don't use Duolingo anymore.", "use", "", True),
    ],
)
def test_mood_and_negation(text: str, verb: str, modal: str, negated: bool) -> None:
    clause = _clause(text, verb)
    assert clause.modal == modal
    assert clause.negated is negated


def test_questions_are_marked() -> None:
    assert _clause("What does the mitochondria do exactly?", "do").asks
    assert not _clause("I moved to Leipzig last week.", "move").asks


@pytest.mark.parametrize("bad", ["", "   ", None, 42])
def test_no_clauses_in_empty_or_non_text(bad: object) -> None:
    assert grammar.clauses(bad) == []  # type: ignore[arg-type]


def test_a_huge_text_is_parsed_up_to_the_cap() -> None:
    doc = grammar.parse("I study maths. " * 2000)
    assert len(doc.text) <= grammar.MAX_CHARS


def test_forget_empties_the_memo_of_parsed_texts() -> None:
    grammar.parse("My stipend is 500 euros a month.")
    assert grammar.parse.cache_info().currsize > 0
    grammar.forget()
    assert grammar.parse.cache_info().currsize == 0


def test_forget_empties_every_registered_text_memo() -> None:
    from functools import lru_cache

    @grammar.holds_text
    @lru_cache(maxsize=8)
    def reader(text: str) -> int:
        return len(text)

    reader("I work at the Qantas lounge.")
    assert reader.cache_info().currsize == 1
    grammar.forget()
    assert reader.cache_info().currsize == 0


def test_forget_empties_the_named_entities_and_the_asked_kinds() -> None:
    """Erasure reaches every memo of learner text, the recogniser's and the question reader's too."""
    from agent.language import answer_kinds

    assert any(label == "PERSON" for *_, label in grammar.entities("Priya Raman moved to Pune."))
    answer_kinds.asked_kind("Who is Priya Raman's tutor?")
    grammar.forget()
    assert grammar.entities.cache_info().currsize == 0
    assert answer_kinds.asked_kind.cache_info().currsize == 0


def test_every_text_memo_of_the_language_layer_is_forgotten_on_erasure() -> None:
    """An ``lru_cache`` keyed by a text in ``agent.language`` must be registered with ``holds_text``."""
    import importlib
    import inspect
    import pkgutil

    import agent.language

    unregistered = []
    for info in pkgutil.iter_modules(agent.language.__path__):
        module = importlib.import_module(f"agent.language.{info.name}")
        for name, fn in vars(module).items():
            if getattr(fn, "__module__", None) != module.__name__ or not hasattr(fn, "cache_clear"):
                continue
            params = inspect.signature(fn.__wrapped__).parameters
            if params and fn.cache_clear not in grammar._TEXT_MEMOS and fn is not grammar.parse:
                unregistered.append(f"{module.__name__}.{name}")
    assert unregistered == []


def test_the_parser_loads_without_torch_and_torch_still_imports_after() -> None:
    """Thinc would import torch (installed for the ONNX export) in every process that parses."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys\n"
        "from agent.language import grammar\n"
        "doc = grammar.parse('My teacher learned 50 words in her first week.')\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
        "print([t.dep_ for t in doc][:3])\n"
        "import torch\n"
        "print(torch.tensor([1, 2]).sum().item())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["['poss', 'nsubj', 'ROOT']", "3"]
