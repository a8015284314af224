"""The evaluation loop as it ran before batching: one episode at a time, one unpadded prompt per generate call.
The reference that the batched loop must reproduce (tests/stages/test_evaluate_batched.py) and the "before" of
benchmarks/bench_evaluate.py."""

from __future__ import annotations

import json


def sequential_episode(model, tok, pool_item, max_turns, max_new_tokens):
    import torch
    from trl.chat_template_utils import add_response_schema, parse_response

    from rc1.train.env import Rc1Env, dispatch_tool, pool_item_prompt, to_rc1_dialogue

    if getattr(tok, "response_template", None) is None and getattr(tok, "response_schema", None) is None:
        add_response_schema(tok)
    env = Rc1Env(max_turns=max_turns)
    env.reset(seed_json=json.dumps(dict(pool_item)))
    tools = [env.wiki, env.calc, env.ask_user]
    messages = pool_item_prompt(dict(pool_item))
    completion = []
    for _ in range(max_turns):
        prompt_ids = tok.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=True,
                                             return_dict=False)
        inp = torch.tensor([prompt_ids])
        with torch.no_grad():
            out = model.generate(inp, attention_mask=torch.ones_like(inp), do_sample=False,
                                 max_new_tokens=max_new_tokens, pad_token_id=tok.pad_token_id)
        msg = parse_response(tok, out[0, len(prompt_ids):].tolist(), prefix=prompt_ids, tools=tools)
        msg = {"role": "assistant", "content": msg.get("content") or "",
               **({"reasoning_content": msg["reasoning_content"]} if msg.get("reasoning_content") else {}),
               **({"tool_calls": msg["tool_calls"]} if msg.get("tool_calls") else {})}
        messages.append(msg)
        completion.append(msg)
        if not msg.get("tool_calls"):
            break
        for call in msg["tool_calls"]:
            fn = call.get("function", call)
            result = dispatch_tool(env, str(fn.get("name")), fn.get("arguments") or {})
            tool_msg = {"role": "tool", "name": str(fn.get("name")), "content": result}
            messages.append(tool_msg)
            completion.append(tool_msg)
    return list(pool_item.get("dialogue") or []) + to_rc1_dialogue([], completion)
