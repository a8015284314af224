"""The responder: reference variants are deterministic and actually contrastive; model and endpoint kinds
produce dialogues that follow rc1.dialogue's conventions."""

import pytest

from rc1.scoring.answers import is_correct
from rc1.scoring.dialogue import analyze
from rc1.core.errors import Rc1Error
from rc1.core.records import make_task
from rc1.scoring.responder import ReferenceResponder, ShadowItem, calculations, make_responder

HOTPOT = make_task(
    "hotpotqa", "h1", "Which city is the birthplace of the author of Blue Harbor?", "Lisbon",
    context=[["Blue Harbor", ["Blue Harbor is a 1998 novel by Ana Prado.", " It is set at sea."]],
             ["Ana Prado", ["Ana Prado (born 1950) is a writer born in Lisbon.", " She lives in Porto."]],
             ["Porto", ["Porto is a city in Portugal."]]],
    supporting_facts=[["Blue Harbor", 0], ["Ana Prado", 0]])
STRATEGY = make_task("strategyqa", "s1", "Could a goldfish survive in the Dead Sea?", "no",
                     facts=["The Dead Sea is extremely salty.", "Goldfish are freshwater fish."],
                     decomposition=["How salty is the Dead Sea?", "Can goldfish live in salt water?"])
GSM = make_task("gsm8k", "g1", "Natalia sold clips to 48 friends in April and half as many in May. How many in total?",
                "72", decomposition=["Natalia sold 48/2 = 24 clips in May.", "Natalia sold 48+24 = 72 clips altogether."])
CLARIFY_SEED = {
    "id": "seed:c1", "task": "gsm8k", "source_id": "g2", "template_id": "clarify-1", "role": "student",
    "style": "casual", "needs_clarification": True, "hidden_info": "Each box holds 6 eggs.",
    "dialogue": [{"role": "system", "content": "Help the user."},
                 {"role": "user", "content": "I bought 4 boxes of eggs. How many eggs do I have?"}],
    "tools": ["calc"], "expected_tool_calls": [{"name": "calc", "arguments": {"expression": "4*6"}}],
    "answer": "24", "context": []}

ITEMS = [ShadowItem.from_record(r) for r in (HOTPOT, STRATEGY, GSM, CLARIFY_SEED)]


def _by_kind(item, seed=7):
    return {c.kind: c for c in ReferenceResponder(k=6, seed=seed).candidates(item)}


def _stats(c):
    return analyze(list(c.dialogue), c.prefix_len)


def test_reference_variants_are_deterministic_for_a_seed():
    for item in ITEMS:
        a = ReferenceResponder(k=6, seed=7).candidates(item)
        b = ReferenceResponder(k=6, seed=7).candidates(item)
        assert a == b
        assert [c.dialogue for c in a] != [c.dialogue for c in ReferenceResponder(k=6, seed=8).candidates(item)]


@pytest.mark.parametrize("item", ITEMS[:3], ids=lambda i: i.task)
def test_reference_variants_are_contrastive_for_items_without_clarification(item):
    c = _by_kind(item)
    assert list(c) == ["correct", "wrong_answer", "needless_clarification", "bare_answer", "no_tool", "verbose"]
    st = {k: _stats(v) for k, v in c.items()}
    for kind in ("correct", "needless_clarification", "bare_answer", "no_tool", "verbose"):
        assert is_correct(item.task, st[kind].final_answer, item.answer), kind
    assert not is_correct(item.task, st["wrong_answer"].final_answer, item.answer)
    assert st["correct"].clarifications == 0 and 1 <= st["needless_clarification"].clarifications <= 3
    assert st["no_tool"].tool_calls == 0 and st["bare_answer"].tool_calls == 0
    if item.task in ("hotpotqa", "gsm8k"):  # tools help there: the correct variant uses them, for real
        assert st["correct"].tool_calls >= 1
        tool_turns = [t for t in c["correct"].dialogue if t["role"] == "tool"]
        assert tool_turns and not any(t["content"].startswith("error") for t in tool_turns)
    words = lambda k: len(st[k].final_text.split())  # noqa: E731
    assert words("verbose") > 2 * words("correct") and words("bare_answer") <= 3


def test_reference_variants_for_an_item_that_needs_clarification():
    item = ITEMS[3]
    c = _by_kind(item)
    assert list(c) == ["correct", "wrong_answer", "needless_clarification", "missing_clarification", "no_tool",
                       "verbose"]
    st = {k: _stats(v) for k, v in c.items()}
    assert st["correct"].clarifications == 1 and is_correct("gsm8k", st["correct"].final_answer, "24")
    reply = c["correct"].dialogue[c["correct"].prefix_len + 1]
    assert reply == {"role": "user", "content": "Each box holds 6 eggs."}   # the user reveals hidden_info
    assert st["missing_clarification"].clarifications == 0
    assert st["needless_clarification"].clarifications >= 2
    assert calculations(item) == [("4*6", "24")]   # from the seed's expected tool calls


def test_more_candidates_than_variants_repeat_kinds_with_other_phrasing():
    cands = ReferenceResponder(k=8, seed=1).candidates(ITEMS[0])
    assert len(cands) == 8 and len({c.candidate_id for c in cands}) == 8
    assert [c.kind for c in cands[6:]] == ["correct#2", "wrong_answer#2"]


def test_make_responder_refuses_unknown_or_incomplete_kinds():
    with pytest.raises(Rc1Error, match="unknown responder"):
        make_responder("oracle")
    with pytest.raises(Rc1Error, match="responder-model"):
        make_responder("model")
    with pytest.raises(Rc1Error, match="not a local model directory"):
        make_responder("model", model="/nonexistent/model")
    with pytest.raises(Rc1Error, match="responder-base-url"):
        make_responder("endpoint", model="m")


def test_model_responder_generates_with_the_chat_template(tmp_path, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    from rc1.train.tiny import build_tiny

    path = build_tiny(tmp_path / "tiny", ["Answer: 72", "How many clips did Natalia sell?"], seed=0,
                      shape={"vocab_size": 400, "num_hidden_layers": 1})
    resp = make_responder("model", k=2, seed=3, model=str(path), max_new_tokens=6)
    a = resp.candidates(ITEMS[2])
    assert len(a) == 2 and all(c.kind == "sample" for c in a)
    for c in a:
        assert c.dialogue[: c.prefix_len] == ITEMS[2].prefix and c.dialogue[c.prefix_len]["role"] == "assistant"
    assert a == make_responder("model", k=2, seed=3, model=str(path), max_new_tokens=6).candidates(ITEMS[2])
    assert resp.describe()["kind"] == "model"


def test_endpoint_responder_talks_to_an_openai_compatible_server(fake_judge_server, monkeypatch):
    srv = fake_judge_server()
    monkeypatch.setenv("RESPONDER_API_KEY", "sk-responder-secret")
    resp = make_responder("endpoint", k=2, seed=0, model="policy", base_url=srv.url)
    cands = resp.candidates(ITEMS[1])
    assert len(cands) == 2
    for c in cands:
        ep = c.dialogue[c.prefix_len:]
        assert ep and ep[-1]["role"] == "assistant" and ep[-1]["content"]
    assert "sk-responder-secret" not in repr(resp.describe())
