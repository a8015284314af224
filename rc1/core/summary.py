"""The few lines a command ends with (pure: results in, text out): what was registered, which version took `best`
and by what metric (a tie said as a tie), the verdict with its failing checks named, and where the run is in the UI."""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def check(name: str, value: Any, threshold: Any, passed: bool, next: str | None = None) -> dict:
    """A check's record; `next`: what the user does when it fails (the refusal's line says it)."""
    return {"name": name, "value": value, "threshold": threshold, "pass": bool(passed),
            **({"next": next} if next and not passed else {})}


def num(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def failing_checks(checks: Sequence[Mapping[str, Any]]) -> str:
    """'name=value (needs threshold), ...' for the checks that failed; '' when none did."""
    return ", ".join(f"{c.get('name')}={num(c.get('value'))} (needs {c.get('threshold')})"
                     for c in checks if not c.get("pass"))


def best_line(trained: Sequence[Mapping[str, Any]], best_version: str | None, metric: str = "held-out reward",
              alias: str = "best") -> str:
    """Which version holds `alias` and why; versions with the same score are named as a tie (the first trained of
    them keeps the alias: a later one must beat it)."""
    rows = [t for t in trained if t.get("model_version")]
    if not rows:
        return f"`{alias}`: no version registered"
    if best_version is None:
        return f"`{alias}`: not set by this run"
    holder = next((t for t in rows if str(t["model_version"]) == str(best_version)), None)
    if holder is None:
        return f"`{alias}` = version {best_version} (from another run: none of these beat it)"
    score = holder.get("best_reward")
    tied = [str(t["model_version"]) for t in rows
            if t is not holder and t.get("best_reward") is not None and t.get("best_reward") == score]
    line = f"`{alias}` = version {best_version} (seed {holder.get('seed')}) by {metric} {num(score)}"
    if tied:
        line += f"; a tie with version{'s' if len(tied) > 1 else ''} {', '.join(tied)}: the first trained keeps it"
    return line


def registered_line(trained: Sequence[Mapping[str, Any]], model_name: str) -> str:
    rows = [t for t in trained if t.get("model_version")]
    if not rows:
        return "registered: nothing"
    return f"registered {model_name} " + ", ".join(
        f"v{t['model_version']} (seed {t.get('seed')}, {num(t.get('best_reward'))})" for t in rows)


def verdict_line(passed: bool | None, checks: Sequence[Mapping[str, Any]] = (), mode: str = "prod") -> str:
    if passed is None:
        return "RC1 verdict: not evaluated"
    if passed:
        return "RC1 verdict: PASS"
    why = failing_checks(checks)
    note = " (expected in dev: a tiny random model cannot gain +5pp)" if mode == "dev" else ""
    return f"RC1 verdict: FAIL{note}" + (f"; failing: {why}" if why else "")


def render(title: str, lines: Sequence[str], url: str | None = None, hint: str = "") -> str:
    out = [f"── {title}"] + [f"   {line}" for line in lines if line]
    if url:
        out.append(f"   UI: {url}{hint}")
    return "\n".join(out)
