"""Benchmark: answer extraction and the heuristic judge on adversarial completions (issue 10: one long
completion must not stall a training step).

    python benchmarks/bench_answers.py            # prints one line per input: size, extractor ms, heuristic ms

Inputs: 20k newlines, "=" + 20k spaces (the two the issue measured at 7.7 s and 9.2 s), and 1 MB variants.
Uses only rc1.scoring.dialogue.extract_answer and rc1.scoring.heuristic.heuristic_scores, so the same script times an
older checkout (PYTHONPATH=<that checkout>). Timings depend on what else the machine runs: say so when quoted.
"""

from __future__ import annotations

import time

from rc1.scoring.dialogue import extract_answer
from rc1.scoring.base import JudgeRequest
from rc1.scoring.heuristic import heuristic_scores

MB = 1 << 20
INPUTS = {
    "20k newlines": "\n" * 20000 + "x",
    "'=' + 20k spaces": "=" + " " * 20000 + "x",
    "1 MB newlines": "\n" * MB + "x",
    "1 MB '=' + spaces": "=" + " " * MB + "x",
    "1 MB 'Answer: i' lines": "".join(f"Answer: {i}\n" for i in range(MB // 12)),
    "1 MB connectors": "because so therefore thus hence " * (MB // 32),
}


def _ms(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    for name, text in INPUTS.items():
        req = JudgeRequest("b", "b", "gsm8k", "How many?", "42", False,
                           ({"role": "user", "content": "How many?"}, {"role": "assistant", "content": text}))
        print(f"{name:24s} {len(text):8d} chars  extract {_ms(lambda: extract_answer(text)):9.1f} ms  "
              f"heuristic {_ms(lambda: heuristic_scores(req)):9.1f} ms", flush=True)


if __name__ == "__main__":
    main()
