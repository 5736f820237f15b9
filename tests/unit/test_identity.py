"""Every node of every served graph acts for the authenticated learner only."""

import pytest
from langchain_core.runnables import RunnableConfig

from agent.errors import LearnerMismatchError
from agent.identity import bind_learner, is_bound
from agent.resources import Resources
from agent.settings import Settings
from graphs.consult import make_builder as consult_builder
from graphs.heartbeat import make_builder as heartbeat_builder
from graphs.reflection import make_builder as reflection_builder
from graphs.zettelkasten import make_builder as zettelkasten_builder
from tests.scripted_models import ScriptedChatModel


def auth(learner: str) -> RunnableConfig:
    return {"configurable": {"langgraph_auth_user_id": learner}}


async def test_a_bound_node_sees_the_authenticated_learner_and_refuses_another():
    seen = []

    async def node(state, config: RunnableConfig):
        seen.append(state["learner_id"])
        return {}

    bound = bind_learner(node)
    await bound({}, auth("learner-ada"), None)
    await bound({"learner_id": "learner-ada"}, auth("learner-ada"), None)
    await bound({"learner_id": "learner-bob"}, {"configurable": {}}, None)  # plain Python: state wins
    assert seen == ["learner-ada", "learner-ada", "learner-bob"]
    with pytest.raises(LearnerMismatchError):
        await bound({"learner_id": "learner-bob"}, auth("learner-ada"), None)
    assert len(seen) == 3, "a refused node never runs"


@pytest.mark.parametrize(
    "build",
    [heartbeat_builder, zettelkasten_builder, reflection_builder, consult_builder],
    ids=["kag", "zettelkasten", "reflection", "consult"],
)
def test_every_node_of_the_served_graphs_is_bound(build):
    bundle = Resources(Settings.from_env(google_api_key=None), chat_model=ScriptedChatModel(responses=[]))
    builder = build(bundle)
    assert builder.nodes
    for name, spec in builder.nodes.items():
        assert is_bound(spec.runnable.func or spec.runnable.afunc), f"node {name!r} is not bound"
