"""assert_not_simulated judges the scoring a round really did (its scoring runs' counters, by run id): a round
whose scoring was answered from the cache fails round 2's < .95 bar, a reused scoring run counts as cached."""

from __future__ import annotations

import pytest
from mlflow.tracking import MlflowClient

from rc1.stages import assert_not_simulated, probe_scorer
from rc1.stages.assert_not_simulated import counters_of_runs
from rc1.core.errors import CheckFailed
from test_scoring_commands import GATES, PPO, live_env, runs_of, scoring_run  # noqa: F401  (live_env: fixture)

pytestmark = pytest.mark.timeout(240)


def test_round_scoring_answered_from_cache_fails_round2(live_env, scorer_env):  # noqa: F811
    # fresh prompts: all misses
    probe = probe_scorer.run(probe_scorer.Config(n=1, live=True, gates=GATES), progress=False)
    scoring_run(scorer_env)                                # scores 135 fixed prompts (misses)
    scoring_run(scorer_env)                                # the same prompts again: fully cached
    cached = runs_of("shadow_run")[-1]
    assert cached.data.metrics["cache_hit_rate"] == 1.0 and cached.data.metrics["billable_count"] == 0
    # the probe alone really scored: round 1's bar holds
    ok = assert_not_simulated.run(assert_not_simulated.Config(run_id=(probe["run_id"],), round="1", config=PPO,
                                                              gates=GATES))
    assert all(c["pass"] for c in ok["checks"])
    # probe + a scoring run answered from cache: what the round scored was mostly cached -> round 2 fails
    both = counters_of_runs([probe["run_id"], cached.info.run_id])
    assert both["cache_hit_rate"] > 0.95 and both["billable_count"] == ok["stats"]["billable_count"]
    with pytest.raises(CheckFailed) as e:
        assert_not_simulated.run(assert_not_simulated.Config(run_id=(probe["run_id"], cached.info.run_id), round="2",
                                                            config=PPO, gates=GATES))
    assert [c["name"] for c in e.value.checks if not c["pass"]] == ["cache_hit_rate"]
    # a scoring run that was itself reused from an earlier run scored nothing: it reads as fully cached
    MlflowClient().set_tag(probe["run_id"], "rc1.reused_from", "earlier-run")
    reused = counters_of_runs([probe["run_id"]])
    assert reused["cache_hit_rate"] == 1.0 and reused["billable_count"] == 0
    with pytest.raises(CheckFailed):
        assert_not_simulated.run(assert_not_simulated.Config(run_id=(probe["run_id"],), round="1", config=PPO,
                                                             gates=GATES))
