"""`rc1 promote --version N | --alias best`: alias `RC1` (prod) or `RC1-dev` (dev) on a version whose whole
trust chain holds in the tracking server.

version -> train run (finished, launched by a gate) -> gate run -> preflight run (round 2 passed, same mode, the
files the train run used) -> the version's newest finished evaluate run (passed, on at least
evaluate.min_shadow_items / min_heldout_items items, under a gates file whose sha256 equals the current
configs/gates.yaml). The chain is printed as a short table; any broken link: exit 2 naming it (rc1/chain.py).
"""

from __future__ import annotations

from pathlib import Path

import click

from rc1.errors import GateFailed, Rc1Error
from rc1.tracking import setup_tracking, stage_run

GATES_FILE = Path("configs/gates.yaml")


def _view(run):
    from rc1.chain import RunView

    if run is None:
        return None
    return RunView(run.info.run_id, run.info.status, dict(run.data.tags), dict(run.data.metrics))


def verify_chain(mv, gates_file: Path = GATES_FILE):
    """(links, the alias the version may get) for a registered version, read from the tracking server."""
    from rc1 import chain
    from rc1.config import load_gates
    from rc1.io import sha256_file
    from rc1.tracking.queries import find_run
    from rc1.tracking.registry import evaluation_of

    if not gates_file.is_file():
        raise Rc1Error(f"{gates_file}: file not found; promote compares the evaluate run's gates with this file")
    train = _view(find_run(mv.run_id))
    links = [chain.train_link(train)]
    mode = train.tags.get("rc1.mode") if train else None
    if train is not None:
        gates = load_gates(gates_file).for_mode(mode or "prod")
        evaluation = evaluation_of(mv.version)
        links += [chain.gate_link(_view(find_run(train.tags.get("rc1.gate_run_id"))), train),
                  chain.preflight_link(_view(find_run(train.tags.get("rc1.preflight_run_id"))), train, gates),
                  chain.evaluate_link(_view(evaluation and find_run(evaluation.run_id)), train, gates,
                                      sha256_file(gates_file))]
    return links, chain.target_alias(mode)


def attach_report(st, version: str | int, evaluate_run_id: str) -> None:
    """The evaluate run's rc1_report.html goes with the promotion: logged on the promote run, linked from the version."""
    import tempfile

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


def run_promote(version: str | int | None = None, alias: str | None = None, parent_tags: dict | None = None) -> dict:
    from rc1.chain import render
    from rc1.tracking.registry import MODEL_NAME, resolve_version, set_alias

    setup_tracking()
    mv = resolve_version(version, alias)
    links, target = verify_chain(mv)
    click.echo(render(mv.version, links), err=True)
    broken = [ln for ln in links if not ln.ok]
    ids = {f"rc1.{ln.name}_run_id": ln.run_id for ln in links if ln.run_id}
    params = {"version": mv.version, "alias": alias, "target_alias": target}
    tags = {**(parent_tags or {}), **ids, "rc1.model_version": mv.version, "rc1.registered_model": MODEL_NAME}
    with stage_run("promote", params=params, reuse=False, run_name=f"promote v{mv.version}", tags=tags) as st:
        st.log_json([{"link": ln.name, "run_id": ln.run_id, "evidence": ln.evidence, "problems": ln.problems}
                     for ln in links], "chain.json")
        if broken:
            st.set_tags({"rc1.promoted": "false", "rc1.broken_link": broken[0].name})
            why = "; ".join(f"{ln.name} run {ln.run_id or '-'}: {', '.join(ln.problems)}" for ln in broken)
            raise GateFailed(f"{MODEL_NAME} version {mv.version} not promoted: broken link {why}")
        set_alias(mv.version, target)
        st.set_tags({"rc1.promoted": "true", "rc1.alias": target})
        attach_report(st, mv.version, ids["rc1.evaluate_run_id"])
    click.echo(f"{MODEL_NAME} version {mv.version} is now alias {target} (evaluate run {ids['rc1.evaluate_run_id']} "
               f"passed; chain verified)")
    return {"run_id": st.run_id, "version": mv.version, "alias": target, "evaluate_run_id": ids["rc1.evaluate_run_id"]}


@click.command("promote")
@click.option("--version", default=None, help="model version of rc1-policy")
@click.option("--alias", default=None, help="promote the version behind this alias (e.g. best)")
def command(version, alias):
    """Set alias RC1 (RC1-dev for a dev version) when the version's chain holds; otherwise exit 2 naming the link."""
    if (version is None) == (alias is None):
        raise Rc1Error("give exactly one of --version N or --alias NAME")
    run_promote(version, alias)
