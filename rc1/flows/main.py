"""`rc1 main` / `mlflow run .` (entry point main): the whole path in one command, preflight, then the gate.

As in MLflow's multistep example, one parent run (rc1.stage=main) holds the steps: the preflight run and the gate
run are its children. The gate runs only when preflight passed both rounds (else exit 2 with preflight's table).
"""

from __future__ import annotations

from dataclasses import dataclass

from rc1.cli.options import logged_params
from rc1.core.settings import configured
from rc1.flows import gate, preflight
from rc1.flows.step import Step
from rc1.stages.shared import StepCapped, SystemMetered

# each receives main's fields of the same name: preflight's all of them, the gate the mode, judge, config, gates,
# max_steps and system_metrics
STEPS = (Step(preflight), Step(gate))


@dataclass
class Config(preflight.Config, StepCapped, SystemMetered):
    """The whole path: preflight (both rounds), then the gate (train each seed, evaluate `best`)."""


@configured
def run(cfg: Config) -> dict:
    from rc1.tracking import stage_run

    with stage_run("main", params=logged_params(cfg), reuse=False, tags={"rc1.mode": cfg.mode},
                   refusal_fails=True) as st:
        pre = STEPS[0].run(cfg)
        result = STEPS[1].run(cfg)
        ev = result.get("evaluate") or {}
        st.set_tags({"rc1.preflight_run_id": pre["run_id"], "rc1.gate_run_id": result["run_id"],
                     "rc1.rc1_verdict": "pass" if ev.get("passed") else "fail"})
        st.log_metrics({"rc1_verdict": 1.0 if ev.get("passed") else 0.0})
    return {"run_id": st.run_id, "preflight": pre, "gate": result}
