"""Exact and near-duplicate detection over a stream of texts.

- exact duplicate: the normalized text (rc1.text.words joined) was seen before (blake2b digest).
- near duplicate: an earlier text whose word 3-shingle set has estimated Jaccard >= threshold.
  datasketch MinHash (affine32 scheme, 64 permutations) + MinHashLSH find candidates; the LSH bands
  are tuned for recall (false-negative weight 0.9, 7 bands of 9 rows: 84% of pairs at exactly
  J = 0.85 and 97% at J = 0.9 become candidates), and a candidate counts only when the MinHash
  estimate itself reaches the threshold (so extra candidates cost time, not precision).
  64 rather than 128 permutations: datasketch's dict storage costs ~370 bytes per band per text,
  and 11 bands of 128 permutations would need ~1.2 GB for 300k texts.
The rate reported is the share of texts that duplicate an earlier one (what dedup would drop).
Memory per text: one 16-byte digest, `num_perm` uint32s and the LSH band keys (exact duplicates are
not indexed again: their first copy already represents them).
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
from datasketch import MinHash, MinHashLSH



def _identity(x: int) -> int:
    return x


_WORD_HASH: dict[str, int] = {}
_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5],
                 dtype=np.uint64)


def _word_ids(tokens: Sequence[str]) -> list[int]:
    """crc32 of each word, memoized (a pool's vocabulary is small next to its running text)."""
    get = _WORD_HASH.get
    ids = [get(w) for w in tokens]
    if None in ids:
        if len(_WORD_HASH) > 2_000_000:
            _WORD_HASH.clear()
        for i, w in enumerate(tokens):
            if ids[i] is None:
                ids[i] = _WORD_HASH[w] = zlib.crc32(w.encode("utf-8"))
    return ids


def shingle_hashes(tokens: Sequence[str], n: int = 3) -> list[int]:
    """32-bit hashes of the word n-shingles (n <= 4), stable across processes (crc32 of each word,
    combined with odd 64-bit multipliers, folded to 32 bits); a text shorter than n is one shingle."""
    if not tokens:
        return []
    if len(tokens) < n:
        return [zlib.crc32(" ".join(tokens).encode("utf-8"))]
    ids = np.array(_word_ids(tokens), dtype=np.uint64)
    m = len(tokens) - n + 1
    h = ids[:m] * _MULT[0]
    for j in range(1, n):
        h = h + ids[j:j + m] * _MULT[j]
    return ((h ^ (h >> np.uint64(32))) & np.uint64(0xFFFFFFFF)).tolist()


@dataclass
class DuplicateFinder:
    threshold: float
    num_perm: int = 64
    shingle_n: int = 3
    seed: int = 1
    n: int = 0
    exact_dups: int = 0
    near_dups: int = 0
    examples: list[dict] = field(default_factory=list)

    def __post_init__(self):
        # one MinHash reused for every text (copying a MinHash per text costs more than hashing it)
        self._m = MinHash(num_perm=self.num_perm, seed=self.seed, hashfunc=_identity, scheme="affine32")
        self._empty = self._m.hashvalues.copy()
        self._lsh = MinHashLSH(threshold=self.threshold, num_perm=self.num_perm, weights=(0.1, 0.9))
        self._digests: dict[bytes, int] = {}
        self._sigs = np.empty((1024, self.num_perm), dtype=np.uint32)
        self._ids: list[str] = []

    def add(self, key: str, tokens: Sequence[str], hashes: Iterable[int] | None = None) -> tuple[bool, bool]:
        """Register text `key` (its normalized word tokens; `hashes`: its shingle hashes when the
        caller has them already); returns (exact_dup, near_dup) against the texts added before it.
        An exact duplicate is also a near duplicate."""
        i = self.n
        self.n += 1
        self._ids.append(key)
        digest = hashlib.blake2b(" ".join(tokens).encode("utf-8"), digest_size=16).digest()
        first = self._digests.setdefault(digest, i)
        exact = first != i
        m = self._m
        m.hashvalues = self._empty.copy()
        hashes = list(shingle_hashes(tokens, self.shingle_n) if hashes is None else hashes)
        if hashes:
            m.update_batch(hashes)
        if i >= len(self._sigs):
            self._sigs = np.concatenate([self._sigs, np.empty_like(self._sigs)])
        self._sigs[i] = m.hashvalues
        near = exact
        match = first if exact else None
        if not exact:
            cands = self._lsh.query(m)
            if cands:
                cands = np.fromiter(cands, dtype=np.int64, count=len(cands))
                est = (self._sigs[cands] == m.hashvalues).mean(axis=1)
                best = int(np.argmax(est))
                if est[best] >= self.threshold:
                    near, match = True, int(cands[best])
        if not exact:
            self._lsh.insert(i, m, check_duplication=False)
        if exact:
            self.exact_dups += 1
        if near:
            self.near_dups += 1
            if len(self.examples) < 20:
                self.examples.append({"id": key, "duplicate_of": self._ids[match], "exact": exact})
        return exact, near

    @property
    def exact_rate(self) -> float:
        return self.exact_dups / self.n if self.n else 0.0

    @property
    def near_rate(self) -> float:
        return self.near_dups / self.n if self.n else 0.0

    def summary(self) -> dict:
        return {"texts": self.n, "exact_duplicates": self.exact_dups, "exact_dup_rate": self.exact_rate,
                "near_duplicates": self.near_dups, "near_dup_rate": self.near_rate,
                "threshold": self.threshold, "num_perm": self.num_perm, "shingle": f"word {self.shingle_n}-gram",
                "lsh_bands": self._lsh.b, "lsh_rows": self._lsh.r, "examples": self.examples}
