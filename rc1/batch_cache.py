"""A key/value cache for batched greedy decoding: the rows' prefilled caches left-padded into preallocated buffers
that each decoding step writes into in place.

transformers' DynamicLayer concatenates every step's keys/values onto the cache (`torch.cat`), copying the whole
batch's cache once per step and layer; with long tool-laden prompts that copy costs as much as the step itself.
"""

from __future__ import annotations

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
