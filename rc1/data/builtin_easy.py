"""The easy family of the builtin generators: single-step items whose question closely restates its evidence.

Real QA data has lookup-style items next to the multi-step ones; without them a builtin pool has no seed whose
question overlaps its support, and "easy" would mean nothing. Each family writes one fact sentence and asks
about it in nearly the same words, in the official schema of its dataset:
- HotpotQA: a cloze-style single-hop question on one sentence of a gold paragraph (type 'bridge', level 'easy'),
  the paragraph among generated distractor paragraphs, `supporting_facts` pointing at that sentence, which
  contains the answer;
- StrategyQA: a yes/no question restating one fact (as asked, or with one detail changed: then the answer is
  no), with `facts` and a two-step `decomposition` consistent with the answer;
- GSM8K: one- or two-step word problems whose solution lines restate the givens before computing,
  with <<a+b=c>> annotations and a '#### n' line.
Deterministic for (n, seed); ids are 'easy-NNNNN'.
"""

from __future__ import annotations

from rc1.data.builtin_easy_gsm8k import generate_easy_gsm8k
from rc1.data.builtin_easy_hotpotqa import generate_easy_hotpotqa
from rc1.data.builtin_easy_strategyqa import generate_easy_strategyqa

__all__ = ["EASY_GENERATORS", "generate_easy_gsm8k", "generate_easy_hotpotqa", "generate_easy_strategyqa"]

EASY_GENERATORS = {"hotpotqa": generate_easy_hotpotqa, "strategyqa": generate_easy_strategyqa,
                   "gsm8k": generate_easy_gsm8k}
