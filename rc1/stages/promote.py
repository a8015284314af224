"""`rc1 promote --version N | --alias best`: alias `RC1` (prod) or `RC1-dev` (dev) on a version whose whole
trust chain holds in the tracking server.

The chain is rc1.trust.version's (the same check `rc1 verify` prints and `rc1 guard` runs): every link's facts from
its run's signed statement; the version's weights (what models:/rc1-policy/N serves), the preflight's gates file and
the evaluation's report downloaded and held to their signed digests; the verdict and item counts recomputed from the
report under the preflight's gates file (a local configs/gates.yaml is never read). A prod gates file looser than the
seed's numbers breaks the chain; a dev one may be looser, and the table's gates row lists where. The chain is printed
as a short table; any broken link: exit 2 naming it."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import logged_params
from rc1.core.errors import CheckFailed
from rc1.stages.shared import Trusting, Versioned
from rc1.tracking import stage_run
from rc1.tracking.ui import ui_hint, ui_url
from rc1.core.settings import configured


@dataclass
class Config(Versioned, Trusting):
    """Set alias RC1 (RC1-dev for a dev version) when the version's chain holds; otherwise exit 2 naming the link."""


def attach_report(st, verdict, source) -> None:
    """The RC1 report goes with the promotion: rendered from what the chain verified (rc1.release.rc1_report.
    signed_report; never the evaluate run's rc1_report.html, which the store may hold replaced), logged on the promote
    run (a subject of its signed statement), linked from the version."""
    from rc1.core.io import sha256_file
    from rc1.release.rc1_report import REPORT_FILE, signed_report
    from rc1.tracking.registry import set_version_tags

    with tempfile.TemporaryDirectory() as d:
        page = Path(d) / REPORT_FILE
        page.write_text(signed_report(verdict, source), encoding="utf-8")
        sha = st.log_artifact(page, sha=sha256_file(page))
    st.set_tags({"rc1.report_sha256": sha})
    set_version_tags(verdict.version, {"rc1.report": f"runs:/{st.run_id}/{REPORT_FILE}", "rc1.report_sha256": sha})


@configured
def run(cfg: Config, parent_tags: dict | None = None) -> dict:
    """Promote the version (unset: alias best) when its chain holds; returns {run_id, version, alias,
    evaluate_run_id}. A broken link: CheckFailed (exit 2), after a FAILED promote run naming it.

    Atomic as the registry sees it: the promote run's evidence (the chain, the report, a statement signing this
    version, its weights' digest and the alias) is written first, the alias set last; a promote killed before the
    alias leaves none, one killed after it leaves an alias its signed statement covers. The next command that
    touches the registry settles a run that never ended (rc1.release.reconcile)."""
    from rc1.core.proc import kill_point
    from rc1.release.reconcile import reconcile_promotions
    from rc1.tracking.evidence import store_source
    from rc1.tracking.registry import BEST, MODEL_NAME, resolve_version, set_alias
    from rc1.trust.keys import signer
    from rc1.trust.rules import RC1
    from rc1.trust.version import verify_version

    version, alias = cfg.version_or_alias(BEST)
    trust = cfg.pinned_trust()
    source = store_source()
    for line in reconcile_promotions():
        click.echo(f"[rc1] settled an unfinished promotion: {line}", err=True)
    mv = resolve_version(version, alias)
    verdict = verify_version(source, MODEL_NAME, str(mv.version), trust=trust)
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
        signer(mode, trust)
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
        attach_report(st, verdict, source)
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
