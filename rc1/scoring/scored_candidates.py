"""The scored candidates the reward stages read (weight calibration, the over-clarification ablation): a file given,
the newest shadow run's, or those of a fresh `rc1 shadow-run`."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from rc1.core.config import run_mode
from rc1.core.errors import Rc1Error
from rc1.core.io import why_not_a_file


def scored_tags(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The responders and judge providers of scored candidates, as run tags."""
    def joined(key):
        return ",".join(sorted({str(r.get(key)) for r in rows if r.get(key)})) or "unknown"

    return {"rc1.responder": joined("responder"), "rc1.judge_provider": joined("judge_provider")}


def resolve_scored(scored: str | None, workdir: str | Path = "reports") -> tuple[Path, str]:
    """(scored candidates, where they come from): --scored PATH, else the scored_candidates.jsonl of the newest
    finished shadow_run of this run mode scored by the judge configured now (rc1.scoring.identity), else those of a
    fresh default `rc1 shadow-run` (its gate verdict does not matter here, only its scored candidates).

    The fresh shadow run is the command itself, in a process of its own (as MLflow's multistep example runs a step
    it does not find): a stage never imports another. It logs to the same tracking store, but not into the MLflow
    run `mlflow run` handed this stage (MLFLOW_RUN_ID): that one stays the calling stage's."""
    if scored:
        if why_not_a_file(scored):
            raise Rc1Error(f"--scored {scored}: {why_not_a_file(scored)}")
        return Path(scored), f"file:{scored}"
    from rc1.core.proc import run_tree
    from rc1.scoring.identity import JUDGE_TAG, identity_digest
    from rc1.scoring.judge import make_judge
    from rc1.tracking.latest import newest_stage_output

    # only candidates the judge configured now scored: another endpoint, model or sampling is another judge
    judge_id = identity_digest(make_judge(cache=False).identity())
    found = newest_stage_output("shadow_run", "scored", Path(workdir) / ".latest_shadow_run", mode=run_mode(),
                                tags={JUDGE_TAG: judge_id})
    if found:
        return found[0], f"shadow_run:{found[1]}"
    print("[rc1] no finished shadow_run found: running one to get scored candidates", file=sys.stderr, flush=True)
    out = Path(workdir) / "scored_candidates.jsonl"
    out.unlink(missing_ok=True)   # what the run writes, or nothing: never an older file
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_RUN_ID"}   # the same store, its own run
    from rc1.cli.options import command_argv
    from rc1.core.settings import active_fields

    # the mode and judge of the calling stage on the command line (what the environment sets, it inherits)
    code = run_tree(command_argv("shadow-run", report=str(Path(workdir) / "shadow_run.json"), scored_out=str(out),
                                 **active_fields()), env)
    if code not in (0, 2) or not out.is_file():   # 2 with candidates written: the shadow run's own gate failed
        raise Rc1Error(f"the shadow run started for scored candidates failed (exit {code}, see above); run "
                       "`rc1 shadow-run` or pass --scored")
    return out, f"file:{out}"
