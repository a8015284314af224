"""A GGUF file as the policy's base model (`model.base: path/to/model.gguf`).

transformers reads a GGUF (`from_pretrained(dir, gguf_file=...)`, dequantized to float32), but that model cannot be
saved (save_pretrained refuses a GGUF-quantized model), LoRA-trained and handed to vLLM as it is, and reading it costs
a dequantization every time. So the file is converted once into a plain model directory: the dequantized state dict
copied into a model built from its config (without the GGUF quantization entry), saved with its tokenizer and chat
template, in the model cache under the file's sha256 (a changed file is a new directory). That directory is the base
from then on: rc1 train, vLLM, rc1 evaluate and export load it like any local model directory.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_file

MARK = "rc1_gguf.json"   # beside the converted model: the sha256 of the file it came from (not its path: the
#                          directory, which a version's signature covers, is the same wherever the file lies)


def is_gguf(name: str) -> bool:
    return str(name).lower().endswith(".gguf")


def gguf_dir(path: str | Path, cache_dir: str | Path) -> Path:
    """The plain model directory of the GGUF file `path` (converted on first use, under `cache_dir`)."""
    import json

    path = Path(path)
    if not path.is_file():
        raise Rc1Error(f"model.base {path}: no such GGUF file")
    digest = sha256_file(path)
    # gguf2-: the directory layout a version's signature covers (its MARK names no path; gguf- ones named it)
    out = Path(cache_dir) / f"gguf2-{digest[:16]}"
    if (out / MARK).is_file():
        return out
    part = out.with_name(out.name + f".tmp{os.getpid()}")
    shutil.rmtree(part, ignore_errors=True)
    try:
        try:
            _convert(path, part)
        except (KeyError, ValueError, RuntimeError) as e:   # the file reads as GGUF but not as a model rc1 can save
            raise Rc1Error(f"model.base {path}: cannot convert this GGUF into a model directory ({e})") from None
        (part / MARK).write_text(json.dumps({"sha256": digest}, indent=1))
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(part, out)
        except OSError:   # converted meanwhile by a sibling process (the rename finds it there): the same bytes
            if not (out / MARK).is_file():
                raise
    finally:
        shutil.rmtree(part, ignore_errors=True)
    return out


def _convert(path: Path, out: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        loaded = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise Rc1Error(f"model.base {path}: transformers cannot read this GGUF ({first})") from None
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config   # the dequantized weights are plain tensors
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(loaded.state_dict())
    plain.generation_config = loaded.generation_config
    plain.save_pretrained(out)
    tok.save_pretrained(out)
