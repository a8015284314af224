"""What the tracking server knows about where a registered version came from: its train run, that run's gate
and preflight, the sibling seeds the gate trained, and their metric histories (for the RC1 report and the
bundle). Read-only queries; a missing link is reported as such, never invented."""

from __future__ import annotations

from mlflow.entities import Run
from mlflow.tracking import MlflowClient

from rc1.tracking.queries import _search, find_run

CURVE_METRICS = ("reward", "eval/reward", "kl", "loss", "learning_rate", "entropy", "rc1.reward.easy",
                 "rc1.reward.medium", "rc1.reward.hard")


def version_runs(train_run_id: str) -> dict[str, Run | None]:
    """{train, gate, preflight}: the train run of a version and the gate and preflight runs it names."""
    train = find_run(train_run_id)
    tags = train.data.tags if train else {}
    return {"train": train, "gate": find_run(tags.get("rc1.gate_run_id")),
            "preflight": find_run(tags.get("rc1.preflight_run_id"))}


def sibling_train_runs(train: Run) -> list[Run]:
    """Every train run of the gate that launched `train` (one per seed), or just `train` when no gate did."""
    gate_id = train.data.tags.get("rc1.gate_run_id")
    if not gate_id:
        return [train]
    runs = _search(f"tags.`rc1.stage` = 'train' AND tags.`rc1.gate_run_id` = '{gate_id}'", max_results=100)
    return sorted(runs, key=lambda r: r.info.start_time) or [train]


def metric_curves(runs: list[Run], metrics: tuple[str, ...] = CURVE_METRICS) -> dict[str, dict[str, list[tuple[int, float]]]]:
    """run label (seed=... or run name) -> metric -> [(step, value)] from the tracking server's history."""
    client = MlflowClient()
    out: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for run in runs:
        seed = run.data.params.get("seed") or run.data.tags.get("rc1.seed")
        label = f"seed={seed}" if seed else (run.info.run_name or run.info.run_id[:8])
        out[label] = {m: [(h.step, h.value) for h in client.get_metric_history(run.info.run_id, m)]
                      for m in metrics if m in run.data.metrics}
    return out


def chain_rows(runs: dict[str, Run | None], version: str, evaluate_run_id: str = "") -> list[dict[str, str]]:
    """The chain as table rows: version -> train -> gate -> preflight -> evaluate, each run's status as the server
    has it now and its page in the UI (url)."""
    from rc1.tracking.ui import ui_url

    def row(link: str, run: Run | None, detail: str) -> dict[str, str]:
        if run is None:
            return {"link": link, "run_id": "missing", "detail": "not found in the tracking store"}
        return {"link": link, "run_id": run.info.run_id, "url": ui_url(run.info.run_id, run.info.experiment_id),
                "detail": f"{run.info.status}; {detail}"}

    train, gate, pre = runs["train"], runs["gate"], runs["preflight"]
    rows = [{"link": "version", "run_id": version, "detail": "rc1-policy"}]
    rows.append(row("train", train, f"gated={(train.data.tags.get('rc1.gated') or 'unknown') if train else ''}"))
    rows.append(row("gate", gate, (f"mode={gate.data.tags.get('rc1.mode')}, RC1 verdict "
                                   f"{gate.data.tags.get('rc1.rc1_verdict', 'not yet recorded')}") if gate else ""))
    rows.append(row("preflight", pre, f"round2_pass={pre.data.tags.get('rc1.round2_pass')}" if pre else ""))
    if evaluate_run_id:
        ev = find_run(evaluate_run_id)
        rows.append(row("evaluate", ev, f"passed={ev.data.tags.get('rc1.passed', 'not yet recorded')}; this report"
                        if ev else ""))
    return rows


def sha_tags(*runs: Run | None) -> dict[str, str]:
    """sha256.<name> tags of the given runs, later runs winning (preflight first, then train)."""
    out: dict[str, str] = {}
    for run in runs:
        if run:
            out.update({k[len("sha256."):]: v for k, v in run.data.tags.items() if k.startswith("sha256.")})
    return out
