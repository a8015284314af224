"""The model registry: training's best checkpoint becomes a version of `rc1-policy`; aliases, not stages.

- `register_adapter(run_id, "model", tags=...)`: a new version whose source is that run's logged policy model
  (an MLflow Model, transformers flavor + PEFT adapter: rc1.tracking.policy_model) via
  `MlflowClient.create_model_version(name, source=<run artifact uri>/model, run_id=...)`, which works on sqlite and
  through `mlflow server`; `mlflow.transformers.load_model("models:/rc1-policy@best")` loads it.
  Alias `best` moves to a version trained inside a gate run (gate_run_id given) when no `best` exists, when `best`
  belongs to another gate run, or when its reward beats the reward of the current `best` (so `best` is the best
  of the current gate's seeds). A version no gate launched never takes `best`; a trial gate's version
  (rc1.gate_kind=trial on its gate run) takes `trial-best` by the same rule instead, never `best`.
- `promote` (rc1/stages/promote.py, rc1/release/chain.py) sets alias `RC1` (`RC1-dev` for a dev version) only when
  the whole chain from that version back to a passing preflight holds.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mlflow
from mlflow.entities.model_registry import ModelVersion
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from rc1.core.errors import Rc1Error
from rc1.tracking.queries import _search

MODEL_NAME = "rc1-policy"
BEST = "best"
TRIAL_BEST = "trial-best"   # where a trial gate's versions go: `best` only ever holds a full gate's version


def ensure_model(name: str = MODEL_NAME) -> None:
    client = MlflowClient()
    try:
        client.get_registered_model(name)
    except MlflowException:
        try:
            client.create_registered_model(name, description="rc1 policy: LoRA adapters trained with GRPO")
        except MlflowException:  # created meanwhile
            client.get_registered_model(name)


def alias_version(alias: str, name: str = MODEL_NAME) -> ModelVersion | None:
    try:
        return MlflowClient().get_model_version_by_alias(name, alias)
    except MlflowException:
        return None


def register_adapter(run_id: str, artifact_path: str = "adapter", *, tags: dict[str, Any] | None = None,
                     score: float | None = None, gate_run_id: str | None = None, name: str = MODEL_NAME,
                     alias: str = BEST) -> str:
    """Register `<run artifacts>/<artifact_path>` as a new version; returns the version number (str)."""
    ensure_model(name)
    client = MlflowClient()
    run = client.get_run(run_id)
    source = f"{run.info.artifact_uri.rstrip('/')}/{artifact_path}"
    all_tags = {str(k): str(v) for k, v in (tags or {}).items()}
    if score is not None:
        all_tags["rc1.best_reward"] = repr(float(score))
    if gate_run_id:
        all_tags["rc1.gate_run_id"] = gate_run_id
    kind = _gate_kind(client, run, gate_run_id)
    if kind:
        all_tags["rc1.gate_kind"] = kind
    if alias == BEST and kind == "trial":
        alias = TRIAL_BEST
    mv = client.create_model_version(name, source=source, run_id=run_id, tags=all_tags,
                                     description=f"best checkpoint of run {run_id}")
    current = alias_version(alias, name)
    if _takes_alias(current, score, gate_run_id):
        client.set_registered_model_alias(name, alias, mv.version)
    return str(mv.version)


def _gate_kind(client: MlflowClient, train_run, gate_run_id: str | None) -> str | None:
    """rc1.gate_kind (full | trial) of the gate run that launched the training, else of the train run's tags."""
    if gate_run_id:
        try:
            kind = client.get_run(gate_run_id).data.tags.get("rc1.gate_kind")
            if kind:
                return kind
        except MlflowException:
            pass
    return train_run.data.tags.get("rc1.gate_kind")


def _takes_alias(current: ModelVersion | None, score: float | None, gate_run_id: str | None) -> bool:
    if not gate_run_id:   # a version no gate launched never takes `best`, not even an empty one
        return False
    if current is None or (current.tags or {}).get("rc1.gate_run_id") != gate_run_id:
        return True
    try:
        current_score = float((current.tags or {}).get("rc1.best_reward", "nan"))
    except ValueError:
        return True
    if current_score != current_score:  # nan
        return True
    return score is not None and score > current_score


def resolve_version(version: str | int | None = None, alias: str | None = None, name: str = MODEL_NAME) -> ModelVersion:
    """`--version N` or `--alias A` -> the model version; Rc1Error when it does not exist."""
    if (version is None) == (alias is None):
        raise Rc1Error("give exactly one of --version N or --alias NAME")
    client = MlflowClient()
    if alias is not None:
        mv = alias_version(alias, name)
        if mv is None:
            raise Rc1Error(f"registered model {name!r} has no alias {alias!r} in {mlflow.get_tracking_uri()}")
        return mv
    try:
        return client.get_model_version(name, str(version))
    except MlflowException:
        raise Rc1Error(f"registered model {name!r} has no version {version} in {mlflow.get_tracking_uri()}") from None


def set_alias(version: str | int, alias: str, name: str = MODEL_NAME) -> None:
    MlflowClient().set_registered_model_alias(name, alias, str(version))


def set_version_tags(version: str | int, tags: dict[str, Any], name: str = MODEL_NAME) -> None:
    client = MlflowClient()
    for k, v in tags.items():
        client.set_model_version_tag(name, str(version), k, str(v))


def model_artifact(mv: ModelVersion) -> str:
    """The name of the train run's artifact the version is (its source's last path part: model, or adapter)."""
    return mv.source.rstrip("/").rsplit("/", 1)[-1]


def download_version(mv: ModelVersion, dst: str | Path, artifact_path: str | None = None) -> tuple[Path, str]:
    """Download the version's model directory (or another directory its run logged) into `dst` and check it against
    the train run's `sha256.<artifact>` tag (StageRun.log_artifact); (local dir, its sha256). Weights altered in the
    store, or a run that recorded no digest for them: Rc1Error (exit 2) before anything loads them."""
    from rc1.core.io import sha256_dir

    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    path = artifact_path or model_artifact(mv)
    client = MlflowClient()
    want = client.get_run(mv.run_id).data.tags.get(f"sha256.{path}")
    local = Path(client.download_artifacts(mv.run_id, path, str(dst)))
    # MLflow's registry writes registered_model_meta into a model's directory after the train run hashed it (no
    # weights, the version's name and number): it is not part of the digest
    (local / "registered_model_meta").unlink(missing_ok=True)
    got = sha256_dir(local) if local.is_dir() else None
    if not want or got != want:
        raise Rc1Error(f"{MODEL_NAME} version {mv.version}: artifact {path} of train run {mv.run_id} does not match "
                       f"its sha256.{path} tag (altered in the store?); refusing to load it")
    return local, got


@dataclass
class Evaluation:
    run_id: str
    passed: bool
    failing: list[dict]


def evaluation_of(version: str | int, name: str = MODEL_NAME) -> Evaluation | None:
    """The newest finished evaluate run of this version (from the tracking store), or None."""
    runs = _search(f"tags.`rc1.stage` = 'evaluate' AND tags.`rc1.registered_model` = '{name}' "
                   f"AND tags.`rc1.model_version` = '{version}' AND attributes.status = 'FINISHED'", max_results=50)
    # the verdict is the PyTorch evaluation's: a llama.cpp one (rc1.backend=llamacpp) measures a GGUF export
    runs = [r for r in runs if r.data.tags.get("rc1.backend", "transformers") == "transformers"]
    if not runs:
        return None
    run = runs[0]
    passed = run.data.tags.get("rc1.passed") == "true"
    failing: list[dict] = []
    if not passed:
        with tempfile.TemporaryDirectory() as d:
            try:
                checks = json.loads(Path(MlflowClient().download_artifacts(run.info.run_id, "checks.json", d)).read_text())
                failing = [c for c in checks.get("checks", []) if not c.get("pass")]
            except (MlflowException, OSError, ValueError):
                failing = [{"name": "checks.json", "value": "missing", "threshold": "present", "pass": False}]
    return Evaluation(run.info.run_id, passed, failing)


def version_weights(mv: ModelVersion, workdir: Path) -> tuple[str, Path, str, dict]:
    """(base model name or dir, adapter dir, tokenizer source, rc1_base info) of a registered version, downloaded
    under `workdir`. The one place that knows how a version stores its weights (evaluate and export-gguf use it)."""
    from rc1.core.io import read_json
    from rc1.tracking.policy_model import policy_parts

    model_dir, model_sha = download_version(mv, workdir / "policy")   # checked against the train run's tag
    adapter, tok_dir, rc1_dir = policy_parts(model_dir)
    info = read_json(rc1_dir / "rc1_base.json") if (rc1_dir / "rc1_base.json").is_file() else {}
    if info.get("tiny"):
        base_dir, base_sha = download_version(mv, workdir / "base_dl", artifact_path="base")
        if info.get("base_sha256") and base_sha != info["base_sha256"]:
            raise Rc1Error(f"version {mv.version}: the logged base model does not match its sha256")
        base_name = str(base_dir)
    else:
        base_name = info.get("base") or (mv.tags or {}).get("rc1.base_model")
        if not base_name:
            raise Rc1Error(f"version {mv.version}: no base model recorded (rc1_base.json / tag rc1.base_model)")
    tok_src = str(tok_dir) if tok_dir is not None else base_name
    return base_name, adapter, tok_src, {**info, "base_resolved": base_name, "model_sha256": model_sha}


def download_export(mv: ModelVersion, dst: Path) -> tuple[Path, str]:
    """(local path of the version's GGUF export (`rc1 export-gguf`), its out type), sha256-verified; Rc1Error when
    there is none."""
    from rc1.core.io import sha256_file

    tags = mv.tags or {}
    run_id, name, sha = tags.get("rc1.gguf_run_id"), tags.get("rc1.gguf_artifact"), tags.get("rc1.gguf_sha256")
    if not (run_id and name and sha):
        from rc1.tracking import shell_command

        raise Rc1Error(f"version {mv.version} has no GGUF export: run "
                       f"`{shell_command(f'rc1 export-gguf --version {mv.version}')}` first")
    dst.mkdir(parents=True, exist_ok=True)
    path = Path(MlflowClient().download_artifacts(run_id, name, str(dst)))
    if sha256_file(path) != sha:
        raise Rc1Error(f"version {mv.version}: GGUF artifact {name} of run {run_id} does not match its sha256 tag")
    return path, tags.get("rc1.gguf_outtype", "")
