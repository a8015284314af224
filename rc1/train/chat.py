"""The chat template of a thinking model, as rc1 trains, evaluates and serves it.

Qwen3-4B-Thinking-2507 supports only thinking mode: its chat template opens `<think>` in the generation prompt, so
every assistant turn starts inside its reasoning. TRL 1.16 recognises the Qwen3 templates it ships, not that one: it
sets no response parser for it (tool calls could not be read) and, since the template is not prefix-preserving,
finds no training variant of it. `THINKING_TEMPLATE` is TRL's Qwen3 training template (prefix-preserving: every
assistant turn keeps its `<think>` block) with the generation prompt of the thinking models; its responses parse with
TRL's Qwen3 response template (reasoning, content and tool calls apart).

`prepare(tok)` gives a tokenizer a response parser: TRL's for the templates it knows; THINKING_TEMPLATE and its parser
for a Qwen-style template that opens `<think>` itself and that TRL does not know; TRL's Qwen3 parser for any other
ChatML template (SmolLM2-Instruct's: a turn ends at `<|im_end|>`, and a Hermes `<tool_call>` block, Qwen's form, is the
tool call it could write), without which TRL refuses to train it with tools. The tiny dev model is built with
THINKING_TEMPLATE (rc1.train.tiny), so the tests run the thinking budget on a real `<think>` ... `</think>` turn.
"""

from __future__ import annotations

import logging

log = logging.getLogger("rc1.train")

_GENERATION_PROMPT = """{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
    {%- if enable_thinking is defined and enable_thinking is false %}
        {{- '<think>\\n\\n</think>\\n\\n' }}
    {%- endif %}
{%- endif %}"""
_THINKING_PROMPT = """{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n<think>\\n' }}
{%- endif %}"""


def thinking_template() -> str:
    """TRL's Qwen3 training template with the thinking models' generation prompt (`<think>` opened)."""
    from trl.chat_template_utils import qwen3_training_chat_template

    if _GENERATION_PROMPT not in qwen3_training_chat_template:   # a TRL whose template changed: say so, never guess
        raise RuntimeError("trl's qwen3 training chat template changed: rc1.train.chat needs updating")
    return qwen3_training_chat_template.replace(_GENERATION_PROMPT, _THINKING_PROMPT)


def opens_thinking(tok) -> bool:
    """Whether the tokenizer's chat template starts every assistant turn inside `<think>`."""
    try:
        prompt = tok.apply_chat_template([{"role": "user", "content": "x"}], add_generation_prompt=True, tokenize=False)
    except Exception:  # noqa: BLE001 - no usable chat template: nothing opened
        return False
    return prompt.rstrip().endswith("<think>")


def prepare(tok):
    """`tok` with a response parser (see the module docstring); unchanged when it has one."""
    from trl.chat_template_utils import add_response_schema, qwen3_template

    if getattr(tok, "response_template", None) is not None or getattr(tok, "response_schema", None) is not None:
        return tok
    try:
        return add_response_schema(tok)
    except ValueError:
        pass
    template = tok.chat_template if isinstance(tok.chat_template, str) else ""
    if "<|im_start|>" in template and "<tool_call>" in template and opens_thinking(tok):
        log.info("chat template: a Qwen3 thinking template TRL does not know; training and serving with rc1's "
                 "prefix-preserving thinking template (rc1.train.chat)")
        tok.chat_template = thinking_template()
        tok.response_template = qwen3_template
    elif "<|im_start|>" in template and "<|im_end|>" in template and not opens_thinking(tok):
        log.info("chat template: a ChatML template TRL does not know; its replies are parsed with TRL's Qwen3 "
                 "response parser (content; <tool_call> blocks)")
        tok.response_template = qwen3_template
    return tok
