"""Fetch an output of the newest finished run of a stage (weight_calib and overclar_ablation read the
scored candidates of the newest shadow_run this way)."""

from __future__ import annotations

from pathlib import Path

from rc1.tracking.queries import _search, fetch_artifact


def newest_stage_output(stage: str, output: str, dest_dir: str | Path, mode: str | None = None,
                        tags: dict[str, str] | None = None) -> tuple[Path, str] | None:
    """(local copy, run id) of output `output` (the stage_run outputs key) of the newest FINISHED run of
    `stage` (of run mode `mode` when given, carrying `tags` when given) that computed it; reused runs hold no artifacts of their own.
    None when there is no such run. The copy's sha256 is checked against the run's `sha256.<name>` tag."""
    from rc1.tracking.store import setup_tracking

    setup_tracking()
    where = f"tags.`rc1.stage` = '{stage}' AND tags.`rc1.computed` = 'true' AND attributes.status = 'FINISHED'"
    if mode:
        where += f" AND tags.`rc1.mode` = '{mode}'"
    for k, v in (tags or {}).items():
        where += f" AND tags.`{k}` = '{v}'"
    for run in _search(where, max_results=20):
        art = run.data.tags.get(f"rc1.output.{output}")
        if art:
            return fetch_artifact(run, art, dest_dir), run.info.run_id
    return None
