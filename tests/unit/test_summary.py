"""The lines a command ends with: what took `best` and why, ties said as ties, the verdict naming failing checks."""

from rc1.core import summary

TRAINED = [{"seed": 1, "model_version": "4", "best_reward": 0.3386},
           {"seed": 2, "model_version": "5", "best_reward": 0.3386},
           {"seed": 3, "model_version": "6", "best_reward": 0.25}]


def test_best_names_the_version_its_metric_and_a_tie():
    line = summary.best_line(TRAINED, "4")
    assert line.startswith("`best` = version 4 (seed 1) by held-out reward 0.3386")
    assert "a tie with version 5" in line and "6" not in line.split("tie")[1]


def test_best_without_a_tie_says_none():
    assert "tie" not in summary.best_line(TRAINED, "6")
    assert "from another run" in summary.best_line(TRAINED, "2")
    assert summary.best_line([], None) == "`best`: no version registered"


def test_verdict_names_the_failing_checks_and_the_dev_expectation():
    checks = [{"name": "hard_success_gain_pp", "value": 0.0, "threshold": ">= 5", "pass": False},
              {"name": "avg_turns_increase", "value": 0.1, "threshold": "<= 0.5", "pass": True}]
    line = summary.verdict_line(False, checks, "dev")
    assert line.startswith("RC1 verdict: FAIL (expected in dev")
    assert "hard_success_gain_pp=0 (needs >= 5)" in line and "avg_turns_increase" not in line
    assert summary.verdict_line(True, checks) == "RC1 verdict: PASS"
    assert summary.verdict_line(False, checks, "prod").startswith("RC1 verdict: FAIL; failing: hard_success")
