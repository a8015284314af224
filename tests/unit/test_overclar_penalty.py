"""The over-clarification penalty alpha*min(c, cap), only when clarification was not needed."""

import pytest

from rc1.core.config import DIMENSIONS
from rc1.scoring.reward import new_reward, overclar_penalty

ALPHA, CAP = 0.07, 3
SCORES = {d: 0.8 for d in DIMENSIONS}
WEIGHTS = {d: 1 / 7 for d in DIMENSIONS}


def reward(c: int, needs: bool) -> float:
    return new_reward(SCORES, WEIGHTS, needs_clarification=needs, clarifications=c, difficulty="medium",
                      alpha=ALPHA, cap=CAP, beta=0.05)


def test_no_trigger_without_clarifying_questions():
    assert overclar_penalty(0, needs_clarification=False, alpha=ALPHA, cap=CAP) == 0.0
    assert reward(0, needs=False) == pytest.approx(0.8)


@pytest.mark.parametrize("c, expected", [(1, 0.07), (2, 0.14), (5, 0.21)])
def test_penalty_grows_with_questions_up_to_the_cap(c, expected):
    assert overclar_penalty(c, needs_clarification=False, alpha=ALPHA, cap=CAP) == pytest.approx(expected)
    assert reward(c, needs=False) == pytest.approx(0.8 - expected)


def test_cap_binds_exactly_at_three_questions():
    assert reward(3, needs=False) == pytest.approx(reward(5, needs=False))
    assert reward(2, needs=False) > reward(3, needs=False)


@pytest.mark.parametrize("c", [0, 1, 2, 5])
def test_no_penalty_when_clarification_is_needed(c):
    assert overclar_penalty(c, needs_clarification=True, alpha=ALPHA, cap=CAP) == 0.0
    assert reward(c, needs=True) == pytest.approx(0.8)
