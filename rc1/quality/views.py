"""What each pool check looks at: the sample sizes, and the definitions the reports repeat next to the values (one
place, so code and report cannot drift apart); the text views of a pool item are rc1.core.records'."""

from __future__ import annotations

SAMPLE_SIZE = 1000        # pool items whose user turns distinct-n and TTR are measured on
KL_SAMPLE_SIZE = 5000     # pool items per pool for the 3-gram KL and the Zipf fit
SAMPLE_SEED = 20250820

DEFINITIONS = {
    "text": "user turns of a pool item, normalized words (rc1.core.text.words: NFKC, lower case, punctuation dropped, "
            "numbers kept)",
    "distinct_n": f"distinct word n-grams / all word n-grams, pooled over the user turns of a seeded uniform "
                  f"sample of {SAMPLE_SIZE} pool items (reservoir sampling, seed {SAMPLE_SEED}); corpus-level "
                  f"distinct-n falls with sample size, so it is only comparable at this size",
    "ttr": "mean over the same sample of each pool item's distinct words / words (user turns); distinct_1 is the "
           "sample's pooled type/token ratio",
    "kl_3gram_vs_v1": f"KL(P_pool || Q_v1) in nats over word 3-grams of the user turns, P and Q from seeded "
                      f"samples of up to {KL_SAMPLE_SIZE} pool items of the pool and of the pack_v1 baseline pool, "
                      f"both add-one (Laplace) smoothed over the union 3-gram vocabulary",
    "zipf_slope": "slope of log frequency on log rank of the words of the KL sample (scipy linregress)",
    "dup_rate": "share of pool items whose normalized system+user text equals an earlier one's",
    "near_dup_rate": "share of pool items with an earlier one whose word 3-shingle set (system+user turns, shingled "
                     "per turn) has MinHash-estimated Jaccard >= near_dup_jaccard (datasketch MinHash + MinHashLSH); "
                     "exact duplicates included",
    "len_tokens": "rc1.core.text.count_tokens over every dialogue turn's content + 5 template tokens per turn "
                  "(or the exact count of --tokenizer)",
    "leak": "a pool item leaks a shadow question when its user turns share >= 1 word leak_ngram-gram with it AND "
            ">= leak_sim of the shadow question's distinct words occur in the stretch of the user turns that the "
            "shared n-gram aligns with it (+- max(3, 20% of its length) words) or in the pool item's hidden_info",
    "mix_dev_pp": "|task share of the pool - requested share| in percentage points",
    "roles/styles": "number of distinct `role` / `style` values over the whole pool",
}


