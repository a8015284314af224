"""validate_pool's core: one streaming pass over the pool, then the checks.

Memory stays flat in the pool size except for what dedup needs per seed (a digest, a MinHash
signature, LSH keys) and one small int per seed for its token length; text is kept only for the
seeded samples.
"""

from __future__ import annotations

import random
import sys
from array import array
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import IO, Callable, Iterable, Sequence

import numpy as np
from tqdm import tqdm

from rc1.core.config import ValidatePoolThresholds
from rc1.core.console import no_bar
from rc1.quality.dedup import Added, DuplicateFinder
from rc1.quality.diversity import Reservoir, distinct_n, kl_divergence, lexical_summary, ngram_counts, zipf_slope
from rc1.core.leak import ShadowIndex
from rc1.quality.mix import mix_deviation
from rc1.core.records import user_text
from rc1.quality.views import DEFINITIONS, KL_SAMPLE_SIZE, SAMPLE_SEED, SAMPLE_SIZE
from rc1.core.records import PoolItem
from rc1.core.summary import check
from rc1.core.text import TURN_OVERHEAD, count_tokens, guard_words, strip_format_chars, words


@dataclass
class ValidationResult:
    checks: list[dict]
    diversity: dict
    leaks: list[dict] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c["pass"] for c in self.checks)

    def metrics(self) -> dict[str, float]:
        """Every numeric check value, keyed by check name (what the stage logs to MLflow)."""
        return {c["name"]: float(c["value"]) for c in self.checks
                if isinstance(c["value"], (int, float)) and not isinstance(c["value"], bool)}


@dataclass
class _Scan:
    """What one pass over a pool accumulates."""
    n: int = 0
    tasks: Counter = field(default_factory=Counter)
    roles: Counter = field(default_factory=Counter)
    styles: Counter = field(default_factory=Counter)
    templates: Counter = field(default_factory=Counter)
    clarify: int = 0
    format_chars: int = 0      # format characters (Cf) in the system/user turns: the guards fold them; counted
    lengths: array = field(default_factory=lambda: array("q"))
    sample: Reservoir | None = None        # user-turn words of a seeded sample of seeds
    dedup: dict = field(default_factory=dict)  # DuplicateFinder.summary()
    dups: DuplicateFinder | None = None     # a piece's duplicate state until merge_scans (scan_piece)
    added: Added | None = None
    leaks: list[dict] = field(default_factory=list)


def _turn_features(dialogue, counter: Callable[[str], int]) -> tuple[list[str], list[str], list[list[str]], int, int]:
    """(user words (diversity), their skeleton words (the leak check), the skeleton words of each system/user turn
    (what dedup shingles, per turn), token count, format characters in those turns). Skeleton words
    (rc1.core.text.guard_words) are the words themselves for ASCII text."""
    user: list[str] = []
    guard: list[str] = []
    prompt: list[list[str]] = []
    n_tokens = n_format = 0
    for t in dialogue:
        role, content = t["role"], t["content"]
        n_tokens += counter(content) + TURN_OVERHEAD
        if role in ("system", "user"):
            w = words(content)
            g = w
            if not content.isascii():
                g = guard_words(content)
                n_format += strip_format_chars(content)[1]
            prompt.append(g)
            if role == "user":
                user += w
                guard += g
    return user, guard, prompt, n_tokens, n_format


@dataclass
class BaselineStats:
    """What the checks need of the KL baseline: its 3-gram counts and the lexical summary of its diversity sample
    (computable apart from the pool: validate-pool computes them in the process that samples the baseline)."""
    trigrams: Counter
    lex: dict
    size: int
    sampled_with: tuple[int, int, int]   # (kl_sample_size, sample_size, sample_seed): evaluate_scan's must match


def baseline_stats(baseline: Iterable[PoolItem] | Sequence[list[str]], kl_sample_size: int = KL_SAMPLE_SIZE,
                   sample_size: int = SAMPLE_SIZE, sample_seed: int = SAMPLE_SEED) -> BaselineStats:
    tokens = _as_token_lists(baseline, kl_sample_size, sample_seed)
    return BaselineStats(ngram_counts(tokens, 3), lexical_summary(_subsample(tokens, sample_size, sample_seed)),
                         len(tokens), (kl_sample_size, sample_size, sample_seed))


def validate_pool(pool_items: Iterable[PoolItem], *, gate: ValidatePoolThresholds, mix: dict[str, float],
                  shadow: Sequence[tuple[str, str]] | None, baseline: Iterable[PoolItem] | Sequence[list[str]],
                  token_counter: Callable[[str], int] = count_tokens, sample_size: int = SAMPLE_SIZE,
                  kl_sample_size: int = KL_SAMPLE_SIZE, sample_seed: int = SAMPLE_SEED, num_perm: int = 64,
                  progress: bool = False) -> ValidationResult:
    """Scan `pool_items` once and evaluate every validate_pool check. `shadow`: (id, question) pairs; None = no shadow
    set given, and then the leak check cannot pass (a leak gate that ran against nothing must not look green);
    `baseline`: the pack_v1 pool's items (or already sampled user-turn token lists), the reference of the 3-gram KL."""
    scan = scan_pool(pool_items, gate=gate, shadow=shadow, token_counter=token_counter,
                     sample_k=max(sample_size, kl_sample_size), sample_seed=sample_seed, num_perm=num_perm,
                     progress=progress)
    return evaluate_scan(scan, gate=gate, mix=mix, shadow_given=shadow is not None,
                         shadow_questions=len(shadow or []), baseline=baseline, sample_size=sample_size,
                         kl_sample_size=kl_sample_size, sample_seed=sample_seed)


def scan_pool(pool_items: Iterable[PoolItem], *, gate: ValidatePoolThresholds, shadow: Sequence[tuple[str, str]] | None,
              token_counter: Callable[[str], int] = count_tokens, sample_k: int = max(SAMPLE_SIZE, KL_SAMPLE_SIZE),
              sample_seed: int = SAMPLE_SEED, num_perm: int = 64, progress: bool = False) -> _Scan:
    """The one streaming pass: counts, token lengths, the diversity sample, duplicates and leaks."""
    scan = scan_piece(pool_items, gate=gate, shadow=shadow, token_counter=token_counter, sample_k=sample_k,
                      sample_seed=sample_seed, num_perm=num_perm, progress=progress)
    return merge_scans([scan], [])


def scan_piece(pool_items: Iterable[PoolItem], *, gate: ValidatePoolThresholds, shadow: Sequence[tuple[str, str]] | None,
               token_counter: Callable[[str], int] = count_tokens, sample_k: int = max(SAMPLE_SIZE, KL_SAMPLE_SIZE),
               sample_seed: int = SAMPLE_SEED, num_perm: int = 64, progress: bool = False, start: int = 0,
               sig_file: IO[bytes] | None = None) -> _Scan:
    """scan_pool's pass over one piece of a pool whose first pool item is the pool's `start`-th (0-based), not yet
    merged (merge_scans). A later piece (start > 0, scanned in another process) writes its MinHash signatures
    to `sig_file` and keeps the rest of its duplicate state in `scan.added`."""
    scan = _Scan()
    dups = DuplicateFinder(threshold=gate.near_dup_jaccard, num_perm=num_perm, sig_file=sig_file)
    index = ShadowIndex(shadow or [], ngram=gate.leak_ngram, sim=gate.leak_sim)
    sample: Reservoir[tuple[str, list[str]]] = Reservoir(sample_k, sample_seed, start)   # (task, user-turn words)
    leaks = scan.leaks
    for pool_item in tqdm(pool_items, desc="validate", unit=" seeds", disable=no_bar(progress), file=sys.stderr,
                          mininterval=2):
        scan.n += 1
        scan.tasks[pool_item["task"]] += 1
        scan.roles[pool_item["role"]] += 1
        scan.styles[pool_item["style"]] += 1
        scan.templates[pool_item["template_id"]] += 1
        scan.clarify += bool(pool_item["needs_clarification"])
        user_words, guard_user, prompt_turns, n_tokens, n_format = _turn_features(pool_item["dialogue"], token_counter)
        scan.format_chars += n_format
        scan.lengths.append(n_tokens)
        sample.offer((pool_item["task"], user_words))
        dups.add(pool_item["id"], prompt_turns)
        if index:
            leaks += [asdict(leak) for leak in index.pool_item_leaks(pool_item, guard_user)]
    scan.sample = sample
    if start:
        scan.added = dups.detach()
    else:
        scan.dups = dups
    return scan


def merge_scans(scans: list[_Scan], sig_files: Sequence[IO[bytes]]) -> _Scan | None:
    """The scan of a whole pool from the scans of its consecutive pieces (scan_piece; `sig_files`: the signature
    files of the pieces after the first), with its duplicates decided: the same as one pass over the pool.
    None when a piece does not start where the one before it ended (a blank line in the pool moved it)."""
    out = scans[0]
    for part, fh in zip(scans[1:], sig_files, strict=True):
        if part.sample.start != out.n:
            return None
        out.n += part.n
        for mine, theirs in ((out.tasks, part.tasks), (out.roles, part.roles), (out.styles, part.styles),
                             (out.templates, part.templates)):
            mine.update(theirs)  # keys keep the order they first occur in the pool (most_common's ties)
        out.clarify += part.clarify
        out.format_chars += part.format_chars
        out.lengths.extend(part.lengths)
        out.sample.merge(part.sample)
        out.dups.extend(part.added, fh)
        part.added = None
        out.leaks += part.leaks
    out.dedup = out.dups.finish().summary()
    out.dups = None
    return out


def evaluate_scan(scan: _Scan, *, gate: ValidatePoolThresholds, mix: dict[str, float], shadow_given: bool,
                  shadow_questions: int, baseline: Iterable[PoolItem] | Sequence[list[str]] | BaselineStats,
                  sample_size: int = SAMPLE_SIZE, kl_sample_size: int = KL_SAMPLE_SIZE,
                  sample_seed: int = SAMPLE_SEED) -> ValidationResult:
    """Every validate_pool check and the diversity report from a scan (see validate_pool). `baseline`: the KL
    reference's pool items, sampled token lists, or their baseline_stats (with the same sizes and seed)."""
    sample, leaks = scan.sample, scan.leaks
    exact_rate, near_rate = scan.dedup["exact_dup_rate"], scan.dedup["near_dup_rate"]
    tasks_s, toks = [t for t, _ in sample.items], [w for _, w in sample.items]
    div_sample = [w for _, w in sample.subsample(sample_size, sample_seed)]
    kl_pool = toks if kl_sample_size >= len(toks) else [w for _, w in sample.subsample(kl_sample_size, sample_seed)]
    base = baseline if isinstance(baseline, BaselineStats) else baseline_stats(baseline, kl_sample_size, sample_size,
                                                                                sample_seed)
    if base.sampled_with != (kl_sample_size, sample_size, sample_seed):   # the pool's and the baseline's samples
        raise ValueError(f"baseline stats sampled with (kl_sample_size, sample_size, sample_seed)={base.sampled_with}, "
                         f"the pool with {(kl_sample_size, sample_size, sample_seed)}")
    lex = lexical_summary(div_sample)
    chosen = budget_indices([len(w) for w in toks], gate.distinct_2_words, sample_seed)
    budget = [toks[i] for i in chosen]
    lex["distinct_2"] = distinct_n(budget, 2)
    by_task = {t: distinct_n([toks[i] for i in chosen if tasks_s[i] == t], 2)
               for t in sorted({tasks_s[i] for i in chosen})}   # each task's part of the same budget sample
    p3, q3 = ngram_counts(kl_pool, 3), base.trigrams
    kl = kl_divergence(p3, q3)
    zipf = zipf_slope(ngram_counts(kl_pool, 1))
    base_lex = base.lex

    lengths = np.frombuffer(scan.lengths, dtype=np.int64) if scan.n else np.zeros(0, dtype=np.int64)
    oob = int(((lengths < gate.len_tokens_min) | (lengths > gate.len_tokens_max)).sum()) if scan.n else 0
    mix_rows = mix_deviation(scan.tasks, mix)
    id_overlap = sorted({leak["shadow_id"] for leak in leaks if leak["kind"] == "source_id"})

    g = gate
    checks = [
        check("pool_size", scan.n, f">= {g.pool_size_min}", scan.n >= g.pool_size_min,
              next=f"the pool follows the data and this one makes {scan.n} seeds: point --data-dir at a dataset "
                   f"that makes at least validate_pool.pool_size_min {g.pool_size_min} (the full HotpotQA, "
                   f"StrategyQA and GSM8K train sets; docs/stages.md, \"Sources\")"),
        check("distinct_2", lex["distinct_2"], f">= {g.distinct_2_min}", lex["distinct_2"] >= g.distinct_2_min),
        check("kl_3gram_vs_v1", kl, f">= {g.kl_3gram_vs_v1_min}", kl >= g.kl_3gram_vs_v1_min)
        if base.size else check("kl_3gram_vs_v1", None, f">= {g.kl_3gram_vs_v1_min} (needs a non-empty baseline)", False),
        check("roles", len(scan.roles), f">= {g.roles_min}", len(scan.roles) >= g.roles_min),
        check("styles", len(scan.styles), f">= {g.styles_min}", len(scan.styles) >= g.styles_min),
        check("dup_rate", exact_rate, f"<= {g.dup_rate_max}", exact_rate <= g.dup_rate_max),
        check("near_dup_rate", near_rate, f"<= {g.dup_rate_max}", near_rate <= g.dup_rate_max),
        check("len_tokens_min", int(lengths.min()) if scan.n else 0, f">= {g.len_tokens_min}",
              scan.n > 0 and int(lengths.min()) >= g.len_tokens_min),
        check("len_tokens_max", int(lengths.max()) if scan.n else 0, f"<= {g.len_tokens_max}",
              scan.n > 0 and int(lengths.max()) <= g.len_tokens_max),
        check("leak_count", len(leaks), f"<= {g.leak_count_max}", len(leaks) <= g.leak_count_max)
        if shadow_given else check("leak_count", None, f"<= {g.leak_count_max} (needs a shadow set)", False),
        *[check(f"mix_dev_pp.{t}", row["dev_pp"], f"<= {g.mix_tolerance_pp}", row["dev_pp"] <= g.mix_tolerance_pp)
          for t, row in mix_rows.items()],
    ]
    diversity = {
        "n": scan.n,
        "definitions": DEFINITIONS,
        "sample": {"size": len(div_sample), "requested": sample_size, "seed": sample_seed, "text": "user turns"},
        "distinct_1": lex["distinct_1"],
        "distinct_2": lex["distinct_2"],
        "distinct_2_budget": {"words_budget": gate.distinct_2_words, "words": sum(map(len, budget)),
                              "seeds": len(budget), "drawn_from": len(toks), "seed": sample_seed},
        "distinct_2_by_task": by_task,
        "ttr": lex["ttr"],
        "mean_user_words": lex["mean_words"],
        "zipf_slope": zipf,
        "kl_3gram_vs_v1": kl if base.size else None,   # against nothing: every pool is far from an empty baseline
        "kl": {"direction": "KL(pool || v1)", "smoothing": "add-one over the union vocabulary", "unit": "nats",
               "pool_sample": len(kl_pool), "baseline_sample": base.size,
               "pool_3gram_types": len(p3), "baseline_3gram_types": len(q3)},
        "baseline": {"distinct_1": base_lex["distinct_1"], "distinct_2": base_lex["distinct_2"],
                     "ttr": base_lex["ttr"], "sample": base_lex["texts"]},
        "roles": dict(scan.roles.most_common()),
        "styles": dict(scan.styles.most_common()),
        "templates": len(scan.templates),
        "template_counts": dict(scan.templates.most_common()),
        "needs_clarification_rate": scan.clarify / scan.n if scan.n else 0.0,
        "format_chars": scan.format_chars,   # zero-width, soft hyphen, bidi marks in prompts (the guards fold them)
        "dedup": scan.dedup,
        "len_tokens": {**_quantiles(lengths), "min_allowed": g.len_tokens_min, "max_allowed": g.len_tokens_max,
                       "out_of_bounds": oob, "out_of_bounds_rate": oob / scan.n if scan.n else 0.0},
        "mix": mix_rows,
        "leaks": {"count": len(leaks) if shadow_given else None, "shadow_questions": shadow_questions,
                  "ngram": g.leak_ngram, "sim": g.leak_sim, "examples": leaks[:10],
                  "shadow_source_id_overlap": id_overlap[:50]},
    }
    return ValidationResult(checks=checks, diversity=diversity, leaks=leaks)


def budget_indices(lengths: Sequence[int], words: int, seed: int) -> list[int]:
    """Indices drawn uniformly at random (seeded, without replacement) until their lengths reach `words`, or all
    of them: distinct-n on a fixed amount of text, not a fixed number of pool items of any length."""
    order = random.Random(f"{seed}|distinct-budget").sample(range(len(lengths)), len(lengths))
    out: list[int] = []
    total = 0
    for i in order:
        if total >= words:
            break
        out.append(i)
        total += lengths[i]
    return out


def _subsample(items: list, k: int, seed: int) -> list:
    r: Reservoir = Reservoir(len(items), seed)
    r.items = list(items)
    return r.subsample(k, seed)


def _as_token_lists(baseline, k: int, seed: int) -> list[list[str]]:
    """User-turn words of a seeded uniform sample of up to k baseline seeds (what the 3-gram KL compares);
    already-tokenized baselines are only subsampled."""
    if isinstance(baseline, list) and baseline and not isinstance(baseline[0], dict):
        return _subsample(baseline, k, seed)
    res: Reservoir[list[str]] = Reservoir(k, seed)
    for s in baseline:
        res.offer(words(user_text(s)))
    return res.items


def _quantiles(a: np.ndarray) -> dict:
    if not len(a):
        return {"min": None, "p10": None, "p50": None, "p90": None, "max": None, "mean": None}
    p10, p50, p90 = np.percentile(a, [10, 50, 90])
    return {"min": int(a.min()), "p10": float(p10), "p50": float(p50), "p90": float(p90), "max": int(a.max()),
            "mean": float(a.mean())}
