"""`rc1 scale [--stage all|1000|5000]` (entry point `scale`): staged scale-up of generation behind reports.

A parent run (rc1.stage=scale) with one child per stage (rc1.stage=scale_stage, param stage=N). Each stage draws N
seeds from the newest passing preflight's balanced pool (or --pool), reports diversity and difficulty before,
generates with the configured responder, judges, and reports diversity, stability and difficulty after
(rc1/scale.py; thresholds configs/gates.yaml `scale`). `--stage N` alone is refused unless every earlier stage
has a finished run on the same pool whose before and after reports passed, found in the tracking store.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from entrypoints._common import INT, gates_option, optional_param
from rc1.errors import GateFailed, Rc1Error
from rc1.io import sha256_file, write_json, write_jsonl


def _pool_source(pool: str | None, mode: str, gates_sha: str) -> tuple[str, str | None]:
    """(pool path, data dir of its preflight): --pool as given, else the newest passing preflight's balanced pool,
    refused when that file changed since preflight or the gates file is not the one that preflight checked."""
    from rc1.tracking.queries import newest_preflight

    if pool:
        if not Path(pool).is_file():
            raise Rc1Error(f"--pool {pool}: file not found")
        return pool, None
    pre = newest_preflight(mode, passing=True)
    if pre is None:
        raise Rc1Error(f"no passing {mode} preflight to draw seeds from; run preflight first or pass --pool")
    tags = pre.data.tags
    path, want = tags.get("rc1.path.balanced"), tags.get("sha256.balanced")
    if not path or not Path(path).is_file():
        raise Rc1Error(f"preflight {pre.info.run_id}: its balanced pool {path!r} is not here; pass --pool")
    if sha256_file(path) != want:
        raise Rc1Error(f"{path} changed since preflight {pre.info.run_id} (sha256 differs): stale, rerun preflight")
    if tags.get("sha256.gates") != gates_sha:
        raise Rc1Error(f"the gates file is not the one preflight {pre.info.run_id} checked (sha256 differs)")
    return path, optional_param(pre.data.params.get("data_dir"))


def _earlier_stage_problem(stage: int, earlier: int, pool_sha: str, gates_sha: str) -> str | None:
    """Why stage `stage` may not start on account of stage `earlier` (None: it may): only a stage run on the same
    pool under the same gates file counts."""
    from rc1.tracking.queries import _search

    runs = _search(f"tags.`rc1.stage` = 'scale_stage' AND params.stage = '{earlier}' "
                   f"AND tags.`rc1.pool_sha256` = '{pool_sha}' AND tags.`rc1.gates_sha256` = '{gates_sha}' "
                   f"AND attributes.status = 'FINISHED'", max_results=20)
    if not runs:
        return (f"stage {earlier} has no before and after reports on this pool under these gates "
                f"(run `rc1 scale --stage {earlier}`)")
    for run in runs:
        if run.data.tags.get("rc1.before_pass") == "true" and run.data.tags.get("rc1.after_pass") == "true":
            return None
    newest = runs[0]
    failed = "before report" if newest.data.tags.get("rc1.before_pass") != "true" else "after report"
    return f"the {failed} of stage {earlier} (run {newest.info.run_id}) did not pass"


def _run_stage(st, stage: int, seeds: list[dict], *, gates, data_dir, baseline_pool, responder: str, k: int,
               seed: int, responder_model, responder_base_url, workdir: Path, progress: bool) -> list[dict]:
    from entrypoints.shadow_run import reward_params
    from entrypoints.validate_pool import baseline_seeds
    from rc1.quality.reader import iter_seeds
    from rc1.config import load_weights
    from rc1.quality.validate import validate_pool
    from rc1.responder import ShadowItem, all_candidates, make_responder
    from rc1.scale import after_report, before_checks, difficulty_shares, draw
    from rc1.scoring.judge import make_judge
    from rc1.shadow_run import score_candidates

    drawn = [dict(s) for s in draw(seeds, stage, seed)]
    mix = dict(gates.config_check.mix)
    validation = validate_pool(drawn, gate=gates.validate_pool, mix=mix, shadow=[],
                               baseline=iter_seeds(baseline_pool) if baseline_pool
                               else baseline_seeds(stage, mix, data_dir, seed))
    before = before_checks(validation.checks)
    before_pass = all(c["pass"] for c in before)
    shares = difficulty_shares(drawn)
    report = {"stage": stage, "before": {"passed": before_pass, "checks": before,
                                         "diversity": {k_: validation.diversity[k_] for k_ in
                                                       ("distinct_1", "distinct_2", "kl_3gram_vs_v1", "roles", "styles")},
                                         "difficulty_shares": shares}}
    st.set_tags({"rc1.before_pass": str(before_pass).lower()})
    st.log_metrics({f"before.{c['name']}": c["value"] for c in before if isinstance(c["value"], (int, float))})
    checks = [{**c, "name": f"before.{c['name']}"} for c in before]
    if before_pass:
        items = [ShadowItem.from_record(s, s.get("difficulty")) for s in drawn]
        resp = make_responder(responder, k=k, seed=seed, model=responder_model, base_url=responder_base_url)
        candidates = all_candidates(resp, items, progress=progress)
        rows = score_candidates({it.id: it.as_seed() for it in items}, candidates, make_judge(),
                                load_weights("configs/weights.json"), reward_params(None), progress=progress)
        for row, cand in zip(rows, candidates):
            row.update(dialogue=list(cand.dialogue), prefix_len=cand.prefix_len)
        metrics, after = after_report(rows, gates.scale, seed)
        after_pass = all(c["pass"] for c in after)
        report["after"] = {"passed": after_pass, "checks": after, "metrics": metrics}
        st.set_tags({"rc1.after_pass": str(after_pass).lower()})
        st.log_metrics({f"after.{k_}": v for k_, v in metrics.items() if isinstance(v, (int, float))})
        st.log_metrics({f"after.success.{d}": v for d, v in metrics["success_by_difficulty"].items() if v is not None})
        checks += [{**c, "name": f"after.{c['name']}"} for c in after]
        write_jsonl(workdir / f"generated_{stage}.jsonl", rows)
        st.log_artifact(workdir / f"generated_{stage}.jsonl")
    else:
        report["after"] = {"passed": False, "skipped": "the before report failed: nothing was generated"}
        st.set_tags({"rc1.after_pass": "false"})
    write_json(workdir / f"scale_report_{stage}.json", report)
    st.log_artifact(workdir / f"scale_report_{stage}.json")
    return checks


def run_scale(stage: str = "all", pool: str | None = None, responder: str = "reference", k: int = 1,
              responder_model: str | None = None, responder_base_url: str | None = None, seed: int = 20250820,
              gates_path: str = "configs/gates.yaml", baseline_pool: str | None = None,
              progress: bool = True) -> dict:
    from entrypoints.train import load_pool
    from rc1.config import load_gates
    from rc1.scale import earlier_stages
    from rc1.tracking import run_mode, setup_tracking, stage_run

    setup_tracking()
    mode = run_mode()
    if mode == "dev":
        os.environ.setdefault("SCORER_PROVIDER", "heuristic")
    gates = load_gates(gates_path).for_mode(mode)
    stages = gates.scale.stages
    if stage == "all":
        todo = list(stages)
    else:
        if not stage.isdigit() or int(stage) not in stages:
            raise Rc1Error(f"--stage {stage}: not a configured stage ({gates_path} scale.stages: {stages}) nor 'all'")
        todo = [int(stage)]
    gates_sha = sha256_file(gates_path)
    pool_path, data_dir = _pool_source(pool, mode, gates_sha)
    if baseline_pool and not Path(baseline_pool).is_file():
        raise Rc1Error(f"--baseline-pool {baseline_pool}: file not found")
    pool_sha = sha256_file(pool_path)
    for earlier in earlier_stages(stages, todo[0]):
        problem = _earlier_stage_problem(todo[0], earlier, pool_sha, gates_sha)
        if problem:
            raise Rc1Error(f"scale stage {todo[0]} refused: {problem}")
    seeds = load_pool(pool_path)
    params = {"stages": todo, "pool": pool_path, "responder": responder, "k": k, "seed": seed}
    results, failed = [], None
    run_tags = {"rc1.pool_sha256": pool_sha, "rc1.gates_sha256": gates_sha}
    with stage_run("scale", params=params, reuse=False, tags=run_tags) as parent:
        for n in todo:
            try:
                with stage_run("scale_stage", params={**params, "stage": n}, reuse=False, run_name=f"scale {n}",
                               tags=run_tags) as st, tempfile.TemporaryDirectory() as d:
                    click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] scale stage {n}: before report, "
                               f"generation ({responder}), after report", err=True)
                    checks = _run_stage(st, n, seeds, gates=gates, data_dir=data_dir,
                                        baseline_pool=baseline_pool, responder=responder, k=k,
                                        seed=seed, responder_model=responder_model,
                                        responder_base_url=responder_base_url, workdir=Path(d), progress=progress)
                    results.append({"stage": n, "run_id": st.run_id})
                    st.verdict(checks, what=f"scale stage {n}")
            except GateFailed as e:
                failed = e
                break
        parent.set_tags({"rc1.passed": str(failed is None).lower(),
                         "rc1.stages_passed": ",".join(str(r["stage"]) for r in results[:len(results) - bool(failed)])})
    if failed:
        raise failed
    click.echo(f"scale: stage(s) {', '.join(map(str, todo))} passed their before and after reports")
    return {"run_id": parent.run_id, "stages": results}


@click.command("scale")
@click.option("--stage", default="all", show_default=True, help="a stage of configs/gates.yaml scale.stages, or all")
@click.option("--pool", default=None, help="seed pool (default: the newest passing preflight's balanced pool)")
@click.option("--responder", type=click.Choice(["reference", "model", "endpoint"]), default="reference",
              show_default=True)
@click.option("--k", type=INT, default=1, show_default=True, help="dialogues generated per seed")
@click.option("--responder-model", default=None, help="model path (model) or model name (endpoint)")
@click.option("--responder-base-url", default=None, help="OpenAI-compatible base URL (endpoint)")
@click.option("--seed", type=INT, default=20250820, show_default=True)
@click.option("--baseline-pool", default=None,
              help="a pack_v1 pool for the KL reference (default: built in memory from the same sources)")
@gates_option
def command(stage, pool, responder, k, responder_model, responder_base_url, seed, baseline_pool, gates_path):
    """Generate and judge in stages (1000 -> 5000); a stage runs only after the earlier ones passed both reports."""
    run_scale(stage, optional_param(pool), responder, k, responder_model, responder_base_url, seed, gates_path,
              optional_param(baseline_pool))
