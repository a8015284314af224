"""The chain nobody can forge from the store (issue 28): what a teammate with nothing but MlflowClient access to the
tracking store tries, through the real commands (promote, verify, evaluate, bundle, export-gguf), and a promote
SIGKILLed at each step. The evidence runs are test_promote.chain()'s: rc1's own stage_run signing what it recorded,
as the stages do."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import mlflow
from mlflow.tracking import MlflowClient

from rc1.core.io import sha256_file, write_json
from rc1.trust import keys, statements
from rc1_cli import run_cli
from test_promote import _evaluate_run, aliases, chain, evaluation, store  # noqa: F401 - store is a fixture

client = MlflowClient


def refusal(capsys) -> str:
    """The one line of a refusal (the chain table comes before it; promote's failing checks after it)."""
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("rc1: ")]
    return line


def run_path(run_id: str, artifact: str) -> Path:
    return Path(urlparse(client().get_run(run_id).info.artifact_uri).path) / artifact


def _forged_report(store_root: Path, version: str) -> Path:
    return write_json(store_root / "forged" / "evaluate_report.json",
                      {"model_version": version, **evaluation(245, 60, True).to_json()})


def test_a_genuine_dev_chain_promotes_and_verifies(store, capsys):
    version = chain(store)
    assert run_cli(["verify", "--version", version]) == 0, capsys.readouterr().err
    assert run_cli(["promote", "--version", version]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert run_cli(["verify", "models:/rc1-policy@RC1-dev"]) == 0
    out, err = capsys.readouterr()
    assert f"verified: rc1-policy version {version} as RC1-dev" in out
    for link in ("version", "train", "gate", "preflight", "evaluate", "gates", "trust", "alias"):
        assert f"\n{link} " in "\n" + err, link
    assert "BROKEN" not in err and "signed by your dev key" in err
    # every digest the table prints is of bytes downloaded here and held to a signature
    digests = [ln for ln in err.splitlines() if "sha256 " in ln]
    assert digests and all("(downloaded" in ln or ln.startswith("trust ") for ln in digests), digests
    (promote,) = [r for r in mlflow.search_runs(search_all_experiments=True, output_format="list",
                                                filter_string=f"tags.`rc1.stage` = 'promote' AND "
                                                              f"tags.`rc1.model_version` = '{version}'")]
    assert promote.info.status == "FINISHED" and promote.data.tags["rc1.promoted"] == "true"
    assert "rc1.intoto.json" in {f.path for f in client().list_artifacts(promote.info.run_id)}


def test_a_forged_report_with_its_tag_reset_is_refused(store, capsys):
    """Attack 1: a passing evaluate_report.json logged over a failing one, its sha256 tag reset to match."""
    version = chain(store, eval_passed=False)
    ev = _evaluate_run(version).info.run_id
    forged = _forged_report(store, version)
    client().log_artifact(ev, str(forged))
    client().set_tag(ev, "sha256.evaluate_report.json", sha256_file(forged))
    client().set_tag(ev, "rc1.passed", "true")
    for cmd in (["promote", "--version", version], ["verify", "--version", version]):
        assert run_cli(cmd) == 2
        line = refusal(capsys)
        assert f"broken link evaluate run {ev}: its report cannot be verified (evaluate_report.json in the tracking " \
               f"server does not match the digest its statement signed" in line, line
    assert aliases().get("RC1-dev") != version


def test_a_version_whose_source_is_another_runs_model_is_refused(store, capsys):
    """Attack 2: a version made by hand with a genuine gated train run's run_id and another run's model as source."""
    genuine = chain(store)
    other = client().get_model_version("rc1-policy", chain(store, gated=False))
    train_run = client().get_model_version("rc1-policy", genuine).run_id
    for source in (other.source, f"runs:/{other.run_id}/training"):
        mv = client().create_model_version("rc1-policy", source=source, run_id=train_run)
        for cmd in (["promote", "--version", mv.version], ["verify", "--version", mv.version],
                    ["evaluate", "--version", mv.version, "--heldout", "none"]):   # refused before anything loads
            assert run_cli(cmd) == 2
            line = refusal(capsys)
            assert f"its source {source} is not train run {train_run}'s logged model" in line, line
        assert aliases().get("RC1-dev") != mv.version


def test_a_release_alias_set_by_hand_is_refused_downstream(store, capsys):
    """Attack 3: RC1 set by hand on a dev version that failed its evaluation; RC1-dev by hand on a version whose
    chain holds but that nobody promoted. bundle and export-gguf refuse both; verify names why."""
    failed = chain(store, eval_passed=False)
    client().set_registered_model_alias("rc1-policy", "RC1", failed)
    for cmd in (["bundle"], ["export-gguf", "--alias", "RC1"]):
        assert run_cli(cmd) == 2
        line = refusal(capsys)
        assert "refuses rc1-policy@RC1, which does not verify" in line and "failed the RC1 gates" in line, line
    assert run_cli(["verify", "models:/rc1-policy@RC1"]) == 2
    assert "RC1 is not this version's release alias (RC1-dev)" in refusal(capsys)
    unpromoted = chain(store)
    client().set_registered_model_alias("rc1-policy", "RC1-dev", unpromoted)
    assert run_cli(["bundle", "--alias", "RC1-dev"]) == 2
    assert f"no promote run signed version {unpromoted} as RC1-dev (set by hand?)" in refusal(capsys)
    client().delete_registered_model_alias("rc1-policy", "RC1")
    # `best` claims less (a gated train run's own signed model): the genuine one holds, one set by hand on an ungated
    # version does not
    assert run_cli(["verify", "--alias", "best"]) == 0
    assert "it serves its gated train run's signed model" in capsys.readouterr().out
    client().set_registered_model_alias("rc1-policy", "best", chain(store, gated=False))
    for cmd in (["verify", "models:/rc1-policy@best"], ["export-gguf", "--alias", "best"]):   # export: review of 37
        assert run_cli(cmd) == 2
        assert "not launched by a gate (rc1.gated=false)" in refusal(capsys)


def test_untrusted_keys_a_store_trust_file_and_replayed_statements_are_refused(store, capsys, tmp_path, monkeypatch):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    good, bad = chain(store), chain(store, eval_passed=False)
    good_ev, bad_ev = _evaluate_run(good).info.run_id, _evaluate_run(bad).info.run_id

    # a statement re-signed by the attacker's own key: the forged report's digest in a copy of the genuine statement
    forged = _forged_report(store, bad)
    envelope = json.loads(run_path(bad_ev, statements.ENVELOPE).read_text())
    stmt = json.loads(base64.b64decode(envelope["payload"]))
    for s in stmt["subject"]:
        if s["name"] == "evaluate_report.json":
            s["digest"]["sha256"] = sha256_file(forged)
    key = Ed25519PrivateKey.generate()
    mine = keys.Signer(key, statements.keyid_of(key.public_key()), "attacker")
    client().log_artifact(bad_ev, str(forged))
    client().log_artifact(bad_ev, str(write_json(tmp_path / statements.ENVELOPE, mine.sign(stmt))))
    # and the attacker's key added to the trust file the preflight logged into the store
    pre = client().get_run(client().get_run(client().get_model_version("rc1-policy", bad).run_id)
                           .data.tags["rc1.preflight_run_id"])
    stored_trust = run_path(pre.info.run_id, pre.data.tags["rc1.artifact.trust"])
    stored_trust.write_text(f"keys: [{{name: me, public_key: {keys.public_b64(key.public_key())}, modes: [dev]}}]\n")
    assert run_cli(["verify", "--version", bad]) == 2
    line = refusal(capsys)
    assert f"evaluate run {bad_ev}: signed by no trusted key" in line, line

    # the good version's genuine statement replayed on the bad version's evaluate run
    write_json(tmp_path / "replay" / statements.ENVELOPE, json.loads(run_path(good_ev, statements.ENVELOPE).read_text()))
    client().log_artifact(bad_ev, str(tmp_path / "replay" / statements.ENVELOPE))
    assert run_cli(["promote", "--version", bad]) == 2
    assert f"its signed statement is of run {good_ev}, not this one (copied?)" in refusal(capsys)

    # the good version's genuine evaluate run retagged as the bad version's evaluation (the bad one's deleted)
    client().delete_run(bad_ev)
    client().set_tag(good_ev, "rc1.model_version", bad)
    client().set_tag(good_ev, "rc1.train_run_id", client().get_model_version("rc1-policy", bad).run_id)
    assert run_cli(["promote", "--version", bad]) == 2
    line = refusal(capsys)
    assert f"evaluate run {good_ev}:" in line and f"its statement is of version {good}, not {bad}" in line, line
    assert aliases().get("RC1-dev") != bad


def test_a_promote_killed_anywhere_leaves_no_alias_or_a_verified_one(store, capsys):
    """SIGKILL at each step of `rc1 promote` (RC1_TEST_KILL_AT): before its statement, after it, after the alias. The
    alias is never set without its signed evidence; `rc1 verify` changes nothing, and the next command that may write
    the registry settles the run (here a promote of a version that does not exist: it settles, then refuses)."""
    env = {**os.environ, "MLFLOW_TRACKING_URI": mlflow.get_tracking_uri(), "RC1_TEST_KILL_AT": ""}
    for point in ("promote.before_statement", "promote.signed", "promote.alias_set"):
        version = chain(store)
        held = aliases().get("RC1-dev")
        res = subprocess.run([sys.executable, "-m", "rc1.cli", "promote", "--version", version], cwd=store,
                             env={**env, "RC1_TEST_KILL_AT": point}, capture_output=True, text=True, timeout=300)
        assert res.returncode == -9, res.stderr[-2000:]
        set_now = aliases().get("RC1-dev")
        assert set_now == (version if point == "promote.alias_set" else held), point
        if point == "promote.before_statement":   # as an rc1 without signed promotions left it: alias, no evidence
            client().set_registered_model_alias("rc1-policy", "RC1-dev", version)

        def killed():
            (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                        filter_string=f"tags.`rc1.stage` = 'promote' AND "
                                                      f"tags.`rc1.model_version` = '{version}'")
            return run

        before = killed()
        capsys.readouterr()
        assert run_cli(["verify", "--version", version]) == 0, capsys.readouterr().err
        assert "settled" not in capsys.readouterr().err
        after = killed()
        assert (after.info.status, after.data.tags) == (before.info.status, before.data.tags)   # read-only
        assert run_cli(["promote", "--version", "999"]) == 2   # settles the killed run, then refuses the version
        err = capsys.readouterr().err
        run = killed()
        if point == "promote.alias_set":
            assert run.info.status == "FINISHED" and run.data.tags["rc1.promoted"] == "true", run.data.tags
            assert run_cli(["verify", "models:/rc1-policy@RC1-dev"]) == 0
        else:
            assert run.info.status == "FAILED" and run.data.tags["rc1.promoted"] == "false"
            # killed before it set the alias: the one held before stays; one set by hand stays too (settling never
            # removes an alias) and does not verify: no promote run signed it
            assert aliases().get("RC1-dev") == (version if point == "promote.before_statement" else held)
            if point == "promote.before_statement":
                assert run_cli(["verify", "models:/rc1-policy@RC1-dev"]) == 2
                assert "no promote run signed version" in capsys.readouterr().err
        assert "settled an unfinished promotion" in err and run.data.tags["rc1.reconciled"], err


def test_evaluate_reads_its_train_runs_held_out_split_as_signed(store, capsys):
    """The held-out split evaluate scores (in a gate: the verdict a trial's full job waits on) is the train run's as it
    signed it: the file altered in the store with its sha256 tag reset is refused before any model loads."""
    version = chain(store)
    train_run = client().get_model_version("rc1-policy", version).run_id
    stored = run_path(train_run, "training/heldout.jsonl")
    stored.write_text('{"id": "easy"}\n')
    client().set_tag(train_run, "sha256.heldout.jsonl", sha256_file(stored))
    assert run_cli(["evaluate", "--version", version, "--config", "configs/ppo_dev.yaml", "--shadow", "none",
                    "--heldout", "pool"]) == 2
    assert refusal(capsys) == (f"rc1: error: train run {train_run}: training/heldout.jsonl in the tracking server does "
                               f"not match the digest its statement signed (altered in the store?)")


def test_verify_and_promote_never_touch_another_models_alias(store, capsys):
    """Why 3: an unsigned FAILED "promote" run made in the store naming another model's alias: `rc1 verify` writes
    nothing, and `rc1 promote` (which settles unfinished promotions) leaves that model and its alias alone."""
    version = chain(store)
    c = MlflowClient()
    mv = c.get_model_version("rc1-policy", version)
    c.create_registered_model("other-model")
    other = c.create_model_version("other-model", mv.source, run_id=mv.run_id, model_id=mv.source.rsplit("/", 1)[-1])
    c.set_registered_model_alias("other-model", "champion", other.version)
    with mlflow.start_run() as fake:
        mlflow.set_tags({"rc1.stage": "promote", "rc1.registered_model": "other-model", "rc1.target_alias": "champion",
                         "rc1.model_version": str(other.version)})
    c.set_terminated(fake.info.run_id, "FAILED")
    assert run_cli(["verify", "--version", version]) == 0
    assert run_cli(["promote", "--version", version]) == 0, capsys.readouterr().err
    assert "champion" not in capsys.readouterr().err
    assert {k: str(v) for k, v in c.get_registered_model("other-model").aliases.items()} == {"champion": str(other.version)}
    assert "rc1.reconciled" not in c.get_run(fake.info.run_id).data.tags


def test_a_promotion_carries_a_report_built_from_verified_bytes(store, capsys):
    """Why 4: the evaluate run's rc1_report.html replaced in the store: promote does not sign it; the report it logs
    (a subject of its statement) is rendered from the signed evaluation."""
    version = chain(store)
    ev = _evaluate_run(version).info.run_id
    forged = store / "rc1_report.html"
    forged.write_text("<html>FORGED: RC1 verdict PASS</html>")
    MlflowClient().log_artifact(ev, str(forged))
    assert run_cli(["promote", "--version", version]) == 0, capsys.readouterr().err
    report = MlflowClient().get_model_version("rc1-policy", version).tags["rc1.report"]
    promote_run = report.split("/")[1]
    page = run_path(promote_run, "rc1_report.html").read_text()
    assert "FORGED" not in page and "id='verified' class='verdict pass'" in page
    assert "rc1_report.html" in statements_of(promote_run)


def statements_of(run_id: str) -> dict:
    """The subjects of a run's statement (name -> digest; the signature is checked by the commands, not here)."""
    env = json.loads(run_path(run_id, statements.ENVELOPE).read_text())
    return {s["name"]: s["digest"] for s in json.loads(base64.b64decode(env["payload"]))["subject"]}


def test_a_planted_trust_file_and_a_second_signer_are_refused(store, capsys, tmp_path, monkeypatch):
    """Why 5: a configs/trust.yaml planted in the working directory listing an attacker's key, who re-signed the train
    run: the trust root is the rc1 checkout's (named with its sha256), so it is refused; named explicitly
    (--trust), the key is still not in the trust file the chain's preflight signed. A chain whose train run is signed
    by another trusted key than its gate's: refused (one gate process signs both)."""
    from restate import attacker, restate

    version = chain(store)
    train_run = MlflowClient().get_model_version("rc1-policy", version).run_id
    evil = attacker()
    planted = store / "configs" / "trust.yaml"
    shipped = planted.read_text()
    planted.write_text(f"keys:\n  - {{name: ci, public_key: {keys.public_b64(evil.key.public_key())}, "
                       f"modes: [dev]}}\n")
    try:
        restate(train_run, evil)
        capsys.readouterr()
        assert run_cli(["verify", "--version", version]) == 2
        err = capsys.readouterr().err
        assert f"trust root: {keys.CHECKOUT_TRUST} sha256 " in err and "signed by no trusted key" in err
        assert run_cli(["verify", "--version", version, "--trust", str(planted)]) == 2
        assert "which its preflight's trust file" in capsys.readouterr().err
    finally:
        planted.write_text(shipped)
    # a second trusted signer: a trust root (explicit) listing key B for dev, under which the chain is made
    root = tmp_path / "trust.yaml"
    root.write_text(f"keys:\n  - {{name: teammate, public_key: {keys.public_b64(evil.key.public_key())}, "
                    f"modes: [dev]}}\n")
    monkeypatch.setenv("RC1_TRUST", str(root))
    version = chain(store)
    train_run = MlflowClient().get_model_version("rc1-policy", version).run_id
    assert run_cli(["verify", "--version", version]) == 0, capsys.readouterr().err
    restate(train_run, evil)
    capsys.readouterr()
    assert run_cli(["verify", "--version", version]) == 2
    assert "one gate process signs both" in capsys.readouterr().err


def test_a_release_moved_back_by_hand_and_a_forged_report_are_refused(store, capsys):
    """Review of issue 37: RC1-dev moved back by hand to an earlier release (whose own promotion is genuine, and older
    than the one that replaced it) is refused by verify and serve, even with the newer promote run deleted; a
    promotion's report replaced in the store, or the version's rc1.report pointed at another page, breaks the alias
    link. A rollback made by `rc1 promote` is a new signed promotion: it verifies."""
    first = chain(store)
    assert run_cli(["promote", "--version", first]) == 0, capsys.readouterr().err
    second = chain(store)
    assert run_cli(["promote", "--version", second]) == 0, capsys.readouterr().err
    newer = client().get_model_version("rc1-policy", second).tags["rc1.report"].split("/")[1]
    client().set_registered_model_alias("rc1-policy", "RC1-dev", first)
    client().delete_run(newer)   # hidden from an ordinary search: still found
    capsys.readouterr()
    for cmd in (["verify", "models:/rc1-policy@RC1-dev"], ["serve", "models:/rc1-policy@RC1-dev"]):
        assert run_cli(cmd) == 2
        line = refusal(capsys)
        assert f"promote run {newer} made version {second} RC1-dev after this version's promotion" in line, line
    client().restore_run(newer)
    client().set_registered_model_alias("rc1-policy", "RC1-dev", second)
    assert run_cli(["verify", "models:/rc1-policy@RC1-dev"]) == 0, capsys.readouterr().err

    page = run_path(newer, "rc1_report.html")
    genuine = page.read_text()
    page.write_text(genuine.replace("class='verdict pass'", "class='verdict pass'>FORGED<"))
    capsys.readouterr()
    assert run_cli(["verify", "models:/rc1-policy@RC1-dev"]) == 2
    assert f"rc1_report.html in the tracking server does not match the digest its statement signed" in refusal(capsys)
    page.write_text(genuine)
    with mlflow.start_run() as other:
        mlflow.log_text("<html>FORGED: RC1 verdict PASS</html>", "rc1_report.html")
    client().set_model_version_tag("rc1-policy", second, "rc1.report", f"runs:/{other.info.run_id}/rc1_report.html")
    assert run_cli(["verify", "models:/rc1-policy@RC1-dev"]) == 2
    assert f"its rc1.report points at runs:/{other.info.run_id}/rc1_report.html, not the report promote run " \
           f"{newer} signed" in refusal(capsys)
    client().set_model_version_tag("rc1-policy", second, "rc1.report", f"runs:/{newer}/rc1_report.html")

    assert run_cli(["promote", "--version", first]) == 0, capsys.readouterr().err   # a rollback, signed
    assert run_cli(["verify", "models:/rc1-policy@RC1-dev"]) == 0, capsys.readouterr().err


def test_verify_and_serve_write_nothing_and_serve_takes_no_other_model(tmp_path, monkeypatch, capsys):
    """Review of issue 37: `rc1 verify` (and `rc1 serve`) in a directory without a store create none (they made
    ./mlruns/mlflow.db); `rc1 serve` refuses a model option in any spelling click reads (`-m/tmp/x` was passed on, and
    mlflow served that directory under rc1's "every file verified"), before anything is downloaded."""
    uri = mlflow.get_tracking_uri()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    mlflow.set_tracking_uri(None)
    try:
        for cmd in (["verify", "--version", "1"], ["serve", "models:/rc1-policy@RC1-dev"]):
            assert run_cli(cmd) == 2
            assert "no tracking store at sqlite:///" in refusal(capsys)
        assert list(tmp_path.iterdir()) == []
        for given in (["-m/tmp/x"], ["-m", "/tmp/x"], ["--model-uri=/tmp/x"], ["--model-uri", "/tmp/x"]):
            assert run_cli(["serve", "models:/rc1-policy@RC1-dev", "-p", "5001", *given]) == 2
            assert "is not passed on: the model served is the version rc1 verified" in refusal(capsys)
        assert list(tmp_path.iterdir()) == []
    finally:
        mlflow.set_tracking_uri(uri)
