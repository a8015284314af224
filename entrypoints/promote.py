"""`rc1 promote --version N | --alias best`: alias `RC1` on a version whose evaluate run passed.

The evidence is the tracking store itself: the newest FINISHED run with rc1.stage=evaluate and
rc1.model_version=N (search_runs, embedded store or `mlflow server`). No passing run: exit 2 with its failing gates.
"""

from __future__ import annotations

import click

from rc1.errors import GateFailed, Rc1Error
from rc1.tracking import setup_tracking, stage_run


def run_promote(version: str | int | None = None, alias: str | None = None, parent_tags: dict | None = None) -> dict:
    from rc1.tracking.registry import MODEL_NAME, RC1, evaluation_of, resolve_version, set_alias

    setup_tracking()
    mv = resolve_version(version, alias)
    ev = evaluation_of(mv.version)
    if ev is None:
        raise Rc1Error(f"{MODEL_NAME} version {mv.version} has no finished evaluate run; "
                       f"run `rc1 evaluate --version {mv.version}` first")
    params = {"version": mv.version, "alias": alias, "evaluate_run_id": ev.run_id}
    tags = {**(parent_tags or {}), "rc1.model_version": mv.version, "rc1.registered_model": MODEL_NAME,
            "rc1.evaluate_run_id": ev.run_id}
    with stage_run("promote", params=params, reuse=False, run_name=f"promote v{mv.version}", tags=tags) as st:
        if not ev.passed:
            st.set_tags({"rc1.promoted": "false"})
            raise GateFailed(f"{MODEL_NAME} version {mv.version} not promoted: its evaluate run {ev.run_id} failed "
                             f"the RC1 gates", ev.failing)
        set_alias(mv.version, RC1)
        st.set_tags({"rc1.promoted": "true"})
    click.echo(f"{MODEL_NAME} version {mv.version} is now alias {RC1} (evaluate run {ev.run_id} passed)")
    return {"run_id": st.run_id, "version": mv.version, "alias": RC1, "evaluate_run_id": ev.run_id}


@click.command("promote")
@click.option("--version", default=None, help="model version of rc1-policy")
@click.option("--alias", default=None, help="promote the version behind this alias (e.g. best)")
def command(version, alias):
    """Set alias RC1 on a version whose evaluate run passed; otherwise exit 2 with the failing gates."""
    if (version is None) == (alias is None):
        raise Rc1Error("give exactly one of --version N or --alias NAME")
    run_promote(version, alias)
