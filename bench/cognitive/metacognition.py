"""The design's metacognition metrics, computed from the recorded runs (no model, no new searches).

The heartbeat reports, per request, an ``effort`` record in the output ``memory_state``
(``agent.heartbeat.state.EffortReport``): the classified ``intent``, its step ``budget``,
``steps_used``, sufficiency ``evaluations`` and the last ``sufficient`` judgement,
``self_corrections`` (widened re-queries), and the ``retrieved`` slot ids with those the
answer ``used``. From those records and the probe verdicts:

- **Effort calibration**: does the effort fit the question? (a) the intent the
  classifier gives each probe query against the intent its level calls for
  (``EXPECTED_INTENTS``: L2 synthesis, L3 temporal, L4 procedural, L5 contradiction…);
  (b) per intent, the steps used against the budget, and how often a request used its
  whole budget (a sign the budget is too tight).
- **Sufficiency judgement**: how often the appraisal judged its retrieval sufficient,
  and whether that judgement agrees with the ground truth of the probe run after the
  same session (the last evaluated request of the session: sufficient and the probe
  passes on KAG's search, or insufficient and it fails).
- **Search quality**: the share of retrieved facts (slots) the answer used.
- **Self-correction**: requests that re-queried after an insufficient evaluation, and
  the share of those that ended sufficient.

A metric without records (e.g. no request was evaluated) is ``None``, never 0.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

EXPECTED_INTENTS: dict[str, frozenset[str]] = {
    "L1": frozenset({"simple_recall"}),
    "L2": frozenset({"multi_source_synthesis"}),
    "L3": frozenset({"temporal_comparison"}),
    "L4": frozenset({"procedural"}),
    "L5": frozenset({"contradiction_resolution"}),
    "L6": frozenset({"contradiction_resolution", "simple_recall"}),
}
"""The intents whose effort a level's questions call for (L6: the current value, or a plain recall)."""

MEANINGS = {
    "effort_calibration": "probe queries classified with the intent their level calls for; steps used "
    "against the budget per intent (exhausted: requests that used their whole budget)",
    "sufficiency": "share of evaluated requests judged sufficient, and agreement of the last judgement "
    "of a session with the probe run after it (sufficient and passes, or insufficient and fails)",
    "search_quality": "retrieved fact slots the answer used, over all retrieved slots",
    "self_correction": "requests that re-queried after an insufficient evaluation, and the share of "
    "them that ended sufficient",
}


def _ratio(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def _effort(turn: Mapping[str, Any]) -> dict[str, Any]:
    return dict((turn.get("memory_state") or {}).get("effort") or {})


def effort_calibration(scenarios: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Intent agreement on probes (per level) and steps used against the budget (per intent)."""
    scenarios = list(scenarios)
    agree = Counter[str]()
    total = Counter[str]()
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for scenario in scenarios:
        level = scenario["level"]
        for probe in scenario["probes"]:
            intent = (probe.get("systems", {}).get("kag") or {}).get("intent")
            if intent is None or level not in EXPECTED_INTENTS:
                continue
            total[level] += 1
            agree[level] += intent in EXPECTED_INTENTS[level]
            confusion[level][intent] += 1
    steps: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"budget": [], "used": []})
    for scenario in scenarios:
        for turn in scenario["turns"]:
            effort = _effort(turn)
            if "intent" in effort and "budget" in effort and "steps_used" in effort:
                steps[effort["intent"]]["budget"].append(int(effort["budget"]))
                steps[effort["intent"]]["used"].append(int(effort["steps_used"]))
    per_intent = {}
    for intent, v in sorted(steps.items()):
        n = len(v["used"])
        per_intent[intent] = {
            "requests": n,
            "budget": round(sum(v["budget"]) / n, 2),
            "steps_used": round(sum(v["used"]) / n, 2),
            "used_share": _ratio(sum(v["used"]), sum(v["budget"])),
            "exhausted": _ratio(sum(u >= b for u, b in zip(v["used"], v["budget"], strict=True)), n),
        }
    return {
        "probe_intent_agreement": _ratio(sum(agree.values()), sum(total.values())),
        "probe_intents_by_level": {lv: dict(confusion[lv]) for lv in sorted(confusion)},
        "agreement_by_level": {lv: _ratio(agree[lv], total[lv]) for lv in sorted(total)},
        "steps_by_intent": per_intent,
    }


def sufficiency(scenarios: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Sufficient share of evaluated requests; agreement of a session's last judgement with its probes."""
    evaluated = judged_sufficient = 0
    agree = compared = 0
    coverage: list[float] = []
    for scenario in scenarios:
        last_by_session: dict[str, dict[str, Any]] = {}
        for turn in scenario["turns"]:
            effort = _effort(turn)
            if int(effort.get("evaluations") or 0) <= 0:
                continue
            evaluated += 1
            judged_sufficient += bool(effort.get("sufficient"))
            if effort.get("coverage") is not None:
                coverage.append(float(effort["coverage"]))
            last_by_session[turn["session"]] = effort
        for probe in scenario["probes"]:
            effort = last_by_session.get(probe["after"])
            kag = probe.get("systems", {}).get("kag")
            if effort is None or kag is None or effort.get("sufficient") is None:
                continue
            compared += 1
            agree += bool(effort["sufficient"]) == bool(kag.get("passed"))
    return {
        "evaluated_requests": evaluated,
        "sufficient_share": _ratio(judged_sufficient, evaluated),
        "mean_coverage": _ratio(sum(coverage), len(coverage)),
        "probes_compared": compared,
        "agreement_with_probes": _ratio(agree, compared),
    }


def search_quality(scenarios: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Retrieved slots the answer used, over all retrieved slots (and per intent)."""
    retrieved = used = 0
    per_intent: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for scenario in scenarios:
        for turn in scenario["turns"]:
            effort = _effort(turn)
            got = set(effort.get("retrieved") or [])
            if not got:
                continue
            hit = len(got & set(effort.get("used") or []))
            retrieved += len(got)
            used += hit
            entry = per_intent[str(effort.get("intent", "?"))]
            entry[0] += hit
            entry[1] += len(got)
    return {
        "retrieved": retrieved,
        "used": used,
        "used_share": _ratio(used, retrieved),
        "by_intent": {k: _ratio(u, r) for k, (u, r) in sorted(per_intent.items())},
    }


def self_correction(scenarios: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Requests that self-corrected, total re-queries, and the share that ended sufficient."""
    requests = corrected = corrections = recovered = 0
    for scenario in scenarios:
        for turn in scenario["turns"]:
            effort = _effort(turn)
            if not effort:
                continue
            requests += 1
            n = int(effort.get("self_corrections") or 0)
            if n:
                corrected += 1
                corrections += n
                recovered += bool(effort.get("sufficient"))
    return {
        "requests_with_effort": requests,
        "corrected_requests": corrected,
        "corrections": corrections,
        "corrected_share": _ratio(corrected, requests),
        "recovered_share": _ratio(recovered, corrected),
    }


def metacognition(scenarios: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """All four metrics over the scenario records of a results file (``ScenarioResult.to_dict()``)."""
    scenarios = list(scenarios)
    return {
        "effort_calibration": effort_calibration(scenarios),
        "sufficiency": sufficiency(scenarios),
        "search_quality": search_quality(scenarios),
        "self_correction": self_correction(scenarios),
        "meanings": MEANINGS,
    }
