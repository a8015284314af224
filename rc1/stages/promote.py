"""`rc1 promote --version N | --alias best`: alias `RC1` (prod) or `RC1-dev` (dev) on a version whose whole
trust chain holds in the tracking server.

The chain is rc1.release.version_check's (the same check `rc1 verify` prints and `rc1 guard` runs): every link's facts from
its run's signed statement; the version's weights (what models:/rc1-policy/N serves), the preflight's gates file and
the evaluation's report downloaded and held to their signed digests; the verdict and item counts recomputed from the
report under the preflight's gates file (a local configs/gates.yaml is never read). A prod gates file looser than the
seed's numbers breaks the chain; a dev one may be looser, and the table's gates row lists where. The chain is printed
as a short table; any broken link: exit 2 naming it."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass

import click

from rc1.cli.options import logged_params
from rc1.core.errors import CheckFailed
from rc1.stages.shared import Versioned
from rc1.tracking import stage_run
from rc1.tracking.store import setup_tracking
from rc1.tracking.ui import ui_hint, ui_url
from rc1.core.settings import configured


@dataclass
class Config(Versioned):
    """Set alias RC1 (RC1-dev for a dev version) when the version's chain holds; otherwise exit 2 naming the link."""


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


@configured
def run(cfg: Config, parent_tags: dict | None = None) -> dict:
    """Promote the version (unset: alias best) when its chain holds; returns {run_id, version, alias,
    evaluate_run_id}. A broken link: CheckFailed (exit 2), after a FAILED promote run naming it.

    Atomic as the registry sees it: the promote run's evidence (the chain, the report, a statement signing this
    version, its weights' digest and the alias) is written first, the alias set last; a promote killed before the
    alias leaves none, one killed after it leaves an alias its signed statement covers. The next command that
    touches the registry settles a run that never ended (rc1.release.reconcile)."""
    from rc1.core.proc import kill_point
    from rc1.release.attest import load_trust, signer
    from rc1.release.chain import RC1
    from rc1.release.reconcile import reconcile_promotions
    from rc1.release.version_check import verify_version
    from rc1.tracking.registry import BEST, MODEL_NAME, resolve_version, set_alias

    version, alias = cfg.version_or_alias(BEST)
    setup_tracking()
    for line in reconcile_promotions():
        click.echo(f"[rc1] settled an unfinished promotion: {line}", err=True)
    mv = resolve_version(version, alias)
    verdict = verify_version(MODEL_NAME, str(mv.version))
    links, target, facts = verdict.links, verdict.target, verdict.facts
    click.echo(verdict.table(), err=True)
    broken = [ln for ln in links if not ln.ok]
    ids = {f"rc1.{k}": v for k, v in facts.items() if k.endswith("_run_id") and v}
    params = {**logged_params(cfg), "version": mv.version, "alias": alias, "target_alias": target}
    # the promotion is signed in the version's mode, whatever the run mode says (dev unless set): RC1 by a key the trust
    # file lets attest prod, never by the promoter's own dev key (which verifies on the promoter's machine only)
    mode = "prod" if target == RC1 else "dev"
    tags = {**(parent_tags or {}), **ids, "rc1.model_version": mv.version, "rc1.registered_model": MODEL_NAME,
            "rc1.target_alias": target, "rc1.mode": mode}
    if not broken:   # no key to sign with: refused before any run opens or alias moves
        signer(mode, load_trust())
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
            # the UI link on its own line: error messages go through scrub, which drops a URL's #fragment
            click.echo(f"promote run (FAILED): {ui_url(st.run_id)}{ui_hint()}", err=True)
            raise CheckFailed(f"{MODEL_NAME} version {mv.version} not promoted: {verdict.broken}",
                             [c for c in checks if not c["pass"]], named=True)
        st.set_tags({f"rc1.{k}": v for k, v in facts.items() if k.endswith("_sha256") or k == "model_id"})
        attach_report(st, mv.version, facts["evaluate_run_id"])
        kill_point("promote.before_statement")
        st.attest()                      # the evidence, signed: this version, these weights, this alias
        kill_point("promote.signed")
        set_alias(mv.version, target)    # last
        kill_point("promote.alias_set")
        st.set_tags({"rc1.promoted": "true", "rc1.alias": target})
    return {"run_id": st.run_id, "version": mv.version, "alias": target, "evaluate_run_id": facts["evaluate_run_id"]}


def show(res: dict) -> None:
    from rc1.tracking.registry import MODEL_NAME

    click.echo(f"{MODEL_NAME} version {res['version']} is now alias {res['alias']} (evaluate run "
               f"{res['evaluate_run_id']} passed; chain verified)\n  run: {ui_url(res['run_id'])}{ui_hint()}")
