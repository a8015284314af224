"""A merged Qwen3 causal LM (transformers) -> one GGUF file that llama.cpp loads.

Built on the `gguf` package (llama.cpp's own gguf-py): `GGUFWriter` writes the file and
`get_tensor_name_map(MODEL_ARCH.QWEN3, n_blocks)` maps Hugging Face tensor names to GGUF's. rc1 writes only
the metadata (architecture hyperparameters, tokenizer) and the tensor loop.

Tokenizer: a byte-level BPE goes in as llama.cpp's "gpt2" vocabulary (tokens, types, merges). Its pre-tokenizer
is read from the tokenizer itself: Qwen's split regex -> "qwen2" (the production base), a plain ByteLevel with the
GPT-2 regex (the tiny dev model's locally trained tokenizer) -> "gpt-2", so llama.cpp splits text exactly as the
Hugging Face tokenizer does. Anything else is refused rather than guessed.

Out types: f32 (everything float32), f16 and q8_0 (2-D weights in that type; norms and other 1-D tensors stay
float32, as llama.cpp's own converter does; a row length q8_0 cannot block falls back to f16).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from rc1.core.errors import Rc1Error

OUTTYPES = ("f32", "f16", "q8_0")
QWEN3_ARCHS = ("Qwen3ForCausalLM",)
# the split regex of Qwen2/Qwen3 tokenizers (tokenizer.json: pre_tokenizer Split pattern)
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
               r"|\s+(?!\S)|\s+")


def pre_tokenizer_name(tokenizer_json: Mapping[str, Any]) -> str:
    """llama.cpp's pre-tokenizer name for a Hugging Face tokenizer.json (byte-level BPE only)."""
    model = tokenizer_json.get("model") or {}
    if model.get("type") != "BPE":
        raise Rc1Error(f"tokenizer: model type {model.get('type')!r}; only byte-level BPE converts to GGUF")
    pre = tokenizer_json.get("pre_tokenizer") or {}
    parts = pre.get("pretokenizers") if pre.get("type") == "Sequence" else [pre]
    kinds = [p.get("type") for p in parts or []]
    if kinds == ["ByteLevel"] and parts[0].get("use_regex", True):
        return "gpt-2"
    if kinds == ["Split", "ByteLevel"] and (parts[0].get("pattern") or {}).get("Regex") == QWEN2_SPLIT:
        return "qwen2"
    raise Rc1Error(f"tokenizer: pre-tokenizer {kinds} is neither GPT-2's byte level nor Qwen2's split; "
                   "no GGUF pre-tokenizer name for it")


def vocab_of(tokenizer, n_vocab: int) -> tuple[list[str], list[int], list[str]]:
    """(tokens, token types, merges) for GGUF's "gpt2" tokenizer, padded to the model's embedding rows."""
    import gguf

    tj = json.loads(tokenizer.backend_tokenizer.to_str())
    by_id = {i: t for t, i in tokenizer.get_vocab().items()}
    added = {int(i): t for i, t in tokenizer.added_tokens_decoder.items()}
    if max(by_id) >= n_vocab:
        raise Rc1Error(f"tokenizer has token id {max(by_id)} but the model has only {n_vocab} embedding rows")
    tokens, types = [], []
    for i in range(n_vocab):
        if i in added:
            tokens.append(added[i].content)
            types.append(gguf.TokenType.CONTROL if added[i].special else gguf.TokenType.USER_DEFINED)
        elif i in by_id:
            tokens.append(by_id[i])
            types.append(gguf.TokenType.NORMAL)
        else:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
    merges = [m if isinstance(m, str) else " ".join(m) for m in (tj.get("model") or {}).get("merges") or []]
    return tokens, [int(t) for t in types], merges


def _tensor_data(name: str, t, outtype: str):
    """(numpy array, raw ggml type or None) for one tensor in the requested out type."""
    import gguf
    import numpy as np

    data = t.detach().to("cpu").float().numpy()
    if outtype == "f32" or data.ndim < 2:
        return data.astype(np.float32), None
    if outtype == "q8_0" and data.shape[-1] % gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.Q8_0][0] == 0:
        return gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q8_0), gguf.GGMLQuantizationType.Q8_0
    return data.astype(np.float16), None


def write_gguf(model, tokenizer, out_path: str | Path, outtype: str = "f16", name: str = "rc1-policy") -> Path:
    """Write a (merged, plain) transformers Qwen3ForCausalLM and its tokenizer to `out_path` as GGUF."""
    if outtype not in OUTTYPES:
        raise Rc1Error(f"--outtype {outtype!r}: choose one of {', '.join(OUTTYPES)}")
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(f"{out_path.name}.tmp{os.getpid()}")   # never a half-written .gguf
    try:
        _write(model, tokenizer, tmp, outtype, name)
        os.replace(tmp, out_path)
    finally:
        tmp.unlink(missing_ok=True)
    return out_path


def _write(model, tokenizer, path: Path, outtype: str, name: str) -> None:
    import gguf

    cfg = model.config
    archs = list(getattr(cfg, "architectures", None) or [type(model).__name__])
    if not any(a in QWEN3_ARCHS for a in archs):
        raise Rc1Error(f"model architecture {archs}: only Qwen3 ({', '.join(QWEN3_ARCHS)}) converts to GGUF here")
    n_blocks = int(cfg.num_hidden_layers)
    head_dim = int(getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads)
    state = model.state_dict()
    n_vocab = int(state["model.embed_tokens.weight"].shape[0])
    tokens, types, merges = vocab_of(tokenizer, n_vocab)
    pre = pre_tokenizer_name(json.loads(tokenizer.backend_tokenizer.to_str()))
    rope = getattr(cfg, "rope_parameters", None) or {}
    rope_theta = float(rope.get("rope_theta") or getattr(cfg, "rope_theta", None) or 1_000_000.0)
    if rope.get("rope_type", "default") not in ("default", None):
        raise Rc1Error(f"rope type {rope.get('rope_type')!r} is not supported by rc1's GGUF export")

    arch = gguf.MODEL_ARCH.QWEN3
    w = gguf.GGUFWriter(str(path), gguf.MODEL_ARCH_NAMES[arch])
    w.add_name(name)
    w.add_context_length(int(cfg.max_position_embeddings))
    w.add_embedding_length(int(cfg.hidden_size))
    w.add_block_count(n_blocks)
    w.add_feed_forward_length(int(cfg.intermediate_size))
    w.add_head_count(int(cfg.num_attention_heads))
    w.add_head_count_kv(int(cfg.num_key_value_heads))
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_rope_freq_base(rope_theta)
    w.add_layer_norm_rms_eps(float(cfg.rms_norm_eps))
    w.add_file_type({"f32": gguf.LlamaFileType.ALL_F32, "f16": gguf.LlamaFileType.MOSTLY_F16,
                     "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}[outtype])
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)

    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    if tokenizer.eos_token_id is not None:
        w.add_eos_token_id(int(tokenizer.eos_token_id))
    if tokenizer.pad_token_id is not None:
        w.add_pad_token_id(int(tokenizer.pad_token_id))
    if tokenizer.bos_token_id is not None:
        w.add_bos_token_id(int(tokenizer.bos_token_id))
    w.add_add_bos_token(False)   # Qwen prompts carry no BOS
    if getattr(tokenizer, "chat_template", None):
        w.add_chat_template(tokenizer.chat_template)

    tmap = gguf.get_tensor_name_map(arch, n_blocks)
    tied = bool(getattr(cfg, "tie_word_embeddings", False))
    for hf_name, t in state.items():
        if hf_name == "lm_head.weight" and tied:
            continue   # llama.cpp uses token_embd when output.weight is absent
        gguf_name = tmap.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if gguf_name is None:
            raise Rc1Error(f"tensor {hf_name!r} has no GGUF name for Qwen3 (is the adapter merged?)")
        data, raw = _tensor_data(hf_name, t, outtype)
        w.add_tensor(gguf_name, data, raw_dtype=raw)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def merged_model(base_name: str, adapter_dir: str | Path | None):
    """The base model with the LoRA adapter merged into its weights (float32, eval mode)."""
    from rc1.train.tiny import load_model

    model = load_model(base_name)
    if adapter_dir is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, str(adapter_dir)).merge_and_unload()
    return model.float().eval()
