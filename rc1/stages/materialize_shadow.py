"""`rc1 materialize-shadow`: the held-out shadow evaluation set (stratified by task) and its manifest."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import load_thresholds
from rc1.data import default_data_config, source_tags
from rc1.core.io import read_json, sha256_file, write_json, write_jsonl
from rc1.data.shadow_set import capped_note, default_mix, load_and_select, shadow_counts
from rc1.stages.shared import BadRecords, FromData, Gated, Moded, Reusable
from rc1.core.settings import configured


@dataclass
class Config(FromData, BadRecords, Moded, Gated, Reusable):
    """Select and write the held-out shadow evaluation set (stratified by task) with a manifest."""

    n: int | None = arg(None, "Shadow set size (unset: configs/gates.yaml shadow.n).")
    seed: int | None = arg(None, "Selection seed (unset: gates.yaml shadow.seed).")
    stratify: bool | None = arg(None, "Per-task counts proportional to the configured mix (unset: gates.yaml "
                                      "shadow.stratify).")
    materialize: str | None = arg(None, "Output JSONL (unset: out/shadow_eval_<n>.jsonl).")
    dump_manifest: str | None = arg(None, "Manifest JSON (unset: shadow_manifest.json beside --materialize).")


@configured
def run(cfg: Config) -> dict[str, Any]:
    """Write the shadow set (JSONL of Task records) and its manifest; returns
    {path, manifest, n, per_task, sha256, run_id, reused}. n/seed/stratify default to gates.yaml `shadow`."""
    from rc1.tracking import stage_run

    g = load_thresholds(cfg.gates).shadow
    shadow_size = g.n if cfg.n is None else cfg.n
    seed = g.seed if cfg.seed is None else cfg.seed
    stratify = g.stratify if cfg.stratify is None else cfg.stratify
    mix = default_mix(cfg.gates)
    out = Path(cfg.materialize or f"out/shadow_eval_{shadow_size}.jsonl")
    manifest_p = Path(cfg.dump_manifest or out.with_name("shadow_manifest.json"))
    data_cfg = default_data_config()

    rows, loaded = load_and_select(cfg.data_dir, shadow_size, seed, stratify, mix, data_cfg, cfg.on_bad_record)
    if stratify and (note := capped_note(shadow_size, mix, {t: len(lt.records) for t, lt in loaded.items()})):
        click.echo(f"[rc1] materialize-shadow: {note}", err=True)
    params = {**logged_params(cfg), "n": shadow_size, "seed": seed, "stratify": stratify, "mix": mix,
              "on_bad_record": cfg.on_bad_record or data_cfg.on_bad_record, "materialize": str(out),
              "dump_manifest": str(manifest_p)}
    inputs = {f"data.{t}": lt.digest for t, lt in loaded.items()}
    with stage_run("materialize_shadow", params, inputs=inputs,
                   outputs={"shadow": out, "manifest": manifest_p}, reuse=cfg.reuse, tags=source_tags(loaded)) as st:
        if st.reused:
            m = read_json(manifest_p)
            return {"path": str(out), "manifest": str(manifest_p), "n": m["n"], "per_task": m["per_task"],
                    "sha256": m["sha256"], "run_id": st.run_id, "reused": True}
        write_jsonl(out, rows)
        sha = sha256_file(out)
        counts = Counter(r["task"] for r in rows)
        per_task = {t: {"n": counts.get(t, 0), "source_kind": lt.source_kind, "source_uri": lt.source_uri,
                        "digest": lt.digest, "records": len(lt.records), "skipped": lt.skipped,
                        "format_chars": lt.format_chars}
                    for t, lt in loaded.items()}
        manifest = {"stage": "materialize_shadow", "file": out.name, "sha256": sha, "n": len(rows), "seed": seed,
                    "stratify": stratify, "mix": mix, "per_task": per_task, "ids": [r["id"] for r in rows],
                    "mode": cfg.mode}
        write_json(manifest_p, manifest)

        st.log_sources(loaded)
        st.log_config(data_cfg, "data.json")
        st.log_metrics({"n": len(rows), **{f"n.{t}": v["n"] for t, v in per_task.items()},
                        **{f"skipped.{t}": v["skipped"] for t, v in per_task.items()},
                        **{f"format_chars.{t}": v["format_chars"] for t, v in per_task.items()}})
        st.log_artifact(out)
        st.log_artifact(manifest_p)
        want = shadow_counts(shadow_size, mix, {t: len(lt.records) for t, lt in loaded.items()}) if stratify else None
        ids = [r["id"] for r in rows]
        checks = [
            {"name": "n", "value": len(rows), "threshold": f"== {shadow_size}", "pass": len(rows) == shadow_size},
            {"name": "unique_ids", "value": len(set(ids)), "threshold": f"== {len(ids)}", "pass": len(set(ids)) == len(ids)},
        ]
        if want is not None:
            checks += [{"name": f"n.{t}", "value": counts.get(t, 0), "threshold": f"== {k}", "pass": counts.get(t, 0) == k}
                       for t, k in want.items()]
        st.verdict(checks, what="materialize_shadow")
    return {"path": str(out), "manifest": str(manifest_p), "n": len(rows), "per_task": per_task, "sha256": sha,
            "run_id": st.run_id, "reused": False}


def show(out: dict[str, Any]) -> None:
    per = ", ".join(f"{t} {v['n']} ({v['source_kind']})" for t, v in out["per_task"].items())
    click.echo(f"materialize-shadow: {out['n']} records -> {out['path']} [{per}] sha256 {out['sha256'][:12]}"
               + (" (reused)" if out["reused"] else ""))
