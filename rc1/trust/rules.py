"""The trust chain `rc1 promote` and `rc1 verify` check (pure: the runs' signed facts in, one verdict per link out).

version -> train run (finished, launched by a gate) -> gate run -> preflight run (round 2 passed, same mode,
the very files the train run used) -> evaluate run (finished, under the train run's ppo config and a gates file whose
sha256 equals the preflight's sha256.gates, the file the thresholds come from; passed and on enough items of both
splits as recomputed from its report artifact, never as its tags say). The facts come from each run's signed
statement, not its tags; the downloads live in rc1/trust/version.py. What a preflight must hold to open the gate
(preflight_problems) is the same rule for the gate's admission (rc1.checks.admission) and for the chain.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Mapping

from rc1.core.config import Thresholds, dotted_value, looser_than_seed
from rc1.core.summary import failing_checks

# (round-2 metric mirrored on the preflight parent, gates section.key, comparison)
RECHECKS = [
    ("round2.validate_pool.leak_count", "validate_pool.leak_count_max", operator.le),
    ("round2.validate_pool.distinct_2", "validate_pool.distinct_2_min", operator.ge),
    ("round2.validate_pool.dup_rate", "validate_pool.dup_rate_max", operator.le),
    ("round2.shadow_run.spearman", "shadow_run.spearman_min", operator.ge),
    ("round2.shadow_run.top10pct_overlap", "shadow_run.top10pct_overlap_min", operator.ge),
    ("round2.shadow_run.corr_improve_pct", "shadow_run.corr_improve_pct_min", operator.ge),
    ("round2.shadow_run.corr_to_success_new", "shadow_run.corr_to_success_new_min", operator.ge),
]
REQUIRED = ("pool", "shadow", "weights", "config", "gates")

RC1 = "RC1"
RC1_DEV = "RC1-dev"
# train run's input_sha256.<name> -> preflight's sha256.<name> (the pool it trained on is the balanced pool)
TRAINED_WITH = (("pool", ("balanced", "pool")), ("config", ("config",)), ("weights", ("weights",)),
                ("gates", ("gates",)))


@dataclass
class RunView:
    """What the chain needs of an MLflow run."""
    run_id: str
    status: str
    tags: Mapping[str, str] = field(default_factory=dict)
    metrics: Mapping[str, float] | None = field(default_factory=dict)   # a preflight's: its round metrics table


@dataclass
class Link:
    name: str                     # train, gate, preflight, evaluate
    run_id: str | None
    evidence: str
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def target_alias(mode: str | None) -> str:
    """RC1 for a prod version; a dev version proves the path, not the model: RC1-dev, never RC1."""
    return RC1 if mode == "prod" else RC1_DEV


def _run_problems(run: RunView | None, stage: str) -> list[str]:
    if run is None:
        return ["not found in the tracking server"]
    out = []
    if run.tags.get("rc1.stage") != stage:
        out.append(f"is a {run.tags.get('rc1.stage') or 'non-rc1'} run, not a {stage} run")
    if run.status != "FINISHED":
        out.append(f"status {run.status}, not FINISHED")
    return out


def train_link(train: RunView | None) -> Link:
    problems = _run_problems(train, "train")
    if train is not None:
        if train.tags.get("rc1.gated") != "true":
            problems.append("not launched by a gate (rc1.gated=false)")
        elif not train.tags.get("rc1.gate_run_id"):
            problems.append("names no gate run")
        elif train.tags.get("mlflow.parentRunId") != train.tags.get("rc1.gate_run_id"):
            problems.append("is not a child of the gate run it names")
    evidence = f"{train.status}, gated={train.tags.get('rc1.gated', 'unknown')}" if train else "-"
    return Link("train", train.run_id if train else None, evidence, problems)


def gate_link(gate: RunView | None, train: RunView) -> Link:
    problems = _run_problems(gate, "gate")
    if gate is not None:
        if gate.tags.get("rc1.preflight_run_id") != train.tags.get("rc1.preflight_run_id"):
            problems.append("opened on another preflight than the train run records")
        if gate.tags.get("rc1.mode") != train.tags.get("rc1.mode"):
            problems.append(f"mode {gate.tags.get('rc1.mode')} differs from the train run's")
        if gate.tags.get("input_sha256.fresh") != train.tags.get("input_sha256.fresh"):
            problems.append("checked other --fresh prompts than the train run trained on")
        if gate.tags.get("rc1.gate_kind") == "trial":
            problems.append("is a trial gate: its versions prove the small-step trial, not a release candidate")
    evidence = f"{gate.status}, mode {gate.tags.get('rc1.mode')}" if gate else "-"
    return Link("gate", gate.run_id if gate else train.tags.get("rc1.gate_run_id"), evidence, problems)


def preflight_link(pre: RunView | None, train: RunView, gates: Thresholds) -> Link:
    problems = _run_problems(pre, "preflight")
    if pre is not None:
        if pre.tags.get("rc1.mode") != train.tags.get("rc1.mode"):
            problems.append(f"mode {pre.tags.get('rc1.mode')} differs from the train run's "
                            f"{train.tags.get('rc1.mode')}")
        problems += preflight_problems(dict(pre.tags), None if pre.metrics is None else dict(pre.metrics), gates)
        for used, names in TRAINED_WITH:
            want = next((pre.tags[f"sha256.{n}"] for n in names if pre.tags.get(f"sha256.{n}")), None)
            got = train.tags.get(f"input_sha256.{used}")
            if not want or got != want:
                problems.append(f"the train run's {used} is not the one this preflight hashed")
    evidence = (f"{pre.status}, round2_pass={pre.tags.get('rc1.round2_pass')}, mode {pre.tags.get('rc1.mode')}"
                if pre else "-")
    return Link("preflight", pre.run_id if pre else train.tags.get("rc1.preflight_run_id"), evidence, problems)


def round_problems(tags: dict[str, str], metrics: dict[str, float]) -> list[str]:
    """Why this preflight run did not pass both rounds (empty list: it did)."""
    if tags.get("rc1.round2_pass") != "true" or metrics.get("round2_pass") != 1.0:
        return ["it did not pass round 1" if tags.get("rc1.round1_pass") != "true" else "it did not pass round 2"]
    return []


def preflight_problems(tags: dict[str, str], metrics: Mapping[str, float] | None, gates: Thresholds) -> list[str]:
    """Every reason this preflight run must not open the gate (empty list: it may). `metrics`: its table of round
    metrics (round_metrics.json, sha256-checked; None when it cannot be had). Its files are checked where they live,
    in the tracking server (the gate flow downloads them: rc1.checks.admission, rc1.tracking.queries)."""
    if metrics is None:
        return ["its table of round metrics (artifact round_metrics.json) is missing or does not match its sha256"]
    problems = round_problems(tags, metrics)
    if problems:
        return problems
    if tags.get("rc1.mode") == "prod":
        problems += data_source_problems(tags)
    step_flags = {k: v for k, v in metrics.items() if k.startswith("round2.") and k.endswith(".passed")}
    if not step_flags:
        problems.append("it recorded no round-2 step results")
    problems += [f"step {k[len('round2.'):-len('.passed')]} did not pass" for k, v in step_flags.items() if v != 1.0]
    waived = {w for w in tags.get("rc1.waived", "").split(",") if w and w != "none"}
    for metric, dotted, op in RECHECKS:
        step, name = metric.split(".")[1:3]
        if tags.get("rc1.mode") == "dev" and (step in waived or f"{step}.{name}" in waived
                                               or step in gates.dev_mode.waive):
            continue  # a dev preflight recorded this step as waived; prod never waives
        if metric not in metrics:
            problems.append(f"metric {metric} is missing")
            continue
        limit = dotted_value(gates, dotted)
        if not op(metrics[metric], limit):
            problems.append(f"{metric}={metrics[metric]:.4g} no longer meets {dotted}={limit}")
    problems += [f"it recorded no sha256 for the {name}" for name in REQUIRED if not tags.get(f"sha256.{name}")]
    return problems


def data_source_problems(tags: Mapping[str, str]) -> list[str]:
    """Why a prod preflight's data disqualifies it: a task whose tag rc1.data_source.<task> is bundled (the small
    sample shipped for offline runs and tests) or builtin (synthetic data), or no such tag at all (the data's origin
    was not recorded)."""
    sources = {k[len("rc1.data_source."):]: v for k, v in tags.items() if k.startswith("rc1.data_source.")}
    if not sources:
        return ["it recorded no data source (tags rc1.data_source.<task>)"]
    return [f"its {task} data came from the {kind} source {tags.get(f'rc1.data_uri.{task}') or f'({kind})'} "
            "(prod trains only on a configured dataset)" for task, kind in sorted(sources.items())
            if kind in ("bundled", "builtin")]   # builtin: the synthetic generators of earlier versions


def logged_sha(tags: Mapping[str, str], name: str) -> str | None:
    """The digest a run recorded for its named file: `sha256.<name>`, else the tag of the artifact that
    `rc1.artifact.<name>` points at (StageRun.log_named_artifact)."""
    art = tags.get(f"rc1.artifact.{name}")
    return tags.get(f"sha256.{name}") or (tags.get(f"sha256.{art.rsplit('/', 1)[-1]}") if art else None)


def recomputed_verdict(report: Mapping | None, gates: Thresholds) -> tuple[list[dict], dict[str, int], list[str]]:
    """(the RC1 checks, items per split, problems) re-derived from an evaluate run's report artifact under `gates`: the
    checks are recomputed from the policy and base summaries the report holds, the item counts read from its
    per-split summaries; what the run's tags and metrics say is not used."""
    from rc1.inference.policy_vs_base import deltas, rc1_checks

    if report is None:
        return [], {}, []
    try:
        policy, base = report["policy"], report["base"]
        checks = rc1_checks(deltas(policy, base), gates.evaluate, base["overclar_rate"])
        counts = {split: int(report["by_split"][split]["policy"]["n"]) for split in ("shadow", "heldout")
                  if split in report["by_split"]}
    except (KeyError, TypeError, ValueError) as e:
        return [], {}, [f"its report artifact cannot be read as an RC1 evaluation ({type(e).__name__}: {e})"]
    return checks, counts, []


def evaluate_link(ev: RunView | None, train: RunView, gates: Thresholds, gates_sha: str,
                  gates_from: str = "the one its preflight hashed", shadow_sha: str | None = None,
                  report: Mapping | None = None, report_problem: str | None = None) -> Link:
    """`gates` are the thresholds of the preflight's own gates file and `gates_sha` its sha256.gates (`gates_from`
    names that file in the problems). The evaluated weights (input_sha256.model) must be the train run's model (its
    sha256.model); the shadow set the preflight's (`shadow_sha`), the held-out split and the
    ppo config the train run's. The verdict and the item counts are re-derived from `report` (the run's
    evaluate_report.json, checked against its sha256 tag; `report_problem` says why there is none), never taken
    from the run's rc1.passed tag or rc1.eval_items metrics; a failed verdict names its failing checks."""
    if ev is None:
        return Link("evaluate", None, "-", ["no finished evaluate run of this version"])
    problems = _run_problems(ev, "evaluate")
    g = gates.evaluate
    checks, counts, report_problems = recomputed_verdict(report, gates)
    passed = bool(checks) and all(c["pass"] for c in checks)
    problems += report_problems if report is not None else [report_problem or "no report artifact"]
    n_shadow, n_held = counts.get("shadow", 0), counts.get("heldout", 0)
    if report is not None and str(report.get("model_version")) != str(ev.tags.get("rc1.model_version")):
        problems.append("its report is of another model version")
    if ev.tags.get("rc1.train_run_id") != train.run_id:
        problems.append("evaluated another training run")
    if ev.tags.get("rc1.mode") != train.tags.get("rc1.mode"):
        problems.append(f"ran in mode {ev.tags.get('rc1.mode')}, not the version's {train.tags.get('rc1.mode')}")
    if report is not None and n_shadow < g.min_shadow_items:   # no report: its counts are unknown, not 0
        problems.append(f"saw {n_shadow} shadow-set items < evaluate.min_shadow_items={g.min_shadow_items}")
    if report is not None and n_held < g.min_heldout_items:
        problems.append(f"saw {n_held} held-out items < evaluate.min_heldout_items={g.min_heldout_items}")
    if ev.tags.get("input_sha256.gates") != gates_sha:
        problems.append(f"applied a gates file other than {gates_from} (sha256 differs)")
    if train.tags.get("input_sha256.gates") != gates_sha:
        problems.append(f"the version was trained under a gates file other than {gates_from}")
    want_model = train.tags.get("sha256.model")
    if not want_model or ev.tags.get("input_sha256.model") != want_model:
        problems.append("evaluated weights other than the train run's model (input_sha256.model differs from its "
                        "sha256.model)")
    if not shadow_sha or ev.tags.get("input_sha256.shadow") != shadow_sha:
        problems.append("evaluated a shadow set other than the one its preflight hashed (input_sha256.shadow)")
    held_sha = logged_sha(train.tags, "heldout")
    if not held_sha or ev.tags.get("input_sha256.heldout") != held_sha:
        problems.append("evaluated a held-out split other than the train run's (input_sha256.heldout)")
    if train.tags.get("input_sha256.config") != ev.tags.get("input_sha256.config"):
        problems.append("evaluated under a ppo config other than the train run's (input_sha256.config)")
    if report is not None and not passed:
        named = failing_checks(checks)
        problems.append("failed the RC1 gates (recomputed from its report)" + (f": {named}" if named else ""))
    evidence = f"{ev.status}, {n_shadow} shadow + {n_held} held-out items, recomputed passed={passed}"
    return Link("evaluate", ev.run_id, evidence, problems)


def gates_link(gates: Thresholds, mode: str) -> Link:
    """The thresholds in force, said plainly: in dev, which are looser than the seed's (prod refuses those before
    this, in Thresholds.for_mode)."""
    loose = looser_than_seed(gates)
    evidence = (f"{mode}: looser than the seed's: {', '.join(loose)}" if loose
                else f"{mode}: as strict as the seed's or stricter")
    return Link("gates", None, evidence)


RUNLESS = ("version", "gates", "trust", "alias")   # links that are not a run (the version link's id is its number)


def label(ln: Link) -> str:
    """How a refusal names the link: `train run <id>`, `version <n>`, `gates`."""
    if ln.name not in RUNLESS:
        return f"{ln.name} run {ln.run_id or '-'}"
    return f"{ln.name} {ln.run_id}" if ln.run_id else ln.name


def render(links: list[Link]) -> str:
    """The chain as a short table, one line per link."""
    rows = [("link", "run", "evidence", "verdict")]
    rows += [(ln.name, ln.run_id or "-", ln.evidence, "ok" if ln.ok else "BROKEN: " + "; ".join(ln.problems))
             for ln in links]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3] for r in rows)
