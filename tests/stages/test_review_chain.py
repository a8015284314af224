"""Review of the signed chain (issue 28): what a store writer can still do with signed runs, through the real
commands. The evidence runs are test_promote.chain()'s (rc1's own stage_run, signing as the stages do)."""

from __future__ import annotations

import contextlib

from mlflow.tracking import MlflowClient

from rc1.core.errors import CheckFailed
from rc1.core.io import write_json
from rc1.tracking import stage_run
from rc1_cli import run_cli
from test_attest import refusal
from test_promote import aliases, chain, evaluation, store  # noqa: F401 - store is a fixture


def test_a_llamacpp_evaluation_retagged_in_the_store_is_no_rc1_verdict(store, capsys):
    """A signed llama.cpp evaluation (it measures a GGUF export, whatever weights the export holds) that passed, its
    store tag rc1.backend set to transformers: the newest 'transformers' evaluation of the version. Its statement says
    llama.cpp; promote refuses it."""
    version = chain(store, eval_passed=False)
    client = MlflowClient()
    train_run = client.get_run(client.get_model_version("rc1-policy", version).run_id)
    tags = {"rc1.model_version": version, "rc1.registered_model": "rc1-policy", "rc1.backend": "llamacpp",
            "rc1.train_run_id": train_run.info.run_id, "rc1.mode": "dev",
            "input_sha256.model": train_run.data.tags["sha256.model"], "input_sha256.shadow": "0" * 64,
            "input_sha256.heldout": train_run.data.tags["sha256.heldout.jsonl"]}
    with contextlib.suppress(CheckFailed), stage_run("evaluate", params={}, reuse=False, tags=tags, attest=True,
                                                     inputs={"gates": "configs/gates.yaml",
                                                             "config": "configs/ppo_dev.yaml"}) as ev:
        report = evaluation(245, 60, True)
        ev.log_artifact(write_json(store / "llamacpp" / "evaluate_report.json",
                                   {"model_version": version, **report.to_json()}))
        ev.verdict(report.checks)
    client.set_tag(ev.run_id, "rc1.backend", "transformers")
    assert run_cli(["promote", "--version", version]) == 2
    line = refusal(capsys)
    assert f"broken link evaluate run {ev.run_id}:" in line and "a llamacpp evaluation, not the" in line, line
    assert aliases().get("RC1-dev") != version


def test_a_gguf_export_pointed_at_by_hand_is_refused(store, capsys):
    """The version's tags that name its GGUF export (rc1.gguf_run_id, rc1.gguf_artifact, rc1.gguf_sha256) rewritten to
    a file the writer logged on another run: `rc1 evaluate --backend llamacpp` refuses it before llama.cpp loads it."""
    version = chain(store)
    client = MlflowClient()
    other = client.get_run(client.get_model_version("rc1-policy", chain(store, gated=False)).run_id)
    forged = store / "forged" / "rc1-policy-v1-f16.gguf"
    forged.parent.mkdir(exist_ok=True)
    forged.write_bytes(b"GGUF not the export")
    client.log_artifact(other.info.run_id, str(forged))
    from rc1.core.io import sha256_file

    for k, v in {"rc1.gguf_run_id": other.info.run_id, "rc1.gguf_artifact": forged.name,
                 "rc1.gguf_sha256": sha256_file(forged), "rc1.gguf_outtype": "f16"}.items():
        client.set_model_version_tag("rc1-policy", version, k, v)
    write_json(store / "forged" / "h.json", {"id": "h1", "task": "gsm8k", "question": "What is 2+2?", "answer": "4"})
    (store / "forged" / "h.jsonl").write_text((store / "forged" / "h.json").read_text().replace("\n", "") + "\n")
    assert run_cli(["evaluate", "--version", version, "--backend", "llamacpp", "--config", "configs/ppo_dev.yaml",
                    "--shadow", "none", "--heldout", str(store / "forged" / "h.jsonl")]) == 2
    line = refusal(capsys)
    assert f"its GGUF export run {other.info.run_id}" in line and "signed" in line, line


def test_a_prod_promotion_is_signed_for_prod_whatever_run_mode_says(store, monkeypatch, capsys, prod_key, tmp_path):
    """RUN_MODE is dev unless set: `rc1 promote` of a prod version without it signed its promotion with the promoter's
    own dev key. RC1 then verified on that machine only; a deployer's `rc1 verify` (or guard) elsewhere refused it.
    The promotion is signed in the version's mode: a prod key, or a one-line refusal before any alias is set."""
    monkeypatch.setenv("RUN_MODE", "prod")
    key = prod_key()
    version = chain(store, mode="prod")
    monkeypatch.setenv("RUN_MODE", "dev")
    monkeypatch.delenv("RC1_SIGNING_KEY")
    assert run_cli(["promote", "--version", version]) == 2
    assert "RC1_SIGNING_KEY" in refusal(capsys) and aliases().get("RC1") != version
    monkeypatch.setenv("RC1_SIGNING_KEY", str(key))
    assert run_cli(["promote", "--version", version]) == 0, capsys.readouterr().err
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "deployer"))   # another user: another dev key
    capsys.readouterr()
    assert run_cli(["verify", "models:/rc1-policy@RC1"]) == 0, capsys.readouterr().err
    # a promotion to RC1 signed for dev (by the promoter's dev key, as before) does not make RC1 genuine
    other = chain(store, mode="prod")
    sha = MlflowClient().get_run(MlflowClient().get_model_version("rc1-policy", other).run_id).data.tags["sha256.model"]
    monkeypatch.delenv("RC1_SIGNING_KEY")
    with stage_run("promote", params={}, reuse=False, attest=True, tags={
            "rc1.model_version": other, "rc1.registered_model": "rc1-policy", "rc1.target_alias": "RC1",
            "rc1.model_sha256": sha, "rc1.mode": "dev"}):
        pass
    MlflowClient().set_registered_model_alias("rc1-policy", "RC1", other)
    assert run_cli(["verify", "models:/rc1-policy@RC1"]) == 2
    assert f"no promote run signed version {other} as RC1" in refusal(capsys)


def test_a_small_order_key_in_the_trust_file_is_refused(store, capsys, tmp_path):
    """Ed25519's identity point as a trusted public key (`AQAA...A=`, innocent-looking in a trust.yaml diff): the
    signature (R = identity, S = 0) verifies for every message under it, so anyone could sign anything. The trust
    file with such a key is refused in one line, before any statement is read."""
    import base64
    import json

    from rc1.core.io import sha256_file
    from rc1.trust import keys, statements
    from test_attest import _forged_report, run_path
    from test_promote import _evaluate_run

    identity = b"\x01" + bytes(31)
    bad = chain(store, eval_passed=False)
    ev = _evaluate_run(bad).info.run_id
    stmt = json.loads(base64.b64decode(json.loads(run_path(ev, statements.ENVELOPE).read_text())["payload"]))
    forged = _forged_report(store, bad)
    for s in stmt["subject"]:
        if s["name"] == "evaluate_report.json":
            s["digest"]["sha256"] = sha256_file(forged)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    body = json.dumps(stmt).encode()
    envelope = {"payloadType": statements.PAYLOAD_TYPE, "payload": base64.b64encode(body).decode(),
                "signatures": [{"keyid": statements.keyid_of(Ed25519PublicKey.from_public_bytes(identity)),
                                "sig": base64.b64encode(identity + bytes(32)).decode()}]}
    MlflowClient().log_artifact(ev, str(forged))
    MlflowClient().log_artifact(ev, str(write_json(tmp_path / statements.ENVELOPE, envelope)))
    trust = store / "configs" / "trust.yaml"
    shipped = trust.read_text()
    trust.write_text(f"keys:\n  - {{name: ci, public_key: {base64.b64encode(identity).decode()}, modes: [dev]}}\n")
    try:
        capsys.readouterr()
        assert run_cli(["verify", "--version", bad, "--trust", str(trust)]) == 2   # the user's own trust root
        line = refusal(capsys)
        assert "keys[1]: public_key is a small-order point" in line, line
    finally:
        trust.write_text(shipped)
