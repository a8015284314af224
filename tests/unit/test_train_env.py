"""The rollout environment: tools bound to the seed, clarifying questions answered with hidden_info."""

import json

from rc1.scoring.dialogue import analyze
from rc1.train.env import BUDGET_EXHAUSTED, NOTHING_TO_ADD, Rc1Env, dispatch_tool, pool_item_prompt, to_rc1_dialogue

SEED = {"id": "hotpotqa:1", "task": "hotpotqa", "answer": "France", "needs_clarification": True,
        "hidden_info": "I mean the city on the Seine.",
        "dialogue": [{"role": "system", "content": "Be careful."}, {"role": "user", "content": "Which country is that city in?"}],
        "context": [["Paris", ["Paris is on the Seine.", " It is in France."]], ["Lyon", ["Lyon is on the Rhone."]]]}


def env_for(pool_item, max_turns=6):
    env = Rc1Env(max_turns=max_turns)
    env.reset(seed_json=json.dumps(pool_item), prompt=[], step=0)
    return env


def test_clarifying_question_is_answered_with_hidden_info():
    assert env_for(SEED).ask_user("Which city?") == "I mean the city on the Seine."
    plain = {**SEED, "needs_clarification": False, "hidden_info": None}
    assert env_for(plain).ask_user("Which city?") == NOTHING_TO_ADD


def test_tools_use_the_seeds_context_and_calc():
    env = env_for(SEED)
    assert env.wiki("Seine river city").startswith("Paris: Paris is on the Seine.")
    assert env.calc("(48 / 2) + 48") == "72"
    assert dispatch_tool(env, "calc", {"expression": "2**3"}) == "8"
    assert dispatch_tool(env, "nope", {}).startswith("error: unknown tool")
    assert dispatch_tool(env, "wiki", {"q": "x"}).startswith("error: bad arguments")


def test_turn_budget_ends_tool_use():
    env = env_for(SEED, max_turns=2)          # one tool round, then the final answer
    assert env.calc("1+1") == "2"
    assert env.calc("1+1") == BUDGET_EXHAUSTED
    assert env.ask_user("?") == BUDGET_EXHAUSTED


def test_reset_starts_a_new_episode():
    env = env_for(SEED)
    env.calc("1+1")
    env.reset(seed_json=json.dumps({**SEED, "context": [["Rome", ["Rome is in Italy."]]]}))
    assert env.calls == [] and env.wiki("Rome").startswith("Rome:")


def test_trl_messages_become_rc1_dialogue():
    completion = [
        {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "ask_user", "arguments": {"question": "Which city?"}}}]},
        {"role": "tool", "name": "ask_user", "content": "I mean the city on the Seine."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "wiki", "arguments": {"query": "Seine"}}}]},
        {"role": "tool", "name": "wiki", "content": "Paris: Paris is on the Seine."},
        {"role": "assistant", "content": "It is Paris.\nAnswer: France"},
    ]
    dialogue = SEED["dialogue"] + to_rc1_dialogue([], completion)
    stats = analyze(dialogue, len(SEED["dialogue"]))
    assert (stats.clarifications, stats.tool_calls, stats.final_answer, stats.answered) == (1, 1, "France", True)
    assert dialogue[2] == {"role": "assistant", "content": "Which city?"}
    assert dialogue[3] == {"role": "user", "content": "I mean the city on the Seine."}


def test_seed_prompt_ends_with_the_users_turn():
    msgs = pool_item_prompt(SEED)
    assert [m["role"] for m in msgs] == ["system", "user"]
    with_tool = {**SEED, "dialogue": SEED["dialogue"] + [{"role": "tool", "name": "wiki", "content": "x"}]}
    assert pool_item_prompt(with_tool)[-1]["role"] == "user"


def test_an_empty_ask_user_is_not_a_clarification():
    from rc1.train.env import EMPTY_QUESTION

    for question in ("", "   ", None):
        env = env_for(SEED)
        assert env.ask_user(question) == EMPTY_QUESTION          # the hidden info is not given away
        assert env.calls == [("ask_user", {"question": question}, EMPTY_QUESTION)]
    completion = [
        {"role": "assistant", "content": "Let me ask.", "tool_calls": [
            {"type": "function", "function": {"name": "ask_user", "arguments": {"question": ""}}}]},
        {"role": "tool", "name": "ask_user", "content": EMPTY_QUESTION},
        {"role": "assistant", "content": "Answer: France"},
    ]
    dialogue = SEED["dialogue"] + to_rc1_dialogue([], completion)
    stats = analyze(dialogue, len(SEED["dialogue"]))
    assert (stats.clarifications, stats.tool_calls, stats.answered) == (0, 1, True)


def test_a_lone_surrogate_from_a_tool_calls_json_leaves_the_dialogue_writable(tmp_path):
    # JSON's "\ud800" escape gives a str no UTF-8 encoder takes: evaluation wrote such a dialogue with write_jsonl
    # (UnicodeEncodeError: the stage failed on what the policy wrote)
    from rc1.core.io import write_jsonl

    call = json.loads('{"type": "function", "function": {"name": "ask_user", "arguments": {"question": "Which \\ud800?"}}}')
    completion = [{"role": "assistant", "content": "", "tool_calls": [call]},
                  {"role": "tool", "name": "ask_user", "content": "I mean 2019."},
                  {"role": "assistant", "content": "Answer: 12 \udc00"}]
    dialogue = to_rc1_dialogue([{"role": "user", "content": "q"}], completion)
    assert [t["content"] for t in dialogue] == ["q", "Which \ufffd?", "I mean 2019.", "Answer: 12 \ufffd"]
    assert analyze(dialogue, 1).clarifications == 1
    assert write_jsonl(tmp_path / "d.jsonl", [{"dialogue": dialogue}]) == 1
