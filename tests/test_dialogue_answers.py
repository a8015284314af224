from rc1.answers import exact_match, f1, is_correct
from rc1.dialogue import analyze, extract_answer

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
