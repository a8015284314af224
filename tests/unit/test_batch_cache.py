"""Decoding attention over shared prefixes (rc1.inference.batch_cache.shared_prefix_attention) against torch's SDPA over each
row's whole cache (its prefix followed by its own keys/values)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F

from rc1.inference.batch_cache import SharedPrefixes, shared_prefix_attention


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_shared_prefix_attention_equals_attention_over_the_whole_cache(dtype):
    torch.manual_seed(0)
    rows, heads, kv_heads, dim, width, layers = 7, 4, 2, 16, 12, 2
    prefixes = [[(torch.randn(1, kv_heads, n, dim, dtype=dtype), torch.randn(1, kv_heads, n, dim, dtype=dtype))
                 for _ in range(layers)] for n in (20, 5)]
    per_row = [prefixes[0], None, prefixes[1], prefixes[0], None, prefixes[0], prefixes[1]]
    own = [3, 12, 1, 7, 9, 12, 4]   # each row's own keys, left-padded to `width`
    query = torch.randn(rows, heads, 1, dim, dtype=dtype)
    key = torch.randn(rows, kv_heads, width, dim, dtype=dtype)
    value = torch.randn(rows, kv_heads, width, dim, dtype=dtype)
    mask = torch.zeros(rows, 1, 1, width, dtype=torch.bool)
    for r, n in enumerate(own):
        mask[r, ..., width - n:] = True
    shared = SharedPrefixes(per_row)
    for layer in range(layers):
        got, _ = shared_prefix_attention(SimpleNamespace(layer_idx=layer), query, key, value, mask, scaling=0.3,
                                         shared_prefixes=shared)
        assert got.shape == (rows, 1, heads, dim) and got.dtype == dtype
        for r, kv in enumerate(per_row):
            k, v = key[r:r + 1, :, width - own[r]:], value[r:r + 1, :, width - own[r]:]
            if kv is not None:
                k, v = torch.cat([kv[layer][0], k], dim=2), torch.cat([kv[layer][1], v], dim=2)
            want = F.scaled_dot_product_attention(query[r:r + 1].float(), k.float(), v.float(), scale=0.3,
                                                  enable_gqa=True)
            tol = 1e-5 if dtype == torch.float32 else 2e-2
            torch.testing.assert_close(got[r:r + 1].transpose(1, 2).float(), want, rtol=tol, atol=tol)
    shared.select([6, 1, 0])   # rows leave: the groups follow
    assert [(kv is prefixes[1], idx.tolist()) for kv, idx in shared.groups] == [(True, [0]), (False, [2])]


def test_attention_settings_it_does_not_apply_are_refused():
    """Logit soft-capping (Gemma 2), attention sinks (gpt-oss) and a sliding window shorter than the keys change what
    the model's own attention computes: refused, never ignored. A window longer than every row's keys changes nothing."""
    kv_heads, dim, width = 2, 8, 6
    prefix = [(torch.randn(1, kv_heads, 10, dim), torch.randn(1, kv_heads, 10, dim))]
    args = (SimpleNamespace(layer_idx=0), torch.randn(2, 4, 1, dim), torch.randn(2, kv_heads, width, dim),
            torch.randn(2, kv_heads, width, dim), torch.ones(2, 1, 1, width, dtype=torch.bool))
    shared = SharedPrefixes([prefix, None])
    for setting in ({"softcap": 50.0}, {"s_aux": torch.zeros(4)}, {"sliding_window": 12}):
        with pytest.raises(ValueError, match=f"attention setting {next(iter(setting))}="):
            shared_prefix_attention(*args, shared_prefixes=shared, **setting)
    plain, _ = shared_prefix_attention(*args, shared_prefixes=shared, sliding_window=None)
    wide, _ = shared_prefix_attention(*args, shared_prefixes=shared, sliding_window=16)
    torch.testing.assert_close(plain, wide)
