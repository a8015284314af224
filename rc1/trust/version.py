"""Is a registered version (and the alias it holds) genuine? One read-only check, shared by `rc1 promote` (before it
sets an alias), `rc1 verify` (for whoever deploys), `rc1 serve` (before it serves the bytes it checked), `rc1
bundle` / `rc1 export-gguf` (before they use a release alias) and `rc1 guard` (the registry webhook receiver).

    verdict = verify_version(source, "rc1-policy", "3", alias="RC1-dev")   # source: rc1.tracking.evidence
    verdict.ok, verdict.why      # why: one line naming the broken link(s) ("" when ok)
    verdict.links                # every link checked (rc1.trust.rules.Link), in chain order
    verdict.statements           # the verified statements, by link: what an output may be built from

Every fact comes from a run's signed statement (rc1.trust.runs), checked against the trust root, never from the
run's tags; every digest the table prints is of bytes downloaded here:

    version   its source is models:/<model_id> of its train run's LoggedModel, signed for this registered model;
              what it serves (every file models:/<name>/<N> downloads) has the digest the train run signed
    train     finished, signed, launched by a gate, signed by the key that signed its gate (rc1.trust.rules)
    gate      finished, signed, on the train run's preflight and mode
    preflight finished, signed, round 2 passed, the files the train run hashed; its gates file (downloaded,
              held to the signed digest) gives the thresholds
    evaluate  the version's newest finished evaluation: signed, of this version and these weights, its verdict and
              item counts recomputed from its report (downloaded, held to the signed digest)
    gates     the thresholds in force (dev: which are looser than the seed's)
    trust     the trust root the signatures were checked against (its path and sha256) and the preflight's own
              signed trust file: every link's key must be trusted by both
    alias     (with `alias` RC1 / RC1-dev) the version's release alias, and a signed promotion to it

With a working alias (`best`, `trial-best`: set by a train run, before its gate has evaluated or signed anything)
only what that alias claims is checked: the version serves its train run's signed model, that run is signed and
gated, and its gate's kind is the alias's. Any other alias: the whole chain. It never writes to the store.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rc1.core.errors import Rc1Error
from rc1.trust import rules
from rc1.trust.keys import Trust, TrustedKey, load_trust
from rc1.trust.models import model_id_of, pinned_model
from rc1.trust.rules import RC1, RC1_DEV, Link, RunView
from rc1.trust.runs import fetch_signed, run_statement
from rc1.trust.source import RunRecord, Source, VersionRecord
from rc1.trust.statements import AttestationError, Statement

RELEASE_ALIASES = (RC1, RC1_DEV)
WORKING_ALIASES = {"best": "full", "trial-best": "trial"}   # rc1.tracking.registry's BEST, TRIAL_BEST -> gate kind


@dataclass
class Verdict:
    ok: bool
    why: str                                  # one line naming the broken link(s); "" when ok
    version: str
    target: str | None = None                 # the release alias the version may hold (RC1 or RC1-dev)
    links: list[Link] = field(default_factory=list)
    facts: dict = field(default_factory=dict)  # run ids and digests promote signs ({link}_run_id, model_sha256, ...)
    statements: dict[str, Statement] = field(default_factory=dict)   # link -> its verified statement
    trust: Trust | None = None
    model_dir: Path | None = None             # with keep_model: the verified download of what the version serves

    def table(self) -> str:
        head = self.trust.describe() + "\n" if self.trust is not None else ""
        return head + rules.render(self.links)

    @property
    def broken(self) -> str:
        """'broken link <name> run <id>: <problems>; ...' ("" when every link holds)."""
        bad = [ln for ln in self.links if not ln.ok]
        return "broken link " + "; ".join(f"{rules.label(ln)}: {', '.join(ln.problems)}" for ln in bad) if bad else ""


def verify_version(source: Source, name: str, version: str, *, alias: str | None = None, trust: Trust | None = None,
                   keep_model: Path | None = None) -> Verdict:
    """The version's whole chain, from the store; with a release `alias` (RC1, RC1-dev), also that the version may
    hold it and a promotion to it was signed; with a working alias (best, trial-best), only what it claims (see the
    module docstring). `keep_model`: the verified model is downloaded there and kept (Verdict.model_dir), so what is
    served is what was checked. Read-only."""
    try:
        trust = trust or load_trust()
    except Rc1Error as e:
        return Verdict(False, str(e), str(version))
    mv = source.version(name, str(version))
    if mv is None:
        return Verdict(False, f"registered model {name!r} has no version {version}", str(version), trust=trust)
    verdict = Verdict(True, "", mv.version, trust=trust)
    _chain(source, mv, trust, verdict, whole=alias not in WORKING_ALIASES, keep_model=keep_model)
    if alias in RELEASE_ALIASES:
        verdict.links.append(_alias_link(source, mv, alias, verdict, trust))
    elif alias in WORKING_ALIASES:
        kind = verdict.facts.get("gate_kind") or "full"
        verdict.links.append(Link("alias", None, f"{alias} (gate kind {kind})", [] if kind == WORKING_ALIASES[alias]
                                  else [f"{alias} is held by a {kind} gate's version (a trial's version takes "
                                        f"trial-best, a full gate's best)"]))
    if verdict.broken:
        verdict.ok, verdict.why = False, f"{name} version {mv.version}: {verdict.broken}"
    return verdict


# ---------------------------------------------------------------- the links
def _signed(source: Source, run: RunRecord | None, stage: str, trust: Trust) -> tuple[Statement | None, str | None]:
    if run is None:
        return None, None
    try:
        return run_statement(source, run, stage, trust), None
    except AttestationError as e:
        return None, str(e)


def _view(run: RunRecord | None, stmt: Statement | None) -> RunView | None:
    """The run as its statement signed it: its status and parent from the store (a store writer can only break the
    chain with those), every other fact from the statement."""
    if run is None:
        return None
    tags = dict(stmt.tags) if stmt else {}
    if run.parent_run_id:
        tags["mlflow.parentRunId"] = run.parent_run_id
    return RunView(run.run_id, run.status, tags, dict(stmt.metrics) if stmt else {})


def _checked(name: str, run: RunRecord | None, stmt: Statement | None, problem: str | None, check) -> Link:
    """`check` (a rc1.trust.rules link function) on the run as signed; a run whose statement does not hold is
    that one problem (its tags say nothing)."""
    if run is not None and stmt is None:
        return Link(name, run.run_id, "-", [problem or "its statement does not hold"])
    link = check(_view(run, stmt))
    if stmt is not None:
        link.evidence += f", signed by {stmt.key.name}"
    return link


def _chain(source: Source, mv: VersionRecord, trust: Trust, verdict: Verdict, whole: bool = True,
           keep_model: Path | None = None) -> None:
    """The links, in order (`whole=False`: up to the train run), into `verdict`, with the release alias the version
    may hold, the facts a promotion signs and the statements that held."""
    links, facts, signed = verdict.links, verdict.facts, verdict.statements
    train_run = source.run(mv.run_id)
    train_stmt, problem = _signed(source, train_run, "train", trust)
    facts["train_run_id"] = mv.run_id
    links += [_version_link(source, mv, train_stmt, verdict, keep_model),
              _checked("train", train_run, train_stmt, problem, rules.train_link)]
    verdict.target = rules.target_alias(None)
    if train_stmt is None:
        return
    signed["train"] = train_stmt
    train = _view(train_run, train_stmt)
    if train.tags.get("rc1.model_version") != str(mv.version):
        links[-1].problems.append(f"registered version {train.tags.get('rc1.model_version')}, not {mv.version} "
                                  f"(a version made by hand from its model)")
    mode = train.tags.get("rc1.mode")
    facts["gate_kind"] = train.tags.get("rc1.gate_kind")
    verdict.target = rules.target_alias(mode)
    if not whole:
        return
    gate_run = source.run(train.tags.get("rc1.gate_run_id"))
    gate_stmt, problem = _signed(source, gate_run, "gate", trust)
    links.append(_checked("gate", gate_run, gate_stmt, problem, lambda v: rules.gate_link(v, train)))
    if gate_run is None:
        links[-1].run_id = train.tags.get("rc1.gate_run_id")
    pre_run = source.run(train.tags.get("rc1.preflight_run_id"))
    pre_stmt, pre_problem = _signed(source, pre_run, "preflight", trust)
    gates, gates_sha, gates_problem = _preflight_gates(source, pre_run, pre_stmt, mode or "prod")
    ev_run = _evaluation(source, mv)
    ev_stmt, ev_problem = _signed(source, ev_run, "evaluate", trust)
    report, report_problem = _report(source, ev_run, ev_stmt) if ev_stmt else (None, None)
    signed.update({k: s for k, s in (("gate", gate_stmt), ("preflight", pre_stmt), ("evaluate", ev_stmt)) if s})
    facts.update(gate_run_id=gate_run and gate_run.run_id, preflight_run_id=pre_run and pre_run.run_id,
                 evaluate_run_id=ev_run and ev_run.run_id, evaluate_report_sha256=report and
                 ev_stmt.subjects.get("evaluate_report.json"))

    def evaluate(view, gates_=gates, gates_sha_=gates_sha, gates_from="the one its preflight hashed"):
        link = rules.evaluate_link(view, train, gates_, gates_sha_, gates_from=gates_from,
                                   shadow_sha=pre_stmt and rules.logged_sha(pre_stmt.tags, "shadow"), report=report,
                                   report_problem=report_problem)
        if view is not None and view.tags.get("rc1.model_version") != str(mv.version):
            link.problems.append(f"its statement is of version {view.tags.get('rc1.model_version')}, not {mv.version}")
        if view is not None and view.tags.get("rc1.registered_model") != mv.name:
            link.problems.append(f"its statement is of registered model {view.tags.get('rc1.registered_model')!r}, "
                                 f"not {mv.name!r}")
        backend = view.tags.get("rc1.backend", "transformers") if view is not None else "transformers"
        if backend != "transformers":   # the store's tag found it; its statement says it measured a GGUF export
            link.problems.append(f"its statement is of a {backend} evaluation, not the transformers one the RC1 "
                                 f"verdict is")
        if report is not None:
            link.evidence += f", report sha256 {facts['evaluate_report_sha256'][:12]} (downloaded)"
        return link

    if gates is not None:
        links.append(_checked("preflight", pre_run, pre_stmt, pre_problem,
                              lambda v: rules.preflight_link(v, train, gates)))
        links[-1].evidence += f", gates sha256 {gates_sha[:12]} (downloaded)"
        links += [_checked("evaluate", ev_run, ev_stmt, ev_problem, evaluate), rules.gates_link(gates, mode or "prod")]
        facts["gates_sha256"] = gates_sha
    else:
        pre_id = pre_run.run_id if pre_run else train.tags.get("rc1.preflight_run_id")
        links.append(Link("preflight", pre_id, "-", [pre_problem or gates_problem]))
        local = _local_gates(mode)   # the chain is refused already: the local file only says what else is wrong
        links.append(_checked("evaluate", ev_run, ev_stmt, ev_problem,
                              lambda v: evaluate(v, *local, "the current configs/gates.yaml"))
                     if local else Link("evaluate", facts["evaluate_run_id"], "-",
                                        ["not checked: the preflight's gates file is unavailable"]))
    links.append(_signers_link(source, trust, mode or "prod", pre_run, pre_stmt, signed))


def _local_gates(mode: str | None):
    """(thresholds, sha256) of ./configs/gates.yaml, or None: only ever used to say more about a chain refused
    already (its preflight's gates file cannot be had), never to pass one."""
    from rc1.core.config import load_thresholds
    from rc1.core.io import sha256_file

    local = Path("configs/gates.yaml")
    return (load_thresholds(local).for_mode(mode or "prod"), sha256_file(local)) if local.is_file() else None


def _evaluation(source: Source, mv: VersionRecord) -> RunRecord | None:
    """The version's newest finished evaluate run, as the store's tags index it (its statement decides the rest); a
    llama.cpp evaluation (of a GGUF export) is not the RC1 verdict."""
    runs = source.search("evaluate", {"rc1.registered_model": mv.name, "rc1.model_version": str(mv.version)},
                         status="FINISHED", max_results=50)
    runs = [r for r in runs if r.tags.get("rc1.backend", "transformers") == "transformers"]
    return runs[0] if runs else None


def _version_link(source: Source, mv: VersionRecord, train_stmt: Statement | None, verdict: Verdict,
                  keep_model: Path | None) -> Link:
    """What the version serves: its source must be its train run's LoggedModel, and every file it serves the digest
    that run signed (downloaded here; kept in `keep_model` when given)."""
    link = Link("version", str(mv.version), f"source {mv.source}")
    if train_stmt is None:
        link.problems.append("not checked: its train run's statement does not hold")
        return link
    d = Path(tempfile.mkdtemp(prefix="rc1-verify-")) if keep_model is None else Path(keep_model)
    try:
        local, sha = pinned_model(source, mv, d, train_stmt)
    except Rc1Error as e:
        link.problems.append(str(e).split(": ", 1)[-1])
        return link
    finally:
        if keep_model is None:
            shutil.rmtree(d, ignore_errors=True)
    if keep_model is not None:
        verdict.model_dir = local
    verdict.facts.update(model_sha256=sha, model_id=model_id_of(mv))
    link.evidence = (f"{mv.name} models:/{model_id_of(mv)}, sha256 {sha[:12]} (downloaded: every file, as train run "
                     f"signed)")
    return link


def _preflight_gates(source: Source, pre_run: RunRecord | None, pre_stmt: Statement | None, mode: str):
    """(the thresholds, their sha256, None) of the gates file the preflight signed, downloaded and held to the
    signed digest; (None, None, problem) when that file cannot be had. A local configs/gates.yaml is never read."""
    from rc1.core.config import load_thresholds

    if pre_run is None:
        return None, None, "not found in the tracking server"
    if pre_stmt is None:
        return None, None, "its statement does not hold"
    art = pre_stmt.tags.get("rc1.artifact.gates")
    want = pre_stmt.tags.get("sha256.gates")
    if not art or not want or pre_stmt.subjects.get(art) != want:
        return None, None, "it signed no gates file"
    with tempfile.TemporaryDirectory() as d:
        try:
            return load_thresholds(fetch_signed(source, pre_run, art, want, d)).for_mode(mode), want, None
        except Rc1Error as e:
            return None, None, f"its gates file cannot be verified ({e})"


def _report(source: Source, ev_run: RunRecord, ev_stmt: Statement) -> tuple[dict | None, str | None]:
    """(the evaluate run's evaluate_report.json, downloaded and held to the digest its statement signed, None) or
    (None, why not)."""
    from rc1.core.io import read_json

    want = ev_stmt.subjects.get("evaluate_report.json")
    if not want:
        return None, "it signed no evaluate_report.json"
    with tempfile.TemporaryDirectory() as d:
        try:
            return read_json(fetch_signed(source, ev_run, "evaluate_report.json", want, d)), None
        except Rc1Error as e:
            return None, f"its report cannot be verified ({e})"


def preflight_trust(source: Source, pre_run: RunRecord, pre_stmt: Statement) -> Trust:
    """The trust file the preflight ran under, as it signed it (artifact `trust`, held to its sha256.trust and to the
    trust_sha256 of its statement); Rc1Error when it cannot be had."""
    art, want = pre_stmt.tags.get("rc1.artifact.trust"), rules.logged_sha(pre_stmt.tags, "trust")
    if not art or not want or pre_stmt.subjects.get(art) != want or pre_stmt.trust_sha256 != want:
        raise Rc1Error("it signed no copy of the trust file it ran under")
    with tempfile.TemporaryDirectory() as d:
        return load_trust(fetch_signed(source, pre_run, art, want, d), origin=f"preflight {pre_run.run_id}'s copy")


def _signers_link(source: Source, trust: Trust, mode: str, pre_run: RunRecord | None, pre_stmt: Statement | None,
                  signed: dict[str, Statement]) -> Link:
    """Who signed the chain: every link's key is in the trust root (checked as each statement was opened) and in the
    trust file its own preflight signed (in dev also the preflight's own key), and the gate's process signed the
    train run it launched (one signer where one is expected: a gate trains its seeds itself) and the evaluation it
    ran."""
    link = Link("trust", None, f"{trust.path} sha256 {trust.sha256[:12]} ({trust.origin}; read here, never from the "
                               f"store)")
    if pre_stmt is None or pre_run is None:
        link.problems.append("not checked: the preflight's statement does not hold")
        return link
    try:
        theirs = preflight_trust(source, pre_run, pre_stmt)
    except Rc1Error as e:
        link.problems.append(f"preflight {pre_run.run_id}: {e}")
        return link
    allowed: dict[str, TrustedKey] = dict(theirs.for_mode(mode))
    if mode == "dev":   # a dev preflight's own key (its signer's dev key) counted for it
        allowed[pre_stmt.key.keyid] = pre_stmt.key
    for name, stmt in signed.items():
        if stmt.key.keyid not in allowed:
            link.problems.append(f"the {name} run is signed by key {stmt.key.name} ({stmt.key.keyid[:12]}), which "
                                 f"its preflight's trust file (sha256 {theirs.sha256[:12]}) does not trust for {mode}")
    gate, train, ev = signed.get("gate"), signed.get("train"), signed.get("evaluate")
    if gate and train and gate.key.keyid != train.key.keyid:
        link.problems.append(f"the train run is signed by {train.key.name} ({train.key.keyid[:12]}), its gate by "
                             f"{gate.key.name} ({gate.key.keyid[:12]}): one gate process signs both")
    if gate and ev and ev.tags.get("rc1.gate_run_id") == gate.run_id and ev.key.keyid != gate.key.keyid:
        link.problems.append(f"the evaluate run its gate launched is signed by {ev.key.name} "
                             f"({ev.key.keyid[:12]}), not by the gate's key")
    link.evidence += (f"; the preflight signed trust file sha256 {theirs.sha256[:12]}"
                      f"{' (this one)' if theirs.sha256 == trust.sha256 else ''}; every key in both")
    return link


def _alias_link(source: Source, mv: VersionRecord, alias: str, verdict: Verdict, trust: Trust) -> Link:
    """A release alias is genuine when it is the version's own (RC1 needs prod) and a promote run signed this
    version, these weights and this alias before setting it (rc1.stages.promote); a hand-set alias has no such
    statement."""
    link = Link("alias", None, alias)
    if alias != verdict.target:
        link.problems.append(f"{alias} is not this version's release alias ({verdict.target})")
        return link
    stmt = signed_promotion(source, mv, alias, verdict.facts.get("model_sha256"), trust)
    if stmt is None:
        link.problems.append(f"no promote run signed version {mv.version} as {alias} (set by hand?)")
        return link
    verdict.statements["promote"] = stmt
    link.run_id, link.evidence = stmt.run_id, f"{alias}, promotion signed by {stmt.key.name}"
    newer = newer_promotion(source, mv, alias, stmt, trust)
    if newer is not None:
        link.problems.append(newer if isinstance(newer, str) else
                             f"promote run {newer.run_id} made version {newer.tags.get('rc1.model_version')} {alias} "
                             f"after this version's promotion (run {stmt.run_id}): {alias} was moved back by hand, or "
                             f"that promote ended before it set {alias} (`rc1 promote --version "
                             f"{newer.tags.get('rc1.model_version')}` finishes it; a promote of version {mv.version} "
                             f"makes this one the release again)")
    report = _report_problem(source, mv, stmt)
    if report:
        link.problems.append(report)
    else:
        link.evidence += f", report {mv.tags.get('rc1.report')} sha256 {stmt.subjects[REPORT][:12]} (downloaded)"
    return link


REPORT = "rc1_report.html"   # what a promotion signs and links from its version (rc1.stages.promote.attach_report)
NEWER_LIMIT = 500            # promote runs read for a newer promotion; more (a flood made in the store): refused


def newer_promotion(source: Source, mv: VersionRecord, alias: str, promotion: Statement,
                    trust: Trust) -> Statement | str | None:
    """A signed promotion of another version of this registered model to `alias`, made after `promotion` (this
    version's newest): the alias was moved back to an earlier release by hand (or that promote never set it). Deleted
    promote runs count; so does a run whose store tags no longer name the alias (only the registered model and the
    stage find them: changing those hides this version's own promotion too). None when there is none; a str when it
    cannot be told (more promote runs than NEWER_LIMIT)."""
    run = source.run(promotion.run_id)
    found = source.search("promote", {"rc1.registered_model": mv.name}, started_after=run.start_time if run else 0,
                          deleted=True, max_results=NEWER_LIMIT)
    for r in found:
        if r.run_id == promotion.run_id:
            continue
        stmt, _ = _signed(source, r, "promote", trust)
        said = stmt.tags if stmt else {}
        if stmt is not None and said.get("rc1.registered_model") == mv.name and said.get("rc1.target_alias") == alias \
                and stmt.mode == promotion.mode and said.get("rc1.model_version") != str(mv.version):
            return stmt
    if len(found) >= NEWER_LIMIT:
        return (f"over {NEWER_LIMIT} promote runs of {mv.name} started after this version's promotion (run "
                f"{promotion.run_id}): whether a newer one was signed cannot be told")
    return None


def _report_problem(source: Source, mv: VersionRecord, promotion: Statement) -> str | None:
    """Why the report the version links to (its tag rc1.report) is not the one its promotion signed, or None: the tag
    must name that promote run's rc1_report.html, and those bytes must have the signed digest."""
    want, where = promotion.subjects.get(REPORT), f"runs:/{promotion.run_id}/{REPORT}"
    if not want:
        return f"promote run {promotion.run_id} signed no {REPORT}"
    if mv.tags.get("rc1.report") != where:
        return f"its rc1.report points at {mv.tags.get('rc1.report')}, not the report promote run {promotion.run_id} " \
               f"signed ({where})"
    run = source.run(promotion.run_id)
    with tempfile.TemporaryDirectory() as d:
        try:
            fetch_signed(source, run, REPORT, want, d)
        except Rc1Error as e:
            return f"its report: {e}"
    return None


def signed_promotion(source: Source, mv: VersionRecord, alias: str, model_sha256: str | None,
                     trust: Trust | None = None) -> Statement | None:
    """The newest promote run's statement that signed this version (of this registered model), these weights and
    this alias, in the alias's mode; None when there is none."""
    if not model_sha256:
        return None
    trust = trust or load_trust()
    for run in source.search("promote", {"rc1.registered_model": mv.name, "rc1.model_version": str(mv.version)}):
        stmt, _ = _signed(source, run, "promote", trust)
        said = stmt.tags if stmt else {}
        if said.get("rc1.model_version") == str(mv.version) and said.get("rc1.target_alias") == alias \
                and said.get("rc1.registered_model") == mv.name and said.get("rc1.model_sha256") == model_sha256 \
                and stmt.mode == ("prod" if alias == RC1 else "dev"):   # RC1: a promotion signed for prod
            return stmt
    return None


def require_verified(source: Source, mv: VersionRecord, alias: str | None, what: str) -> Verdict | None:
    """A release alias (RC1, RC1-dev) is used only when it verifies (a hand-set alias does not), a working alias (best,
    trial-best) only when it holds what it claims (a gated train run's own signed model): Rc1Error naming the broken
    link otherwise; its verdict when it does. A plain version claims nothing and is not checked here (None)."""
    if alias not in RELEASE_ALIASES and alias not in WORKING_ALIASES:
        return None
    verdict = verify_version(source, mv.name, mv.version, alias=alias)
    if not verdict.ok:
        raise Rc1Error(f"{what} refuses {mv.name}@{alias}, which does not verify: {verdict.why} "
                       f"(`rc1 verify models:/{mv.name}@{alias}` prints the chain)")
    return verdict
