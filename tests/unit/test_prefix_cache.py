"""Which prompts share a prefix (by token ids) and the bounded store of prefix keys/values (rc1.inference.prefix_cache)."""

from __future__ import annotations

from rc1.inference.prefix_cache import PrefixStore, common_length, shared_prefixes

HEAD = list(range(100, 180))   # 80 ids every prompt of the first kind begins with


def test_prompts_sharing_enough_leading_ids_are_grouped_by_their_common_prefix():
    prompts = [HEAD + [1, 2, 3], [7] * 90, HEAD + [1, 2, 4, 5], HEAD + [9], list(range(5, 95)), HEAD[:70] + [8, 8]]
    groups = shared_prefixes(prompts, minimum=64)
    # the three HEAD prompts and the one sharing its first 70 ids form one run; its prefix is common to all four
    assert groups == [(70, [5, 0, 2, 3])]
    for length, members in groups:
        assert all(prompts[m][:length] == prompts[members[0]][:length] and len(prompts[m]) > length for m in members)
    assert shared_prefixes(prompts, minimum=71) == [(80, [0, 2, 3])]
    assert shared_prefixes(prompts, minimum=81) == [(82, [0, 2])]
    assert shared_prefixes(prompts, minimum=83) == []
    assert shared_prefixes([HEAD, HEAD + [1]], minimum=64) == [(79, [0, 1])]   # each keeps at least one id of its own
    assert shared_prefixes([], minimum=1) == [] and shared_prefixes([HEAD], minimum=1) == []
    assert common_length(HEAD, HEAD[:10] + [0]) == 10 and common_length(HEAD, HEAD[:5]) == 5


def test_store_keeps_the_most_recently_used_and_matches_the_longest_prefix_on_ids():
    store = PrefixStore(capacity=2)
    store.put(HEAD[:10], "a10")
    store.put(HEAD[:40], "a40")
    assert store.match(HEAD) == (tuple(HEAD[:40]), "a40")            # the longest stored prefix of the ids
    assert store.match(HEAD[:40]) == (tuple(HEAD[:10]), "a10")       # a prompt must extend a prefix by one id at least
    assert store.match([100, 101, 0] + HEAD) is None                 # ids, not a look-alike: diverges at the third
    store.put([1, 2, 3], "other")                                    # over capacity: the least recently used goes
    assert len(store) == 2 and store.match(HEAD) == (tuple(HEAD[:10]), "a10")
    assert PrefixStore(capacity=0).match(HEAD) is None
    empty = PrefixStore(capacity=0)
    empty.put(HEAD[:10], "x")
    assert len(empty) == 0
