"""`rc1 bundle --version N | --alias A | --preflight RUN_ID` (entry point `bundle`): the reproducible package.

configs/ (without a trust file) and templates/ (refused unless the config, weights and gates files hash as the
preflight signed), bundle.json (run ids, and each run's params, sha256 and input digests as its statement signed them:
never the store's tags or params; the commands; the sha256 a re-run must give),
requirements.txt (the installed distributions), the git commit and REPRODUCE.md. Logged as the artifact `bundle`
of a run tagged rc1.stage=bundle, linked from the version (tag rc1.bundle_run_id), and written to --out.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import click

from rc1.cli.options import arg, logged_params
from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_dir, sha256_file, write_json
from rc1.core.outdir import check_out_dir, replace_out_dir
from rc1.stages.shared import Moded, Trusting, Versioned
from rc1.tracking.reuse import code_version
from rc1.core.settings import configured


@dataclass
class Config(Versioned, Moded, Trusting):
    """Write and log the reproducible package of a version (configs, templates, run ids, sha256s, environment)."""

    preflight: str | None = arg(None, "Bundle one preflight run (its run id) instead of a version.")
    out: str | None = arg(None, "Where the bundle is written (unset: out/bundles/<subject>): a new directory or an "
                                "earlier bundle (a directory holding anything else is refused, never emptied).")


def _git_commit() -> str | None:
    try:
        res = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout.strip() if res.returncode == 0 else None


def _run_facts(run) -> dict:
    """What bundle.json says of a run: its id and status (the store's), and its params, sha256 and input digests as its
    statement signed them (rc1.trust.runs.SignedRun), never the store's tags or params."""
    tags = run.tags
    if run.stmt.params is None:
        raise Rc1Error(f"run {run.info.run_id} signed no params (a run from before rc1 signed them): its commands "
                       f"cannot be bundled from signed facts; run it again")
    return {"run_id": run.info.run_id, "status": run.info.status, "params": dict(run.stmt.params),
            "sha256": {k[len("sha256."):]: v for k, v in tags.items() if k.startswith("sha256.")},
            "inputs": {k[len("input_sha256."):]: v for k, v in tags.items() if k.startswith("input_sha256.")}}


def _subject_runs(source, version, alias, preflight_run_id, trust) -> tuple[dict, dict, str | None]:
    """(subject, {link: SignedRun}, version): the runs a bundle is built from, each as its verified statement says."""
    from rc1.release.reconcile import reconcile_promotions
    from rc1.tracking.registry import MODEL_NAME, resolve_version
    from rc1.trust.runs import SignedRun, signed_run
    from rc1.trust.statements import AttestationError
    from rc1.trust.version import RELEASE_ALIASES, verify_version

    if preflight_run_id:
        run = source.run(preflight_run_id)
        if run is None:
            raise Rc1Error(f"--preflight {preflight_run_id}: no such run in the tracking store")
        try:
            return {"preflight": preflight_run_id}, {"preflight": signed_run(source, run, "preflight", trust)}, None
        except AttestationError as e:
            raise Rc1Error(f"--preflight {preflight_run_id}: {e}") from None
    reconcile_promotions()
    mv = resolve_version(version, alias)
    verdict = verify_version(source, MODEL_NAME, str(mv.version), trust=trust,
                             alias=alias if alias in RELEASE_ALIASES else None)
    click.echo(verdict.table(), err=True)
    if alias in RELEASE_ALIASES and not verdict.ok:   # a hand-set RC1 is not a release
        raise Rc1Error(f"rc1 bundle refuses {MODEL_NAME}@{alias}, which does not verify: {verdict.why}")
    runs = {}
    for link in ("train", "gate", "preflight"):
        stmt = verdict.statements.get(link)
        if stmt is None:
            raise Rc1Error(f"{MODEL_NAME} version {mv.version}: its {link} run has no statement that holds (a version "
                           f"no gate trained, or a chain broken in the store, has no signed preflight to reproduce): "
                           f"{verdict.why}")
        runs[link] = SignedRun(source.run(stmt.run_id), stmt, source)
    return {"version": str(mv.version)}, runs, str(mv.version)


def _check_hashed_configs(pre) -> None:
    from rc1.release.reproduce import HASHED_CONFIGS

    tags = pre.tags   # as its statement signed them
    for name, path_tag in HASHED_CONFIGS.items():
        path, want = tags.get(path_tag), tags.get(f"sha256.{name}")
        if not path or not want:
            raise Rc1Error(f"preflight {pre.info.run_id} recorded no {name} file and sha256: nothing to bundle")
        if not Path(path).is_file():
            raise Rc1Error(f"{path}: not here; run `rc1 bundle` in the checkout that ran preflight {pre.info.run_id}")
        if sha256_file(path) != want:
            raise Rc1Error(f"{path} changed since preflight {pre.info.run_id} (sha256 differs): "
                           f"a bundle of today's file would not reproduce it")
    want = tags.get("sha256.templates_dir")
    if not want:
        raise Rc1Error(f"preflight {pre.info.run_id} recorded no sha256 of templates/: nothing to bundle faithfully")
    if not Path("templates").is_dir() or sha256_dir("templates") != want:
        raise Rc1Error(f"templates/ changed since preflight {pre.info.run_id} (sha256 differs): "
                       f"a bundle of today's templates would not reproduce its pool")
    if tags.get("rc1.code_version") != code_version():
        raise Rc1Error(f"rc1's code changed since preflight {pre.info.run_id} (code version "
                       f"{tags.get('rc1.code_version')} there, {code_version()} here): check out the commit it ran")


@configured
def run(cfg: Config) -> dict:
    """Bundle the version (unset, with no --preflight: alias RC1) or the preflight run; returns {run_id, path,
    sha256, manifest, label}."""
    from rc1.release.reproduce import BUNDLED_DIRS, gate_argv, manifest, preflight_argv, reproduce_md, requirements_txt
    from rc1.tracking import stage_run
    from rc1.tracking.evidence import store_source
    from rc1.tracking.registry import set_version_tags
    from rc1.trust.keys import CHECKOUT_TRUST
    from rc1.trust.rules import RC1

    version, alias = cfg.version_or_alias(RC1) if cfg.preflight is None else (cfg.version, cfg.alias)
    if sum(x is not None for x in (version, alias, cfg.preflight)) != 1:
        raise Rc1Error("give exactly one of --version N, --alias NAME or --preflight RUN_ID")
    trust = cfg.pinned_trust()
    source = store_source()
    subject, runs, mv_version = _subject_runs(source, version, alias, cfg.preflight, trust)
    pre = runs["preflight"]
    _check_hashed_configs(pre)
    facts = {k: _run_facts(r) for k, r in runs.items()}
    commands = [preflight_argv(facts["preflight"]["params"])]
    if "gate" in facts:
        commands.append(gate_argv(facts["gate"]["params"]))
    expect = {k: pre.tags[f"sha256.{k}"] for k in ("pool", "balanced", "shadow") if f"sha256.{k}" in pre.tags}
    label = "_".join(f"{k}-{v}" for k, v in subject.items())
    dest = check_out_dir(cfg.out or Path("out/bundles") / label, "bundle")   # before any run opens or file is written
    with tempfile.TemporaryDirectory() as d:
        staging = Path(d) / "bundle"
        for sub in BUNDLED_DIRS:   # never a trust file: the recipient's own trust root decides whose signatures count
            shutil.copytree(sub, staging / sub, ignore=shutil.ignore_patterns(CHECKOUT_TRUST.name, "*.pem"))
        files = {str(p.relative_to(staging)): sha256_file(p) for p in sorted(staging.rglob("*")) if p.is_file()}
        packages = {d.metadata["Name"]: d.version for d in metadata.distributions() if d.metadata.get("Name")}
        m = manifest(subject=subject, runs=facts, files=files,
                     packages=packages, git_commit=_git_commit(), commands=commands, expect=expect)
        write_json(staging / "bundle.json", m)
        (staging / "requirements.txt").write_text(requirements_txt(packages), encoding="utf-8")
        (staging / "REPRODUCE.md").write_text(reproduce_md(m), encoding="utf-8")
        tags = {"rc1.preflight_run_id": pre.info.run_id, **({"rc1.model_version": mv_version} if mv_version else {})}
        params = {**logged_params(cfg), **subject, "out": str(dest)}
        with stage_run("bundle", params=params, reuse=False, tags=tags, run_name=f"bundle {label}") as st:
            sha = st.log_artifact(staging, name="bundle")
        replace_out_dir(staging, dest, "bundle")
    if mv_version:
        set_version_tags(mv_version, {"rc1.bundle_run_id": st.run_id, "rc1.bundle_sha256": sha})
    return {"run_id": st.run_id, "path": str(dest), "sha256": sha, "manifest": m, "label": label}


def show(res: dict) -> None:
    dest = Path(res["path"])
    click.echo(f"bundle of {res['label']}: {dest} (run {res['run_id']}, sha256 {res['sha256'][:12]}…); "
               f"see {dest / 'REPRODUCE.md'}")
