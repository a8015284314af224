"""The RC1 report: one self-contained HTML page (plots embedded as PNG data URIs) that a reviewer opens from
the MLflow UI's artifact view of an evaluate run or a registered version.

Pure: the caller gathers the evaluate report, the training curves (metric histories of the train runs) and
the gate chain; `render_report` only draws and writes markup. The page sets `data-plots="loaded/total"` on
<body> once every plot has decoded, so a headless browser can tell that the plots load, not only that the
markup exists.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

Curve = Sequence[tuple[int, float]]


@dataclass
class ReportInput:
    model_name: str
    version: str
    mode: str
    evaluation: Mapping[str, Any]                       # EvalReport.to_json()
    curves: Mapping[str, Mapping[str, Curve]] = field(default_factory=dict)   # run label -> metric -> points
    chain: Sequence[Mapping[str, str]] = field(default_factory=list)         # {link, run_id, detail}
    shas: Mapping[str, str] = field(default_factory=dict)                    # artifact name -> sha256
    evaluate_run_id: str = ""


# ---------------------------------------------------------------- plots
def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(width: float = 7.5, height: float = 3.2):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height))


def success_plot(policy: Mapping[str, Any], base: Mapping[str, Any]) -> str:
    """Success by task x difficulty, policy next to base."""
    cells = sorted(set(policy.get("success_by_task_difficulty", {})) | set(base.get("success_by_task_difficulty", {})))
    fig, ax = _figure(max(6.0, 0.75 * len(cells) + 2))
    xs = range(len(cells))
    for offset, (label, summary) in zip((-0.2, 0.2), (("policy", policy), ("base", base))):
        values = [summary.get("success_by_task_difficulty", {}).get(c) or 0.0 for c in cells]
        ax.bar([x + offset for x in xs], values, width=0.4, label=label)
    ax.set_xticks(list(xs), cells, rotation=35, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("success")
    ax.set_title("Success by task x difficulty")
    ax.legend()
    return _png(fig)


def behaviour_plot(policy: Mapping[str, Any], base: Mapping[str, Any]) -> str:
    """Over-clarification rate and average turns, policy next to base."""
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(7.5, 3.0))
    names = ("policy", "base")
    left.bar(names, [policy.get("overclar_rate") or 0.0, base.get("overclar_rate") or 0.0], color=["C0", "C1"])
    left.set_title("over-clarification rate")
    left.set_ylim(0, 1)
    right.bar(names, [policy.get("avg_turns") or 0.0, base.get("avg_turns") or 0.0], color=["C0", "C1"])
    right.set_title("average turns")
    return _png(fig)


def curve_plot(curves: Mapping[str, Mapping[str, Curve]], metric: str, title: str) -> str | None:
    """One line per training run for `metric`; None when no run logged it."""
    series = {label: pts for label, m in curves.items() if (pts := m.get(metric))}
    if not series:
        return None
    fig, ax = _figure()
    for label, pts in sorted(series.items()):
        steps, values = zip(*sorted(pts))
        ax.plot(steps, values, marker="o", markersize=3, label=label)
    ax.set_xlabel("step")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return _png(fig)


# ---------------------------------------------------------------- markup
def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape("—" if v is None else str(v))


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_fmt(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:24px auto;max-width:1000px;color:#1b1f24}
h1{font-size:1.5em;margin-bottom:4px} h2{font-size:1.15em;margin-top:28px;border-bottom:1px solid #d0d7de}
.verdict{display:inline-block;padding:6px 14px;border-radius:6px;font-weight:700;font-size:1.2em}
.pass{background:#dafbe1;color:#116329} .fail{background:#ffebe9;color:#a40e26}
table{border-collapse:collapse;margin:8px 0;font-size:.9em} td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left}
th{background:#f6f8fa} code{font-size:.85em} img{max-width:100%;display:block;margin:8px 0}
.muted{color:#59636e;font-size:.9em}
"""

_ONLOAD = """
<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute('data-plots', ok + '/' + imgs.length);
});
</script>
"""


def render_report(inp: ReportInput) -> str:
    ev = inp.evaluation
    policy, base, deltas = ev.get("policy", {}), ev.get("base", {}), ev.get("deltas", {})
    passed = bool(ev.get("passed"))
    verdict = "PASS" if passed else "FAIL"
    checks = _table(["check", "value", "threshold", "pass"],
                    [(c["name"], c.get("value"), c.get("threshold"), "yes" if c.get("pass") else "NO")
                     for c in ev.get("checks", [])])
    cells = sorted(set(policy.get("success_by_task_difficulty", {})) | set(base.get("success_by_task_difficulty", {})))
    cell_rows = [(c, policy.get("n_by_task_difficulty", {}).get(c), policy["success_by_task_difficulty"].get(c),
                  base.get("success_by_task_difficulty", {}).get(c),
                  deltas.get("success_by_task_difficulty_pp", {}).get(c)) for c in cells]
    summary_rows = [(k, policy.get(k), base.get(k)) for k in
                    ("n", "success", "hard_success", "clarify_success", "overclar_rate", "avg_turns")]
    plots = [("Success by task and difficulty", success_plot(policy, base)),
             ("Over-clarification and turns", behaviour_plot(policy, base))]
    for metric, title in (("rc1.reward", "Training reward per seed"), ("eval/reward", "Held-out reward per seed"),
                          ("rc1.kl", "KL to the reference per seed")):
        img = curve_plot(inp.curves, metric, title)
        if img:
            plots.append((title, img))
    plot_html = "".join(f"<h3>{html.escape(t)}</h3><img alt='{html.escape(t)}' src='{src}'>" for t, src in plots)
    chain = _table(["link", "run", "detail"], [(c.get("link"), c.get("run_id"), c.get("detail")) for c in inp.chain])
    shas = _table(["artifact", "sha256"], sorted(inp.shas.items()))
    title = f"{inp.model_name} version {inp.version}: RC1 report"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{_STYLE}</style></head>
<body data-plots="pending">
<h1>{html.escape(title)}</h1>
<p class="muted">mode {html.escape(inp.mode)} · evaluate run <code>{html.escape(inp.evaluate_run_id)}</code></p>
<p>RC1 verdict: <span id="verdict" class="verdict {'pass' if passed else 'fail'}">{verdict}</span></p>
<h2>RC1 checks</h2>{checks}
<h2>Policy vs base</h2>{_table(["metric", "policy", "base"], summary_rows)}
{_table(["task.difficulty", "n", "policy success", "base success", "delta pp"], cell_rows)}
<h2>Plots</h2>{plot_html}
<h2>Gate chain</h2>{chain}
<h2>Hashed artifacts</h2>{shas}
{_ONLOAD}
</body></html>
"""
