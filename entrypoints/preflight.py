"""`mlflow run . -e preflight -P mode=dev|prod` / `rc1 preflight --mode dev|prod`.

One parent run (tag rc1.stage=preflight) with two child rounds; every step of a round is a child
run of that round. Round 2 repeats the steps (unchanged inputs are reused, visibly) and adds the
shadow run tagged `pre_run_check`. Only when every check of both rounds passed (or, in dev mode, was
explicitly waived) does the parent get rc1.round2_pass=true and reports/preflight/round2_pass.json.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import click

from entrypoints._common import INT, optional_param, pool_options, reuse_option
from rc1.config import default_ppo_config
from rc1.stages import check_config, check_resources, check_weights
from rc1.config import load_gates, load_ppo_scale
from rc1.errors import GateFailed, Rc1Error
from rc1.io import exclusive_dir, sha256_dir, sha256_file, write_json
from rc1.preflight import StepResult, round_summary, step_result
from rc1.summary import render as render_summary
from rc1.tracking import stage_run
from rc1.tracking.queries import child_runs

REPORT_DIR = Path("reports/preflight")


@dataclass
class Ctx:
    mode: str
    data_dir: str | None
    n: int | str | None     # the pool's --n: a ceiling, or auto
    out: Path
    config_path: str
    gates_path: str
    reuse: bool
    seed: int

    @property
    def shadow(self) -> Path:
        return self.out / "shadow_eval_245.jsonl"

    @property
    def pool(self) -> Path:
        return self.out / "rc1_seed.jsonl"

    @property
    def balanced(self) -> Path:
        return self.out / "balanced.jsonl"

TARGET = "easy:0.25,medium:0.45,hard:0.30"   # difficulty: the poses the pool is built in, the balanced mix


def _steps(round_no: int) -> list[tuple[str, Callable[[Ctx, int], dict]]]:
    steps = [
        ("resources", lambda c, r: check_resources.run(check_resources.Config(path=str(c.out), gates=c.gates_path,
                                                                              mode=c.mode))),
        ("weights_check", lambda c, r: check_weights.run(check_weights.Config(gates=c.gates_path))),
        ("config_check", lambda c, r: check_config.run(check_config.Config(config=c.config_path, gates=c.gates_path,
                                                                           mode=c.mode))),
        ("materialize_shadow", _materialize_shadow),
        ("build_pool", _build_pool),
        ("validate_pool", _validate_pool),
        ("difficulty", _difficulty),
        ("probe_scorer", _probe_scorer),
        ("judge_robustness", _judge_robustness),
    ]
    if round_no == 2:
        steps.append(("shadow_run", _shadow_run))
    steps.append(("assert_not_simulated", _assert_not_simulated))  # last: it judges the round's scoring runs
    return steps


# ---- the data and scoring steps: thin adapters onto each stage's run_<stage>() -------------------
def _materialize_shadow(c: Ctx, r: int) -> dict:
    from rc1.stages import materialize_shadow

    g = load_gates(c.gates_path).shadow
    return materialize_shadow.run(materialize_shadow.Config(
        data_dir=c.data_dir, n=g.n, seed=g.seed, stratify=g.stratify, materialize=str(c.shadow),
        dump_manifest=str(c.out / "shadow_manifest.json"), reuse=c.reuse))


def _build_pool(c: Ctx, r: int) -> dict:
    from entrypoints.build_pool import run_build_pool

    ppo = load_ppo_scale(c.config_path)
    mix = ",".join(f"{k}:{v}" for k, v in ppo.mix.items())
    return run_build_pool(data_dir=c.data_dir, out=str(c.pool), n=c.n, mix=mix, max_turns=ppo.ppo.max_turns,
                          clarify_rate=0.30, tools="wiki,calc", templates_dir="templates/pack_v2",
                          shadow=str(c.shadow), seed=c.seed, reuse=c.reuse, target=TARGET)


def _validate_pool(c: Ctx, r: int) -> dict:
    from rc1.stages import validate_pool

    ppo = load_ppo_scale(c.config_path)
    mix = ",".join(f"{k}:{v}" for k, v in ppo.mix.items())
    return validate_pool.run(validate_pool.Config(pool=str(c.pool), leak_check=str(c.shadow),
                                                  report=str(c.out / "validation_report.json"), mix=mix,
                                                  data_dir=c.data_dir, reuse=c.reuse))


def _difficulty(c: Ctx, r: int) -> dict:
    from rc1.stages import difficulty

    return difficulty.run(difficulty.Config(pool=str(c.pool), out=str(c.out / "difficulty_metrics.jsonl"),
                                            balanced=str(c.balanced), target=TARGET, by_task="hotpotqa,strategyqa,gsm8k",
                                            report=str(c.out / "difficulty_report.json"), reuse=c.reuse))


def _probe_scorer(c: Ctx, r: int) -> dict:
    from entrypoints.probe_scorer import run_probe_scorer

    return run_probe_scorer(n=8, provider=None, live=c.mode == "prod", gates_path=c.gates_path)


def _assert_not_simulated(c: Ctx, r: int) -> dict:
    from entrypoints.assert_not_simulated import run_assert_not_simulated

    import mlflow

    g = load_gates(c.gates_path).anti_simulation
    scoring = ("probe_scorer", "shadow_run")  # this round's scoring runs: what was really scored
    round_run = mlflow.active_run()
    runs = [ch.info.run_id for ch in child_runs(round_run.info.run_id) if ch.data.tags.get("rc1.stage") in scoring] \
        if round_run else []
    if not runs:
        raise Rc1Error(f"round {r}: no scoring run (probe_scorer, shadow_run) to judge")
    return run_assert_not_simulated(cache_hit_lt=g.cache_hit_lt_round1 if r == 1 else g.cache_hit_lt_round2,
                                    run_id=runs, round_no=r, config_path=c.config_path, gates_path=c.gates_path)


def _judge_robustness(c: Ctx, r: int) -> dict:
    from entrypoints.judge_robustness import run_judge_robustness

    return run_judge_robustness(shadow=str(c.shadow), seed=c.seed, report=str(c.out / "judge_robustness.json"),
                                config=c.config_path, gates_path=c.gates_path, reuse=c.reuse)


def _shadow_run(c: Ctx, r: int) -> dict:
    from entrypoints.shadow_run import run_shadow_run

    g = load_gates(c.gates_path).shadow
    return run_shadow_run(data_dir=c.data_dir, n=g.n, seed=g.seed, stratify=True, tag="pre_run_check",
                          shadow=str(c.shadow), report=str(c.out / "shadow_run_report.json"),
                          config=c.config_path, gates_path=c.gates_path, reuse=c.reuse)


# ---- rounds ---------------------------------------------------------------------------------------
def _run_step(name: str, fn: Callable[[Ctx, int], dict], c: Ctx, round_no: int, gates) -> StepResult:
    click.echo(f"[rc1{' DEV' if c.mode == 'dev' else ''}] round {round_no} · {name} …", err=True)
    try:
        result = fn(c, round_no) or {}
        return step_result(name, result.get("checks", []), gates, c.mode)
    except GateFailed as e:
        return step_result(name, e.checks or [{"name": name, "value": str(e), "threshold": "-", "pass": False}],
                           gates, c.mode)
    except Rc1Error as e:
        return step_result(name, [], gates, c.mode, error=str(e))


def _run_round(round_no: int, c: Ctx, gates) -> dict:
    with stage_run(f"round{round_no}", params={"round": round_no, "mode": c.mode}, reuse=False) as rnd:
        results = [_run_step(name, fn, c, round_no, gates) for name, fn in _steps(round_no)]
        # attach each step's child run id and mirror its metrics onto the round (compare rounds in the UI)
        children = {ch.data.tags.get("rc1.stage"): ch for ch in child_runs(rnd.run_id)}
        mirrored: dict[str, float] = {}
        for res in results:
            ch = children.get(res.step)
            if ch is not None:
                res.run_id = ch.info.run_id
                mirrored.update({f"{res.step}.{k}": v for k, v in ch.data.metrics.items()})
            mirrored[f"{res.step}.passed"] = 1.0 if res.passed else 0.0
        summary = round_summary(round_no, c.mode, results)
        rnd.log_metrics(mirrored)
        rnd.log_metrics({"passed": float(summary["passed"]), "failing_checks": len(summary["failing"])})
        rnd.set_tags({"rc1.passed": str(summary["passed"]).lower(),
                      "rc1.waived": ",".join(w for r in results for w in r.waived) or "none"})
        rnd.log_json(summary, f"round{round_no}.json")
        summary["metrics"] = mirrored
        summary["data_sources"] = {k: v for ch in children.values() for k, v in ch.data.tags.items()
                                   if k.startswith(("rc1.data_source.", "rc1.data_uri."))}
        return summary


def _print_summary(summary: dict) -> None:
    """One line per step; the failing checks' table is printed once, by the CLI, from GateFailed."""
    state = "PASSED" if summary["passed"] else "FAILED"
    click.echo(f"[rc1{' DEV' if summary['mode'] == 'dev' else ''}] preflight round {summary['round']}: {state}", err=True)
    for s in summary["steps"]:
        mark = "ok " if s["passed"] else "FAIL"
        extra = f" (waived in dev: {', '.join(s['waived'])})" if s["waived"] else ""
        click.echo(f"    {mark} {s['step']}{extra}" + (f": {s['error']}" if s["error"] else ""), err=True)


def run_preflight(mode: str = "dev", data_dir: str | None = None, n: int | str | None = "auto", out_dir: str = "out",
                  config_path: str | None = None, gates_path: str = "configs/gates.yaml", reuse: bool = True,
                  seed: int = 20250820) -> dict:
    os.environ["RUN_MODE"] = mode
    gates = load_gates(gates_path).for_mode(mode)   # first: prod refuses thresholds looser than the seed's at once
    config_path = config_path or default_ppo_config(mode)
    if mode == "prod":
        prod_data_check(load_ppo_scale(config_path).mix, optional_param(data_dir))
    if mode == "dev":
        os.environ.setdefault("SCORER_PROVIDER", "heuristic")
        os.environ.setdefault("REWARD_LIVE_MODE", "0")
    elif os.environ.get("SCORER_PROVIDER", "heuristic") == "heuristic":
        raise Rc1Error("prod mode refuses the heuristic judge: set SCORER_PROVIDER (and SCORER_BASE_URL, "
                       "SCORER_API_KEY, SCORER_MODEL) to a live OpenAI-compatible endpoint")
    c = Ctx(mode, optional_param(data_dir), n, Path(out_dir) / mode, config_path, gates_path, reuse, seed)
    # two preflights never share working files: the second on the same --out-dir (or while the reports folder is
    # another's) is refused at once, one line
    with exclusive_dir(c.out, "--out-dir", "pass another --out-dir"), \
            exclusive_dir(REPORT_DIR, "the preflight reports folder"):
        return _preflight(c, gates)


def _preflight(c: Ctx, gates) -> dict:
    mode, n, config_path, gates_path, seed = c.mode, c.n, c.config_path, c.gates_path, c.seed
    (REPORT_DIR / "round2_pass.json").unlink(missing_ok=True)  # never leave an older pass lying around

    params = {"mode": mode, "data_dir": c.data_dir or "auto", "n": n, "out_dir": str(c.out), "config": config_path,
              "gates": gates_path, "seed": seed}
    # the judge its rounds check (shadow run, judge robustness): the gate trains only with that judge's reward
    from rc1.scoring.identity import JUDGE_TAG, identity_digest
    from rc1.scoring.judge import make_judge

    who = {JUDGE_TAG: identity_digest(make_judge(cache=False).identity())}
    with stage_run("preflight", params=params, reuse=False, tags={"rc1.mode": mode, **who}) as pf:
        if mode == "dev":
            data = f"data from {c.data_dir}" if c.data_dir else "data from configs/data.yaml (offline: the bundled sample)"
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
        ppo = load_ppo_scale(config_path)
        trial, launch = ppo.trial, ppo.accelerate_config   # the trial config and the accelerate config it names
        for name, path in {"pool": c.pool, "balanced": c.balanced, "shadow": c.shadow,
                           "weights": Path("configs/weights.json"), "config": Path(config_path),
                           "gates": Path(gates_path), **({"trial_config": Path(trial)} if trial else {}),
                           **({"accelerate_config": Path(launch)} if launch else {})}.items():
            if path.exists():
                shas[name], hashed[name] = sha256_file(path), path
                pf.set_tags({f"sha256.{name}": shas[name], f"rc1.path.{name}": str(path)})
        if Path("templates").is_dir():   # the pool's wording: a bundle must carry exactly these templates
            pf.set_tags({"sha256.templates_dir": sha256_dir("templates")})
        pf.log_metrics({f"round1.{k}": v for k, v in r1["metrics"].items()})
        if r2:
            pf.log_metrics({f"round2.{k}": v for k, v in r2["metrics"].items()})
        pf.set_tags({**r1["data_sources"], **(r2["data_sources"] if r2 else {})})
        pf.set_tags({"rc1.round1_pass": str(r1["passed"]).lower(), "rc1.round2_pass": str(passed).lower(),
                     "rc1.waived": ",".join(_waived(r1, r2)) or "none"})
        pf.log_metrics({"round1_pass": float(r1["passed"]), "round2_pass": float(passed)})
        if passed:   # the gate, on this machine or another, trains with exactly these files from the server
            for name, path in hashed.items():
                pf.log_named_artifact(name, path, artifact_path="inputs")
            verdict = {"passed": True, "mode": mode, "preflight_run_id": pf.run_id, "sha256": shas,
                       "waived": _waived(r1, r2)}
            write_json(REPORT_DIR / "round2_pass.json", verdict)
            pf.log_artifact(REPORT_DIR / "round2_pass.json")
        pf.log_artifact(REPORT_DIR / "round1.json")
        if r2:
            write_json(REPORT_DIR / "round2.json", r2)
            pf.log_artifact(REPORT_DIR / "round2.json")
        run_id = pf.run_id
    from rc1.tracking import ui_hint, ui_url

    if not passed:
        failing = (r2 or r1)["failing"]
        click.echo(f"preflight run: {ui_url(run_id)}{ui_hint()}", err=True)   # not in the error: scrub drops #...
        raise GateFailed(f"preflight ({mode}) did not pass round {2 if r2 else 1}; run {run_id}",
                         [{**f, "name": f"{f['step']}.{f['name']}"} for f in failing])
    waived = _waived(r1, r2)
    click.echo(render_summary(f"preflight {run_id} ({mode})",
                              ["PASSED both rounds" + (f" (waived in dev: {', '.join(waived)})" if waived else ""),
                               f"next: rc1 gate --mode {mode}"], ui_url(run_id), ui_hint()), err=True)
    return {"run_id": run_id, "passed": True, "paths": {"pool": str(c.pool), "balanced": str(c.balanced),
                                                          "shadow": str(c.shadow)}}


def prod_data_check(mix: dict[str, float], data_dir: str | None) -> None:
    """Prod trains on a configured dataset only: resolve every task's source before anything runs, so the bundled sample
    (or a dataset that fails to load) stops preflight at once with the error naming it (rc1.data.sources)."""
    from rc1.data import load_tasks

    for task, share in mix.items():
        if share > 0:
            load_tasks(task, data_dir, mode="prod")


def _waived(*rounds) -> list[str]:
    return sorted({w for r in rounds if r for s in r["steps"] for w in s["waived"]})


@click.command("preflight")
@pool_options
@click.option("--config", "config_path", default=None, help="ppo config (default: dev ppo_dev.yaml, prod ppo_scale.yaml)")
@click.option("--gates", "gates_path", default="configs/gates.yaml", show_default=True)
@click.option("--seed", default=20250820, type=INT, show_default=True)
@reuse_option
def command(mode, data_dir, n, out_dir, config_path, gates_path, seed, reuse):
    """Run preflight rounds 1 and 2; exit 2 with a table of what failed."""
    run_preflight(mode, data_dir, n, out_dir, config_path, gates_path, reuse, seed)
