"""``python -m bench.language``: sentence-boundary accuracy of the language layer's splitter.

- **Segmentation** (``bench/cognitive/sets/segmentation.json``, ``kag-segmentation-v1``): each
  text is its gold sentences joined by one space; a boundary is the offset where a sentence
  starts. Boundary accuracy is the share of gold and predicted boundaries that agree
  (``|gold ∩ predicted| / |gold ∪ predicted|``); exact sentences is the share of gold
  sentences returned whole. Target ≥ 98%.

- **Intents** (``--intents``): leave-one-out over ``agent.language.intent_exemplars`` (each
  exemplar read by the rules and a classifier trained on the others) and the ordinary turns of
  ``bench/cognitive/sets/traffic_intents.json`` (read by the classifier trained on all
  exemplars), per setting of ``REGULARISATION`` and ``OVERRIDE``: how
  ``agent.language.intents`` chose its knobs. ``ordinary_asking_memory`` counts the ordinary
  turns whose reading is left to the learner's facts (a read of their versions each, no
  change of intent unless memory holds two values, or one for what the words read as a change).

- **Memory** (``--memory``, ``bench.language.memory``): leave-one-out of the knobs of
  ``agent.language.versions`` over ``bench/cognitive/sets/intents_memory.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agent.language.sentences import split_sentences
from bench.language.memory import memory_report

SEGMENTATION = Path(__file__).resolve().parents[1] / "cognitive" / "sets" / "segmentation.json"
SHORT_WORDS = SEGMENTATION.with_name("segmentation_short_words.json")
"""A short word, a full stop, then lower case: the set ``sentences.WORD_ZIPF`` was chosen on."""
TRAFFIC = SEGMENTATION.with_name("traffic_intents.json")
GRID = {"regularisation": (1.0, 4.0, 16.0), "override": (0.4, 0.5, 0.6, 0.7, 0.8)}


def _starts(sentences: list[str]) -> set[int]:
    starts, at = set(), 0
    for s in sentences:
        starts.add(at)
        at += len(s) + 1
    return starts


def segmentation_report(path: Path = SEGMENTATION) -> dict[str, Any]:
    """Boundary accuracy and exact sentences over the set, with the texts that differ."""
    texts = json.loads(path.read_text())["texts"]
    agree = union = exact = gold_total = 0
    wrong = []
    for item in texts:
        gold = item["sentences"]
        got = split_sentences(" ".join(gold))
        g, p = _starts(gold), _starts(got)
        agree += len(g & p)
        union += len(g | p)
        exact += sum(1 for s in got if s in gold)
        gold_total += len(gold)
        if got != gold:
            wrong.append({"gold": gold, "got": got})
    return {
        "texts": len(texts),
        "sentences": gold_total,
        "boundary_accuracy": round(agree / max(1, union), 4),
        "exact_sentences": round(exact / max(1, gold_total), 4),
        "wrong": wrong,
    }


def intents_report(path: Path = TRAFFIC) -> list[dict[str, Any]]:
    """Leave-one-out accuracy on the exemplars and traffic accuracy, per (C, override)."""
    from sklearn.linear_model import LogisticRegression

    from agent.language import intents
    from agent.language.encoder import encode
    from agent.language.intent_exemplars import INTENTS

    texts = [t for examples in INTENTS.values() for t in examples]
    labels = [label for label, examples in INTENTS.items() for _ in examples]
    turns = json.loads(path.read_text())["turns"]
    vectors, traffic = encode(texts), encode([t["text"] for t in turns])

    def probs(model: LogisticRegression, rows: Any) -> list[dict[str, float]]:
        return [dict(zip(model.classes_, map(float, r), strict=True)) for r in model.predict_proba(rows)]

    def read(text: str, p: dict[str, float], override: float) -> str:
        return intents.decide(intents.rule_intent(text), intents.is_question(text), p, override)

    def asks_memory(text: str, p: dict[str, float], override: float) -> bool:
        # as intents.reading: a question the words read as asking one value
        rule = intents.rule_intent(text)
        if rule is not None or not intents.is_question(text):
            return intents.is_question(text) and rule == intents.CHANGING
        return read(text, p, override) in intents.ONE_VALUE

    out = []
    for c in GRID["regularisation"]:
        left_out = []
        for i in range(len(texts)):
            keep = [j for j in range(len(texts)) if j != i]
            model = LogisticRegression(C=c, max_iter=2000).fit(vectors[keep], [labels[j] for j in keep])
            left_out.append(probs(model, vectors[i : i + 1])[0])
        full = probs(LogisticRegression(C=c, max_iter=2000).fit(vectors, labels), traffic)
        for override in GRID["override"]:
            loo = sum(read(t, p, override) == lab for t, p, lab in zip(texts, left_out, labels, strict=True))
            said = [read(t["text"], p, override) for t, p in zip(turns, full, strict=True)]
            plain = [s for s, t in zip(said, turns, strict=True) if t["intent"] == intents.DEFAULT_INTENT]
            out.append(
                {
                    "regularisation": c,
                    "override": override,
                    "exemplars_loo": round(loo / len(texts), 4),
                    "traffic": round(
                        sum(s == t["intent"] for s, t in zip(said, turns, strict=True)) / len(turns), 4
                    ),
                    "ordinary_read_as_complex": sum(s != intents.DEFAULT_INTENT for s in plain),
                    "ordinary_asking_memory": sum(
                        asks_memory(t["text"], p, override)
                        for t, p in zip(turns, full, strict=True)
                        if t["intent"] == intents.DEFAULT_INTENT
                    ),
                    "ordinary": len(plain),
                }
            )
    return out


def main(argv: list[str] | None = None) -> None:
    """Print the reports as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.language", description=__doc__)
    parser.add_argument("--intents", action="store_true", help="the intent classifier's leave-one-out")
    parser.add_argument(
        "--memory", action="store_true", help="leave-one-out of what memory tells a question's intent"
    )
    args = parser.parse_args(argv)
    out: dict[str, Any] = {
        "segmentation": segmentation_report(),
        "segmentation_short_words": segmentation_report(SHORT_WORDS),
    }
    if args.intents:
        out["intents"] = intents_report()
    if args.memory:
        out["memory"] = memory_report()
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
