"""promote verifies the whole chain version -> train -> gate -> preflight -> evaluate in the tracking store.

The evidence runs are written here with rc1's own stage_run into a real MLflow store, each signing what it recorded
as the real stages do (no training: the chain is signed facts, a logged model and files); the end-to-end path through
the real commands is in test_pipeline.py, the bar (an ungated version, a lenient evaluate on 6 items) in
test_train_grpo.py and the attacks on the signatures in test_attest.py."""

import contextlib
import shutil
from pathlib import Path

import mlflow
import pytest
from mlflow.tracking import MlflowClient

from rc1.core.errors import CheckFailed
from rc1.core.io import sha256_file
from rc1.tracking import stage_run
from rc1.tracking.registry import log_policy_model, register_logged_model
from rc1.trust.keys import trust_path
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
FILES = {"pool": "pool.jsonl", "config": "configs/ppo_dev.yaml", "weights": "configs/weights.json",
         "gates": "configs/gates.yaml"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("promote")
    shutil.copytree(REPO / "configs", root / "configs")
    (root / "pool.jsonl").write_text('{"id": "x"}\n')
    (root / "lenient.yaml").write_text((root / "configs/gates.yaml").read_text() + "\n# lenient\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
            mp.delenv(var, raising=False)
        mp.setenv("RUN_MODE", "dev")
        yield root
        mlflow.set_tracking_uri(None)


def evaluation(n_shadow: int, n_heldout: int, passed: bool, gates: str = "configs/gates.yaml"):
    """An RC1 report (rc1.inference.policy_vs_base.build_report) on per-item rows: the policy solves the hard and the
    needs-clarification items and stops over-clarifying when `passed`, else it does what the base does."""
    from rc1.core.config import load_thresholds
    from rc1.inference.policy_vs_base import build_report

    base, policy = [], []
    for split, n in (("shadow", n_shadow), ("heldout", n_heldout)):
        for i in range(n):
            needs = i % 4 == 0
            row = {"id": f"{split}{i}", "split": split, "task": ("hotpotqa", "strategyqa", "gsm8k")[i % 3],
                   "difficulty": "hard" if i % 2 else "easy", "needs_clarification": needs, "success": False,
                   "overclarified": not needs and i % 5 == 0, "turns": 2}
            base.append(row)
            better = {"success": row["difficulty"] == "hard" or needs, "overclarified": False}
            policy.append({**row, **(better if passed else {})})
    return build_report(policy, base, load_thresholds(gates).evaluate)


def chain(root: Path, mode="dev", gated=True, pre_mode=None, trained_pool=None, eval_items=(245, 60),
          eval_gates="configs/gates.yaml", eval_passed=True, evaluate=True, eval_model=None,
          eval_shadow="0" * 64, eval_heldout=None, gate_fresh=None, trained_fresh=None, eval_config=None,
          pre_gates=None, pre_table=None) -> str:
    """Evidence runs for one version, as the real stages record them; the arguments break one link each."""
    from rc1.core.io import write_json

    files = {**FILES, **({"gates": pre_gates} if pre_gates else {})}
    shas = {n: sha256_file(p) for n, p in files.items()}
    with stage_run("preflight", params={}, reuse=False, tags={"rc1.mode": pre_mode or mode}, attest=True) as pf:
        pf.set_tags({"rc1.round1_pass": "true", "rc1.round2_pass": "true", "rc1.waived": "shadow_run",
                     **{f"sha256.{n}": v for n, v in shas.items()}, "sha256.shadow": "0" * 64,
                     **{f"rc1.data_source.{t}": "local" for t in ("hotpotqa", "strategyqa", "gsm8k")}})
        table = {"round2_pass": 1.0, "round2.validate_pool.passed": 1.0, "round2.validate_pool.leak_count": 0,
                 "round2.validate_pool.distinct_2": 0.7, "round2.validate_pool.dup_rate": 0.0,
                 "round2.shadow_run.spearman": 0.9, "round2.shadow_run.top10_overlap": 0.8,
                 "round2.shadow_run.top10pct_overlap": 0.8, "round2.shadow_run.corr_improve_pct": 20.0,
                 "round2.shadow_run.corr_to_success_new": 0.5}
        table = {**table, **(pre_table or {})}
        pf.log_metrics(table)   # what the preflight signs: promote rechecks these, never the run's metrics
        pf.log_named_artifact("round_metrics", write_json(root / "round_metrics.json", table),
                              artifact_path="inputs")
        pf.set_tags({"sha256.round_metrics": sha256_file(root / "round_metrics.json")})
        pf.log_named_artifact("gates", files["gates"])   # promote takes its thresholds from this file
        pf.log_named_artifact("trust", trust_path()[0])   # the trust root it signs under, as the real preflight
    adapter = root / "adapter"
    adapter.mkdir(exist_ok=True)
    (adapter / "adapter_config.json").write_text("{}")
    (root / "heldout.jsonl").write_text('{"id": "h"}\n')
    inputs = {**files, "pool": trained_pool or FILES["pool"], **({"fresh": trained_fresh} if trained_fresh else {})}

    def train(gate_id):
        link = {"rc1.gated": "true", "rc1.gate_run_id": gate_id, "rc1.preflight_run_id": pf.run_id} if gate_id else \
            {"rc1.gated": "false"}
        with stage_run("train", params={}, inputs=inputs, reuse=False, tags={**link, "rc1.mode": mode},
                       attest=True) as st:
            model_id, _ = log_policy_model(st, adapter)
            st.log_named_artifact("heldout", root / "heldout.jsonl", artifact_path="training")
            version = register_logged_model(st.run_id, model_id, score=0.5, gate_run_id=gate_id, tags=link)
            st.set_tags({"rc1.model_version": version, "rc1.registered_model": "rc1-policy"})
        return version

    if gated:
        with stage_run("gate", params={}, reuse=False, tags={"rc1.preflight_run_id": pf.run_id, "rc1.mode": mode},
                       inputs={"fresh": gate_fresh} if gate_fresh else None, attest=True) as g:
            version = train(g.run_id)
    else:
        version = train(None)
    if evaluate:
        train_run = MlflowClient().get_run(MlflowClient().get_model_version("rc1-policy", version).run_id)
        tags = {"rc1.model_version": version, "rc1.registered_model": "rc1-policy",
                "rc1.train_run_id": train_run.info.run_id, "rc1.mode": mode,
                "input_sha256.model": eval_model or train_run.data.tags["sha256.model"],
                "input_sha256.shadow": eval_shadow,
                "input_sha256.heldout": eval_heldout or train_run.data.tags["sha256.heldout.jsonl"]}
        inputs = {"gates": eval_gates, "config": eval_config or FILES["config"]}
        with contextlib.suppress(CheckFailed), stage_run("evaluate", params={}, inputs=inputs, reuse=False,
                                                         tags=tags, attest=True) as ev:
            ev.log_metrics({"rc1.eval_items.shadow": eval_items[0], "rc1.eval_items.heldout": eval_items[1]})
            report = evaluation(*eval_items, eval_passed, eval_gates)
            ev.log_artifact(write_json(root / "report" / "evaluate_report.json",
                                       {"model_version": version, **report.to_json()}))
            ev.verdict(report.checks)
    return version


def aliases() -> dict:
    return {k: str(v) for k, v in MlflowClient().get_registered_model("rc1-policy").aliases.items()}


def test_a_whole_dev_chain_gets_rc1_dev_never_rc1(store, capsys):
    version = chain(store)
    assert run_cli(["promote", "--version", version]) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    for link in ("version", "train", "gate", "preflight", "evaluate"):
        assert f"\n{link} " in "\n" + err
    assert "BROKEN" not in err
    assert aliases().get("RC1-dev") == version and aliases().get("RC1") != version


def test_a_whole_prod_chain_gets_rc1(store, monkeypatch, capsys, prod_key):
    monkeypatch.setenv("RUN_MODE", "prod")
    prod_key()
    version = chain(store, mode="prod")
    assert run_cli(["promote", "--version", version]) == 0, capsys.readouterr().err
    assert aliases()["RC1"] == version


@pytest.mark.parametrize("breaks, link, says", [
    ({"gated": False}, "train", "not launched by a gate (rc1.gated=false)"),
    ({"pre_mode": "prod"}, "preflight", "mode prod differs"),
    ({"trained_pool": "lenient.yaml"}, "preflight", "the train run's pool is not the one this preflight hashed"),
    ({"evaluate": False}, "evaluate", "no finished evaluate run"),
    ({"eval_items": (6, 0)}, "evaluate", "saw 6 shadow-set items < evaluate.min_shadow_items=245"),
    ({"eval_items": (245, 3)}, "evaluate", "saw 3 held-out items < evaluate.min_heldout_items=50"),
    ({"eval_gates": "lenient.yaml"}, "evaluate", "applied a gates file other than the one its preflight hashed"),
    ({"eval_passed": False}, "evaluate",
     "failed the RC1 gates (recomputed from its report): hard_success_gain_pp="),
    ({"eval_config": "configs/ppo_trial.yaml"}, "evaluate", "evaluated under a ppo config other than the train run's"),
    ({"eval_model": "0" * 64}, "evaluate", "evaluated weights other than the train run's model"),
    ({"eval_shadow": "1" * 64}, "evaluate", "evaluated a shadow set other than the one its preflight hashed"),
    ({"eval_heldout": "1" * 64}, "evaluate", "evaluated a held-out split other than the train run's"),
    # --fresh prompts: the gate checked one file (no shadow-set questions), a seed trained on another (edited since)
    ({"gate_fresh": "pool.jsonl", "trained_fresh": "lenient.yaml"}, "gate",
     "checked other --fresh prompts than the train run trained on"),
    ({"trained_fresh": "pool.jsonl"}, "gate", "checked other --fresh prompts than the train run trained on"),
])
def test_a_broken_link_is_named_and_refused(store, capsys, prod_key, breaks, link, says):
    if "pre_mode" in breaks:   # a prod preflight signs with a prod key (here one trusted for dev too)
        prod_key(modes=("dev", "prod"))
    before = dict(aliases()) if MlflowClient().search_registered_models() else {}
    version = chain(store, **breaks)
    assert run_cli(["promote", "--version", version]) == 2
    err = capsys.readouterr().err
    assert f"not promoted: broken link {link} run" in err and says in err, err
    assert "Traceback" not in err
    assert {k: v for k, v in aliases().items() if k.startswith("RC1")} == \
        {k: v for k, v in before.items() if k.startswith("RC1")}
    (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list", max_results=1,
                                filter_string="tags.`rc1.stage` = 'promote'", order_by=["attributes.start_time DESC"])
    assert run.data.tags["rc1.promoted"] == "false" and run.data.tags["rc1.broken_link"] == link
    assert run.info.status == "FAILED" and f"link.{link}" in err   # a refusal is a red run; the table names the link


def test_an_ungated_version_never_takes_best(store):
    gated = chain(store)
    ungated = chain(store, gated=False)
    assert aliases()["best"] == gated and MlflowClient().get_model_version("rc1-policy", ungated).aliases == []


def test_refuses_unknown_versions_and_needs_one_selector(store, capsys):
    assert run_cli(["promote", "--version", "42"]) == 2
    assert run_cli(["promote", "--alias", "nope"]) == 2
    assert run_cli(["promote", "--version", "1", "--alias", "best"]) == 2   # no selector at all: --alias best
    assert "exactly one" in capsys.readouterr().err


def _lenient(path: Path) -> None:
    import yaml

    g = yaml.safe_load((REPO / "configs/gates.yaml").read_text())
    g["evaluate"].update(min_shadow_items=1, min_heldout_items=1)
    path.write_text(yaml.safe_dump(g))


def test_a_lenient_local_gates_file_changes_nothing(store, capsys):
    """The thresholds are the preflight's gates file (from the store), not ./configs/gates.yaml of the promoter."""
    _lenient(store / "really_lenient.yaml")
    version = chain(store, eval_items=(6, 1), eval_gates="really_lenient.yaml")
    shipped = (store / "configs/gates.yaml").read_text()
    try:
        shutil.copy(store / "really_lenient.yaml", store / "configs/gates.yaml")
        assert run_cli(["promote", "--version", version]) == 2
    finally:
        (store / "configs/gates.yaml").write_text(shipped)
    err = capsys.readouterr().err
    assert "saw 6 shadow-set items < evaluate.min_shadow_items=245" in err, err
    assert "applied a gates file other than the one its preflight hashed" in err
    assert "RC1-dev" not in aliases() or aliases()["RC1-dev"] != version


def test_a_tampered_preflight_gates_file_is_a_broken_preflight_link(store, capsys):
    from urllib.parse import urlparse

    version = chain(store)
    train = MlflowClient().get_run(MlflowClient().get_model_version("rc1-policy", version).run_id)
    pre = MlflowClient().get_run(train.data.tags["rc1.preflight_run_id"])
    stored = Path(urlparse(pre.info.artifact_uri).path) / pre.data.tags["rc1.artifact.gates"]
    _lenient(stored)                            # the preflight's gates file altered in the store
    assert run_cli(["promote", "--version", version]) == 2
    err = capsys.readouterr().err
    assert "broken link preflight run" in err and "does not match the digest its statement signed" in err, err
    assert "Traceback" not in err


def test_preflight_numbers_are_the_signed_ones_never_the_runs(store, capsys):
    """A preflight that signed distinct-2 0.1 and whose run metric now says 0.7 (logged by hand through
    MlflowClient): promote rechecks the signed number and refuses."""
    version = chain(store, pre_table={"round2.validate_pool.distinct_2": 0.1})
    train = MlflowClient().get_run(MlflowClient().get_model_version("rc1-policy", version).run_id)
    MlflowClient().log_metric(train.data.tags["rc1.preflight_run_id"], "round2.validate_pool.distinct_2", 0.7)
    assert run_cli(["promote", "--version", version]) == 2
    err = capsys.readouterr().err
    assert "round2.validate_pool.distinct_2=0.1 no longer meets validate_pool.distinct_2_min" in err, err
    assert aliases().get("RC1-dev") != version


def test_weights_altered_after_the_evaluation_are_refused(store, capsys):
    from urllib.parse import urlparse

    version = chain(store)
    client = MlflowClient()
    mv = client.get_model_version("rc1-policy", version)
    stored = client.get_logged_model(mv.source.removeprefix("models:/")).artifact_location
    (Path(urlparse(stored).path) / "adapter_config.json").write_text('{"r": 999}')
    assert run_cli(["promote", "--version", version]) == 2
    err = capsys.readouterr().err
    assert f"broken link version {version}: the model it serves does not match the digest train run" in err, err


def _evaluate_run(version: str):
    where = f"tags.`rc1.stage` = 'evaluate' AND tags.`rc1.model_version` = '{version}'"
    (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list", max_results=1, filter_string=where)
    return run


def test_a_verdict_and_item_counts_set_by_hand_are_recomputed_from_the_report(store, capsys):
    """rc1.passed=true and rc1.eval_items.heldout=1080 set by hand on a failed evaluate run (3 held-out items): promote
    re-derives both from the run's sha256-checked evaluate_report.json and refuses."""
    version = chain(store, eval_passed=False, eval_items=(245, 3))
    client = MlflowClient()
    ev_id = _evaluate_run(version).info.run_id
    client.set_tag(ev_id, "rc1.passed", "true")
    client.log_metric(ev_id, "rc1.eval_items.heldout", 1080)
    assert run_cli(["promote", "--version", version]) == 2
    err = capsys.readouterr().err
    assert "failed the RC1 gates (recomputed from its report)" in err, err
    assert "saw 3 held-out items < evaluate.min_heldout_items=50" in err
    assert "RC1-dev" not in aliases() or aliases()["RC1-dev"] != version


def test_a_report_altered_in_the_store_breaks_the_evaluate_link(store, capsys):
    from urllib.parse import urlparse

    from rc1.core.io import write_json

    version = chain(store, eval_passed=False)
    run = _evaluate_run(version)
    stored = Path(urlparse(run.info.artifact_uri).path) / "evaluate_report.json"
    write_json(stored, {"model_version": version, **evaluation(245, 60, True).to_json()})   # a passing report
    assert run_cli(["promote", "--version", version]) == 2
    err = capsys.readouterr().err
    assert "broken link evaluate run" in err and "its report cannot be verified" in err, err


def _looser(path: Path) -> Path:
    import yaml

    g = yaml.safe_load((REPO / "configs/gates.yaml").read_text())
    g["evaluate"].update(hard_success_gain_pp_min=-100.0, clarify_success_gain_pp_min=-100.0, min_heldout_items=1)
    path.write_text(yaml.safe_dump(g))
    return path


def test_prod_refuses_gates_looser_than_the_seed_and_dev_says_so(store, monkeypatch, capsys, prod_key):
    """A gates file with a negative RC1 gain and a minimum of 1 held-out item: `rc1 preflight` in prod refuses it (one
    line, exit 2, nothing run); a prod version whose preflight hashed it is not promoted; in dev the promote table says
    which thresholds are looser than the seed's."""
    lenient = _looser(store / "lenient_seed.yaml")
    assert run_cli(["preflight", "--mode", "prod", "--gates", str(lenient)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "prod refuses thresholds looser than the seed's: evaluate.hard_success_gain_pp_min = -100.0" in line, line
    monkeypatch.setenv("RUN_MODE", "prod")
    prod_key()
    version = chain(store, mode="prod", eval_gates=str(lenient), pre_gates=str(lenient))
    assert run_cli(["promote", "--version", version]) == 2
    err = capsys.readouterr().err
    assert "broken link preflight run" in err and "looser than the seed's" in err, err
    monkeypatch.setenv("RUN_MODE", "dev")
    monkeypatch.delenv("RC1_SIGNING_KEY")   # dev signs with the user's dev key again
    version = chain(store, eval_gates=str(lenient), pre_gates=str(lenient), eval_items=(245, 1))
    assert run_cli(["promote", "--version", version]) == 0
    err = capsys.readouterr().err
    gates_row = next(ln for ln in err.splitlines() if ln.startswith("gates "))
    assert "dev: looser than the seed's: " in gates_row and gates_row.endswith(" ok")
    assert "evaluate.hard_success_gain_pp_min = -100.0 (seed: >= 5.0)" in gates_row
    assert "evaluate.min_heldout_items = 1 (seed: >= 50)" in gates_row
