from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from agent.heartbeat.prompts import learner_name
from agent.heartbeat.summarizer import MAX_SUMMARY_CHARS, extractive_summary
from agent.heartbeat.tokens import count_messages, count_text
from agent.heartbeat.working_memory import compile_prompt, eviction_cut, pressure


def _call(i):
    return AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": f"c{i}", "type": "tool_call"}])


def _result(i):
    return ToolMessage(content="r", tool_call_id=f"c{i}", name="t")


def test_compile_order_is_system_core_queue():
    queue = [HumanMessage("hi"), AIMessage("hello")]
    prompt = compile_prompt({"user_profile": "Name: Ana", "current_goals": "SQL"}, queue)
    assert isinstance(prompt[0], SystemMessage)
    head = prompt[0].content
    assert head.index("Personal Knowledge OS") < head.index("CORE MEMORY") < head.index("<user_profile>")
    assert "Ana's Personal Knowledge OS" in head
    assert prompt[1:] == queue


def test_text_protocol_prompt_mentions_markers():
    head = compile_prompt({}, [], text_protocol=True)[0].content
    assert "[FUNCTION]" in head and "[FINAL_ANSWER]" in head


def test_pressure_is_tokens_over_budget():
    prompt = [HumanMessage("x" * 4000)]
    assert pressure(prompt, 1000) == count_messages(prompt) / 1000
    assert count_text("abcd" * 10) == 10


def test_cut_takes_half():
    queue = [HumanMessage(str(i)) for i in range(10)]
    assert eviction_cut(queue, 0.5) == 5


def test_cut_never_separates_a_call_from_its_results():
    queue = [
        HumanMessage("a"),
        HumanMessage("b"),
        _call(1),
        _result(1),
        _result(1),
        HumanMessage("c"),
    ]
    cut = eviction_cut(queue, 0.5)
    assert cut == 5  # moved past both results
    assert not isinstance(queue[cut], ToolMessage)


def test_cut_moves_back_when_forward_would_evict_everything():
    queue = [AIMessage("a"), _call(1), _result(1)]
    cut = eviction_cut(queue, 0.5)
    assert cut == 1  # the call and its result stay together
    assert queue[cut:] == queue[1:]


def test_cut_on_tiny_queue_is_zero():
    assert eviction_cut([HumanMessage("only")], 0.5) == 0


def test_every_cut_is_safe_for_random_layouts():
    import random

    rng = random.Random(7)
    for _ in range(200):
        queue, i = [], 0
        for _ in range(rng.randint(2, 30)):
            if rng.random() < 0.4:
                i += 1
                queue += [_call(i)] + [_result(i) for _ in range(rng.randint(1, 3))]
            else:
                queue.append(HumanMessage("m"))
        cut = eviction_cut(queue, 0.5)
        assert 0 <= cut < len(queue)
        if cut:
            assert not isinstance(queue[cut], ToolMessage)
            assert not (isinstance(queue[cut - 1], AIMessage) and queue[cut - 1].tool_calls)


def test_extractive_summary_folds_previous_and_is_capped():
    first = extractive_summary("", [HumanMessage("My name is Ana. I like SQL."), AIMessage("Welcome!")])
    assert first.splitlines() == ["- user: My name is Ana.", "- assistant: Welcome!"]
    second = extractive_summary(first, [HumanMessage("Joins combine rows. More.")])
    assert second.startswith(first)
    assert second.endswith("- user: Joins combine rows.")
    huge = extractive_summary("", [HumanMessage(f"Fact number {i} is here.") for i in range(500)])
    assert len(huge) <= MAX_SUMMARY_CHARS
    assert huge.endswith("Fact number 499 is here.")  # newest facts survive


def test_learner_name():
    assert learner_name({"user_profile": "My name is Ana."}) == "Ana"
    assert learner_name({}) == "the learner"


def test_cut_never_reaches_the_current_turn():
    queue = [HumanMessage("old"), AIMessage("a"), HumanMessage("current"), _call(1), _result(1)]
    cut = eviction_cut(queue, 0.9)
    assert cut == 2
    assert queue[cut].content == "current"
    assert eviction_cut([HumanMessage("current"), _call(1), _result(1)], 0.5) == 0
