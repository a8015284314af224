"""rc1.train.rollout.merged_weights: what vLLM reloads as the policy when LoRA is merged (the default handoff): every
base weight under its checkpoint name, the targeted ones with the adapter folded in by one rounding from float32,
the trainer's model untouched; what cannot be folded into one weight is refused before any weight is given out."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from rc1.core.errors import Rc1Error
from rc1.train.rollout import merged_weights


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(16, 8)
        self.q_proj = nn.Linear(8, 8, bias=True)
        self.o_proj = nn.Linear(8, 8, bias=False)

    def forward(self, x):
        return self.o_proj(self.q_proj(self.embed_tokens(x)))


def peft(targets=("q_proj",), dtype=torch.bfloat16, **lora):
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(0)
    model = get_peft_model(Block().to(dtype), LoraConfig(r=4, lora_alpha=8, target_modules=list(targets), **lora))
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 1e-4)   # a small update, as a few steps at a small learning rate leave it
    return model


def test_the_targeted_weight_is_folded_by_one_rounding_and_the_rest_is_the_base():
    model = peft()
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    got = dict(merged_weights(model))
    assert set(got) == {"embed_tokens.weight", "q_proj.weight", "q_proj.bias", "o_proj.weight"}
    q = model.get_base_model().q_proj
    want = (q.base_layer.weight.float() + q.get_delta_weight("default").float()).to(torch.bfloat16)
    assert torch.equal(got["q_proj.weight"], want) and got["q_proj.weight"].dtype == torch.bfloat16
    assert not torch.equal(got["q_proj.weight"], q.base_layer.weight)   # the small update is not rounded away
    assert torch.equal(got["o_proj.weight"], model.get_base_model().o_proj.weight)
    assert all(torch.equal(p, before[n]) for n, p in model.named_parameters())   # the trainer's weights untouched
    # what vLLM samples is what the trainer computes: the folded layer's output is the adapter's (float32 here)
    model32 = peft(dtype=torch.float32)
    folded = dict(merged_weights(model32))
    x = torch.randn(3, 8)
    layer = model32.get_base_model().q_proj
    assert torch.allclose(nn.functional.linear(x, folded["q_proj.weight"], folded["q_proj.bias"]), layer(x),
                          atol=1e-6)


@pytest.mark.parametrize("targets,lora,why", [
    (("q_proj", "embed_tokens"), {}, "LoRA on the embeddings"),
    (("q_proj",), {"use_dora": True}, "a DoRA adapter"),
    (("q_proj",), {"modules_to_save": ["o_proj"]}, "modules_to_save"),
])
def test_what_cannot_be_folded_is_refused_before_a_weight_is_given(targets, lora, why):
    model = peft(targets, dtype=torch.float32, **lora)
    with pytest.raises(Rc1Error, match=f"{why}.*use ppo.lora_generation: adapter"):
        merged_weights(model)   # the refusal comes at the call, not half way through vLLM's reload


def test_a_merged_layer_is_refused():
    model = peft(dtype=torch.float32)
    model.get_base_model().q_proj.merge()
    with pytest.raises(Rc1Error, match="a layer already merged"):
        merged_weights(model)
