"""Load and validate a LoCoMo-format file (Maharana et al., ACL 2024) into frozen values.

Schema (``../shared/bench/README.md``): a list of conversations, each with
``sample_id``, ``conversation`` (``speaker_a``, ``speaker_b``, ``session_N`` lists of
turns ``{speaker, dia_id, text, blip_caption?}`` and ``session_N_date_time``) and
``qa`` (``{question, answer | adversarial_answer, evidence: [dia_id], category}``).
The LLM-written ``observation``/``session_summary``/``event_summary`` fields are
ignored: the benchmark builds its own memories without an LLM.

A malformed file raises ``LocomoFormatError`` naming the file and the JSON location.
Evidence ids are kept verbatim; ones that name no turn of their conversation (the
public data has a few, such as ``"D8:6; D9:17"``) are listed in ``warnings`` and,
as in the LoCoMo scorer, can never be retrieved.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.errors import InvalidInputError

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DATE_FORMAT = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"
DATASET_ENV = "KAG_LOCOMO_PATH"
SYNTHETIC_SAMPLE = Path(__file__).resolve().parents[1] / "data" / "locomo_synthetic.json"
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"^D(\d+):(\d+)$")


class LocomoFormatError(InvalidInputError):
    """The file is not LoCoMo-shaped; the message names the file and the JSON location."""


@dataclass(frozen=True)
class Turn:
    """One dialogue turn."""

    dia_id: str
    speaker: str
    text: str
    session: int
    caption: str | None = None
    """The image caption (``blip_caption``) when the speaker shared a photo."""


@dataclass(frozen=True)
class Session:
    """One session: its number, start time and turns in order."""

    number: int
    started_at: datetime
    date_text: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    """One QA item; ``evidence`` holds the dia_ids of the turns that answer it."""

    qid: str
    question: str
    answer: str | None
    evidence: tuple[str, ...]
    category: int


@dataclass(frozen=True)
class Conversation:
    """One conversation: two speakers, sessions in order, questions."""

    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def turns(self) -> list[Turn]:
        """Every turn, in order."""
        return [t for s in self.sessions for t in s.turns]

    def head(self, sessions: int | None = None, questions: int | None = None) -> Conversation:
        """The first ``sessions`` sessions and the first ``questions`` questions still answerable.

        With fewer sessions, questions whose evidence lies outside them are dropped
        (questions without evidence stay).
        """
        kept = self.sessions if sessions is None else self.sessions[:sessions]
        ids = {t.dia_id for s in kept for t in s.turns}
        answerable = tuple(q for q in self.questions if set(q.evidence) <= ids or sessions is None)
        if questions is not None:
            answerable = answerable[:questions]
        return replace(self, sessions=tuple(kept), questions=answerable)


@dataclass(frozen=True)
class LocomoDataset:
    """Conversations of one file, plus warnings about evidence that names no turn."""

    path: str
    conversations: tuple[Conversation, ...]
    warnings: tuple[str, ...] = ()

    @property
    def question_count(self) -> int:
        """Questions over all conversations."""
        return sum(len(c.questions) for c in self.conversations)


def default_dataset_path() -> Path:
    """``$KAG_LOCOMO_PATH``, else ``../shared/bench/locomo_dev.json`` next to the project."""
    if os.environ.get(DATASET_ENV):
        return Path(os.environ[DATASET_ENV])
    return Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo_dev.json"


def small_run_dataset_path() -> Path:
    """The real split when present, else the synthetic sample (``bench/data/``), for CI-sized runs.

    Only the small configuration falls back: on a clean clone the CC BY-NC split is absent,
    and the sample keeps the pipeline exercised. Its scores are not LoCoMo figures.
    """
    real = default_dataset_path()
    return real if real.exists() else SYNTHETIC_SAMPLE


def parse_session_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> a naive datetime (LoCoMo gives no time zone)."""
    return datetime.strptime(" ".join(text.split()), DATE_FORMAT)


def _fail(path: str, where: str, problem: str) -> LocomoFormatError:
    return LocomoFormatError(f"{path}: {where}: {problem}")


def _text(value: Any, path: str, where: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise _fail(path, where, f"expected a non-empty string, got {type(value).__name__}")
    return value


def _turns(raw: Any, number: int, path: str, where: str) -> tuple[Turn, ...]:
    if not isinstance(raw, list):
        raise _fail(path, where, "a session must be a list of turns")
    turns = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise _fail(path, at, "a turn must be an object")
        dia_id = _text(item.get("dia_id"), path, f"{at}.dia_id")
        match = _DIA_ID.match(dia_id)
        if not match or int(match.group(1)) != number:
            raise _fail(path, f"{at}.dia_id", f"{dia_id!r} is not 'D{number}:<turn>'")
        caption = item.get("blip_caption")
        turns.append(
            Turn(
                dia_id=dia_id,
                speaker=_text(item.get("speaker"), path, f"{at}.speaker"),
                text=_text(item.get("text"), path, f"{at}.text", allow_empty=True),
                session=number,
                caption=caption.strip() if isinstance(caption, str) and caption.strip() else None,
            )
        )
    return tuple(turns)


def _sessions(conv: Any, path: str, where: str) -> tuple[Session, ...]:
    if not isinstance(conv, dict):
        raise _fail(path, where, "'conversation' must be an object")
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
    if not numbers:
        raise _fail(path, where, "no 'session_N' lists")
    sessions = []
    for n in numbers:
        date_key = f"session_{n}_date_time"
        date_text = _text(conv.get(date_key), path, f"{where}.{date_key}")
        try:
            started = parse_session_date(date_text)
        except ValueError as exc:
            problem = f"{date_text!r} is not like '1:56 pm on 8 May, 2023'"
            raise _fail(path, f"{where}.{date_key}", problem) from exc
        turns = _turns(conv[f"session_{n}"], n, path, f"{where}.session_{n}")
        if turns:
            sessions.append(Session(number=n, started_at=started, date_text=date_text, turns=turns))
    return tuple(sessions)


def _questions(raw: Any, sample_id: str, path: str, where: str) -> tuple[Question, ...]:
    if not isinstance(raw, list):
        raise _fail(path, where, "'qa' must be a list")
    questions = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise _fail(path, at, "a QA item must be an object")
        evidence = item.get("evidence", [])
        if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
            raise _fail(path, f"{at}.evidence", "must be a list of dia_id strings")
        category = item.get("category")
        if category not in CATEGORIES or isinstance(category, bool):
            raise _fail(path, f"{at}.category", f"must be one of {sorted(CATEGORIES)}, got {category!r}")
        answer = item.get("answer", item.get("adversarial_answer"))
        questions.append(
            Question(
                qid=f"{sample_id}#{i}",
                question=_text(item.get("question"), path, f"{at}.question"),
                answer=None if answer is None else str(answer),
                evidence=tuple(e.strip() for e in evidence if e.strip()),
                category=category,
            )
        )
    return tuple(questions)


def parse_locomo(data: Any, path: str = "<data>") -> LocomoDataset:
    """Validate already-decoded JSON; see the module docstring."""
    if not isinstance(data, list) or not data:
        raise _fail(path, "top level", "expected a non-empty list of conversations")
    conversations, warnings, seen = [], [], set()
    for i, item in enumerate(data):
        where = f"[{i}]"
        if not isinstance(item, dict):
            raise _fail(path, where, "a conversation must be an object")
        sample_id = _text(item.get("sample_id"), path, f"{where}.sample_id")
        if sample_id in seen:
            raise _fail(path, f"{where}.sample_id", f"duplicate sample_id {sample_id!r}")
        seen.add(sample_id)
        conv = item.get("conversation")
        sessions = _sessions(conv, path, f"{where}.conversation")
        questions = _questions(item.get("qa"), sample_id, path, f"{where}.qa")
        ids = {t.dia_id for s in sessions for t in s.turns}
        dangling = sorted({e for q in questions for e in q.evidence if e not in ids})
        if dangling:
            warnings.append(f"{sample_id}: evidence naming no turn (never retrievable): {dangling}")
        conversations.append(
            Conversation(
                sample_id=sample_id,
                speaker_a=_text(conv.get("speaker_a"), path, f"{where}.conversation.speaker_a"),
                speaker_b=_text(conv.get("speaker_b"), path, f"{where}.conversation.speaker_b"),
                sessions=sessions,
                questions=questions,
            )
        )
    return LocomoDataset(path=path, conversations=tuple(conversations), warnings=tuple(warnings))


def load_locomo(path: str | os.PathLike[str]) -> LocomoDataset:
    """Read and validate the file at ``path``."""
    name = str(path)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError as exc:
        raise LocomoFormatError(f"{name}: no such file (pass the path of a LoCoMo JSON file)") from exc
    except json.JSONDecodeError as exc:
        raise LocomoFormatError(f"{name}: not valid JSON ({exc})") from exc
    return parse_locomo(data, name)


def select(
    dataset: LocomoDataset,
    *,
    conversations: int | None = None,
    sessions: int | None = None,
    questions: int | None = None,
) -> list[Conversation]:
    """The first ``conversations``, each cut with ``Conversation.head``."""
    chosen: Sequence[Conversation] = dataset.conversations
    if conversations is not None:
        chosen = chosen[:conversations]
    return [c.head(sessions, questions) for c in chosen]
