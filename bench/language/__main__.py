"""``python -m bench.language``: sentence-boundary accuracy of the language layer's splitter.

- **Segmentation** (``bench/cognitive/sets/segmentation.json``, ``kag-segmentation-v1``): each
  text is its gold sentences joined by one space; a boundary is the offset where a sentence
  starts. Boundary accuracy is the share of gold and predicted boundaries that agree
  (``|gold ∩ predicted| / |gold ∪ predicted|``); exact sentences is the share of gold
  sentences returned whole. Target ≥ 98%.

(The exemplar classifiers' leave-one-out that stood here went with the classifiers: measured,
not shipped, docs/decisions/language-layer.md.)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agent.language.sentences import split_sentences

SEGMENTATION = Path(__file__).resolve().parents[1] / "cognitive" / "sets" / "segmentation.json"


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


def main(argv: list[str] | None = None) -> None:
    """Print the reports as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.language", description=__doc__)
    parser.parse_args(argv)
    out: dict[str, Any] = {"segmentation": segmentation_report()}
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
