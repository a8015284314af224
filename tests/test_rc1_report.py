"""The RC1 report page: markup from a real EvalReport, and the page as headless Chromium shows it."""

import re

from headless_browser import dump_dom, screenshot
from rc1.config import load_gates
from rc1.evaluate import build_report
from rc1.report import ReportInput, render_report


def rows(success_hard: bool) -> list[dict]:
    out = []
    for i, (task, diff) in enumerate([("hotpotqa", "hard"), ("strategyqa", "hard"), ("gsm8k", "easy"),
                                      ("hotpotqa", "medium")]):
        out.append({"id": str(i), "task": task, "difficulty": diff, "split": "shadow", "success": success_hard or diff != "hard",
                    "needs_clarification": i == 3, "overclarified": False, "turns": 2})
    return out


def page(passed_policy: bool) -> ReportInput:
    report = build_report(rows(passed_policy), rows(False), load_gates("configs/gates.yaml").evaluate)
    curves = {"seed=1": {"rc1.reward": [(1, 0.1), (2, 0.3)], "rc1.kl": [(1, 0.0), (2, 0.01)]},
              "seed=2": {"rc1.reward": [(1, 0.2), (2, 0.25)]}}
    chain = [{"link": "version", "run_id": "3", "detail": "rc1-policy"},
             {"link": "train", "run_id": "abc", "detail": "FINISHED; gated=true"}]
    return ReportInput(model_name="rc1-policy", version="3", mode="dev", evaluation=report.to_json(), curves=curves,
                       chain=chain, shas={"pool": "ab" * 32}, evaluate_run_id="ev1")


def test_markup_carries_verdict_checks_plots_and_chain():
    html = render_report(page(False))
    assert re.search(r'id="verdict" class="verdict fail">FAIL<', html)
    for name in ("hard_success_gain_pp", "clarify_success_gain_pp", "overclar_reduction_pct", "avg_turns_increase"):
        assert name in html
    assert html.count("<img ") == 4                         # success, behaviour, reward curves, KL curves
    assert "ab" * 32 in html and "gated=true" in html
    assert "<script" in html and "http" not in html.split("<body", 1)[1]   # self-contained: nothing fetched


def test_chromium_shows_the_verdict_and_loads_every_plot(tmp_path):
    out = tmp_path / "rc1_report.html"
    out.write_text(render_report(page(False)), encoding="utf-8")
    dom = dump_dom(out)
    assert 'data-plots="4/4"' in dom
    assert re.search(r'id="verdict"[^>]*>FAIL<', dom)
    png = screenshot(out, tmp_path / "shot.png")
    assert png.stat().st_size > 20_000                      # a rendered page with plots, not a blank canvas
