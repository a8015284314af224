"""The tiny Qwen3 model and its locally trained tokenizer: what dev mode and the tests train."""

import json

import pytest

from rc1.core.io import sha256_dir
from rc1.data.tools import calc
from rc1.train.tiny import IM_END, corpus_from_pool_items, is_tiny, load_model, load_tokenizer, resolve_base, tiny_dir

CORPUS = ["Paris is the capital of France.", "Tom has 3 apples and buys 5 more. How many apples?",
          "Is the Eiffel Tower taller than 300 metres? Answer: yes"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_dir(CORPUS, seed=0, cache_dir=tmp_path_factory.mktemp("models"))


def test_tiny_is_a_qwen3_with_qwen_special_tokens(tiny):
    model, tok = load_model(str(tiny)), load_tokenizer(str(tiny))
    assert model.config.model_type == "qwen3"
    assert (model.config.hidden_size, model.config.num_hidden_layers) == (64, 2)
    assert tok.eos_token == IM_END and tok.pad_token == "<|endoftext|>" and tok.padding_side == "left"
    for special in ("<|im_start|>", "<tool_call>", "</tool_call>", "<tool_response>", "<think>", "</think>"):
        assert len(tok(special, add_special_tokens=False)["input_ids"]) == 1, special
    assert model.config.vocab_size == len(tok)
    assert tok.decode(tok("Paris is the capital")["input_ids"]) == "Paris is the capital"


def test_chat_template_renders_tools_and_trl_parses_tool_calls(tiny):
    """A Qwen3 thinking model's template: every assistant turn opens <think>; TRL's Qwen3 parser (saved with the
    tokenizer) reads the reasoning, the answer and the tool calls apart; the template is prefix-preserving (TRL trains
    multi-turn with it as it is)."""
    from trl.chat_template_utils import is_chat_template_prefix_preserving, parse_response, supports_tool_calling

    tok = load_tokenizer(str(tiny))
    assert supports_tool_calling(tok) and is_chat_template_prefix_preserving(tok)
    prompt = tok.apply_chat_template([{"role": "user", "content": "What is 2*3?"}], tools=[calc],
                                     add_generation_prompt=True, tokenize=False)
    assert '"name": "calc"' in prompt and prompt.endswith("<|im_start|>assistant\n<think>\n")
    reply = 'times\n</think>\n\n<tool_call>\n{"name": "calc", "arguments": {"expression": "2*3"}}\n</tool_call><|im_end|>'
    parsed = parse_response(tok, tok(reply)["input_ids"], prefix=tok(prompt)["input_ids"], tools=[calc])
    assert parsed["tool_calls"][0]["function"] == {"name": "calc", "arguments": {"expression": "2*3"}}
    assert parsed["reasoning_content"] == "times" and parsed["content"] == ""


def test_a_thinking_template_trl_does_not_know_is_prepared_for_training(tiny):
    """Qwen3-4B-Thinking-2507's template is Qwen3's with `<think>` opened in the generation prompt: TRL has no parser
    and no training variant for it. rc1.train.chat.prepare gives such a tokenizer the prefix-preserving thinking
    template and TRL's Qwen3 parser; a template TRL knows is left as TRL sets it."""
    from trl.chat_template_utils import is_chat_template_prefix_preserving, qwen3_chat_template

    from rc1.train.chat import prepare, thinking_template

    tok = load_tokenizer(str(tiny))
    tok.response_template = None
    tok.chat_template = qwen3_chat_template.replace("{{- '<|im_start|>assistant\\n' }}",
                                                    "{{- '<|im_start|>assistant\\n<think>\\n' }}")
    assert tok.chat_template != qwen3_chat_template and not is_chat_template_prefix_preserving(tok)
    prepare(tok)
    assert tok.chat_template == thinking_template() and tok.response_template is not None
    assert is_chat_template_prefix_preserving(tok)
    tok.response_template, tok.chat_template = None, qwen3_chat_template   # TRL's own: its parser, its template
    prepare(tok)
    assert tok.chat_template == qwen3_chat_template and tok.response_template is not None


def test_build_is_cached_and_deterministic(tiny, tmp_path):
    again = tiny_dir(CORPUS, seed=0, cache_dir=tmp_path)
    assert sha256_dir(again) == sha256_dir(tiny)
    assert tiny_dir(CORPUS, seed=0, cache_dir=tiny.parent) == tiny   # second call: the cache
    other = tiny_dir(CORPUS + ["another line"], seed=0, cache_dir=tmp_path)
    assert other != again


def test_resolve_base_passes_real_model_names_through(tmp_path):
    assert is_tiny("tiny") and is_tiny("rc1-tiny") and not is_tiny("Qwen/Qwen3-4B-Thinking-2507")
    assert resolve_base("Qwen/Qwen3-4B-Thinking-2507") == "Qwen/Qwen3-4B-Thinking-2507"
    assert resolve_base(str(tmp_path)) == str(tmp_path)


def test_corpus_from_seeds_reads_dialogue_hidden_info_and_context():
    pool_item = {"dialogue": [{"role": "user", "content": "Where?"}], "hidden_info": "In Europe.", "answer": "Paris",
            "context": [["Paris", ["Paris is big.", " It is old."]]]}
    text = "\n".join(corpus_from_pool_items([pool_item]))
    for piece in ("Where?", "In Europe.", "Answer: Paris", "Paris: Paris is big. It is old."):
        assert piece in text
    json.dumps(corpus_from_pool_items([pool_item]))
