"""`mlflow run . -e preflight -P mode=dev|prod` / `rc1 preflight --mode dev|prod`.

One parent run (tag rc1.stage=preflight) with two child rounds; every step of a round is a child
run of that round. Round 2 repeats the steps (unchanged inputs are reused, visibly) and adds the
shadow run tagged `pre_run_check`. Only when every check of both rounds passed (or, in dev mode, was
explicitly waived) does the parent get rc1.round2_pass=true and reports/preflight/round2_pass.json.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import WEIGHTS_PATH, default_ppo_config, load_thresholds
from rc1.core.ppo_config import load_ppo_config
from rc1.core.console import bars
from rc1.core.settings import JUDGE_KEY_VAR, JUDGE_VARS, configured, judge_endpoint
from rc1.core.errors import CheckFailed, Rc1Error
from rc1.core.io import exclusive_dir, sha256_dir, sha256_file, write_json
from rc1.checks.gate_rules import DATASETS
from rc1.trust.rules import RECHECKS
from rc1.core.outdir import claim_out_dir
from rc1.core.proc import check_stop
from rc1.checks.preflight_checks import StepResult, round_summary, step_result
from rc1.stages import (assert_not_simulated, build_pool, check_config, check_resources, check_weights, difficulty,
                        judge_robustness, materialize_shadow, probe_scorer, shadow_run, validate_pool)
from rc1.flows.step import Step
from rc1.stages.shared import FromData, Gated, Judged, Moded, PoolSized, Reusable, Seeded
from rc1.core.summary import render as render_summary
from rc1.trust.keys import trust_path
from rc1.tracking import stage_run
from rc1.tracking.store import shell_command
from rc1.tracking.ui import ui_hint, ui_url
from rc1.tracking.queries import child_runs

REPORT_DIR = Path("reports/preflight")
ROUND_METRICS = "round_metrics.json"


@dataclass
class PoolOptions(Moded, FromData, PoolSized):
    """What preflight and main share: the mode, the data, the pool's size and where its files go."""

    out_dir: str = arg("out", "where the pool, shadow set and reports go (a <mode>/ folder inside)")


@dataclass
class Config(PoolOptions, Judged, Seeded, Gated, Reusable):
    """Run preflight rounds 1 and 2; exit 2 with a table of what failed."""

    config: str | None = arg(None, "ppo config (default: dev ppo_dev.yaml, prod ppo_scale.yaml)")


@dataclass
class Ctx:
    """One preflight's settings as its steps see them: the config resolved, the working files' paths."""

    cfg: Config
    config: str

    @property
    def out(self) -> Path:
        return Path(self.cfg.out_dir) / self.cfg.mode

    @property
    def shadow(self) -> Path:
        return self.out / "shadow_eval_245.jsonl"

    @property
    def pool(self) -> Path:
        return self.out / "rc1_seed.jsonl"

    @property
    def balanced(self) -> Path:
        return self.out / "balanced.jsonl"

    @functools.cached_property
    def ppo(self):
        return load_ppo_config(self.config)

    @property
    def mix(self) -> str:
        return ",".join(f"{k}:{v}" for k, v in self.ppo.mix.items())


def _scoring_runs(round_no: int) -> tuple[str, ...]:
    """This round's scoring runs (what was really scored), for assert-not-simulated."""
    import mlflow

    scoring = ("probe_scorer", "shadow_run")
    round_run = mlflow.active_run()
    runs = tuple(ch.info.run_id for ch in child_runs(round_run.info.run_id)
                 if ch.data.tags.get("rc1.stage") in scoring) if round_run else ()
    if not runs:
        raise Rc1Error(f"round {round_no}: no scoring run (probe_scorer, shadow_run) to judge")
    return runs


# the rounds: each step a stage and how preflight configures it; round 2 repeats round 1 (unchanged inputs are
# reused, visibly) and adds the shadow run; assert-not-simulated is last: it judges the round's scoring runs
STEPS = [
    Step(check_resources, lambda c, r: {"path": str(c.out)}),
    Step(check_weights, lambda c, r: {"weights": WEIGHTS_PATH}),
    Step(check_config, lambda c, r: {"config": c.config}),
    Step(materialize_shadow, lambda c, r: {"materialize": str(c.shadow),
                                          "dump_manifest": str(c.out / "shadow_manifest.json")},
         not_shared=("n", "seed")),   # its seed selects the shadow set: gates.yaml shadow.seed (a prod floor), not --seed
    Step(build_pool, lambda c, r: {"out": str(c.pool), "mix": c.mix, "max_turns": c.ppo.ppo.max_turns,
                                   "shadow": str(c.shadow)}),
    Step(validate_pool, lambda c, r: {"pool": str(c.pool), "leak_check": str(c.shadow), "mix": c.mix,
                                      "report": str(c.out / "validation_report.json")}),
    Step(difficulty, lambda c, r: {"pool": str(c.pool), "out": str(c.out / "difficulty_metrics.jsonl"),
                                   "balanced": str(c.balanced), "report": str(c.out / "difficulty_report.json")}),
    Step(probe_scorer, lambda c, r: {"live": c.cfg.mode == "prod"}, not_shared=("n", "seed")),
    Step(judge_robustness, lambda c, r: {"shadow": str(c.shadow), "report": str(c.out / "judge_robustness.json"),
                                         "config": c.config}, not_shared=("n",)),
    Step(shadow_run, lambda c, r: {"tag": "pre_run_check", "shadow": str(c.shadow),
                                   "seed": load_thresholds(c.cfg.gates).shadow.seed, "config": c.config,
                                   "report": str(c.out / "shadow_run_report.json")}, rounds=(2,), not_shared=("n",)),
    Step(assert_not_simulated, lambda c, r: {"run_id": _scoring_runs(r), "round": str(r), "config": c.config},
         not_shared=("n",)),
]


# ---- rounds ---------------------------------------------------------------------------------------
def _run_step(step: Step, c: Ctx, round_no: int, gates) -> StepResult:
    """Run one step. On a terminal its start is announced (its bars follow); without one, its end: one line per
    finished step (rc1.core.console)."""
    mode, name = c.cfg.mode, step.name
    check_stop()
    prefix = _prefix(mode, round_no)
    live = bars()
    if live:
        click.echo(f"{prefix}{name} …", err=True)
    started = time.perf_counter()
    try:
        result = step.run(c.cfg, c, round_no)
        res = step_result(name, result.get("checks", []), gates, mode)
    except CheckFailed as e:
        res = step_result(name, e.checks or [{"name": name, "value": str(e), "threshold": "-", "pass": False}],
                          gates, mode)
    except Rc1Error as e:
        res = step_result(name, [], gates, mode, error=str(e))
    if not live:
        click.echo(f"{prefix}{_step_line(res)} ({time.perf_counter() - started:.1f} s)", err=True)
    return res


# prod: the steps that call the live (billable) judge run only on data that passed: a dataset too small or leaking
# fails its round in minutes without paying for the judge's calls (judge_robustness alone: 60 items x 25 candidates x
# K=3 = 4,500, measured) on a shadow set and pool the next run replaces
DATA_STEPS = ("materialize_shadow", "build_pool", "validate_pool", "difficulty")
JUDGE_STEPS = ("probe_scorer", "judge_robustness", "shadow_run", "assert_not_simulated")


def _run_round(round_no: int, c: Ctx, gates) -> dict:
    with stage_run(f"round{round_no}", params={"round": round_no, "mode": c.cfg.mode}, reuse=False) as rnd:
        results: list[StepResult] = []
        for step in (s for s in STEPS if round_no in s.rounds):
            failed = [r.step for r in results if r.step in DATA_STEPS and not r.passed]
            if c.cfg.mode == "prod" and step.name in JUDGE_STEPS and failed:
                results.append(_skipped(step.name, f"not run: {', '.join(failed)} failed first (prod pays the live "
                                                   "judge only for data that passed)", c.cfg.mode, round_no))
            else:
                results.append(_run_step(step, c, round_no, gates))
        # attach each step's child run id; its metrics stay on the step's run and join the round's table (the
        # round's artifact round<N>.json); the round run shows each step's verdict (hundreds of metrics drowned it)
        children = {ch.data.tags.get("rc1.stage"): ch for ch in child_runs(rnd.run_id)}
        mirrored: dict[str, float] = {}
        for res in results:
            ch = children.get(res.step)
            if ch is not None:
                res.run_id = ch.info.run_id
                mirrored.update({f"{res.step}.{k}": v for k, v in ch.data.metrics.items()})
            mirrored[f"{res.step}.passed"] = 1.0 if res.passed else 0.0
        summary = round_summary(round_no, c.cfg.mode, results)
        rnd.log_metrics({k: v for k, v in mirrored.items() if k.endswith(".passed")})
        rnd.log_metrics({"passed": float(summary["passed"]), "failing_checks": len(summary["failing"])})
        rnd.set_tags({"rc1.passed": str(summary["passed"]).lower(),
                      "rc1.waived": ",".join(w for r in results for w in r.waived) or "none"})
        summary["metrics"] = mirrored
        rnd.log_json(summary, f"round{round_no}.json")
        summary["data_sources"] = {k: v for ch in children.values() for k, v in ch.data.tags.items()
                                   if k.startswith(("rc1.data_source.", "rc1.data_uri."))}
        return summary


def _prefix(mode: str, round_no: int) -> str:
    return f"[rc1{' DEV' if mode == 'dev' else ''}] round {round_no} · "


def _skipped(name: str, why: str, mode: str, round_no: int) -> StepResult:
    if not bars():   # on a terminal the round's summary lists it
        click.echo(f"{_prefix(mode, round_no)}{_step_line({'step': name, 'skipped': why})}", err=True)
    return StepResult(name, False, skipped=why)


def _step_line(s: StepResult | dict) -> str:
    """'ok  build_pool', 'ok  shadow_run (waived in dev: shadow_run.spearman)', 'FAIL validate_pool', 'skip
    probe_scorer (not run: ...)': a waived check is no failure, so its step reads ok and names it."""
    s = s if isinstance(s, dict) else {"step": s.step, "passed": s.passed, "waived": s.waived, "error": s.error,
                                       "skipped": s.skipped}
    if s.get("skipped"):
        return f"skip {s['step']} ({s['skipped']})"
    extra = f" (waived in dev: {', '.join(s['waived'])})" if s["waived"] else ""
    return f"{'ok ' if s['passed'] else 'FAIL'} {s['step']}{extra}" + (f": {s['error']}" if s["error"] else "")


def _print_summary(summary: dict) -> None:
    """The round's verdict and, on a terminal, one line per step (without one, each step's line came as it ended);
    the failing checks' table is printed once, by the CLI, from CheckFailed."""
    state = "PASSED" if summary["passed"] else "FAILED"
    click.echo(f"[rc1{' DEV' if summary['mode'] == 'dev' else ''}] preflight round {summary['round']}: {state}", err=True)
    if bars():
        for s in summary["steps"]:
            click.echo(f"    {_step_line(s)}", err=True)


@configured   # the mode and judge the preflight run itself records, and its steps inherit
def run(cfg: Config) -> dict:
    gates = load_thresholds(cfg.gates).for_mode(cfg.mode)   # first: prod refuses thresholds looser than the seed's at once
    config_path = cfg.config or default_ppo_config(cfg.mode)
    if cfg.mode == "prod":
        prod_data_check(load_ppo_config(config_path).mix, cfg.data_dir)
    if cfg.mode == "prod" and (judge_endpoint().provider or "heuristic").strip().lower() == "heuristic":
        raise Rc1Error(f"prod mode refuses the heuristic judge: set --judge-provider, --judge-base-url and "
                       f"--judge-model (or {', '.join(JUDGE_VARS[k] for k in ('provider', 'base_url', 'model'))}; the "
                       f"key in {JUDGE_KEY_VAR}) to a live OpenAI-compatible endpoint")
    c = Ctx(cfg, config_path)
    claim_out_dir(c.out, "preflight", "--out-dir")   # a directory holding a user's files is refused, never written
    # two preflights never share working files: the second on the same --out-dir (or while the reports folder is
    # another's) is refused at once, one line
    with exclusive_dir(c.out, "--out-dir", "pass another --out-dir"), \
            exclusive_dir(REPORT_DIR, "the preflight reports folder"):
        # an earlier preflight's working files go first: a step whose producer fails this time must find nothing,
        # not the last dataset's pool (reuse restores them from the tracking store when the inputs are the same)
        for stale in (c.shadow, c.pool, c.balanced):
            stale.unlink(missing_ok=True)
        return _preflight(c, gates)


def _preflight(c: Ctx, gates) -> dict:
    mode, config_path, gates_path = c.cfg.mode, c.config, c.cfg.gates
    (REPORT_DIR / "round2_pass.json").unlink(missing_ok=True)  # never leave an older pass lying around

    params = {**logged_params(c.cfg), "out_dir": str(c.out), "config": config_path, "gates": gates_path}
    # the judge its rounds check (shadow run, judge robustness): the gate trains only with that judge's reward
    from rc1.scoring.identity import JUDGE_TAG, identity_digest
    from rc1.scoring.judge import make_judge

    who = {JUDGE_TAG: identity_digest(make_judge(cache=False).identity())}
    # a preflight whose round failed ends FAILED (red in the UI), its evidence logged all the same
    with stage_run("preflight", params=params, reuse=False, tags={"rc1.mode": mode, **who}, refusal_fails=True,
                   attest=True) as pf:
        if mode == "dev":
            data = f"data from {c.cfg.data_dir}" if c.cfg.data_dir else "data from configs/data.yaml (offline: the bundled sample)"
            click.echo(f"[rc1 DEV] preflight in DEV mode: {data}, heuristic judge, tiny model. "
                       "Live-judge checks run and are recorded, then waived. Not a production verdict.", err=True)
        pf.log_config(gates, "gates_effective.json")
        r1 = _run_round(1, c, gates)
        write_json(REPORT_DIR / "round1.json", r1)
        _print_summary(r1)
        r2 = None
        if r1["passed"]:
            r2 = _run_round(2, c, gates)
            _print_summary(r2)
        passed = bool(r2 and r2["passed"])
        shas, hashed = {}, {}
        ppo = load_ppo_config(config_path)
        trial, launch = ppo.trial, ppo.accelerate_config   # the trial config and the accelerate config it names
        for name, path in {"pool": c.pool, "balanced": c.balanced, "shadow": c.shadow,
                           "weights": Path(WEIGHTS_PATH), "config": Path(config_path),
                           "gates": Path(gates_path), "trust": trust_path()[0],
                           **({"trial_config": Path(trial)} if trial else {}),
                           **({"accelerate_config": Path(launch)} if launch else {})}.items():
            if path.exists():
                shas[name], hashed[name] = sha256_file(path), path
                pf.set_tags({f"sha256.{name}": shas[name], f"rc1.path.{name}": str(path)})
        if Path("templates").is_dir():   # the pool's wording: a bundle must carry exactly these templates
            pf.set_tags({"sha256.templates_dir": sha256_dir("templates")})
        # every step's metrics of both rounds: one table, hashed and named like the files (the gate and promote
        # recheck round 2's numbers from it, never from metrics anyone can log on the run); the run shows the verdicts
        table = round_metrics(r1, r2)
        write_json(REPORT_DIR / ROUND_METRICS, table)
        pf.log_named_artifact("round_metrics", REPORT_DIR / ROUND_METRICS, artifact_path="inputs")
        pf.set_tags({"sha256.round_metrics": pf.artifact_shas[ROUND_METRICS]})
        pf.log_metrics(shown_metrics(table))
        pf.set_tags({**r1["data_sources"], **(r2["data_sources"] if r2 else {})})
        pf.set_tags({"rc1.round1_pass": str(r1["passed"]).lower(), "rc1.round2_pass": str(passed).lower(),
                     "rc1.waived": ",".join(_waived(r1, r2)) or "none"})
        if passed:   # the gate, on this machine or another, trains with exactly these files from the server
            for name, path in hashed.items():
                pf.log_named_artifact(name, path, artifact_path="inputs")
            for name, context in DATASETS:
                if name in hashed:
                    pf.log_dataset(hashed[name], name, context, shas[name],
                                   source=f"runs:/{pf.run_id}/inputs/{hashed[name].name}")
            verdict = {"passed": True, "mode": mode, "preflight_run_id": pf.run_id, "sha256": shas,
                       "waived": _waived(r1, r2)}
            write_json(REPORT_DIR / "round2_pass.json", verdict)
            pf.log_artifact(REPORT_DIR / "round2_pass.json")
        pf.log_artifact(REPORT_DIR / "round1.json")
        if r2:
            write_json(REPORT_DIR / "round2.json", r2)
            pf.log_artifact(REPORT_DIR / "round2.json")
        run_id = pf.run_id
        if not passed:
            failing = (r2 or r1)["failing"]
            click.echo(f"preflight run: {ui_url(run_id)}{ui_hint()}", err=True)   # not in the error: scrub drops #...
            checks = [{**f, "name": f"{f['step']}.{f['name']}"} for f in failing]
            again = "fix what the failing checks below show, then run the same rc1 preflight again"
            raise CheckFailed(f"round {2 if r2 else 1} did not pass ({mode}; run {run_id})", checks,
                              what="preflight failed", next_step=None if any(f.get("next") for f in failing) else again)
    waived = _waived(r1, r2)
    click.echo(render_summary(f"preflight {run_id} ({mode})",
                              ["PASSED both rounds" + (f" (waived in dev: {', '.join(waived)})" if waived else ""),
                               f"next: {shell_command(f'rc1 gate --mode {mode}')}"], ui_url(run_id), ui_hint()),
               err=True)
    return {"run_id": run_id, "passed": True, "paths": {"pool": str(c.pool), "balanced": str(c.balanced),
                                                          "shadow": str(c.shadow)}}


def round_metrics(r1: dict, r2: dict | None) -> dict[str, float]:
    """The preflight's metrics table: round<N>.<step>.<metric> for every step of both rounds, and the verdicts."""
    table = {f"round1.{k}": v for k, v in r1["metrics"].items()}
    table.update({f"round2.{k}": v for k, v in (r2 or {}).get("metrics", {}).items()})
    table.update({"round1_pass": float(r1["passed"]), "round2_pass": float(bool(r2 and r2["passed"]))})
    return table


def shown_metrics(table: dict[str, float]) -> dict[str, float]:
    """What the preflight run shows of its table: the verdicts (rounds, steps) and the round-2 numbers the gate
    rechecks against the gates file."""
    rechecked = {metric for metric, _, _ in RECHECKS}
    return {k: v for k, v in table.items() if k.endswith(("_pass", ".passed")) or k in rechecked}


def prod_data_check(mix: dict[str, float], data_dir: str | None) -> None:
    """Prod trains on a configured dataset only: resolve every task's source before anything runs, so the bundled sample
    (or a dataset that fails to load) stops preflight at once with the error naming it (rc1.data.sources)."""
    from rc1.data import load_tasks

    for task, share in mix.items():
        if share > 0:
            load_tasks(task, data_dir, mode="prod")


def _waived(*rounds) -> list[str]:
    return sorted({w for r in rounds if r for s in r["steps"] for w in s["waived"]})
