"""The policy's base model and tokenizer: a tiny Qwen3-architecture model built locally, or any local/hub model.

The Hugging Face hub is unreachable offline and in tests, so dev mode trains a tiny Qwen3ForCausalLM built from a
config, with a byte-level BPE tokenizer trained here (with the `tokenizers` library) on text the project makes (the
pool's dialogues and contexts). The tokenizer carries Qwen's special tokens (`<think>` and `</think>` among them) and
the chat template of a Qwen3 thinking model (rc1.train.chat.THINKING_TEMPLATE: TRL's Qwen3 training template whose
generation prompt opens `<think>`, as Qwen3-4B-Thinking-2507's does), with TRL's Qwen3 response parser: `<tool_call>`
blocks and the reasoning parse as with the real base model, and every turn starts inside its reasoning, so the thinking
budget (rc1.generation.budget) acts on the tiny model exactly as on the real one.

`resolve_base(name)` is the one code path: "tiny" (or "rc1-tiny") builds/caches the tiny model, a `.gguf` file is
converted once into a plain model directory (rc1.train.gguf_base), anything else is a local directory or a hub name
loaded with from_pretrained (on a GPU machine: the real base model). `load_model` and `load_tokenizer` take the same
names but "tiny".
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from rc1.core.errors import Rc1Error
from rc1.core.io import atomic_open, sha256_text

TINY_NAMES = ("tiny", "rc1-tiny")
DEFAULT_CACHE = Path("out") / "models"

PAD = "<|endoftext|>"
IM_START, IM_END = "<|im_start|>", "<|im_end|>"
SPECIAL_TOKENS = [PAD, IM_START, IM_END, "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>",
                  "<think>", "</think>"]

TINY_SHAPE = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "intermediate_size": 128,
    "max_position_embeddings": 4096,
    "vocab_size": 2048,
}

# Always part of the corpus: the words of the chat template, the tool protocol and the answer format, so even a
# corpus of a few pool items yields merges for what every prompt contains.
_BUILTIN_TEXT = """\
# Tools
You may call one or more functions to assist with the user query.
You are provided with function signatures within <tools></tools> XML tags:
For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
{"name": "wiki", "arguments": {"query": "Paris"}}
{"name": "calc", "arguments": {"expression": "(48 / 2) + 48"}}
{"name": "ask_user", "arguments": {"question": "Which year do you mean?"}}
{"type": "function", "function": {"name": "wiki", "description": "Search the encyclopedia paragraphs", "parameters":
{"type": "object", "properties": {"query": {"type": "string", "description": "A few keywords"}}, "required": ["query"]}}}
Answer: yes
Answer: no
Answer: 72
#### 42
Could you tell me which one you mean? What is the value of the missing number?
The answer is 0 1 2 3 4 5 6 7 8 9 10 12 15 20 24 25 30 48 50 60 72 100 1000.
"""


def is_tiny(name: str) -> bool:
    return str(name).strip().lower() in TINY_NAMES


def corpus_from_pool_items(pool_items: Iterable[dict], limit: int = 2000) -> list[str]:
    """Text to train the tiny tokenizer on: dialogue turns, hidden info, answers and context paragraphs."""
    texts: list[str] = []
    for i, pool_item in enumerate(pool_items):
        if i >= limit:
            break
        texts.extend(t.get("content") or "" for t in pool_item.get("dialogue", []))
        if pool_item.get("hidden_info"):
            texts.append(str(pool_item["hidden_info"]))
        texts.append(f"Answer: {pool_item.get('answer', '')}")
        context = pool_item.get("context")
        for entry in context if isinstance(context, (list, tuple)) else []:
            if isinstance(entry, (list, tuple)) and len(entry) == 2:
                sents = entry[1]
                texts.append(f"{entry[0]}: " + ("".join(sents) if isinstance(sents, (list, tuple)) else str(sents)))
    return [t for t in texts if t]


def train_tokenizer(corpus: list[str], vocab_size: int = TINY_SHAPE["vocab_size"]):
    """A byte-level BPE (as Qwen's) trained on `corpus`, wrapped as a fast tokenizer with Qwen's special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen3_template

    from rc1.train.chat import thinking_template

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([_BUILTIN_TEXT, *corpus], trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=None, eos_token=IM_END, pad_token=PAD,
                                   unk_token=None, additional_special_tokens=SPECIAL_TOKENS[3:])
    fast.chat_template = thinking_template()   # a Qwen3 thinking model's: every assistant turn opens <think>
    fast.response_template = qwen3_template     # TRL's Qwen3 parser: reasoning, content and tool calls apart
    fast.padding_side = "left"   # GRPOTrainer generates with left padding
    fast.model_max_length = TINY_SHAPE["max_position_embeddings"]
    return fast


def build_tiny(out_dir: str | Path, corpus: list[str], seed: int = 0, shape: dict | None = None) -> Path:
    """Train the tokenizer, build a randomly initialised tiny Qwen3ForCausalLM, save both to `out_dir`."""
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    shape = {**TINY_SHAPE, **(shape or {})}
    out_dir = Path(out_dir)
    tokenizer = train_tokenizer(corpus, vocab_size=shape["vocab_size"])
    config = Qwen3Config(
        **{k: v for k, v in shape.items() if k != "vocab_size"},
        vocab_size=len(tokenizer),
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    tmp = out_dir.with_name(out_dir.name + f".tmp{os.getpid()}")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    with atomic_open(tmp / "rc1_tiny.json") as fh:
        json.dump({"seed": seed, "shape": shape, "corpus_lines": len(corpus)}, fh)
    import shutil

    try:
        os.replace(tmp, out_dir)
    except OSError:   # built meanwhile by a sibling process (the rename finds it there): theirs is identical
        if not (out_dir / "config.json").is_file():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def model_cache(cache_dir: str | Path | None = None) -> Path:
    """Where built and converted base models are kept: `cache_dir`, else $RC1_MODEL_CACHE, else out/models."""
    return Path(cache_dir or os.environ.get("RC1_MODEL_CACHE") or DEFAULT_CACHE)


def tiny_dir(corpus: list[str], seed: int = 0, cache_dir: str | Path | None = None, shape: dict | None = None) -> Path:
    """The cached tiny model for this corpus and seed, building it on first use."""
    digest = sha256_text(json.dumps({"corpus": corpus, "seed": seed, "shape": {**TINY_SHAPE, **(shape or {})},
                                     "v": 2}, sort_keys=True))[:16]
    out = model_cache(cache_dir) / f"tiny-{digest}"
    if not (out / "config.json").is_file():
        build_tiny(out, corpus, seed=seed, shape=shape)
    return out


def resolve_base(name: str, corpus: list[str] | None = None, seed: int = 0, cache_dir: str | Path | None = None) -> str:
    """'tiny' -> the cached tiny model's directory; a GGUF file -> its converted model directory; a local directory or
    a hub name is returned unchanged."""
    if is_tiny(name):
        return str(tiny_dir(corpus or [], seed=seed, cache_dir=cache_dir))
    return _local(name, cache_dir)


def _local(name: str, cache_dir: str | Path | None = None) -> str:
    from rc1.train.gguf_base import gguf_dir, is_gguf

    return str(gguf_dir(name, model_cache(cache_dir))) if is_gguf(name) else str(name)


def load_tokenizer(name_or_path: str):
    from transformers import AutoTokenizer

    name_or_path = _local(name_or_path)
    try:
        tok = AutoTokenizer.from_pretrained(name_or_path)
    except OSError as e:
        raise Rc1Error(f"model {name_or_path!r}: cannot load its tokenizer ({str(e).splitlines()[0]})") from None
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    from rc1.train.chat import prepare

    return prepare(tok)


def load_model(name_or_path: str, quantization_config=None, dtype=None):
    import torch
    from transformers import AutoModelForCausalLM

    name_or_path = _local(name_or_path)
    kwargs = {"dtype": dtype or torch.float32}
    if quantization_config is not None:
        kwargs["quantization_config"] = quantization_config
        kwargs["device_map"] = "auto"
    try:
        return AutoModelForCausalLM.from_pretrained(name_or_path, **kwargs)
    except OSError as e:
        raise Rc1Error(f"model {name_or_path!r}: cannot load it ({str(e).splitlines()[0]})") from None


def thinks(base: str) -> bool:
    """Whether a base model reasons in `<think>` blocks: the tiny dev model (its template opens them); a local model
    whose chat template opens `<think>`; a hub name of a Qwen3 thinking or hybrid model (Qwen3-*-Thinking-*, Qwen3-*
    but the Instruct-2507 ones, which never think)."""
    import re
    from pathlib import Path

    if is_tiny(base):
        return True
    name = str(base).lower()
    if (Path(base) / "tokenizer_config.json").is_file():
        from rc1.train.chat import opens_thinking

        try:
            if opens_thinking(load_tokenizer(str(base))):
                return True
        except Rc1Error:
            pass
    return "thinking" in name or bool(re.search(r"qwen3(?!.*instruct)", name))


def require_budget(ppo, config_path: str, mode: str) -> None:
    """Prod trains a base that thinks only with a thinking budget (Rc1Error, one line): without one its episodes would
    stop inside `<think>`: no final answer, nothing for the judge to score, and a group of zero rewards has no
    advantage. Dev may leave it unset (the turns are counted all the same)."""
    if mode != "prod" or ppo.generation.budgeted or not thinks(ppo.model.base):
        return
    raise Rc1Error(f"{config_path}: {ppo.model.base} reasons in <think> blocks and generation.thinking_budget is unset: "
                   f"with ppo.max_new_tokens {ppo.ppo.max_new_tokens} its episodes would end inside <think>, without an "
                   f"answer; set generation.thinking_budget and answer_budget (docs/training.md)")
