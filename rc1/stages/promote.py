"""`rc1 promote --version N | --alias best`: alias `RC1` (prod) or `RC1-dev` (dev) on a version whose whole
trust chain holds in the tracking server.

version -> train run (finished, launched by a gate) -> gate run -> preflight run (round 2 passed, same mode, the
files the train run used) -> the version's newest finished evaluate run (under the gates file the preflight hashed
and the train run's ppo config; passed, on at least evaluate.min_shadow_items / min_heldout_items items, as
recomputed from its sha256-checked evaluate_report.json, not as its tags say). A prod gates file looser than the
seed's numbers breaks the chain; a dev one may be looser, and the table's gates row lists where. The thresholds
come from that gates file, downloaded from the tracking server and checked against the preflight's sha256.gates;
a local configs/gates.yaml is never read. The chain is printed as a short table; any broken link: exit 2 naming
it (rc1/release/chain.py).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import logged_params
from rc1.core.errors import GateFailed, Rc1Error
from rc1.stages.shared import Versioned
from rc1.tracking import setup_tracking, stage_run, ui_hint, ui_url


@dataclass
class Config(Versioned):
    """Set alias RC1 (RC1-dev for a dev version) when the version's chain holds; otherwise exit 2 naming the link."""


def _view(run):
    from rc1.release.chain import RunView

    if run is None:
        return None
    return RunView(run.info.run_id, run.info.status, dict(run.data.tags), dict(run.data.metrics))


def preflight_gates(pre_run, mode: str):
    """(the thresholds, their sha256) of the gates file the preflight hashed, downloaded from the tracking server
    and checked against its sha256.gates tag; (None, problem) when that file cannot be had. A local
    configs/gates.yaml is never read: copying a lenient file into the promoter's checkout changes nothing."""
    from rc1.core.config import load_gates
    from rc1.tracking.queries import fetch_verified

    if pre_run is None:
        return None, "not found in the tracking server"
    with tempfile.TemporaryDirectory() as d:
        try:
            path = fetch_verified(pre_run, "gates", d)
            return load_gates(path).for_mode(mode), pre_run.data.tags["sha256.gates"]
        except Rc1Error as e:
            return None, f"its gates file cannot be verified ({e})"


def weights_problems(mv) -> list[str]:
    """The version's weights as they are in the store now, against the train run's sha256 tag (altered after the
    evaluation: refused)."""
    from rc1.tracking.registry import download_version

    with tempfile.TemporaryDirectory() as d:
        try:
            download_version(mv, d)
        except Rc1Error as e:
            return [str(e)]
    return []


def evaluate_report(ev_run) -> tuple[dict | None, str | None]:
    """(the evaluate run's evaluate_report.json, downloaded and checked against its sha256 tag, None) or (None, why
    not): promote re-derives the verdict and the item counts from it."""
    from rc1.core.io import read_json
    from rc1.tracking.queries import fetch_artifact

    if ev_run is None:
        return None, None
    with tempfile.TemporaryDirectory() as d:
        try:
            return read_json(fetch_artifact(ev_run, "evaluate_report.json", d)), None
        except Rc1Error as e:
            return None, f"its report cannot be verified ({e})"


def verify_chain(mv):
    """(links, the alias the version may get) for a registered version, read from the tracking server."""
    from rc1.release import chain
    from rc1.core.config import load_gates
    from rc1.core.io import sha256_file
    from rc1.tracking.queries import find_run, round_metrics
    from rc1.tracking.registry import evaluation_of, model_artifact

    train = _view(find_run(mv.run_id))
    links = [chain.train_link(train)]
    if train is not None:
        links[0].problems += weights_problems(mv)
    mode = train.tags.get("rc1.mode") if train else None
    if train is not None:
        pre_run = find_run(train.tags.get("rc1.preflight_run_id"))
        gates, gates_sha = preflight_gates(pre_run, mode or "prod")
        evaluation = evaluation_of(mv.version)
        ev_run = evaluation and find_run(evaluation.run_id)
        ev = _view(ev_run)
        report, report_problem = evaluate_report(ev_run)
        links.append(chain.gate_link(_view(find_run(train.tags.get("rc1.gate_run_id"))), train))
        artifact = model_artifact(mv)
        if gates is not None:
            pre_view = _view(pre_run)
            if pre_view is not None:   # its numbers from the sha256-checked table, not the run's metrics
                pre_view.metrics = round_metrics(pre_run)
            links += [chain.preflight_link(pre_view, train, gates),
                      chain.evaluate_link(ev, train, gates, gates_sha, artifact,
                                          shadow_sha=chain.logged_sha(pre_run.data.tags, "shadow"), report=report,
                                          report_problem=report_problem),
                      chain.gates_link(gates, mode or "prod")]
        else:
            pre_id = pre_run.info.run_id if pre_run else train.tags.get("rc1.preflight_run_id")
            links.append(chain.Link("preflight", pre_id, "-", [gates_sha]))
            # the chain is refused already; the local gates file only adds what else is wrong (it never passes one)
            local = Path("configs/gates.yaml")
            links.append(chain.evaluate_link(ev, train, load_gates(local).for_mode(mode or "prod"), sha256_file(local),
                                             artifact, "the current configs/gates.yaml", report=report,
                                             report_problem=report_problem) if local.is_file() else
                         chain.Link("evaluate", ev.run_id if ev else None, "-",
                                    ["not checked: the preflight's gates file is unavailable"]))
    return links, chain.target_alias(mode)


def attach_report(st, version: str | int, evaluate_run_id: str) -> None:
    """The evaluate run's rc1_report.html goes with the promotion: logged on the promote run, linked from the version."""
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    from rc1.tracking.registry import set_version_tags

    with tempfile.TemporaryDirectory() as d:
        try:
            page = MlflowClient().download_artifacts(evaluate_run_id, "rc1_report.html", d)
        except (MlflowException, OSError):
            return   # an evaluate run from before the report existed: nothing to attach
        sha = st.log_artifact(page)
    set_version_tags(version, {"rc1.report": f"runs:/{st.run_id}/rc1_report.html", "rc1.report_sha256": sha})


def run(cfg: Config, parent_tags: dict | None = None) -> dict:
    """Promote the version (unset: alias best) when its chain holds; returns {run_id, version, alias,
    evaluate_run_id}. A broken link: GateFailed (exit 2), after a FAILED promote run naming it."""
    from rc1.release.chain import render
    from rc1.tracking.registry import BEST, MODEL_NAME, resolve_version, set_alias

    version, alias = cfg.version_or_alias(BEST)
    setup_tracking()
    mv = resolve_version(version, alias)
    links, target = verify_chain(mv)
    click.echo(render(mv.version, links), err=True)
    broken = [ln for ln in links if not ln.ok]
    ids = {f"rc1.{ln.name}_run_id": ln.run_id for ln in links if ln.run_id}
    params = {**logged_params(cfg), "version": mv.version, "alias": alias, "target_alias": target}
    tags = {**(parent_tags or {}), **ids, "rc1.model_version": mv.version, "rc1.registered_model": MODEL_NAME}
    # a refused promotion is a FAILED run whose checks.json (one check per link) names what broke
    with stage_run("promote", params=params, reuse=False, run_name=f"promote v{mv.version}", tags=tags,
                   refusal_fails=True) as st:
        st.log_json([{"link": ln.name, "run_id": ln.run_id, "evidence": ln.evidence, "problems": ln.problems}
                     for ln in links], "chain.json")
        checks = [{"name": f"link.{ln.name}", "value": "; ".join(ln.problems) or "holds", "threshold": "holds",
                   "pass": ln.ok} for ln in links]
        st.log_json({"stage": "promote", "passed": not broken, "checks": checks}, "checks.json")
        st.log_metrics({"promoted": 0.0 if broken else 1.0, "broken_links": len(broken)})
        if broken:
            st.set_tags({"rc1.promoted": "false", "rc1.passed": "false", "rc1.broken_link": broken[0].name})
            why = "; ".join(f"{ln.name} run {ln.run_id or '-'}: {', '.join(ln.problems)}" for ln in broken)
            # the UI link on its own line: error messages go through scrub, which drops a URL's #fragment
            click.echo(f"promote run (FAILED): {ui_url(st.run_id)}{ui_hint()}", err=True)
            raise GateFailed(f"{MODEL_NAME} version {mv.version} not promoted: broken link {why}",
                             [c for c in checks if not c["pass"]])
        set_alias(mv.version, target)
        st.set_tags({"rc1.promoted": "true", "rc1.alias": target})
        attach_report(st, mv.version, ids["rc1.evaluate_run_id"])
    return {"run_id": st.run_id, "version": mv.version, "alias": target, "evaluate_run_id": ids["rc1.evaluate_run_id"]}


def show(res: dict) -> None:
    from rc1.tracking.registry import MODEL_NAME

    click.echo(f"{MODEL_NAME} version {res['version']} is now alias {res['alias']} (evaluate run "
               f"{res['evaluate_run_id']} passed; chain verified)\n  run: {ui_url(res['run_id'])}{ui_hint()}")
