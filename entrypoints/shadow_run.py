"""`rc1 shadow-run` / `mlflow run . -e shadow_run`: old 7-dim score vs new reward on the same candidates.

The shadow set comes from --shadow (a materialized shadow_eval_*.jsonl) or is built like
materialize-shadow does (--data-dir, --n, --seed, --stratify). The responder makes K candidates per item,
the judge (make_judge: SCORER_PROVIDER / REWARD_LIVE_MODE / RUN_MODE decide) scores each once, and the
report compares the rankings (rc1.shadow_run has the definitions). Gate: configs/gates.yaml shadow_run.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import click

from entrypoints._common import INT, data_dir_option, gates_option, optional_param, reuse_option
from rc1.config import load_gates, load_ppo_scale, load_weights
from rc1.errors import Rc1Error
from rc1.redaction import safe_url
from rc1.io import read_json, read_jsonl, write_json, write_jsonl
from rc1.reward import RewardParams, weights_check
from rc1.tracking import run_mode, stage_run

DEFAULT_REPORT = "reports/shadow_run.json"


# ---------------------------------------------------------------- shared by the three reward stages
def reward_params(config: str | None, alpha=None, cap=None, beta=None) -> RewardParams:
    from rc1.config import default_ppo_config

    return RewardParams.from_config(load_ppo_scale(config or default_ppo_config(run_mode())),
                                    alpha=alpha, cap=cap, beta=beta)


def checked_weights(weights: str, gates):
    """configs/weights.json loaded and held to the weights gate (Rc1Error naming the failing check)."""
    w = load_weights(weights)
    bad = [c for c in weights_check(w, gates) if not c["pass"]]
    if bad:
        raise Rc1Error(f"{weights}: {bad[0]['name']} fails ({bad[0]['value']:.4g}, wants {bad[0]['threshold']})")
    return w


def shadow_records(shadow: str | None, data_dir: str | None, n: int, seed: int, stratify: bool,
                   gates_path: str = "configs/gates.yaml") -> tuple[list[dict], Any, dict]:
    """(records, what identifies them for the reuse key, loaded sources by task when the set was built).
    Built like materialize-shadow builds it: rc1.shadow_set with the configured task mix."""
    if shadow:
        rows = read_jsonl(shadow)
        for i, r in enumerate(rows, 1):
            missing = [k for k in ("id", "task", "answer") if k not in r]
            if missing or not (r.get("question") or r.get("dialogue")):
                raise Rc1Error(f"{shadow}: line {i}: a shadow item needs id, task, answer and question or dialogue")
        return rows, shadow, {}
    from rc1.data import default_data_config
    from rc1.shadow_set import default_mix, load_and_select

    mix = default_mix(gates_path)
    rows, loaded = load_and_select(data_dir, n, seed, stratify, mix, default_data_config())
    key = {"n": n, "seed": seed, "stratify": stratify, "mix": mix,
           "sources": {t: lt.digest for t, lt in loaded.items()}}
    return rows, key, loaded


def shadow_items(records: list[dict]):
    from rc1.responder import ShadowItem
    from rc1.shadow_run import item_difficulties

    dup = next((i for i, c in Counter(str(r["id"]) for r in records).items() if c > 1), None)
    if dup:
        raise Rc1Error(f"shadow set: item id {dup!r} appears more than once")
    items = [ShadowItem.from_record(r) for r in records]
    diffs, source = item_difficulties([it.as_seed() for it in items])
    return [dataclasses.replace(it, difficulty=diffs[it.id]) for it in items], source


def resolve_scored(scored: str | None, workdir: str | Path = "reports") -> tuple[Path, str]:
    """--scored PATH, else the scored_candidates.jsonl of the newest finished shadow_run of this RUN_MODE scored by the
    judge configured now (rc1.scoring.identity), else a fresh default shadow run (its gate verdict does not matter here: only its scored candidates)."""
    if scored:
        if not Path(scored).is_file():
            raise Rc1Error(f"--scored {scored}: file not found")
        return Path(scored), f"file:{scored}"
    from rc1.tracking.latest import newest_stage_output

    from rc1.scoring.identity import JUDGE_TAG, identity_digest
    from rc1.scoring.judge import make_judge

    # only candidates the judge configured now scored: another endpoint, model or sampling is another judge
    judge_id = identity_digest(make_judge(cache=False).identity())
    found = newest_stage_output("shadow_run", "scored", Path(workdir) / ".latest_shadow_run", mode=run_mode(),
                                tags={JUDGE_TAG: judge_id})
    if found:
        return found[0], f"shadow_run:{found[1]}"
    click.echo("[rc1] no finished shadow_run found: running one to get scored candidates", err=True)
    from rc1.errors import GateFailed

    out = Path(workdir) / "scored_candidates.jsonl"
    try:
        run_shadow_run(report=str(Path(workdir) / "shadow_run.json"), scored_out=str(out))
    except GateFailed as e:
        click.echo(f"[rc1] (that shadow run's own gate: {e})", err=True)
    return out, f"file:{out}"


def scored_tags(rows: list[dict]) -> dict[str, str]:
    def joined(key):
        return ",".join(sorted({str(r.get(key)) for r in rows if r.get(key)})) or "unknown"

    return {"rc1.responder": joined("responder"), "rc1.judge_provider": joined("judge_provider")}


# ---------------------------------------------------------------- the stage
def run_shadow_run(data_dir: str | None = None, n: int = 245, seed: int = 20250820, stratify: bool = True,
                   tag: str | None = None, report: str = DEFAULT_REPORT, shadow: str | None = None,
                   responder: str = "reference", k: int = 6, responder_model: str | None = None,
                   responder_base_url: str | None = None, weights: str = "configs/weights.json",
                   config: str | None = None, alpha: float | None = None, cap: int | None = None,
                   beta: float | None = None, gates_path: str = "configs/gates.yaml", scored_out: str | None = None,
                   clarify_rate: float = 0.30, reuse: bool = True, progress: bool = True) -> dict[str, Any]:
    from rc1.responder import all_candidates, make_responder
    from rc1.scoring.identity import responder_identity, scoring_identity
    from rc1.scoring.judge import make_judge, stats_metrics
    from rc1.shadow_run import clarify_items, flat_metrics, score_candidates, shadow_checks, shadow_metrics

    data_dir = optional_param(data_dir)
    gates = load_gates(gates_path).for_mode(run_mode())
    w = checked_weights(weights, gates)
    params_r = reward_params(config, alpha, cap, beta)
    report_path = Path(report)
    scored_path = Path(scored_out) if scored_out else report_path.with_name("scored_candidates.jsonl")
    if not 0.0 <= clarify_rate <= 1.0:
        raise Rc1Error(f"--clarify-rate must be within [0, 1], got {clarify_rate}")
    records, shadow_key, loaded = shadow_records(shadow, data_dir, n, seed, stratify, gates_path)
    judge = make_judge()
    jd = judge.describe()
    who, who_tags = scoring_identity(judge, responder_identity(responder, k=k, seed=seed, model=responder_model,
                                                              base_url=responder_base_url))
    params = {"n": len(records), "n_requested": n, "seed": seed, "stratify": stratify, "tag": tag or "",
              "shadow": shadow or "built", "data_dir": data_dir or "auto", "responder": responder, "k": k,
              "responder_model": responder_model or "", "responder_base_url": safe_url(responder_base_url or ""),
              "clarify_rate": clarify_rate,
              "alpha": params_r.alpha, "cap": params_r.cap, "beta": params_r.beta,
              "judge_provider": jd["provider"], "judge_model": jd["model"], "judge_samples": jd["samples"],
              "judge_spec": jd["spec_version"]}
    from rc1.data.sources import source_tags

    tags = {"rc1.responder": responder, "rc1.judge_provider": jd["provider"], **who_tags, **source_tags(loaded)}
    if tag:
        tags.update({"rc1.tag": tag, tag: "true"})

    with stage_run("shadow_run", params=params,
                   inputs={"shadow": shadow_key, "weights": weights, "gates": gates_path, **who},
                   outputs={"report": report_path, "scored": scored_path}, reuse=reuse, tags=tags) as st:
        if st.reused:
            rep = read_json(report_path)
            return {"checks": rep["checks"], "passed": rep["passed"], "report": str(report_path),
                    "scored": str(scored_path), "run_id": st.run_id, "reused": True}
        records, n_clarify = clarify_items(records, clarify_rate, seed)
        items, diff_source = shadow_items(records)
        if shadow:
            st.log_file_input(shadow, "shadow")
        for t, lt in loaded.items():
            if lt.source_kind == "local":
                st.log_file_input(lt.source_uri, f"data.{t}", sha=lt.digest)
            else:
                st.log_source_input(f"data.{t}", lt.source_uri, lt.digest)
        st.log_config(gates.shadow_run, "gates_shadow_run.json")
        resp = make_responder(responder, k=k, seed=seed, model=responder_model, base_url=responder_base_url)
        candidates = all_candidates(resp, items, progress=progress)
        by_id = {it.id: it.as_seed() for it in items}
        rows = score_candidates(by_id, candidates, judge, w, params_r, progress=progress)
        for r in rows:
            r.update({"responder": responder, "judge_provider": jd["provider"]})
        metrics = shadow_metrics(rows)
        checks = shadow_checks(metrics, gates.shadow_run)
        passed = all(c["pass"] for c in checks)
        stats = judge.stats()
        write_jsonl(scored_path, rows)
        write_json(report_path, {
            "stage": "shadow_run", "passed": passed, "checks": checks, "metrics": metrics,
            "params": params, "weights": w.as_dict(), "difficulty_source": diff_source,
            "clarification_items": sum(it.needs_clarification for it in items),
            "clarification_items_derived": n_clarify,
            "responder": resp.describe(), "judge": jd, "identity": who,
            "judge_stats": {k_: v for k_, v in stats.items() if isinstance(v, (int, float, str, bool))},
            "definitions": {
                "spearman/kendall_tau": "old vs new over all scored candidates (global)",
                "topK_overlap": "global over all candidates: expected |topK(old) ∩ topK(new)| / K under random "
                                "tie-breaking",
                "corr_to_success": "Spearman of score vs success (0/1); success = task-correct final answer and, "
                                   "when the item needs clarification, at least one clarifying question",
                "corr_improve_pct": "100 * (corr_new - corr_old) / |corr_old|",
            },
        })
        st.log_metrics({**flat_metrics(metrics), **stats_metrics(stats)})
        st.log_artifact(report_path)
        st.log_artifact(scored_path)
        if judge.unstable_rows:
            unstable = report_path.with_name("unstable_samples.jsonl")
            judge.write_unstable(unstable)
            st.log_artifact(unstable)
        _echo_summary(metrics, checks)
        st.verdict(checks, what="shadow_run")
        return {"checks": checks, "passed": True, "report": str(report_path), "scored": str(scored_path),
                "run_id": st.run_id, "metrics": flat_metrics(metrics)}


def _echo_summary(metrics: dict, checks: list[dict]) -> None:
    def f(v):
        return "n/a" if v is None else f"{v:.4g}"

    click.echo(f"shadow_run: {metrics['n_scored']} scored candidates ({metrics['n_failed']} failed) over "
               f"{metrics['n_items']} items; spearman {f(metrics['spearman'])}, kendall {f(metrics['kendall_tau'])}, "
               f"top10% {f(metrics['top10pct_overlap'])} (top10 {f(metrics['top10_overlap'])}, top20 "
               f"{f(metrics['top20_overlap'])}, top20% {f(metrics['top20pct_overlap'])}), within-item argmax "
               f"agreement {f(metrics['argmax_agreement_within_item'])}, corr_to_success old "
               f"{f(metrics['corr_to_success_old'])} / new {f(metrics['corr_to_success_new'])} "
               f"({f(metrics['corr_improve_pct'])}%) -> {'PASS' if all(c['pass'] for c in checks) else 'FAIL'}",
               file=sys.stdout)


@click.command("shadow-run")
@data_dir_option
@click.option("--n", default=245, type=INT, show_default=True, help="shadow items (when the set is built, not --shadow)")
@click.option("--seed", default=20250820, type=INT, show_default=True, help="shadow set and responder seed")
@click.option("--stratify/--no-stratify", default=True, show_default=True, help="stratify the built set by task")
@click.option("--tag", default=None, help="run tag (preflight round 2 uses pre_run_check): rc1.tag=T and T=true")
@click.option("--report", default=DEFAULT_REPORT, show_default=True, help="report JSON")
@click.option("--shadow", default=None, help="a materialized shadow set (JSONL) instead of building one")
@click.option("--responder", type=click.Choice(["reference", "model", "endpoint"]), default="reference",
              show_default=True, help="candidate source (reference = contrastive variants of the gold data)")
@click.option("--k", default=6, type=INT, show_default=True, help="candidates per item")
@click.option("--responder-model", "--responder_model", "responder_model", default=None,
              help="model: local model directory; endpoint: model name (or RESPONDER_MODEL)")
@click.option("--responder-base-url", "--responder_base_url", "responder_base_url", default=None,
              help="endpoint: OpenAI-compatible base URL (or RESPONDER_BASE_URL; key from RESPONDER_API_KEY)")
@click.option("--weights", default="configs/weights.json", show_default=True)
@click.option("--config", default=None, help="ppo config for alpha/cap/beta (default by RUN_MODE)")
@click.option("--alpha", type=float, default=None, help="over-clarification penalty (default: config)")
@click.option("--cap", type=INT, default=None, help="penalty cap on questions (default: config)")
@click.option("--beta", type=float, default=None, help="difficulty weighting in [0.05, 0.10] (default: config)")
@click.option("--scored-out", "--scored_out", "scored_out", default=None,
              help="scored candidates JSONL (default: scored_candidates.jsonl beside the report)")
@click.option("--clarify-rate", "--clarify_rate", "clarify_rate", default=0.30, show_default=True,
              help="share of plain task items (per task) turned into clarification items (a needed fact "
                   "removed, kept as hidden_info); items that already say needs_clarification are kept")
@gates_option
@reuse_option
def command(data_dir, n, seed, stratify, tag, report, shadow, responder, k, responder_model, responder_base_url,
            weights, config, alpha, cap, beta, scored_out, clarify_rate, gates_path, reuse):
    """Old 7-dim score vs new reward on the same candidates; gate: spearman, top10 overlap, corr improvement."""
    run_shadow_run(data_dir=data_dir, n=n, seed=seed, stratify=stratify, tag=tag, report=report, shadow=shadow,
                   responder=responder, k=k, responder_model=responder_model,
                   responder_base_url=responder_base_url, weights=weights, config=config, alpha=alpha, cap=cap,
                   beta=beta, gates_path=gates_path, scored_out=scored_out, clarify_rate=clarify_rate, reuse=reuse)
