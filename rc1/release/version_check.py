"""Is a registered version (and the alias it holds) genuine? One read-only check, shared by `rc1 promote` (before it
sets an alias), `rc1 verify` (for whoever deploys), `rc1 bundle` / `rc1 export-gguf` (before they use a release
alias) and `rc1 guard` (the registry webhook receiver).

    verdict = verify_version("rc1-policy", "3", alias="RC1-dev")
    verdict.ok, verdict.why      # why: one line naming the broken link(s) ("" when ok)
    verdict.links                # every link checked (rc1.release.chain.Link), in chain order

Every fact comes from a run's signed statement (rc1.release.attest), checked against the trust file, never from the
run's tags; every digest the table prints is of bytes downloaded here:

    version   its source is models:/<model_id> of its train run's LoggedModel; what it serves (the bytes
              load_model("models:/rc1-policy/N") downloads) has the digest the train run signed
    train     finished, signed, launched by a gate (rc1.release.chain.train_link)
    gate      finished, signed, on the train run's preflight and mode
    preflight finished, signed, round 2 passed, the files the train run hashed; its gates file (downloaded,
              held to the signed digest) gives the thresholds
    evaluate  the version's newest finished evaluation: signed, of this version and these weights, its verdict and
              item counts recomputed from its report (downloaded, held to the signed digest)
    gates     the thresholds in force (dev: which are looser than the seed's)
    trust     the local trust file the signatures were checked against
    alias     (with `alias` RC1 / RC1-dev) the version's release alias, and a signed promotion to it

With a working alias (`best`, `trial-best`: set by a train run, before its gate has evaluated or signed anything)
only what that alias claims is checked: the version serves its train run's signed model, that run is signed and
gated, and its gate's kind is the alias's (a trial's version holds trial-best, never best). Any other alias: the
whole chain. It never writes the registry or the tracking store.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rc1.core.errors import Rc1Error
from rc1.release import chain
from rc1.release.attest import AttestationError, Statement, Trust, load_trust
from rc1.release.chain import RC1, RC1_DEV, Link, RunView

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

    def table(self) -> str:
        return chain.render(self.links)

    @property
    def broken(self) -> str:
        """'broken link <name> run <id>: <problems>; ...' ("" when every link holds)."""
        bad = [ln for ln in self.links if not ln.ok]
        return "broken link " + "; ".join(f"{chain.label(ln)}: {', '.join(ln.problems)}" for ln in bad) if bad else ""


def verify_version(name: str, version: str, *, alias: str | None = None) -> Verdict:
    """The version's whole chain, from the tracking server; with a release `alias` (RC1, RC1-dev), also that the
    version may hold it and a promotion to it was signed; with a working alias (best, trial-best), only what it
    claims (see the module docstring). Read-only."""
    from rc1.tracking.store import use_tracking
    from rc1.tracking.registry import resolve_version

    use_tracking()
    try:
        trust = load_trust()
        mv = resolve_version(version=version, name=name)
    except Rc1Error as e:
        return Verdict(False, str(e), str(version))
    links, target, facts = _chain(mv, trust, name, whole=alias not in WORKING_ALIASES)
    if alias in RELEASE_ALIASES:
        links.append(_alias_link(mv, alias, target, facts, trust, name))
    elif alias in WORKING_ALIASES:
        kind = facts.get("gate_kind") or "full"
        links.append(Link("alias", None, f"{alias} (gate kind {kind})", [] if kind == WORKING_ALIASES[alias] else
                          [f"{alias} is held by a {kind} gate's version (a trial's version takes trial-best, a full "
                           f"gate's best)"]))
    verdict = Verdict(True, "", str(mv.version), target, links, facts)
    if verdict.broken:
        verdict.ok, verdict.why = False, f"{name} version {mv.version}: {verdict.broken}"
    return verdict


# ---------------------------------------------------------------- the links
def _signed(run, stage: str, trust: Trust) -> tuple[Statement | None, str | None]:
    from rc1.tracking.attestations import run_statement

    if run is None:
        return None, None
    try:
        return run_statement(run, stage, trust), None
    except AttestationError as e:
        return None, str(e)


def _view(run, stmt: Statement | None) -> RunView | None:
    """The run as its statement signed it: its status and parent from the store (a store writer can only break the
    chain with those), every other fact from the statement."""
    if run is None:
        return None
    tags = dict(stmt.tags) if stmt else {}
    if "mlflow.parentRunId" in run.data.tags:
        tags["mlflow.parentRunId"] = run.data.tags["mlflow.parentRunId"]
    return RunView(run.info.run_id, run.info.status, tags, dict(stmt.metrics) if stmt else {})


def _checked(name: str, run, stmt: Statement | None, problem: str | None, check) -> Link:
    """`check` (a rc1.release.chain link function) on the run as signed; a run whose statement does not hold is
    that one problem (its tags say nothing)."""
    if run is not None and stmt is None:
        return Link(name, run.info.run_id, "-", [problem or "its statement does not hold"])
    link = check(_view(run, stmt))
    if stmt is not None:
        link.evidence += f", signed by {stmt.key.name}"
    return link


def _chain(mv, trust: Trust, name: str, whole: bool = True) -> tuple[list[Link], str, dict]:
    """The links, in order (`whole=False`: up to the train run), the release alias the version may hold, and the
    facts a promotion signs."""
    from rc1.tracking.queries import find_run
    from rc1.tracking.registry import evaluation_of

    train_run = find_run(mv.run_id)
    train_stmt, problem = _signed(train_run, "train", trust)
    facts: dict = {"train_run_id": mv.run_id}
    links = [_version_link(mv, train_stmt, facts, name),
             _checked("train", train_run, train_stmt, problem, chain.train_link)]
    if train_stmt is None:
        return links, chain.target_alias(None), facts
    train = _view(train_run, train_stmt)
    if train.tags.get("rc1.model_version") != str(mv.version):
        links[-1].problems.append(f"registered version {train.tags.get('rc1.model_version')}, not {mv.version} "
                                  f"(a version made by hand from its model)")
    mode = train.tags.get("rc1.mode")
    facts["gate_kind"] = train.tags.get("rc1.gate_kind")
    if not whole:
        return links, chain.target_alias(mode), facts
    gate_run = find_run(train.tags.get("rc1.gate_run_id"))
    gate_stmt, problem = _signed(gate_run, "gate", trust)
    links.append(_checked("gate", gate_run, gate_stmt, problem, lambda v: chain.gate_link(v, train)))
    if gate_run is None:
        links[-1].run_id = train.tags.get("rc1.gate_run_id")
    pre_run = find_run(train.tags.get("rc1.preflight_run_id"))
    pre_stmt, pre_problem = _signed(pre_run, "preflight", trust)
    gates, gates_sha, gates_problem = _preflight_gates(pre_run, pre_stmt, mode or "prod")
    evaluation = evaluation_of(mv.version, name)
    ev_run = evaluation and find_run(evaluation.run_id)
    ev_stmt, ev_problem = _signed(ev_run, "evaluate", trust)
    report, report_problem = _report(ev_run, ev_stmt) if ev_stmt else (None, None)
    facts.update(gate_run_id=gate_run and gate_run.info.run_id, preflight_run_id=pre_run and pre_run.info.run_id,
                 evaluate_run_id=ev_run and ev_run.info.run_id, evaluate_report_sha256=report and
                 ev_stmt.subjects.get("evaluate_report.json"))

    def evaluate(view, gates_=gates, gates_sha_=gates_sha, gates_from="the one its preflight hashed"):
        link = chain.evaluate_link(view, train, gates_, gates_sha_, gates_from=gates_from,
                                   shadow_sha=pre_stmt and chain.logged_sha(pre_stmt.tags, "shadow"), report=report,
                                   report_problem=report_problem)
        if view is not None and view.tags.get("rc1.model_version") != str(mv.version):
            link.problems.append(f"its statement is of version {view.tags.get('rc1.model_version')}, not {mv.version}")
        backend = view.tags.get("rc1.backend", "transformers") if view is not None else "transformers"
        if backend != "transformers":   # the store's tag found it; its statement says it measured a GGUF export
            link.problems.append(f"its statement is of a {backend} evaluation, not the transformers one the RC1 "
                                 f"verdict is")
        if report is not None:
            link.evidence += f", report sha256 {facts['evaluate_report_sha256'][:12]} (downloaded)"
        return link

    if gates is not None:
        links.append(_checked("preflight", pre_run, pre_stmt, pre_problem,
                              lambda v: chain.preflight_link(v, train, gates)))
        links[-1].evidence += f", gates sha256 {gates_sha[:12]} (downloaded)"
        links += [_checked("evaluate", ev_run, ev_stmt, ev_problem, evaluate), chain.gates_link(gates, mode or "prod")]
        facts["gates_sha256"] = gates_sha
    else:
        pre_id = pre_run.info.run_id if pre_run else train.tags.get("rc1.preflight_run_id")
        links.append(Link("preflight", pre_id, "-", [pre_problem or gates_problem]))
        local = _local_gates(mode)   # the chain is refused already: the local file only says what else is wrong
        links.append(_checked("evaluate", ev_run, ev_stmt, ev_problem,
                              lambda v: evaluate(v, *local, "the current configs/gates.yaml"))
                     if local else Link("evaluate", facts["evaluate_run_id"], "-",
                                        ["not checked: the preflight's gates file is unavailable"]))
    signed_trust = pre_stmt and pre_stmt.tags.get("sha256.trust")
    same = ("" if not signed_trust else "; the preflight signed this file" if signed_trust == trust.sha256 else
            f"; the preflight signed another ({signed_trust[:12]})")
    links.append(Link("trust", None, f"{trust.path} sha256 {trust.sha256[:12]} (read here, never from the store; "
                                     f"{len(trust.keys)} key(s){' + your dev key' if mode == 'dev' else ''}{same})"))
    return links, chain.target_alias(mode), facts


def _version_link(mv, train_stmt: Statement | None, facts: dict, name: str) -> Link:
    """What the version serves: its source must be its train run's LoggedModel, and the bytes it serves the digest
    that run signed (downloaded here)."""
    from rc1.tracking.registry import pinned_model, version_model_id

    link = Link("version", str(mv.version), f"source {mv.source}")
    if train_stmt is None:
        link.problems.append("not checked: its train run's statement does not hold")
        return link
    with tempfile.TemporaryDirectory() as d:
        try:
            _, sha = pinned_model(mv, d, name, stmt=train_stmt)
        except Rc1Error as e:
            link.problems.append(str(e).split(": ", 1)[-1])
            return link
    facts.update(model_sha256=sha, model_id=version_model_id(mv))
    link.evidence = f"models:/{version_model_id(mv)}, sha256 {sha[:12]} (downloaded, as train run signed)"
    return link


def _preflight_gates(pre_run, pre_stmt: Statement | None, mode: str):
    """(the thresholds, their sha256, None) of the gates file the preflight signed, downloaded and held to the
    signed digest; (None, None, problem) when that file cannot be had. A local configs/gates.yaml is never read."""
    from rc1.core.config import load_thresholds
    from rc1.tracking.attestations import fetch_signed

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
            return load_thresholds(fetch_signed(pre_run, art, want, d)).for_mode(mode), want, None
        except Rc1Error as e:
            return None, None, f"its gates file cannot be verified ({e})"


def _report(ev_run, ev_stmt: Statement) -> tuple[dict | None, str | None]:
    """(the evaluate run's evaluate_report.json, downloaded and held to the digest its statement signed, None) or
    (None, why not)."""
    from rc1.core.io import read_json
    from rc1.tracking.attestations import fetch_signed

    want = ev_stmt.subjects.get("evaluate_report.json")
    if not want:
        return None, "it signed no evaluate_report.json"
    with tempfile.TemporaryDirectory() as d:
        try:
            return read_json(fetch_signed(ev_run, "evaluate_report.json", want, d)), None
        except Rc1Error as e:
            return None, f"its report cannot be verified ({e})"


def _local_gates(mode: str | None):
    """(thresholds, sha256) of ./configs/gates.yaml, or None: only ever used to say more about a refused chain."""
    from rc1.core.config import load_thresholds
    from rc1.core.io import sha256_file

    local = Path("configs/gates.yaml")
    return (load_thresholds(local).for_mode(mode or "prod"), sha256_file(local)) if local.is_file() else None


def _alias_link(mv, alias: str, target: str, facts: dict, trust: Trust, name: str) -> Link:
    """A release alias is genuine when it is the version's own (RC1 needs prod) and a promote run signed this
    version, these weights and this alias before setting it (rc1.stages.promote); a hand-set alias has no such
    statement."""
    from rc1.tracking.queries import promote_runs

    link = Link("alias", None, alias)
    if alias != target:
        link.problems.append(f"{alias} is not this version's release alias ({target})")
        return link
    for run in promote_runs(str(mv.version), name):
        stmt, _ = _signed(run, "promote", trust)
        said = stmt.tags if stmt else {}
        if said.get("rc1.model_version") == str(mv.version) and said.get("rc1.target_alias") == alias \
                and facts.get("model_sha256") and said.get("rc1.model_sha256") == facts["model_sha256"] \
                and stmt.mode == ("prod" if alias == RC1 else "dev"):   # RC1: a promotion signed for prod
            link.run_id, link.evidence = run.info.run_id, f"{alias}, promotion signed by {stmt.key.name}"
            return link
    link.problems.append(f"no promote run signed version {mv.version} as {alias} (set by hand?)")
    return link


def require_verified(mv, alias: str | None, what: str, name: str = "rc1-policy") -> None:
    """A release alias (RC1, RC1-dev) is used only when it verifies (a hand-set alias does not): Rc1Error naming the
    broken link otherwise. Other aliases (best) and plain versions claim no release and are not checked here."""
    if alias not in RELEASE_ALIASES:
        return
    verdict = verify_version(name, str(mv.version), alias=alias)
    if not verdict.ok:
        raise Rc1Error(f"{what} refuses {name}@{alias}, which does not verify: {verdict.why} "
                       f"(`rc1 verify models:/{name}@{alias}` prints the chain)")
