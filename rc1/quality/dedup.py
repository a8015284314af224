"""Exact and near-duplicate detection over a stream of texts, in memory that stays flat per text.

- exact duplicate: the normalized text (rc1.core.text.words joined) equals an earlier text's (blake2b digest).
- near duplicate: an earlier text whose word 3-shingle set has estimated Jaccard >= threshold.
  datasketch MinHash (affine32 scheme, 64 permutations) signatures; candidates are the pairs that share
  one LSH band, with the bands of datasketch's MinHashLSH for that threshold, tuned for recall
  (false-negative weight 0.9, 7 bands of 9 rows: 84% of pairs at exactly J = 0.85 and 97% at J = 0.9
  become candidates); a candidate counts only when the MinHash estimate itself reaches the threshold
  (so extra candidates cost time, not precision). Exact duplicates are neither candidates nor
  queried again: their first copy represents them.
The rate reported is the share of texts that duplicate an earlier one (what dedup would drop).

How it runs (the same verdicts as inserting the texts one by one into a MinHashLSH and querying it
before each insert, which is what this module did before; tests/unit/test_quality.py pins that):
1. `add` buffers a text's shingle hashes; every `batch` texts their signatures are computed in one
   numpy pass (datasketch's own permutations and pre-mix over all the batch's hashes, then a min per
   text: MinHash.update_batch per text gives the same values, a test checks it) and written to a
   temporary file; per text only a 16-byte digest, one 64-bit hash per band and its key stay in memory.
2. `finish` finds exact duplicates by sorting the digests, then, band by band, sorts the band hashes:
   texts in one bucket are candidates of each other (equal band values checked on the signatures), so
   "an earlier non-duplicate text in a shared bucket with estimate >= threshold" is decided for all
   texts at once. Nothing is quadratic in the number of texts, only in a bucket's size (as for any LSH).
3. A stream cut in pieces gives the same verdicts (`detach`, `extend`).
Memory per text: 16 (digest) + 8 x bands (band hashes) + its key in a bytes blob (about 20 bytes);
the signatures (4 x num_perm bytes per text) live in the temporary file (770 MB at 3M texts). (An in-memory
MinHashLSH with dict storage costs about 370 bytes per band per text: 7.8 GB at 3M texts.)
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zlib
from array import array
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:
    from datasketch import MinHash


def _identity(x: int) -> int:
    return x


_WORD_HASH: dict[str, int] = {}
_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5],
                 dtype=np.uint64)


def _word_ids(tokens: Sequence[str]) -> list[int]:
    """crc32 of each word, memoized (a pool's vocabulary is small next to its running text)."""
    ids = list(map(_WORD_HASH.get, tokens))
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
    return shingle_array([tokens], n).tolist()


def shingle_array(turns: Sequence[Sequence[str]], n: int = 3) -> np.ndarray:
    """The `shingle_hashes` of every turn (uint32, in no particular order; shingles never cross a turn), in
    one numpy pass."""
    ids: list[int] = []
    ends: list[int] = []
    short: list[int] = []
    for toks in turns:
        if not toks:
            continue
        if len(toks) < n:
            short.append(zlib.crc32(" ".join(toks).encode("utf-8")))
            continue
        ids += _word_ids(toks)
        ends.append(len(ids))
    out = np.array(short, dtype=np.uint32)
    if ids:
        a = np.array(ids, dtype=np.uint64)
        m = len(a) - n + 1
        h = a[:m] * _MULT[0]
        for j in range(1, n):
            h = h + a[j:j + m] * _MULT[j]
        h = ((h ^ (h >> np.uint64(32))) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        if len(ends) > 1:  # drop the shingles that start in one turn and end in the next
            valid = np.ones(m, dtype=bool)
            for e in ends[:-1]:
                valid[e - n + 1:e] = False
            h = h[valid]
        out = np.concatenate([out, h]) if len(out) else h
    return out


def signatures(hash_arrays: Sequence[np.ndarray], minhash: MinHash) -> np.ndarray:
    """MinHash signatures (len(hash_arrays) x num_perm, uint32) of several texts at once: the values
    `MinHash.update_batch(hashes)` gives each (affine32 scheme, identity hash function)."""
    from datasketch.minhash import _fmix

    a, b = minhash.permutations
    out = np.tile(minhash.hashvalues.astype(np.uint32), (len(hash_arrays), 1))
    lens = np.fromiter((len(h) for h in hash_arrays), dtype=np.int64, count=len(hash_arrays))
    rows = np.flatnonzero(lens)
    if len(rows):
        hv = _fmix(np.concatenate([hash_arrays[i] for i in rows]).astype(np.uint32), 32).reshape(-1, 1)
        phv = hv * a + b
        offsets = np.concatenate([[0], np.cumsum(lens[rows])[:-1]])
        out[rows] = np.minimum(out[rows], np.minimum.reduceat(phv, offsets, axis=0))
    return out


_BAND_MULT = np.concatenate([_MULT, np.array([0x94D049BB133111EB, 0xBF58476D1CE4E5B9, 0xFF51AFD7ED558CCD,
                                               0xC4CEB9FE1A85EC53], dtype=np.uint64)])


def _band_hashes(sigs: np.ndarray, ranges: Sequence[tuple[int, int]]) -> np.ndarray:
    """One 64-bit hash per band per signature (buckets; equal band values are re-checked on the signatures)."""
    out = np.zeros((len(sigs), len(ranges)), dtype=np.uint64)
    s = sigs.astype(np.uint64)
    for k, (lo, hi) in enumerate(ranges):
        h = np.full(len(sigs), np.uint64(k + 1), dtype=np.uint64)
        for j in range(lo, hi):
            h = (h ^ s[:, j]) * _BAND_MULT[(j - lo) % len(_BAND_MULT)]
            h ^= h >> np.uint64(29)
        out[:, k] = h
    return out


@dataclass(frozen=True)
class Added:
    """DuplicateFinder.detach(): per text its key (utf-8, end offsets), digest and band hashes."""
    n: int
    keys: bytes
    key_end: np.ndarray
    digests: bytes
    bands: np.ndarray


@dataclass
class DuplicateFinder:
    """add() every text in stream order, then finish(); exact_dups, near_dups, rates, examples and
    summary() are read after finish()."""
    threshold: float
    num_perm: int = 64
    shingle_n: int = 3
    seed: int = 1
    batch: int = 256
    n: int = 0
    exact_dups: int = 0
    near_dups: int = 0
    examples: list[dict] = field(default_factory=list)
    sig_file: IO[bytes] | None = field(default=None, repr=False, compare=False)  # default: a temporary file

    def __post_init__(self):
        # imported here, by the processes that compute signatures (datasketch imports scipy.integrate: ~0.4 s)
        from datasketch import MinHash, MinHashLSH

        self._m = MinHash(num_perm=self.num_perm, seed=self.seed, hashfunc=_identity, scheme="affine32")
        lsh = MinHashLSH(threshold=self.threshold, num_perm=self.num_perm, weights=(0.1, 0.9))
        self.bands, self.rows, self._ranges = lsh.b, lsh.r, list(lsh.hashranges)
        self._pending: list[np.ndarray] = []
        self._digests = array("B")
        self._band_chunks: list[np.ndarray] = []
        self._keys = bytearray()
        self._key_end = array("q")
        self._sig_file = self.sig_file if self.sig_file is not None else tempfile.TemporaryFile(prefix="rc1-minhash-")
        self._exact: np.ndarray | None = None
        self._near: np.ndarray | None = None

    def add(self, key: str, turns: Sequence[Sequence[str]], hashes: Iterable[int] | np.ndarray | None = None) -> None:
        """Register text `key`: its normalized word tokens, as a list of turns (shingled per turn);
        `hashes`: its shingle hashes when the caller has them already."""
        if self._exact is not None:
            raise RuntimeError("DuplicateFinder.add after finish")
        self.n += 1
        self._keys += key.encode("utf-8")
        self._key_end.append(len(self._keys))
        text = " ".join(" ".join(t) for t in turns if t)
        self._digests.frombytes(hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest())
        h = shingle_array(turns, self.shingle_n) if hashes is None else np.asarray(hashes, dtype=np.uint32)
        self._pending.append(h)
        if len(self._pending) >= self.batch:
            self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        sigs = signatures(self._pending, self._m)
        self._pending = []
        self._sig_file.write(sigs.tobytes())
        self._band_chunks.append(_band_hashes(sigs, self._ranges))

    def detach(self) -> "Added":
        """What add() kept of the texts so far, for another finder's `extend` (their signatures are in sig_file:
        a finder that scans a later piece of a stream in another process writes them to a file the first opened)."""
        self._flush()
        self._sig_file.flush()
        bands = self._bands()
        return Added(self.n, bytes(self._keys), np.frombuffer(self._key_end, dtype=np.int64).copy(),
                     bytes(self._digests), bands)

    def extend(self, added: "Added", sig_file: IO[bytes]) -> None:
        """Append the texts another finder added (`detach`), as if they were add()ed here next, in their order;
        `sig_file` holds their signatures."""
        if self._exact is not None:
            raise RuntimeError("DuplicateFinder.extend after finish")
        self._flush()
        sig_file.flush()
        sig_file.seek(0)
        before = self._sig_file.tell()
        shutil.copyfileobj(sig_file, self._sig_file, 1 << 22)
        if self._sig_file.tell() - before != added.n * self.num_perm * 4:
            raise ValueError("the signature file does not hold the added texts' signatures")
        self._key_end.frombytes((added.key_end + len(self._keys)).tobytes())
        self._keys += added.keys
        self._digests.frombytes(added.digests)
        self._band_chunks.append(added.bands)
        self.n += added.n

    def _bands(self) -> np.ndarray:
        """The band hashes of every text added so far, one row per text."""
        return np.concatenate(self._band_chunks) if self._band_chunks else np.zeros((0, self.bands), np.uint64)

    def _key(self, i: int) -> str:
        start = self._key_end[i - 1] if i else 0
        return self._keys[start:self._key_end[i]].decode("utf-8")

    def _buckets(self, kept_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The LSH buckets holding more than one kept text, band by band, each in ascending hash order:
        (members of every bucket, one after the other, each bucket in ascending stream order; bucket sizes;
        band of each bucket). Compact arrays: at millions of texts a list of per-bucket arrays cost more than
        the band hashes themselves."""
        bands = self._bands()
        self._band_chunks = []
        kept = np.flatnonzero(kept_mask)
        members, sizes, band_of = [], [], []
        for k in range(len(self._ranges)):
            h = bands[kept, k]
            o = np.lexsort((kept, h))
            hs = h[o]
            del h
            starts = np.flatnonzero(np.concatenate([[True], hs[1:] != hs[:-1]]))
            del hs
            size = np.diff(np.append(starts, len(o)))
            multi = size > 1
            members.append(kept[o[np.repeat(multi, size)]])
            sizes.append(size[multi])
            band_of.append(np.full(int(multi.sum()), k, dtype=np.int64))
            del o, starts, size, multi
        del bands
        return np.concatenate(members), np.concatenate(sizes), np.concatenate(band_of)

    def finish(self) -> "DuplicateFinder":
        """Decide every text's verdict (idempotent)."""
        if self._exact is not None:
            return self
        self._flush()
        n = self.n
        idx = np.arange(n)
        dig = np.frombuffer(self._digests, dtype=np.uint64).reshape(n, 2) if n else np.zeros((0, 2), np.uint64)
        order = np.lexsort((idx, dig[:, 1], dig[:, 0]))
        ds = dig[order]
        new = np.ones(n, dtype=bool)
        new[1:] = (ds[1:] != ds[:-1]).any(axis=1)
        first_sorted = order[np.maximum.accumulate(np.where(new, idx, 0))] if n else order
        first = np.empty(n, dtype=np.int64)
        first[order] = first_sorted
        exact = first != idx
        near = exact.copy()
        match = np.where(exact, first, -1)
        del dig, order, ds, new, first_sorted, first
        self._digests = array("B")  # decided: the memory goes back before the buckets are sorted
        if n:
            self._sig_file.flush()
            sigs = _Rows(self._sig_file, n, self.num_perm)
            members, sizes, band_of = self._buckets(~exact)
            ends = np.cumsum(sizes)
            ranges = self._ranges
            for b, (end, size) in enumerate(zip(ends.tolist(), sizes.tolist())):
                lo, hi = ranges[band_of[b]]
                bucket = members[end - size:end]
                sg = sigs[bucket]
                for jj in range(1, size):
                    j = bucket[jj]
                    if near[j]:
                        continue
                    # the latest earlier members first: in a bucket of near copies a match is found at once
                    for stop in range(jj, 0, -256):
                        part = sg[max(0, stop - 256):stop]
                        cand = (part[:, lo:hi] == sg[jj, lo:hi]).all(axis=1)
                        if cand.any() and ((part[cand] == sg[jj]).mean(axis=1) >= self.threshold).any():
                            near[j] = True
                            break
            # the examples name the best candidate (highest estimate, then the earliest) of the first 20
            shown = np.flatnonzero(near & ~exact)[:20]
            holding: list[int] = []
            if len(shown) and len(sizes):
                owner = np.repeat(np.arange(len(sizes)), sizes)
                holding = np.unique(owner[np.isin(members, shown)]).tolist()
                del owner
            for j in shown.tolist():
                best = -1.0
                sj = sigs[np.array([j])][0]
                for b in holding:
                    lo, hi = ranges[band_of[b]]
                    bucket = members[ends[b] - sizes[b]:ends[b]]
                    pos = int(np.searchsorted(bucket, j))
                    if pos >= len(bucket) or bucket[pos] != j or pos == 0:
                        continue
                    earlier = bucket[:pos]
                    se = sigs[earlier]
                    cand = (se[:, lo:hi] == sj[lo:hi]).all(axis=1)
                    if not cand.any():
                        continue
                    est = (se[cand] == sj).mean(axis=1)
                    at = int(np.argmax(est))
                    e, i = float(est[at]), int(earlier[cand][at])
                    if e > best or (e == best and i < match[j]):
                        best, match[j] = e, i
            del sigs
        self._sig_file.close()
        self._exact, self._near = exact, near
        self.exact_dups, self.near_dups = int(exact.sum()), int(near.sum())
        for j in np.flatnonzero(near)[:20].tolist():
            self.examples.append({"id": self._key(j), "duplicate_of": self._key(int(match[j])),
                                  "exact": bool(exact[j])})
        return self

    def verdicts(self) -> list[tuple[bool, bool]]:
        """(exact_dup, near_dup) of every text, in the order added (an exact duplicate is also near)."""
        self.finish()
        return list(zip(self._exact.tolist(), self._near.tolist()))

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
                "lsh_bands": self.bands, "lsh_rows": self.rows, "examples": self.examples}


class _Rows:
    """Rows of the signature file, read through short-lived memory maps: a mapping's pages count in the process's
    resident memory for as long as it is mapped, and a page fault maps up to 64 KB of cached pages around the
    row it reads (fault-around), so a few thousand scattered rows would map all 770 MB of a 3M-text file.
    Each map serves at most `budget` / 128 KB rows (sorted row lists are read in pieces of that size)."""

    def __init__(self, fh: IO[bytes], n: int, num_perm: int, budget: int = 64 << 20):
        self._args = (fh, n, num_perm)
        self._map: np.memmap | None = None
        self._left = 0
        self._per_map = max(1, budget // (128 << 10))

    def __getitem__(self, rows: np.ndarray) -> np.ndarray:
        if len(rows) > self._per_map:
            return np.concatenate([self[rows[i:i + self._per_map]] for i in range(0, len(rows), self._per_map)])
        if self._map is None or self._left < len(rows):
            fh, n, num_perm = self._args
            self._map = None
            self._map = np.memmap(fh, dtype=np.uint32, mode="r", shape=(n, num_perm))
            self._left = self._per_map
        self._left -= len(rows)
        return np.asarray(self._map[rows])
