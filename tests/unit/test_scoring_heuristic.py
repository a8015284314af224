"""The heuristic judge ranks candidates sensibly, is deterministic, is never live, and is refused in
live mode and in prod; provider selection follows the environment."""

import pytest

from rc1.core.config import DIMENSIONS
from rc1.core.errors import Rc1Error
from rc1.scoring.base import JudgeRequest
from rc1.scoring.heuristic import heuristic_scores
from rc1.scoring.judge import make_judge
from rc1.scoring.probe import PROBE_ITEMS, _dialogue
from rc1.scoring.providers import make_provider


def _req(item, kind="correct", dialogue=None):
    return JudgeRequest(item_id=item["id"], candidate_id=kind, task=item["task"], question=item["question"],
                        gold_answer=item["answer"], needs_clarification=item["needs_clarification"],
                        dialogue=dialogue or _dialogue(item, kind, None), hidden_info=item["hidden_info"],
                        context=tuple(item["context"]))


def _mean(s):
    return sum(s.values()) / len(s)


@pytest.mark.parametrize("item", PROBE_ITEMS, ids=[i["id"] for i in PROBE_ITEMS])
def test_correct_beats_wrong_and_verbose(item):
    good, wrong, verbose = (heuristic_scores(_req(item, k)) for k in ("correct", "wrong", "verbose"))
    assert set(good) == set(DIMENSIONS) and all(0 <= v <= 1 for v in good.values())
    assert good["correctness"] == 1.0 and wrong["correctness"] < 0.5
    assert _mean(good) > _mean(wrong)
    assert good["efficiency"] > verbose["efficiency"]
    assert _mean(good) > _mean(verbose)


def test_clarification_is_right_exactly_when_needed():
    needs = next(i for i in PROBE_ITEMS if i["needs_clarification"])
    plain = next(i for i in PROBE_ITEMS if not i["needs_clarification"])
    asked = heuristic_scores(_req(needs, "correct"))
    not_asked_dialogue = tuple(t for t in _dialogue(needs, "correct", None)
                               if "Before I answer" not in (t.get("content") or "")
                               and t.get("content") != needs["hidden_info"])
    missing = heuristic_scores(_req(needs, dialogue=not_asked_dialogue))
    assert asked["clarification"] == 1.0 and missing["clarification"] == 0.0
    needless = heuristic_scores(_req(plain, "needless_clarification"))
    direct = heuristic_scores(_req(plain, "correct"))
    assert direct["clarification"] == 1.0 and needless["clarification"] <= 0.5
    assert direct["efficiency"] > needless["efficiency"]


def test_tool_use_counts_when_it_helps():
    item = next(i for i in PROBE_ITEMS if i["task"] == "gsm8k" and not i["needs_clarification"])
    with_calc = heuristic_scores(_req(item))
    no_tool = tuple(t for t in _dialogue(item, "correct", None) if t["role"] in ("user",) or
                    (t["role"] == "assistant" and not t.get("tool_calls")))
    without = heuristic_scores(_req(item, dialogue=no_tool))
    assert with_calc["tool_use"] > without["tool_use"]


def test_unanswered_dialogue_scores_low_but_is_not_a_failure():
    item = PROBE_ITEMS[0]
    s = heuristic_scores(_req(item, dialogue=({"role": "user", "content": item["question"]},)))
    assert s["correctness"] == 0.0 and s["communication"] < 0.2


def test_deterministic_and_never_live(scorer_env):
    judge = make_judge(cache=False)  # dev, stub: the default is the heuristic
    assert judge.provider == "heuristic" and judge.live is False
    reqs = [_req(i) for i in PROBE_ITEMS[:3]]
    a = judge.score_many(reqs, progress=False)
    b = judge.score_many(reqs, progress=False)
    assert [r.scores for r in a] == [r.scores for r in b]
    assert all(not r.unstable and r.variance[d] == 0.0 for r in a for d in DIMENSIONS)
    stats = judge.stats()
    assert stats["billable_count"] == 0 and stats["calls"] == 2 * 3 * judge.settings.samples


@pytest.mark.parametrize("env", [{"RUN_MODE": "prod"}, {"REWARD_LIVE_MODE": "1"}, {"REWARD_LIVE_MODE": "live"}])
def test_heuristic_refused_in_prod_and_live_mode(scorer_env, monkeypatch, env):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(Rc1Error, match="heuristic judge"):
        make_judge("heuristic", cache=False)
    monkeypatch.setenv("SCORER_PROVIDER", "heuristic")
    with pytest.raises(Rc1Error, match="heuristic judge"):
        make_judge(cache=False)
    monkeypatch.delenv("SCORER_PROVIDER")
    with pytest.raises(Rc1Error, match="SCORER_PROVIDER"):
        make_judge(cache=False)  # no silent default in live mode / prod


def test_heuristic_refused_when_live_is_requested(scorer_env):
    with pytest.raises(Rc1Error, match="heuristic judge"):
        make_judge("heuristic", live=True, cache=False)


def test_bad_switch_values_are_one_line_errors(scorer_env, monkeypatch):
    monkeypatch.setenv("REWARD_LIVE_MODE", "maybe")
    with pytest.raises(Rc1Error, match="REWARD_LIVE_MODE"):
        make_judge(cache=False)
    monkeypatch.delenv("REWARD_LIVE_MODE")
    monkeypatch.setenv("RUN_MODE", "staging")
    with pytest.raises(Rc1Error, match="RUN_MODE"):
        make_judge(cache=False)


def test_provider_selection(scorer_env, monkeypatch):
    with pytest.raises(Rc1Error, match="'claude-direct': not a judge provider; choose one of"):
        make_provider("claude-direct")
    with pytest.raises(Rc1Error, match="SCORER_API_KEY"):
        make_provider("deepseek")
    with pytest.raises(Rc1Error, match="SCORER_BASE_URL"):
        make_provider("vllm", model="m")
    monkeypatch.setenv("SCORER_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(Rc1Error, match="SCORER_MODEL"):
        make_provider("ollama")
    monkeypatch.setenv("SCORER_API_KEY", "sk-test-abc")
    p = make_provider("deepseek")
    assert p.model == "deepseek-chat" and p.base_url == "http://127.0.0.1:9/v1"  # SCORER_BASE_URL overrides
    monkeypatch.delenv("SCORER_BASE_URL")
    g = make_provider("gemini", model="gemini-x")
    assert "generativelanguage.googleapis.com" in g.base_url and g.model == "gemini-x"
    assert "sk-test-abc" not in repr(g.describe())


@pytest.mark.parametrize("text", ["=" + " " * 20000 + "x", "\n" * 20000 + "x", "1" + " " * 20000 + "+",
                                  "because so therefore " * 5000, ("Answer:\n" * 3000) + "[user] ok\n" * 3000])
def test_adversarial_completions_are_scored_in_one_pass(text):
    # these took seconds with the old regexes (quadratic on whitespace runs); speed: benchmarks/bench_answers.py
    item = PROBE_ITEMS[0]
    s = heuristic_scores(_req(item, dialogue=({"role": "user", "content": item["question"]},
                                              {"role": "assistant", "content": text})))
    assert s["correctness"] == 0.0 and all(0 <= v <= 1 for v in s.values())


def _hotpot_item():
    return next(i for i in PROBE_ITEMS if i["task"] == "hotpotqa")


def test_tool_errors_do_not_launder_invented_claims():
    # calc refuses prose without quoting it; even a tool result that did quote it would support nothing ("error:")
    from rc1.data.tools import calc
    from rc1.train.env import Rc1Env, dispatch_tool

    invented = "The architect Brannigor Velliard designed it in 1203 after the Quellmarsh treaty."
    assert "Brannigor" not in calc(invented)
    env = Rc1Env()
    env.reset()
    assert "Brannigor" not in dispatch_tool(env, "Brannigor Velliard", {})
    assert "Quellmarsh" not in dispatch_tool(env, "calc", {"expression": "1", "Quellmarsh": 1})
    item = _hotpot_item()
    user = {"role": "user", "content": item["question"]}
    answer = {"role": "assistant", "content": f"{invented}\nAnswer: Wynbury"}
    plain = heuristic_scores(_req(item, dialogue=(user, answer)))
    for echo in (calc(invented), f"error: cannot parse {invented!r} as arithmetic"):
        laundered = heuristic_scores(_req(item, dialogue=(
            user, {"role": "assistant", "content": "", "tool_calls": [{"name": "calc", "arguments": {"expression": invented}}]},
            {"role": "tool", "name": "calc", "content": echo}, answer)))
        assert laundered["grounding"] <= plain["grounding"], echo


def test_think_blocks_cost_nothing_the_judge_never_sees():
    item = PROBE_ITEMS[0]
    dialogue = list(_dialogue(item, "correct", None))
    thought = dict(dialogue[-1])
    thought["content"] = "<think>" + "Let me compute 12 * 4 = 48 carefully. " * 60 + "</think>\n" + thought["content"]
    assert heuristic_scores(_req(item, dialogue=tuple(dialogue[:-1] + [thought]))) == \
        heuristic_scores(_req(item, dialogue=tuple(dialogue)))


def test_only_arithmetic_that_holds_grounds_its_result():
    # "= 53" after a false equation is an invented number, not a derived one (it used to count as grounding)
    item = next(i for i in PROBE_ITEMS if i["task"] == "gsm8k")
    user = {"role": "user", "content": item["question"]}

    def grounding(text):
        return heuristic_scores(_req(item, dialogue=(user, {"role": "assistant", "content": text})))["grounding"]

    assert grounding("3 * 12 + 6 = 42\nAnswer: 42") == 1.0
    assert grounding("3 x 12 + 6 = 42\nAnswer: 42") == 1.0
    assert grounding("3 * 12 + 6 = 53\nAnswer: 53") == 0.0
    assert grounding("42 = 53\nAnswer: 53") == 0.0
    assert grounding("Answer: 48 = 53") == 0.0


def test_chained_and_rounded_arithmetic_grounds_invented_arithmetic_does_not():
    # an honest chain written as a list or as sentences ("= 7, 7 * 2 = 14") and a result rounded to the decimals
    # written ground their results; a comma only separates thousands when three digits follow it ("=7,8+1=9" is 7,
    # then 9, not 78); a whole number must be exact (a relative tolerance let 10^12 + 999999 pass as 10^6 * 10^6)
    from rc1.scoring.heuristic import _equations

    def _derived(text):
        return _equations(text)[0]

    assert _derived("3 + 4 = 7, 7 * 2 = 14") == {"7", "14"}
    assert _derived("3 + 4 = 7. 7 * 2 = 14") == {"7", "14"}
    assert _derived("3+4=7,8+1=9") == {"7", "9"}
    assert _derived("He pays $10 / 3 = $3.33 each") == {"3.33"}
    assert _derived("1,200 + 300 = 1,500") == {"1", "500"}
    assert _derived("10 / 3 = 3.34") == set() and _derived("10 / 3 = 3") == set()
    assert _derived("1000000 * 1000000 = 1000000999999") == set()
    assert _derived("6 * 8,5 = 40") == set() and _derived("Answer: 48 = 53") == set()
    item = next(i for i in PROBE_ITEMS if i["task"] == "gsm8k")
    user = {"role": "user", "content": item["question"]}
    text = "3 * 12 = 36, 36 + 6 = 42\nAnswer: 42"
    assert heuristic_scores(_req(item, dialogue=(user, {"role": "assistant", "content": text})))["grounding"] == 1.0
