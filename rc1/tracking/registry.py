"""The model registry: training's best checkpoint becomes a version of `rc1-policy`; aliases, not stages.

- `log_policy_model(st, model_dir)`: the train run's best checkpoint (an MLflow Model, transformers flavor + PEFT
  adapter: rc1.tracking.policy_model) as an MLflow 3 LoggedModel whose source run is the train run; its digest is a
  subject of the train run's signed statement.
- `register_logged_model(run_id, model_id, tags=...)`: a new version made from that LoggedModel (source
  `models:/<model_id>`: no absolute path in the registry; a server resolves it to its own artifact store), which
  works on sqlite and through `mlflow server`; `mlflow.transformers.load_model("models:/rc1-policy@best")` loads it.
- the bytes a version serves are checked against the model its train run signed by the trust room
  (rc1.trust.models); `version_weights` hands evaluate and export-gguf those verified files.
  Alias `best` moves to a version trained inside a gate run (gate_run_id given) when no `best` exists, when `best`
  belongs to another gate run, or when its reward beats the reward of the current `best` (so `best` is the best
  of the current gate's seeds). A version no gate launched never takes `best`; a trial gate's version
  (rc1.gate_kind=trial on its gate run) takes `trial-best` by the same rule instead, never `best`.
- `promote` (rc1/stages/promote.py, rc1/trust/rules.py) sets alias `RC1` (`RC1-dev` for a dev version) only when
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


def log_policy_model(st, model_dir: str | Path, name: str = "model", *, title: str | None = None,
                     tags: dict[str, Any] | None = None) -> tuple[str, str]:
    """Log a saved MLflow Model directory as a LoggedModel of the stage's run (source run = that run); (model_id, its
    digest). The digest is of these very bytes, hashed before they are uploaded, and becomes the subject `name` of
    the run's signed statement (tag rc1.model_id, sha256.<name>). `title`: the LoggedModel's name in the Models tab
    (unset: `name`), `tags` more of its tags."""
    from rc1.core.io import sha256_dir
    from rc1.trust.statements import subject

    client = MlflowClient()
    sha = sha256_dir(model_dir)
    experiment_id = client.get_run(st.run_id).info.experiment_id
    lm = client.create_logged_model(experiment_id, name=title or name, source_run_id=st.run_id,
                                    model_type="rc1-policy",
                                    tags={**{str(k): str(v) for k, v in (tags or {}).items()}, "rc1.sha256": sha})
    client.log_model_artifacts(lm.model_id, str(model_dir))
    client.finalize_logged_model(lm.model_id, "READY")
    st.set_tags({"rc1.model_id": lm.model_id, f"sha256.{name}": sha})
    st.extra_subjects.append(subject(name, sha, directory=True, uri=f"models:/{lm.model_id}"))
    return lm.model_id, sha


def register_logged_model(run_id: str, model_id: str, *, tags: dict[str, Any] | None = None,
                          score: float | None = None, gate_run_id: str | None = None, name: str = MODEL_NAME,
                          claim: bool = True) -> str:
    """A new version made from the run's LoggedModel `model_id` (source models:/<model_id>); returns the version
    number (str). `claim`: also give it `best` (or `trial-best`) by claim_alias; a train run claims only once its
    statement is signed (the alias last, as promote does)."""
    ensure_model(name)
    client = MlflowClient()
    run = client.get_run(run_id)
    source = f"models:/{model_id}"
    all_tags = {str(k): str(v) for k, v in (tags or {}).items()}
    if score is not None:
        all_tags["rc1.best_reward"] = repr(float(score))
    if gate_run_id:
        all_tags["rc1.gate_run_id"] = gate_run_id
    kind = _gate_kind(client, run, gate_run_id)
    if kind:
        all_tags["rc1.gate_kind"] = kind
    mv = client.create_model_version(name, source=source, run_id=run_id, tags=all_tags, model_id=model_id,
                                     description=f"best checkpoint of run {run_id}")
    if claim:
        claim_alias(mv.version, name)
    return str(mv.version)


def claim_alias(version: str | int, name: str = MODEL_NAME) -> str | None:
    """Give the version `best` (`trial-best` for a trial gate's) when it takes it (see the module docstring), by the
    reward, gate and kind it was registered with; returns the alias set, else None."""
    client = MlflowClient()
    mv = client.get_model_version(name, str(version))
    tags = mv.tags or {}
    alias = TRIAL_BEST if tags.get("rc1.gate_kind") == "trial" else BEST
    score = float(tags["rc1.best_reward"]) if "rc1.best_reward" in tags else None
    if not _takes_alias(alias_version(alias, name), score, tags.get("rc1.gate_run_id")):
        return None
    client.set_registered_model_alias(name, alias, mv.version)
    return alias


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
            setter = {BEST: "rc1 gate", TRIAL_BEST: "rc1 gate --trial", "RC1": "rc1 promote --alias best",
                      "RC1-dev": "rc1 promote --alias best"}.get(alias)
            raise Rc1Error(f"registered model {name!r} has no alias {alias!r} in {mlflow.get_tracking_uri()}"
                           + (f"; next: {setter} sets it" if setter else ""))
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


def version_model_id(mv: ModelVersion) -> str | None:
    """The LoggedModel a version was made from (its source models:/<model_id>), else None."""
    from rc1.tracking.evidence import version_record
    from rc1.trust.models import model_id_of

    return model_id_of(version_record(mv))


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
    under `workdir` and verified by the trust room (rc1.trust.models). The one place that knows how a version stores
    its weights (evaluate and export-gguf use it)."""
    from rc1.tracking.evidence import store_source, version_record
    from rc1.tracking.policy_model import policy_parts
    from rc1.train.tiny import resolve_base
    from rc1.trust.models import base_info, pinned_model, signed_base, train_statement

    source, rec = store_source(), version_record(mv)
    stmt = train_statement(source, rec)
    model_dir, model_sha = pinned_model(source, rec, workdir / "policy", stmt)
    adapter, tok_dir, _ = policy_parts(model_dir)
    info = base_info(model_dir)
    base_name, _ = signed_base(source, rec, stmt, info, workdir / "base_dl", local=resolve_base)
    tok_src = str(tok_dir) if tok_dir is not None else base_name
    return base_name, adapter, tok_src, {**info, "base_resolved": base_name, "model_sha256": model_sha}


def download_export(mv: ModelVersion, dst: Path) -> tuple[Path, str]:
    """The version's GGUF export, verified (rc1.trust.models.download_export)."""
    from rc1.tracking.evidence import store_source, version_record
    from rc1.trust.models import download_export as verified_export

    return verified_export(store_source(), version_record(mv), dst)
