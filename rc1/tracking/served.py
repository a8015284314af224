"""The served policy: what `mlflow models serve -m models:/rc1-policy@<alias>` and `mlflow.pyfunc.load_model` run.

A registered version's python_function flavor names this module (rc1.tracking.policy_model), so a served reply is
generated the way `rc1 evaluate` and the training rollouts generate a turn: the prompt is the tokenizer's chat template,
and the thinking budget of the ppo config the version trained with (model/rc1/generation.json) is applied by
rc1.generation.budget. Decoding is greedy, as `rc1 evaluate` decodes, unless the request asks for a temperature above 0
(then sampled, with its top_p). The weights are loaded with MLflow's transformers flavor (the PEFT adapter on its base).

A request is MLflow's chat format ({"messages": [...], "max_tokens": N, "temperature": t, "top_p": p}); the reply is
MLflow's chat completion (OpenAI's shape) with the reasoning apart: `message.content` is the answer after `</think>`,
`message.reasoning_content` the reasoning, and `rc1` says what the budget did (reasoning and answer tokens, whether
the reasoning hit its budget, whether the answer was cut).
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

GENERATION_FILE = "generation.json"   # under model/rc1/: the ppo config's `generation` and its turn length


def generation_settings(ppo) -> dict:
    """What a served turn needs from the ppo config: its `generation` section and the per-turn token limit."""
    return {"generation": ppo.generation.model_dump(), "max_new_tokens": ppo.ppo.max_new_tokens}


class ServedPolicy:
    """The pyfunc model (`predict(data, params)`) around the policy's model and tokenizer."""

    def __init__(self, model, tokenizer, settings: dict, name: str = ""):
        from rc1.core.ppo_config import GenerationCfg
        from rc1.generation.budget import for_tokenizer
        from rc1.train.chat import prepare

        self.model, self.tok, self.name = model.eval(), prepare(tokenizer), name
        self.max_new_tokens = int(settings.get("max_new_tokens") or 512)
        eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
        self.budget = for_tokenizer(self.tok, GenerationCfg.model_validate(settings.get("generation") or {}),
                                    eos if isinstance(eos, (list, tuple)) else [eos])

    def predict(self, data, params: dict[str, Any] | None = None) -> list[dict]:
        return [self._reply(messages, {**(params or {}), **extra}) for messages, extra in _requests(data)]

    def _reply(self, messages: list[dict], params: dict) -> dict:
        import torch
        from trl.chat_template_utils import parse_response

        from rc1.generation.budget import GenerateCall

        ids = self.tok.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=True,
                                           return_dict=False)
        temperature = float(params.get("temperature") or 0.0)
        sampling = {"do_sample": True, "temperature": temperature, "top_p": float(params.get("top_p") or 1.0)} \
            if temperature > 0 else {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        call = GenerateCall(self.budget)
        prompt = torch.tensor([ids], dtype=torch.long, device=self.model.device)
        with torch.inference_mode():
            out = self.model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt),
                                      max_new_tokens=int(params.get("max_tokens") or self.max_new_tokens),
                                      pad_token_id=self.tok.pad_token_id, eos_token_id=sorted(self.budget.eos_ids),
                                      **sampling, **call.kwargs())
        new = call.trim([out[0, len(ids):].tolist()])[0]
        end = next((i for i, t in enumerate(new) if t in self.budget.eos_ids), None)
        new = new if end is None else new[:end + 1]
        msg = parse_response(self.tok, new, prefix=ids)
        (turn,) = call.stats() or [self.budget.turn(ids).stats()]
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
            "model": self.name,
            "choices": [{"index": 0, "finish_reason": "length" if turn.cut else "stop",
                         "message": {"role": "assistant", "content": msg.get("content") or "",
                                     "reasoning_content": msg.get("reasoning_content") or "",
                                     **({"tool_calls": msg["tool_calls"]} if msg.get("tool_calls") else {})}}],
            "usage": {"prompt_tokens": len(ids), "completion_tokens": len(new), "total_tokens": len(ids) + len(new)},
            "rc1": {**turn.to_json(), "thinking_budget": self.budget.thinking, "answer_budget": self.budget.answer},
        }


def _requests(data) -> list[tuple[list[dict], dict]]:
    """(messages, the request's other fields) per request, from a chat payload as MLflow hands it over (a dict, or a
    DataFrame with one row per request after the signature's enforcement)."""
    if hasattr(data, "to_dict"):
        rows = data.to_dict(orient="records")
    elif isinstance(data, dict):
        rows = [data]
    else:
        rows = list(data)
    out = []
    for row in rows:
        row = dict(row)
        messages = row.pop("messages", None)
        messages = messages.tolist() if hasattr(messages, "tolist") else messages
        fields = {k: v for k, v in row.items() if v is not None and not (isinstance(v, float) and v != v)}   # NaN: absent
        out.append(([dict(m) for m in messages or []], fields))
    return out


def _load_pyfunc(path: str, model_config: dict | None = None) -> ServedPolicy:
    """MLflow's pyfunc loader contract: the model directory (its transformers flavor) -> a ServedPolicy."""
    import mlflow.transformers

    components = mlflow.transformers.load_model(str(path), return_type="components")
    settings_file = Path(path) / "rc1" / GENERATION_FILE
    settings = json.loads(settings_file.read_text()) if settings_file.is_file() else {}
    return ServedPolicy(components["model"], components["tokenizer"], settings, name=Path(path).name)
