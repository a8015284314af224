from rc1.scoring.answers import exact_match, f1, is_correct
from rc1.scoring.dialogue import analyze, extract_answer

PREFIX = [{"role": "system", "content": "s"}, {"role": "user", "content": "How many apples?"}]


def test_clarification_tool_call_and_answer_are_counted():
    ep = [
        {"role": "assistant", "content": "How many apples did she start with?"},
        {"role": "user", "content": "She started with 5."},
        {"role": "assistant", "content": "", "tool_calls": [{"name": "calc", "arguments": {"expression": "5*2"}}]},
        {"role": "tool", "name": "calc", "content": "10"},
        {"role": "assistant", "content": "She has 10.\nAnswer: 10"},
    ]
    st = analyze(PREFIX + ep, prefix_len=len(PREFIX))
    assert (st.clarifications, st.tool_calls, st.assistant_turns, st.turns) == (1, 1, 3, 5)
    assert st.answered and st.final_answer == "10"


def test_unanswered_question_at_the_end_is_not_a_clarification():
    # only a question the user answered counts as a clarification; an episode cut after a tool call has no answer
    st = analyze(PREFIX + [{"role": "assistant", "content": "Which apples?"}], prefix_len=2)
    assert st.clarifications == 0 and st.final_answer == "Which apples?"
    cut = analyze(PREFIX + [{"role": "assistant", "content": "", "tool_calls": [{"name": "calc", "arguments": {}}]}], 2)
    assert not cut.answered and cut.final_answer == "" and cut.tool_calls == 1
    assert extract_answer("Step 1\n#### 1,200") == "1,200"


def test_task_correctness():
    assert is_correct("gsm8k", "so 1,200 dollars", "1200")
    assert not is_correct("gsm8k", "1201", "1200")
    assert is_correct("strategyqa", "Yes, because ...", "yes")
    assert is_correct("strategyqa", "No.", False)
    assert not is_correct("strategyqa", "yes", False)
    assert is_correct("hotpotqa", "the T. R. M. Howard", "T. R. M. Howard")
    assert not is_correct("hotpotqa", "Paris", "London")
    assert exact_match("The Beatles", "beatles") and 0 < f1("John Lennon", "Lennon") < 1
    assert not is_correct("hotpotqa", "", "x")


# ---------------------------------------------------------------- one extractor, hedges, linear time
import time  # noqa: E402

import pytest  # noqa: E402

from rc1.scoring.answers import final_answer  # noqa: E402
from rc1.scoring.dialogue import strip_think  # noqa: E402


@pytest.mark.parametrize("text,task,gold", [
    ("Step 1: 6 x 7\nAnswer: 42", "gsm8k", "42"),
    ("**Answer:** 42", "gsm8k", "42"),
    ("**Final Answer**\n\\boxed{42}", "gsm8k", "42"),
    ("So 6 × 7 = 42.", "gsm8k", "42"),
    ("#### 1,200", "gsm8k", "1200"),
    ("Final answer: Lake Morrow.", "hotpotqa", "Lake Morrow"),
    ("Answer: Ready or Not", "hotpotqa", "Ready or Not"),
    ("Yes. It is taller.\nAnswer: yes", "strategyqa", "yes"),
    ("<think>Answer: 41</think>\nAnswer: 42", "gsm8k", "42"),
])
def test_answers_in_the_usual_formats_are_found(text, task, gold):
    st = analyze(PREFIX + [{"role": "assistant", "content": text}], len(PREFIX))
    assert is_correct(task, st.final_answer, gold) and not st.hedged


@pytest.mark.parametrize("text,task,golds", [
    ("Answer: 36\n42", "gsm8k", ("36", "42")),                      # the GSM8K hedge
    ("Answer: 36 or 42", "gsm8k", ("36", "42")),
    ("Answer: 36\nAnswer: 42", "gsm8k", ("36", "42")),
    ("27.\nHe had 30 and paid 3.\nAnswer: 28", "gsm8k", ("27", "28")),
    ("No. Snow is cold, so it melts.\nAnswer: yes", "strategyqa", ("yes", "no")),   # the StrategyQA hedge
    ("Answer: yes or no", "strategyqa", ("yes", "no")),
    ("Answer: yes/no", "strategyqa", ("yes", "no")),                 # both verdicts, joined by punctuation
    ("Answer: Yes,no", "strategyqa", ("yes", "no")),
    ("Answer: true / false", "strategyqa", ("yes", "no")),
    ("Answer: Angampora\nclose range combat", "hotpotqa", ("Angampora", "close range combat")),
    ("Answer: Marsh deer or New Zealand, Canada, the United States and Peru", "hotpotqa",
     ("Marsh deer", "New Zealand, Canada, the United States and Peru")),
    # a box does not override the other statements of the answer: they must all agree
    ("Answer: 53\n\\boxed{48}", "gsm8k", ("53", "48")),
    ("The answer is 53.\n\\boxed{48}", "gsm8k", ("53", "48")),
    ("Answer: \\boxed{53} \\boxed{48}", "gsm8k", ("53", "48")),
    ("\\boxed{53} or \\boxed{48}", "gsm8k", ("53", "48")),
    ("Answer: 53. (Double-check via the other route gives \\boxed{48})", "gsm8k", ("53", "48")),
    ("Answer: Wynbury Abbey\n\\boxed{Victor Kelmore}", "hotpotqa", ("Wynbury Abbey", "Victor Kelmore")),
    # alternatives joined by a comma, parentheses, "and", "vs" or "&" (F1 of the whole would be 0.8)
    ("Answer: Victor Kelmore, Wynbury", "hotpotqa", ("Victor Kelmore", "Wynbury")),
    ("Answer: Victor Kelmore (Wynbury)", "hotpotqa", ("Victor Kelmore", "Wynbury")),
    ("Answer: Victor Kelmore and Wynbury", "hotpotqa", ("Victor Kelmore", "Wynbury")),
    ("Answer: Wynbury vs Victor Kelmore", "hotpotqa", ("Victor Kelmore", "Wynbury")),
    ("Answer: Victor Kelmore & Wynbury", "hotpotqa", ("Victor Kelmore", "Wynbury")),
    ("Answer: Tom and Jerry, Spike", "hotpotqa", ("Tom and Jerry", "Spike")),
])
def test_hedged_multiple_final_answers_are_wrong_whatever_the_gold(text, task, golds):
    st = analyze(PREFIX + [{"role": "assistant", "content": text}], len(PREFIX))
    for gold in golds:
        assert not is_correct(task, st.final_answer, gold), (text, gold)


@pytest.mark.parametrize("text,gold", [
    ("Answer: Simon and Garfunkel", "Simon and Garfunkel"),     # a gold with "and", commas or parentheses matches
    ("Answer: Simon & Garfunkel", "Simon and Garfunkel"),       # itself, and its other spellings are not hedges
    ("Answer: Washington, D.C.", "Washington, D.C."),
    ("Answer: New Zealand, Canada, the United States and Peru", "New Zealand, Canada, the United States and Peru"),
    ("Answer: Paris (France)", "Paris (France)"),
])
def test_gold_answers_with_separators_still_match(text, gold):
    st = analyze(PREFIX + [{"role": "assistant", "content": text}], len(PREFIX))
    assert is_correct("hotpotqa", st.final_answer, gold) and not st.hedged


@pytest.mark.parametrize("text", [
    "The answer is 48.\n\\boxed{48}", "Answer: \\boxed{48}", "12 * 4 = 48, so \\boxed{48}\nAnswer: 48",
    "So the answer is:\n\\boxed{48}", "The answer is not obvious, but 12 * 4 = 48.\n\\boxed{48}",
    "So the answer is 12 * 4 = 48.\nAnswer: 48",
])
def test_agreeing_statements_are_one_answer(text):
    st = analyze(PREFIX + [{"role": "assistant", "content": text}], len(PREFIX))
    assert st.final_answer == "48" and not st.hedged


def test_evaluate_and_the_heuristic_judge_agree_on_success():
    # training's reward (heuristic correctness) and evaluate's success read the final answer the same way
    from rc1.inference.policy_vs_base import item_row
    from rc1.scoring.base import JudgeRequest
    from rc1.scoring.heuristic import heuristic_scores

    item = {"id": "x", "task": "gsm8k", "answer": "42", "dialogue": PREFIX, "needs_clarification": False}
    for text in ("Answer: 42", "Answer: 36\n42", "No.\nAnswer: 42", "42", "So 6 x 7 = 42.", "Answer: 41\nAnswer: 42",
                 "<think>42</think>Answer: 41", "Answer: 42 or 41", ""):
        dialogue = PREFIX + [{"role": "assistant", "content": text}]
        success = item_row(item, dialogue, "shadow", None)["success"]
        req = JudgeRequest("x", "c", "gsm8k", "How many apples?", "42", False, tuple(dialogue))
        assert success == (heuristic_scores(req)["correctness"] == 1.0), text


def test_strip_think():
    assert strip_think("<think>a</think>b<think>c</think>d") == "bd"
    assert strip_think("reasoning the template opened</think>\nAnswer: 3") == "Answer: 3"
    assert strip_think("Answer: 3<think>never closed") == "Answer: 3"
    # review: a later <think> block never brings the template's reasoning (and its candidate answers) back
    assert strip_think("maybe 41, maybe 42</think>Answer: 42<think>x</think>") == "Answer: 42"
    assert strip_think("reasoning only</think><think>more</think>") == ""
    assert strip_think("r</think>Answer: 3</think>") == "Answer: 3"


def test_extraction_is_linear_on_a_megabyte_of_adversarial_text():
    mb = 1 << 20
    texts = ["\n" * mb, "=" + " " * (mb - 1), "\n" * 20000 + "Answer:" + " " * (mb - 20007),
             "Answer: 1\n" * (mb // 10), "".join(f"Answer: {i}\n" for i in range(mb // 12)), "#" * mb,
             "1," * (mb // 2), "<think>" * (mb // 7), (" " * 1000 + "answer" + " " * 1000 + "\n") * (mb // 2008),
             "yes no the a " * (mb // 13), "*" * mb, "\\boxed{" * (mb // 7), "\\boxed{1}" * (mb // 9),
             "the answer is " * (mb // 14), ("answer is " + "x" * 300 + "\n") * (mb // 311),
             "Answer: " + "a, " * (mb // 3)]
    for text in texts:
        t0 = time.perf_counter()
        span = final_answer(strip_think(text)).span
        for task, gold in (("gsm8k", "42"), ("strategyqa", "yes"), ("hotpotqa", "Paris")):
            is_correct(task, span, gold)
        elapsed = time.perf_counter() - t0
        assert elapsed < 0.1, (text[:20], elapsed)
