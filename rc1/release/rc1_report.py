"""The RC1 report: one self-contained HTML page (plots embedded as PNG data URIs) that a reviewer opens from
the MLflow UI's artifact view of an evaluate run or a registered version.

`render_report` is pure: the caller gathers the evaluate report, the training curves (metric histories of the
train runs) and the gate chain; it only draws and writes markup. `render_rc1_report`, `log_rc1_report` and
`refresh_rc1_report` (at the end) gather those from the tracking server and log the page into the evaluate run.
The page sets `data-plots="loaded/total"` on <body> once every plot has decoded, so a headless browser can tell
that the plots load, not only that the markup exists.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from rc1.core.config import DIMENSIONS

Curve = Sequence[tuple[int, float]]

# the training curves the report draws, one line per seed (metric histories of the gate's train runs)
CURVES = (("reward", "Training reward per seed"), ("eval/reward", "Held-out reward per seed"),
          ("loss", "Loss per seed"), ("learning_rate", "Learning rate per seed"), ("entropy", "Entropy per seed"),
          ("kl", "KL to the reference per seed"))
BUCKETS = ("easy", "medium", "hard")
SAMPLE_RULE = ("Six items chosen by a fixed rule: for each task in turn, first the items where policy and base "
               "differ in success, then the rest, each in (split, id) order; two per task, more from the others "
               "when a task has fewer.")


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
    samples: Sequence[Mapping[str, Any]] = field(default_factory=list)       # rc1.samples: policy vs base dialogues
    evaluate_url: str = ""
    verified: Mapping[str, Any] | None = None   # rc1.trust.version's verdict {ok, why}; None: not checked yet
    curves_note: str = ""   # why there are no curves, when the page leaves them out on purpose (a signed report)


def pick_samples(policy_rows: Sequence[Mapping[str, Any]], base_rows: Sequence[Mapping[str, Any]], n: int = 6,
                 per_task: int = 2) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """(policy row, base row) pairs of the same item, by SAMPLE_RULE: per task (in name order), items whose success
    differs between policy and base first, then the rest, each in (split, id) order; `per_task` from each task,
    then more from the tasks that have them until `n`."""
    base = {(r["split"], str(r["id"])): r for r in base_rows}
    by_task: dict[str, list] = {}
    for p in sorted(policy_rows, key=lambda r: (bool(r["success"]) == bool(base.get((r["split"], str(r["id"])), {})
                                                                                   .get("success")),
                                                 r["split"], str(r["id"]))):
        b = base.get((p["split"], str(p["id"])))
        if b is not None:
            by_task.setdefault(str(p["task"]), []).append((p, b))
    queues = [by_task[t] for t in sorted(by_task)]
    picked = [pair for q in queues for pair in q[:per_task]][:n]
    rest = [pair for q in queues for pair in q[per_task:]]
    return picked + rest[:n - len(picked)]


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
    values = {label: [summary.get("success_by_task_difficulty", {}).get(c) or 0.0 for c in cells]
              for label, summary in (("policy", policy), ("base", base))}
    return _paired_bars(cells, values, "success", "Success by task x difficulty", width=0.75, rotation=35)


def thinking_plot(policy: Mapping[str, Any], base: Mapping[str, Any]) -> str | None:
    """How long each assistant turn reasoned (tokens inside <think>), policy next to base, with the thinking budget's
    hit rate and the share of episodes that ended without a final answer in the title; None when no turn was counted
    (an evaluation from before the thinking budget)."""
    series = {who: s.get("think_tokens_per_turn") for who, s in (("policy", policy), ("base", base))}
    series = {who: v for who, v in series.items() if v}
    if not series:
        return None
    fig, ax = _figure(6.5, 3.0)
    top = max(max(v) for v in series.values())
    ax.hist(list(series.values()), bins=min(30, max(1, top + 1)), range=(0, top + 1), label=list(series))
    ax.set_xlabel("reasoning tokens per turn")
    ax.set_ylabel("turns")
    rates = ", ".join(f"{who}: {_fmt(s.get('think/budget_hit_rate'))} of turns hit the budget, "
                      f"{_fmt(s.get('episodes/truncated_rate'))} of episodes truncated"
                      for who, s in (("policy", policy), ("base", base)) if who in series)
    ax.set_title(f"Thinking length ({rates})", fontsize="small")
    ax.legend()
    return _png(fig)


def _paired_bars(labels: Sequence[str], values: Mapping[str, Sequence[float]], ylabel: str, title: str,
                 width: float, rotation: int) -> str:
    """Policy's bar next to base's for each label, on a 0-1 scale."""
    fig, ax = _figure(max(6.0, width * len(labels) + 2))
    xs = range(len(labels))
    for offset, who in zip((-0.2, 0.2), ("policy", "base")):
        if who in values:
            ax.bar([x + offset for x in xs], values[who], width=0.4, label=who)
    ax.set_xticks(list(xs), labels, rotation=rotation, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
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


def _integer_steps(ax) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # optimizer steps are whole: no 1.5 on the axis
    ax.set_xlabel("step")


def curve_plot(curves: Mapping[str, Mapping[str, Curve]], metric: str, title: str) -> str | None:
    """One line per training run for `metric`; None when no run logged it."""
    series = {label: pts for label, m in curves.items() if (pts := m.get(metric))}
    if not series:
        return None
    fig, ax = _figure()
    for label, pts in sorted(series.items()):
        steps, values = zip(*sorted(pts))
        ax.plot(steps, values, marker="o", markersize=3, label=label)
    _integer_steps(ax)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return _png(fig)


def reward_distribution_plot(curves: Mapping[str, Mapping[str, Curve]], buckets: Sequence[str]) -> str | None:
    """The training reward's spread: one box per difficulty bucket over every logged step of every seed (the
    rc1.reward.<bucket> histories); None when none was logged."""
    data = {b: [v for m in curves.values() for _, v in m.get(f"rc1.reward.{b}", [])] for b in buckets}
    data = {b: v for b, v in data.items() if v}
    if not data:
        return None
    fig, ax = _figure(6.0, 3.0)
    ax.boxplot(list(data.values()), tick_labels=[f"{b}\n(n={len(v)})" for b, v in data.items()])
    ax.set_ylabel("batch mean reward")
    ax.set_title("Training reward by difficulty (every step, every seed)")
    return _png(fig)


def dimensions_plot(samples: Sequence[Mapping[str, Any]], dimensions: Sequence[str]) -> str | None:
    """Mean judge score per dimension over the sample dialogues, policy next to base; None without scores."""
    means = {}
    for who in ("policy", "base"):
        scored = [s[who]["scores"] for s in samples if (s.get(who) or {}).get("scores")]
        if scored:
            means[who] = [sum(sc.get(d, 0.0) for sc in scored) / len(scored) for d in dimensions]
    if not means:
        return None
    return _paired_bars(dimensions, means, "judge score", "Judge dimensions on the sample dialogues", width=0.9,
                        rotation=30)


# ---------------------------------------------------------------- markup
class _Html(str):
    """Markup a table cell holds as it is (a link), not escaped."""


def _fmt(v: Any) -> str:
    if isinstance(v, _Html):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape("—" if v is None else str(v))


def _link(run_id: str | None, url: str | None) -> str:
    """The run id, linked to its page in the MLflow UI when the caller knows it (a link, nothing fetched)."""
    text = f"<code>{html.escape(run_id or '—')}</code>"
    return f"<a href='{html.escape(url, quote=True)}'>{text}</a>" if url else text


def _unique_shas(shas: Mapping[str, str]) -> list[tuple[str, str]]:
    """One row per file: names recorded for the same digest (preflight's `gates`, the train run's `gates.yaml`)
    are listed together."""
    names: dict[str, list[str]] = {}
    for name, sha in sorted(shas.items()):
        names.setdefault(sha, []).append(name)
    return sorted((" = ".join(n), sha) for sha, n in names.items())


def _turns_html(dialogue: Sequence[Mapping[str, Any]], limit: int = 600) -> str:
    rows = []
    for turn in dialogue:
        role = str(turn.get("role", "?"))
        if role == "system":
            continue
        text = str(turn.get("content") or "")
        calls = turn.get("tool_calls") or []
        if calls:
            text += " " + " ".join(f"[{(c.get('function') or c).get('name')}(…)]" for c in calls)
        text = text if len(text) <= limit else text[:limit] + " …"
        rows.append(f"<div class='turn {html.escape(role)}'><b>{html.escape(role)}</b> {html.escape(text)}</div>")
    return "".join(rows)


def _samples_html(samples: Sequence[Mapping[str, Any]]) -> str:
    if not samples:
        return "<p class='muted empty'>No data: this evaluation recorded no sample dialogues.</p>"
    out = []
    for s in samples:
        cells = []
        for who in ("policy", "base"):
            side = s.get(who) or {}
            scores = side.get("scores")
            judged = (" · judge " + ", ".join(f"{d} {v:.2f}" for d, v in scores.items())) if scores else ""
            cells.append(f"<td><p class='muted'>{who}: {'success' if side.get('success') else 'no success'}, "
                         f"answer {html.escape(str(side.get('final_answer')))}{html.escape(judged)}</p>"
                         f"{_turns_html(side.get('dialogue') or [])}</td>")
        out.append(f"<div class='sample'><h3>{html.escape(str(s.get('id')))} · {html.escape(str(s.get('task')))} · "
                   f"{html.escape(str(s.get('difficulty')))} · {html.escape(str(s.get('split')))}</h3>"
                   f"<p class='muted'>gold answer: {html.escape(str(s.get('answer')))}</p>"
                   f"<table class='dialogues'><thead><tr><th>policy</th><th>base</th></tr></thead>"
                   f"<tbody><tr>{''.join(cells)}</tr></tbody></table></div>")
    return "".join(out)


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
.muted{color:#59636e;font-size:.9em} .dialogues td{vertical-align:top;width:50%} .turn{margin:3px 0}
.turn.assistant{color:#0a3069} .turn.tool{color:#59636e;font-size:.85em}
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


def _verified_html(inp: ReportInput) -> str:
    """The signed chain as `rc1 verify` sees it: what to run before serving this version."""
    cmd = f"rc1 verify --version {inp.version}"
    if inp.verified is None:
        return (f"<p>Signed chain: <span id='verified' class='muted'>not checked yet</span> (the evaluation was still "
                f"running); run <code>{html.escape(cmd)}</code> before serving.</p>")
    ok = bool(inp.verified.get("ok"))
    why = "" if ok else f" {html.escape(str(inp.verified.get('why', '')))}"
    return (f"<p>Signed chain (<code>{html.escape(cmd)}</code>): <span id='verified' class='verdict "
            f"{'pass' if ok else 'fail'}'>{'HOLDS' if ok else 'BROKEN'}</span>{why}</p>")


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
                    ("n", "success", "hard_success", "clarify_success", "overclar_rate", "avg_turns",
                     "think/budget_hit_rate", "think/mean_tokens", "answer/mean_tokens", "episodes/truncated_rate")]
    plots: list[tuple[str, str | None, str]] = [
        ("Success by task and difficulty", success_plot(policy, base), ""),
        ("Thinking length per turn", thinking_plot(policy, base),
         "the evaluation counted no reasoning tokens (it predates the thinking budget)"),
        ("Over-clarification and turns", behaviour_plot(policy, base), "")]
    for metric, title in CURVES:
        plots.append((title, curve_plot(inp.curves, metric, title), inp.curves_note or f"no train run logged {metric}"))
    plots.append(("Training reward distribution", reward_distribution_plot(inp.curves, BUCKETS),
                  inp.curves_note or "no train run logged rc1.reward.<difficulty>"))
    plots.append(("Judge dimensions", dimensions_plot(inp.samples, DIMENSIONS),
                  "the sample dialogues carry no judge scores (the judge failed or was not asked)"))
    plot_html = "".join(f"<h3>{html.escape(t)}</h3><img alt='{html.escape(t)}' src='{src}'>" if src else
                        f"<h3>{html.escape(t)}</h3><p class='muted empty'>No data: {html.escape(why)}.</p>"
                        for t, src, why in plots)
    chain = _table(["link", "run", "status and detail"],
                   [(c.get("link"), _Html(_link(c.get("run_id"), c.get("url"))), c.get("detail")) for c in inp.chain])
    shas = _table(["artifact", "sha256"], _unique_shas(inp.shas))
    title = f"{inp.model_name} version {inp.version}: RC1 report"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{_STYLE}</style></head>
<body data-plots="pending">
<h1>{html.escape(title)}</h1>
<p class="muted">mode {html.escape(inp.mode)} · evaluate run {_link(inp.evaluate_run_id, inp.evaluate_url)}</p>
<p>RC1 verdict: <span id="verdict" class="verdict {'pass' if passed else 'fail'}">{verdict}</span></p>
{_verified_html(inp)}
<h2>RC1 checks</h2>{checks}
<h2>Policy vs base</h2>{_table(["metric", "policy", "base"], summary_rows)}
{_table(["task.difficulty", "n", "policy success", "base success", "delta pp"], cell_rows)}
<h2>Plots</h2>{plot_html}
<h2>Sample dialogues: policy vs base</h2>
<p class="muted">{html.escape(SAMPLE_RULE)}</p>{_samples_html(inp.samples)}
<h2>Gate chain</h2>{chain}
<h2>Hashed artifacts</h2>{shas}
{_ONLOAD}
</body></html>
"""


# ---------------------------------------------------------------- the page as the tracking server knows it
# (gathered, logged and refreshed through rc1.tracking; render_report above stays pure)


def render_rc1_report(evaluate_run_id: str, mv, evaluation: Mapping[str, Any], mode: str,
                      samples: Sequence[Mapping[str, Any]], verified: Mapping[str, Any] | None = None) -> str:
    """rc1_report.html as the tracking server knows the chain now: verdict, policy vs base, training curves, the
    sample dialogues, every link's status with its run linked in the UI, and `verified` (rc1.trust.version)."""
    from rc1.tracking.ui import ui_url
    from rc1.tracking.lineage import chain_rows, metric_curves, sha_tags, sibling_train_runs, version_runs
    from rc1.tracking.registry import MODEL_NAME

    runs = version_runs(mv.run_id)
    curves = metric_curves(sibling_train_runs(runs["train"])) if runs["train"] else {}
    return render_report(ReportInput(
        model_name=MODEL_NAME, version=str(mv.version), mode=mode, evaluation=evaluation, curves=curves,
        chain=chain_rows(runs, str(mv.version), evaluate_run_id), shas=sha_tags(runs["preflight"], runs["train"]),
        evaluate_run_id=evaluate_run_id, samples=samples, evaluate_url=ui_url(evaluate_run_id), verified=verified))


REPORT_FILE = "rc1_report.html"


def report_line(evaluate_run_id: str) -> str:
    """The closing summary's line naming the report: where its file is, and its page in the MLflow UI (from the
    tracking URI in use)."""
    from rc1.tracking.ui import artifact_location, ui_url

    return (f"RC1 report: {artifact_location(evaluate_run_id, REPORT_FILE)} "
            f"(UI: {ui_url(evaluate_run_id, artifact=REPORT_FILE)})")


def log_rc1_report(evaluate_run_id: str, page: str) -> str:
    """Write rc1_report.html into the evaluate run (replacing an earlier one) and tag its sha256; returns it."""
    from rc1.tracking.pages import replace_run_file

    return replace_run_file(evaluate_run_id, REPORT_FILE, page)


def refresh_rc1_report(evaluate_run_id: str) -> None:
    """Render the report again once the runs it shows have ended (the gate calls it after its own run closed, so
    the chain shows final statuses, not the gate RUNNING), from what the evaluate run logged, with the signed
    chain's verdict (rc1.trust.version) now that every run of it has signed. This page is the UI's view of the run;
    the report a promotion carries is signed_report's, built from verified bytes only."""
    from mlflow.exceptions import MlflowException

    from rc1.core.errors import Rc1Error
    from rc1.tracking.evidence import store_source
    from rc1.tracking.pages import read_run_json
    from rc1.trust.version import verify_version
    from rc1.tracking.queries import get_run
    from rc1.tracking.registry import MODEL_NAME, resolve_version

    run = get_run(evaluate_run_id)
    mv = resolve_version(version=run.data.tags["rc1.model_version"])
    evaluation = read_run_json(evaluate_run_id, "evaluate_report.json")
    try:
        samples = read_run_json(evaluate_run_id, "rc1_samples.json")
    except Exception:  # noqa: BLE001 - an evaluate run from before the samples existed
        samples = []
    try:
        verdict = verify_version(store_source(read_only=True), MODEL_NAME, str(mv.version))
        verified = {"ok": verdict.ok, "why": verdict.why}
    except (Rc1Error, MlflowException, OSError) as e:   # the page says so; the stage's own outcome stands
        verified = {"ok": False, "why": f"the check did not complete ({type(e).__name__}: {e})"}
    log_rc1_report(evaluate_run_id, render_rc1_report(evaluate_run_id, mv, evaluation,
                                                      run.data.tags.get("rc1.mode", "dev"), samples, verified))


SIGNED_CURVES_NOTE = ("a promoted report shows only what the chain signed; the training curves are the train runs' "
                      "metric histories in the MLflow UI, which no statement covers")


def signed_report(verdict, source) -> str:
    """rc1_report.html as a promotion carries it, built only from what the trust room verified (`verdict`, a
    rc1.trust.version.Verdict whose chain holds): the evaluation and sample dialogues its evaluate run signed
    (downloaded and held to the signed digests), the chain as verified, the digests the preflight and train run
    signed. Nothing is read from a tag, a param or an artifact no statement covers (the evaluate run's own
    rc1_report.html is rewritten after it signed, by the gate's refresh: it is not used)."""
    import tempfile

    from rc1.core.io import read_json
    from rc1.tracking.ui import ui_url
    from rc1.trust.runs import SignedRun

    ev = verdict.statements["evaluate"]
    signed = SignedRun(source.run(ev.run_id), ev, source)
    with tempfile.TemporaryDirectory() as d:
        evaluation = read_json(signed.artifact("evaluate_report.json", d))
        samples = read_json(signed.artifact("rc1_samples.json", d)) if ev.subjects.get("rc1_samples.json") else []
    chain = [{"link": ln.name, "run_id": ln.run_id or "-", "detail": ln.evidence} for ln in verdict.links]
    shas = {n: sha for k in ("preflight", "train") if k in verdict.statements
            for n, sha in verdict.statements[k].subjects.items() if sha}
    train = verdict.statements["train"]
    return render_report(ReportInput(
        model_name=train.tags.get("rc1.registered_model", ""), version=verdict.version, mode=ev.mode,
        evaluation=evaluation, chain=chain, shas=shas, evaluate_run_id=ev.run_id, samples=samples,
        evaluate_url=ui_url(ev.run_id), verified={"ok": verdict.ok, "why": verdict.why},
        curves_note=SIGNED_CURVES_NOTE))
