"""`rc1 main` / `mlflow run .` (entry point main): the whole path in one command, preflight, then the gate.

As in MLflow's multistep example, one parent run (rc1.stage=main) holds the steps: the preflight run and the gate
run are its children. The gate runs only when preflight passed both rounds (else exit 2 with preflight's table).
"""

from __future__ import annotations

import click

from entrypoints._common import INT, pool_options


def run_main(mode: str = "dev", data_dir: str | None = None, n: int | str = "auto", out_dir: str = "out",
             max_steps: int | None = None) -> dict:
    from entrypoints.gate import run_gate
    from entrypoints.preflight import run_preflight
    from rc1.gate import GateRefusal
    from rc1.errors import Rc1Error
    from rc1.tracking import stage_run

    params = {"mode": mode, "data_dir": data_dir or "auto", "n": n, "out_dir": out_dir, "max_steps": max_steps or 0}
    with stage_run("main", params=params, reuse=False, tags={"rc1.mode": mode}, refusal_fails=True) as st:
        pre = run_preflight(mode, data_dir, n, out_dir)
        try:
            gate = run_gate(mode, max_steps=max_steps or None)
        except GateRefusal as e:
            raise Rc1Error(f"gate refused: {e}") from None
        ev = gate.get("evaluate") or {}
        st.set_tags({"rc1.preflight_run_id": pre["run_id"], "rc1.gate_run_id": gate["run_id"],
                     "rc1.rc1_verdict": "pass" if ev.get("passed") else "fail"})
        st.log_metrics({"rc1_verdict": 1.0 if ev.get("passed") else 0.0})
    return {"run_id": st.run_id, "preflight": pre, "gate": gate}


@click.command("main")
@pool_options
@click.option("--max-steps", "max_steps", type=INT, default=None,
              help="cap training steps per seed (unset: the config's ppo.steps; prod allows only that)")
def command(mode, data_dir, n, out_dir, max_steps):
    """The whole path: preflight (both rounds), then the gate (train each seed, evaluate `best`)."""
    run_main(mode, data_dir, n, out_dir, max_steps)
