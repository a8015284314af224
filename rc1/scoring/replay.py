"""Re-score the requests the cache recorded as failed or unstable, with the current judge."""

from __future__ import annotations

from typing import Any

from rc1.core.errors import Rc1Error
from rc1.scoring.judge import ScoringJudge
from rc1.scoring.spec import JUDGE_SPEC_VERSION


def replay_bad(judge: ScoringJudge, progress: bool = True) -> dict[str, Any]:
    """Fresh samples (no cache reads) for every recorded failed/unstable request of the current spec.

    A request that now scores stable leaves the list; one that fails or is unstable again is recorded
    again under the current provider. Returns counts before and after.
    """
    if judge.cache is None:
        raise Rc1Error("replay-bad needs the judge cache")
    rows = list(judge.cache.bad_items(JUDGE_SPEC_VERSION))
    by_digest: dict[str, dict] = {}
    for row in rows:
        by_digest.setdefault(row["digest"], row)
    requests = [row["request"] for row in by_digest.values()]
    results = judge.score_many(requests, progress=progress, fresh=True) if requests else []
    for row in rows:  # records made under another provider/model are superseded by this replay
        if (row["provider"], row["model"]) != (judge.provider, judge.model):
            judge.cache.delete_bad(row["spec"], row["provider"], row["model"], row["digest"])
    return {
        "spec_version": JUDGE_SPEC_VERSION,
        "provider": judge.provider,
        "model": judge.model,
        "replayed": len(requests),
        "before": {"failed": sum(r["kind"] == "failed" for r in by_digest.values()),
                   "unstable": sum(r["kind"] == "unstable" for r in by_digest.values())},
        "after": {"failed": sum(r.failed for r in results), "unstable": sum(r.unstable for r in results),
                  "ok": sum(not r.failed and not r.unstable for r in results)},
    }
