"""The RC1 report page: markup from a real EvalReport, and the page as headless Chromium shows it."""

import re

from headless_browser import dump_dom, screenshot
from rc1.core.config import load_thresholds
from rc1.inference.policy_vs_base import build_report
from rc1.core.config import DIMENSIONS
from rc1.release.rc1_report import ReportInput, pick_samples, render_report


def rows(success_hard: bool) -> list[dict]:
    out = []
    for i, (task, diff) in enumerate([("hotpotqa", "hard"), ("strategyqa", "hard"), ("gsm8k", "easy"),
                                      ("hotpotqa", "medium")]):
        out.append({"id": str(i), "task": task, "difficulty": diff, "split": "shadow", "success": success_hard or diff != "hard",
                    "needs_clarification": i == 3, "overclarified": False, "turns": 2,
                    # what the thinking budget did (rc1.inference.policy_vs_base.item_row): two turns, the first at its budget
                    "think_tokens": [128, 40 + i], "answer_tokens": [10, 30], "budget_hits": 1, "truncated": i == 0})
    return out


def dialogue_rows(model: str) -> list[dict]:
    """Evaluation rows with dialogues: 4 items of each task; the policy wins items 1 of each task, the base none."""
    out = []
    for task in ("gsm8k", "hotpotqa", "strategyqa"):
        for i in range(4):
            out.append({"id": f"{task}:{i}", "task": task, "difficulty": "hard", "split": "shadow",
                        "success": model == "policy" and i == 1, "final_answer": f"{model}-{i}", "turns": 2,
                        "dialogue": [{"role": "system", "content": "sys"}, {"role": "user", "content": f"q {task} {i}"},
                                     {"role": "assistant", "content": f"<{model} says {i}>"}]})
    return out


def samples() -> list[dict]:
    pairs = pick_samples(dialogue_rows("policy"), dialogue_rows("base"))
    dims = {d: 0.5 for d in DIMENSIONS}
    return [{"id": p["id"], "task": p["task"], "difficulty": p["difficulty"], "split": p["split"], "answer": "42",
             "policy": {**p, "scores": dims}, "base": {**b, "scores": {d: 0.25 for d in DIMENSIONS}}}
            for p, b in pairs]


def page(passed_policy: bool) -> ReportInput:
    report = build_report(rows(passed_policy), rows(False), load_thresholds("configs/gates.yaml").evaluate)
    curves = {"seed=1": {"reward": [(1, 0.1), (2, 0.3)], "kl": [(1, 0.0), (2, 0.01)],
                         "loss": [(1, 0.5), (2, 0.4)], "learning_rate": [(1, 1e-5), (2, 9e-6)],
                         "rc1.reward.hard": [(1, 0.1), (2, 0.2)], "rc1.reward.easy": [(1, 0.4), (2, 0.5)]},
              "seed=2": {"reward": [(1, 0.2), (2, 0.25)]}}
    chain = [{"link": "version", "run_id": "3", "detail": "rc1-policy"},
             {"link": "train", "run_id": "abc", "url": "http://127.0.0.1:5000/#/experiments/1/runs/abc",
              "detail": "FINISHED; gated=true"},
             {"link": "gate", "run_id": "g1", "url": "http://127.0.0.1:5000/#/experiments/1/runs/g1",
              "detail": "FINISHED; mode=dev, RC1 verdict fail"}]
    return ReportInput(model_name="rc1-policy", version="3", mode="dev", evaluation=report.to_json(), curves=curves,
                       chain=chain, shas={"pool": "ab" * 32, "gates": "cd" * 32, "gates.yaml": "cd" * 32},
                       evaluate_run_id="ev1", samples=samples())


def test_six_samples_by_the_fixed_rule():
    pairs = pick_samples(dialogue_rows("policy"), dialogue_rows("base"))
    # per task in name order: the item where policy and base differ first, then by id; two each
    assert [p["id"] for p, _ in pairs] == ["gsm8k:1", "gsm8k:0", "hotpotqa:1", "hotpotqa:0", "strategyqa:1",
                                           "strategyqa:0"]
    assert all(p["id"] == b["id"] for p, b in pairs)
    assert pick_samples(dialogue_rows("policy"), dialogue_rows("base")) == pairs   # fixed: the same every time


def test_markup_carries_verdict_checks_plots_chain_and_samples():
    html = render_report(page(False))
    assert re.search(r'id="verdict" class="verdict fail">FAIL<', html)
    assert "id='verified'" in html   # the signed chain's verdict (test_the_page_says_whether_the_signed_chain_holds)
    for name in ("hard_success_gain_pp", "clarify_success_gain_pp", "overclar_reduction_pct", "avg_turns_increase"):
        assert name in html
    # success, thinking length, behaviour, reward, loss, lr, KL curves, the reward distribution, the judge's
    # dimensions; no entropy
    assert html.count("<img ") == 9
    # the thinking-length histogram next to success by difficulty, and the budget's numbers beside the success rates
    assert html.index("Success by task and difficulty</h3>") < html.index("Thinking length per turn</h3>") \
        < html.index("Over-clarification and turns</h3>")
    assert "<td>think/budget_hit_rate</td><td>0.5</td>" in html and "<td>episodes/truncated_rate</td><td>0.25</td>" in html
    assert html.count("class='muted empty'>No data: ") == 2   # held-out reward and entropy: said, not hidden
    assert "no train run logged entropy" in html
    assert "ab" * 32 in html and "gated=true" in html and "RC1 verdict fail" in html
    assert html.count("cd" * 32) == 1 and "gates = gates.yaml" in html   # one file, one row
    assert "href='http://127.0.0.1:5000/#/experiments/1/runs/abc'" in html   # run ids link to their runs
    assert html.count("class='sample'") == 6 and "&lt;policy says 1&gt;" in html and "&lt;base says 1&gt;" in html
    body = html.split("<body", 1)[1]
    assert "<script" in html and not re.search(r"src=['\"]?http", body)   # self-contained: nothing fetched


def test_steps_on_the_axes_are_whole_numbers():
    import matplotlib.pyplot as plt

    from rc1.release.rc1_report import _integer_steps

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [0.1, 0.2, 0.3])   # three steps: matplotlib's default ticks are 1.0, 1.25, 1.5, ...
    _integer_steps(ax)
    fig.canvas.draw()
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 3]
    plt.close(fig)
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_chromium_shows_the_verdict_the_chain_the_samples_and_loads_every_plot(tmp_path):
    out = tmp_path / "rc1_report.html"
    out.write_text(render_report(page(False)), encoding="utf-8")
    dom = dump_dom(out)
    assert 'data-plots="9/9"' in dom
    assert re.search(r'id="verdict"[^>]*>FAIL<', dom)
    assert dom.count('class="sample"') == 6 and "FINISHED; mode=dev, RC1 verdict fail" in dom
    png = screenshot(out, tmp_path / "shot.png")
    assert png.stat().st_size > 20_000                      # a rendered page with plots, not a blank canvas



def test_the_page_says_whether_the_signed_chain_holds():
    """Not checked while the evaluation runs; then rc1.trust.version's verdict, with the command to run before serving
    (the markup alone: test_markup_carries_verdict_checks_plots_chain_and_samples renders the whole page)."""
    from dataclasses import replace

    from rc1.release.rc1_report import _verified_html

    assert "not checked yet" in _verified_html(page(True)) and "rc1 verify --version 3" in _verified_html(page(True))
    assert re.search(r"id='verified' class='verdict pass'>HOLDS<", _verified_html(replace(page(True),
                                                                                         verified={"ok": True})))
    broken = _verified_html(replace(page(True), verified={"ok": False, "why": "broken link evaluate run e: <x>"}))
    assert "BROKEN</span> broken link evaluate run e: &lt;x&gt;" in broken
