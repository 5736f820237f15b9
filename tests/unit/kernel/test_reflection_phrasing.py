"""Optional model phrasing of insights: used when the model can, the template otherwise, reruns unaffected."""

from __future__ import annotations

from typing import Any

from agent.kernel.reflection.phrasing import phrase
from agent.kernel.reflection.synthesis import changes
from agent.models.chat import make_chat_model
from agent.settings import Settings

TEMPLATE = "Recurring difficulty with recursion: 3 signs of struggle in 2 session(s), 1 of them mistakes."


class Structured:
    """A stand-in chat model with structured output (records the prompt it got)."""

    def __init__(self, reply: Any = None, fail: bool = False) -> None:
        self.reply, self.fail, self.prompts = reply, fail, []

    def with_structured_output(self, schema: type) -> Structured:
        return self

    async def ainvoke(self, prompt: list, config: Any = None) -> Any:
        self.prompts.append(prompt)
        if self.fail:
            raise RuntimeError("model down")
        return self.reply


async def test_a_structured_model_phrases_from_the_template_only() -> None:
    model = Structured({"text": "The learner keeps struggling with recursion (3 times, 2 sessions)."})
    text, by = await phrase(model, "learner-a", TEMPLATE)  # type: ignore[arg-type]
    assert (text, by) == ("The learner keeps struggling with recursion (3 times, 2 sessions).", "model")
    assert model.prompts[0][1].content == TEMPLATE


async def test_offline_failing_or_empty_models_keep_the_template() -> None:
    offline = make_chat_model(Settings.from_env(google_api_key=None).with_overrides(google_api_key=None))
    assert await phrase(offline, "learner-a", TEMPLATE) == (TEMPLATE, "rules")
    assert await phrase(None, "learner-a", TEMPLATE) == (TEMPLATE, "rules")
    assert await phrase(Structured(fail=True), "learner-a", TEMPLATE) == (TEMPLATE, "rules")  # type: ignore[arg-type]
    assert await phrase(Structured({"text": "  "}), "learner-a", TEMPLATE) == (TEMPLATE, "rules")  # type: ignore[arg-type]


def test_reruns_compare_the_rules_text_not_the_phrased_text() -> None:
    node = {
        "id": "i1",
        "props": {"text": TEMPLATE, "rules_text": TEMPLATE, "evidence_count": 3},
        "evidence": [],
    }
    stored = {
        "i1": {
            "props": {**node["props"], "text": "phrased by a model", "phrased_by": "model"},
            "evidence": set(),
        }
    }
    assert changes([node], stored, 10) == ([], [], [])
    moved = {**node, "props": {**node["props"], "rules_text": TEMPLATE + " more", "text": TEMPLATE + " more"}}
    assert changes([moved], stored, 10)[2] == ["i1"]


async def test_phrase_all_keeps_the_order_and_falls_back_per_insight() -> None:
    from agent.kernel.reflection.phrasing import phrase_all

    assert await phrase_all(None, "learner-a", ["a", "b"]) == [("a", "rules"), ("b", "rules")]
    model = Structured({"text": "phrased"})
    assert await phrase_all(model, "learner-a", ["a", "b", "c"]) == [("phrased", "model")] * 3  # type: ignore[arg-type]
