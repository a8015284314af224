"""A registered policy version is an MLflow Model: the `transformers` flavor with the PEFT (LoRA) adapter and a
reference to its base model, plus rc1's own files beside it.

    model/MLmodel                  flavors transformers (task text-generation, inference task llm/v1/chat,
                                   peft_adaptor: peft) + python_function; chat signature and input example
    model/peft/                    the LoRA adapter (adapter_config.json, adapter_model.safetensors)
    model/components/tokenizer/    tokenizer + chat template
    model/rc1/                     rc1_base.json (base name, tiny?, base sha256), rc1_state.json, trainer_state.json,
                                   generation.json (the thinking budget and turn length the version trained with)

The python_function flavor is rc1's (rc1.tracking.served): `mlflow models serve` and `mlflow.pyfunc.load_model`
generate with the thinking budget, as `rc1 evaluate` does; `mlflow.transformers.load_model` gives the plain pipeline.

The base model's weights are not copied: a base given as a local directory (the tiny dev model under out/models,
or a downloaded checkpoint) is referenced by its absolute path (MLflow's `local_base_model_path`; pass
`base_model_path=` to `mlflow.transformers.load_model` where that path does not exist, e.g. the train run's `base`
artifact for the tiny model); a hub name is referenced as the hub repository (MLflow's default for PEFT models).

    mlflow.transformers.load_model("models:/rc1-policy@best")    # a text-generation pipeline (PeftModel inside)
    mlflow.pyfunc.load_model("models:/rc1-policy@best").predict({"messages": [...]})   # what `mlflow models serve` runs
"""

from __future__ import annotations

import shutil
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

RC1_DIR = "rc1"
SERVED_LOADER = "rc1.tracking.served"   # the python_function flavor's loader module
RUNTIME_PACKAGES = ("transformers", "torch", "peft", "accelerate")


def pip_requirements() -> list[str]:
    """The serving environment, pinned to what trained the model (MLflow's default list would add torchvision)."""
    reqs = []
    for name in RUNTIME_PACKAGES:
        try:
            reqs.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            continue
    return reqs


# The served model takes the chat format it was trained on: MLflow's chat task for text-generation pipelines
# (`llm/v1/chat`): `mlflow models serve` answers {"messages": [{"role": "user", "content": ...}], "max_tokens": N}
# with an OpenAI-style chat completion ({"choices": [{"message": {"role": "assistant", "content": ...}}]}); the
# prompt is the tokenizer's chat template, as in training. The signature is MLflow's chat schema.
CHAT_TASK = "llm/v1/chat"
CHAT_EXAMPLE = {"messages": [{"role": "system", "content": "You are a careful assistant."},
                             {"role": "user", "content": "Tom has 3 apples and buys 5 more. How many apples does he have?"}],
                "max_tokens": 64}


def save_policy_model(model, tokenizer, dst: str | Path, *, base: str, rc1_files: dict[str, Path],
                      generation: dict | None = None) -> Path:
    """Save a PeftModel + tokenizer as an MLflow Model at `dst` (transformers flavor, rc1's python_function), rc1's
    files under rc1/ with `generation` (rc1.tracking.served.generation_settings) as rc1/generation.json."""
    import mlflow.transformers
    from mlflow.models import Model

    from rc1.core.io import write_json
    from rc1.tracking.served import GENERATION_FILE

    dst = Path(dst)
    base_path = str(Path(base).resolve()) if Path(base).is_dir() else None
    mlflow.transformers.save_model({"model": model, "tokenizer": tokenizer}, str(dst), task=CHAT_TASK,
                                   base_model_path=base_path, pip_requirements=pip_requirements(),
                                   input_example=CHAT_EXAMPLE)
    (dst / RC1_DIR).mkdir(exist_ok=True)
    for name, src in rc1_files.items():
        shutil.copy2(src, dst / RC1_DIR / name)
    write_json(dst / RC1_DIR / GENERATION_FILE, generation or {})
    # serving generates as `rc1 evaluate` does (the thinking budget): rc1's loader behind the python_function flavor
    mlmodel = Model.load(str(dst / "MLmodel"))
    mlmodel.flavors["python_function"]["loader_module"] = SERVED_LOADER
    mlmodel.save(str(dst / "MLmodel"))
    return dst


def policy_parts(local: str | Path) -> tuple[Path, Path | None, Path]:
    """(adapter dir, tokenizer dir or None, rc1 files dir) of a downloaded version: an MLflow Model, or a
    version registered before the MLflow Model format (a bare adapter directory: all three are the dir)."""
    from mlflow.models import Model

    local = Path(local)
    if not (local / "MLmodel").is_file():
        return local, local if (local / "tokenizer_config.json").is_file() else None, local
    flavor = Model.load(str(local / "MLmodel")).flavors.get("transformers", {})
    adapter = local / str(flavor.get("peft_adaptor", "peft"))
    tok = local / "components" / "tokenizer"
    return adapter, tok if tok.is_dir() else None, local / RC1_DIR
