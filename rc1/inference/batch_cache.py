"""A key/value cache for batched greedy decoding: the rows' prefilled caches left-padded into preallocated buffers
that each decoding step writes into in place.

transformers' DynamicLayer concatenates every step's keys/values onto the cache (`torch.cat`), copying the whole
batch's cache once per step and layer; with long tool-laden prompts that copy costs as much as the step itself.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Sequence

import torch
from transformers.cache_utils import Cache, DynamicCache, DynamicLayer


class InPlaceLayer(DynamicLayer):
    """A DynamicLayer over buffers with room to grow: update() writes the new keys/values in place and returns
    views up to the filled length (what DynamicLayer would return, without the copy)."""

    def __init__(self, keys: torch.Tensor, values: torch.Tensor, length: int):
        super().__init__()
        self.buf_keys, self.buf_values, self.length = keys, values, length
        self.dtype, self.device, self.is_initialized = keys.dtype, keys.device, True
        self._views()

    def _views(self) -> None:
        self.keys = self.buf_keys[:, :, :self.length]
        self.values = self.buf_values[:, :, :self.length]

    def update(self, key_states, value_states, *args, **kwargs):
        n = key_states.shape[-2]
        if self.length + n > self.buf_keys.shape[2]:
            raise ValueError(f"cache full: {self.length} + {n} tokens > {self.buf_keys.shape[2]}")
        self.buf_keys[:, :, self.length:self.length + n] = key_states
        self.buf_values[:, :, self.length:self.length + n] = value_states
        self.length += n
        self._views()
        return self.keys, self.values

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        self.buf_keys, self.buf_values = self.buf_keys[indices], self.buf_values[indices]
        self._views()


def batch_cache(rows: Sequence[Sequence[tuple[torch.Tensor, torch.Tensor]]], lengths: Sequence[int],
                extra: int) -> Cache:
    """One cache for a batch: `rows[r][layer]` = (keys, values) of row r's prefill, shape (1, heads, lengths[r],
    head_dim); each row is left-padded (zeros, which the attention mask hides) to the longest, and every layer has
    room for `extra` more tokens. Its layers' `length` is the padded width."""
    width = max(lengths)
    layers = []
    for layer in range(len(rows[0])):
        k0, v0 = rows[0][layer]
        keys = k0.new_zeros((len(rows), k0.shape[1], width + extra, k0.shape[3]))
        values = v0.new_zeros((len(rows), v0.shape[1], width + extra, v0.shape[3]))
        for r, (row, n) in enumerate(zip(rows, lengths)):
            keys[r, :, width - n:width] = row[layer][0][0]
            values[r, :, width - n:width] = row[layer][1][0]
        layers.append(InPlaceLayer(keys, values, width))
    return Cache(layers=layers)


class CacheFilled(Exception):
    """Raised by PrefillCache once the last layer's keys/values are in: the prompt's forward can stop there."""


class PrefillCache(DynamicCache):
    """A DynamicCache for a prefill whose output nobody reads: once the model's last layer has stored its keys/values
    (attention layers store them before attending), update() raises CacheFilled, so that layer's attention and MLP
    over the prompt, the final norm and the LM head are skipped. The cache holds exactly what the full forward would
    have left in it; the next token's forward runs every layer as usual."""

    def __init__(self, last_layer: int, prefix: Sequence[tuple[torch.Tensor, torch.Tensor]] | None = None):
        """`prefix`: per layer (keys, values) already computed for the ids before the forward's (a shared prompt prefix,
        one row per batch row): the forward continues from them at their length."""
        super().__init__(ddp_cache_data=prefix)
        self.last_layer = last_layer

    def update(self, key_states, value_states, layer_idx: int, *args, **kwargs):
        out = super().update(key_states, value_states, layer_idx, *args, **kwargs)
        if layer_idx == self.last_layer:
            raise CacheFilled
        return out


ATTENTION = "rc1_shared_prefix"   # the attention implementation decoding steps run under (decode_attention)


class SharedPrefixes:
    """Which decoding rows continue which shared prompt prefix: per row, the prefix's per-layer (keys, values), shape
    (1, kv_heads, len, head_dim), kept once for all its rows, or None. The rows' own cache then holds only what follows
    the prefix, and each step attends to the prefix and to the row's own keys/values together (shared_prefix_attention:
    one softmax over both), so a prefix is read once per step, not once per row."""

    def __init__(self, per_row: Sequence[Sequence[tuple[torch.Tensor, torch.Tensor]] | None]):
        self.per_row = list(per_row)
        self._group()

    def _group(self) -> None:
        groups: dict[int, tuple] = {}
        for r, kv in enumerate(self.per_row):
            if kv is not None:
                groups.setdefault(id(kv), (kv, []))[1].append(r)
        self.groups = [(kv, torch.tensor(rows, dtype=torch.long, device=kv[0][0].device))
                       for kv, rows in groups.values()]

    def select(self, rows: Sequence[int]) -> None:
        """Keep these rows, in this order (the cache's batch_select_indices)."""
        self.per_row = [self.per_row[r] for r in rows]
        self._group()


# attention settings of other architectures that shared_prefix_attention does not apply: refused, not ignored (a
# sliding window only once the keys are longer than it)
UNSUPPORTED = ("softcap", "s_aux")


def shared_prefix_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0,
                            shared_prefixes: SharedPrefixes | None = None, **kwargs):
    """One decoding step's attention (a transformers attention function): `query` (rows, heads, 1, head_dim),
    `key`/`value` the rows' own cache (rows, kv_heads, width, head_dim), `attention_mask` (rows, 1, 1, width) bool.
    Scores against each row's shared prefix (one matrix product per prefix for all its rows) join the row's own scores
    in one softmax. Returns (rows, 1, heads, head_dim), as transformers' attention functions do."""
    rows, heads, steps, dim = query.shape
    if steps != 1:
        raise ValueError("shared_prefix_attention runs decoding steps (one query token per row)")
    groups = shared_prefixes.groups if shared_prefixes is not None else []
    keys = key.shape[-2] + max((kv[module.layer_idx][0].shape[-2] for kv, _ in groups), default=0)
    window = kwargs.get("sliding_window")
    used = [k for k in UNSUPPORTED if kwargs.get(k) is not None] + (["sliding_window"] if window and keys > window else [])
    if used:   # its results would differ from the model's own attention
        raise ValueError(f"batched decoding does not implement this model's attention setting {used[0]}="
                         f"{kwargs[used[0]]!r}")
    kv_heads = key.shape[1]
    group = heads // kv_heads   # query heads per key/value head (as transformers' repeat_kv pairs them)
    scale = dim ** -0.5 if scaling is None else scaling
    q = query.reshape(rows, kv_heads, group, dim)
    # scores and softmax in float32 (as transformers' eager attention takes the softmax), products in the cache's dtype
    scores = torch.matmul(q, key.transpose(-1, -2)).float().mul_(scale).masked_fill_(~attention_mask, float("-inf"))
    top = scores.amax(dim=-1, keepdim=True)
    prefix_scores = []
    for kv, idx in groups:
        k = kv[module.layer_idx][0][0]   # (kv_heads, len, head_dim)
        qg = q[idx].transpose(0, 1).reshape(kv_heads, len(idx) * group, dim)
        s = torch.matmul(qg, k.transpose(-1, -2)).float().mul_(scale)
        s = s.view(kv_heads, len(idx), group, -1).transpose(0, 1)   # (rows of the group, kv_heads, group, len)
        top[idx] = torch.maximum(top[idx], s.amax(dim=-1, keepdim=True))
        prefix_scores.append(s)
    weights = scores.sub_(top).exp_()
    total = weights.sum(dim=-1, keepdim=True)
    prefix_weights = []
    for s, (kv, idx) in zip(prefix_scores, groups):
        w = s.sub_(top[idx]).exp_()
        total[idx] += w.sum(dim=-1, keepdim=True)
        prefix_weights.append(w)
    out = torch.matmul(weights.div_(total).to(value.dtype), value)   # (rows, kv_heads, group, head_dim)
    for w, (kv, idx) in zip(prefix_weights, groups):
        v = kv[module.layer_idx][1][0]
        wg = w.div_(total[idx]).transpose(0, 1).reshape(kv_heads, len(idx) * group, -1)
        out[idx] += torch.matmul(wg.to(v.dtype), v).view(kv_heads, len(idx), group, dim).transpose(0, 1)
    return out.reshape(rows, heads, 1, dim).transpose(1, 2).contiguous(), None


@contextmanager
def decode_attention(model):
    """The model's attention runs shared_prefix_attention inside the block (its previous implementation is restored
    after). The attention mask must be given 4D (rows, 1, 1, keys): transformers passes such a mask on as it is."""
    from transformers import AttentionInterface

    AttentionInterface.register(ATTENTION, shared_prefix_attention)
    config = model.config.get_text_config()
    before = config._attn_implementation
    config._attn_implementation = ATTENTION
    try:
        yield
    finally:
        config._attn_implementation = before
