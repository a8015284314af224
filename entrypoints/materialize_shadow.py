"""`rc1 materialize-shadow --data-dir D --n 245 --seed 20250820 --stratify --materialize OUT --dump-manifest M`"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import click

from entrypoints._common import INT, data_dir_option, gates_option, optional_param, reuse_option
from rc1.config import load_gates
from rc1.data import default_data_config, source_tags
from rc1.io import read_json, sha256_file, write_json, write_jsonl
from rc1.shadow_set import capped_note, default_mix, load_and_select, shadow_counts
from rc1.tracking import run_mode, stage_run


def run_materialize_shadow(
    data_dir: str | None = None,
    n: int | None = None,
    seed: int | None = None,
    stratify: bool | None = None,
    materialize: str | None = None,
    dump_manifest: str | None = None,
    gates_path: str = "configs/gates.yaml",
    on_bad_record: str | None = None,
    reuse: bool = True,
) -> dict[str, Any]:
    """Write the shadow set (JSONL of Task records) and its manifest; returns
    {path, manifest, n, per_task, sha256, run_id, reused}. n/seed/stratify default to gates.yaml `shadow`."""
    g = load_gates(gates_path).shadow
    n = g.n if n is None else int(n)
    seed = g.seed if seed is None else int(seed)
    stratify = g.stratify if stratify is None else bool(stratify)
    mix = default_mix(gates_path)
    data_dir = optional_param(data_dir)
    out = Path(materialize or f"out/shadow_eval_{n}.jsonl")
    manifest_p = Path(dump_manifest or out.with_name("shadow_manifest.json"))
    data_cfg = default_data_config()

    rows, loaded = load_and_select(data_dir, n, seed, stratify, mix, data_cfg, on_bad_record)
    if stratify and (note := capped_note(n, mix, {t: len(lt.records) for t, lt in loaded.items()})):
        click.echo(f"[rc1] materialize-shadow: {note}", err=True)
    params = {"n": n, "seed": seed, "stratify": stratify, "mix": mix, "data_dir": data_dir or "auto",
              "on_bad_record": on_bad_record or data_cfg.on_bad_record, "materialize": str(out),
              "dump_manifest": str(manifest_p)}
    inputs = {f"data.{t}": lt.digest for t, lt in loaded.items()}
    with stage_run("materialize_shadow", params, inputs=inputs,
                   outputs={"shadow": out, "manifest": manifest_p}, reuse=reuse, tags=source_tags(loaded)) as st:
        if st.reused:
            m = read_json(manifest_p)
            return {"path": str(out), "manifest": str(manifest_p), "n": m["n"], "per_task": m["per_task"],
                    "sha256": m["sha256"], "run_id": st.run_id, "reused": True}
        write_jsonl(out, rows)
        sha = sha256_file(out)
        counts = Counter(r["task"] for r in rows)
        per_task = {t: {"n": counts.get(t, 0), "source_kind": lt.source_kind, "source_uri": lt.source_uri,
                        "digest": lt.digest, "records": len(lt.records), "skipped": lt.skipped}
                    for t, lt in loaded.items()}
        manifest = {"stage": "materialize_shadow", "file": out.name, "sha256": sha, "n": len(rows), "seed": seed,
                    "stratify": stratify, "mix": mix, "per_task": per_task, "ids": [r["id"] for r in rows],
                    "mode": run_mode()}
        write_json(manifest_p, manifest)

        for t, lt in loaded.items():
            if lt.source_kind == "local":
                st.log_file_input(lt.source_uri, f"data.{t}", sha=lt.digest)
            else:
                st.log_source_input(f"data.{t}", lt.source_uri, lt.digest)
        st.log_config(data_cfg, "data.json")
        st.log_metrics({"n": len(rows), **{f"n.{t}": v["n"] for t, v in per_task.items()},
                        **{f"skipped.{t}": v["skipped"] for t, v in per_task.items()}})
        st.log_artifact(out)
        st.log_artifact(manifest_p)
        want = shadow_counts(n, mix, {t: len(lt.records) for t, lt in loaded.items()}) if stratify else None
        ids = [r["id"] for r in rows]
        checks = [
            {"name": "n", "value": len(rows), "threshold": f"== {n}", "pass": len(rows) == n},
            {"name": "unique_ids", "value": len(set(ids)), "threshold": f"== {len(ids)}", "pass": len(set(ids)) == len(ids)},
        ]
        if want is not None:
            checks += [{"name": f"n.{t}", "value": counts.get(t, 0), "threshold": f"== {k}", "pass": counts.get(t, 0) == k}
                       for t, k in want.items()]
        st.verdict(checks, what="materialize_shadow")
    return {"path": str(out), "manifest": str(manifest_p), "n": len(rows), "per_task": per_task, "sha256": sha,
            "run_id": st.run_id, "reused": False}



@click.command("materialize-shadow")
@data_dir_option
@click.option("--n", type=INT, default=None, help="Shadow set size (default: configs/gates.yaml shadow.n, 245).")
@click.option("--seed", type=INT, default=None, help="Selection seed (default: gates.yaml shadow.seed, 20250820).")
@click.option("--stratify/--no-stratify", default=None,
              help="Per-task counts proportional to the configured mix (default: gates.yaml shadow.stratify).")
@click.option("--materialize", default=None, help="Output JSONL (default: out/shadow_eval_<n>.jsonl).")
@click.option("--dump-manifest", "--dump_manifest", "dump_manifest", default=None,
              help="Manifest JSON (default: shadow_manifest.json beside --materialize).")
@click.option("--on-bad-record", "--on_bad_record", "on_bad_record", type=click.Choice(["error", "skip"]),
              default=None, help="Override configs/data.yaml on_bad_record.")
@gates_option
@reuse_option
def command(data_dir, n, seed, stratify, materialize, dump_manifest, on_bad_record, gates_path, reuse):
    """Select and write the held-out shadow evaluation set (stratified by task) with a manifest."""
    out = run_materialize_shadow(data_dir=data_dir, n=n, seed=seed, stratify=stratify, materialize=materialize,
                                 dump_manifest=dump_manifest, gates_path=gates_path, on_bad_record=on_bad_record,
                                 reuse=reuse)
    per = ", ".join(f"{t} {v['n']} ({v['source_kind']})" for t, v in out["per_task"].items())
    click.echo(f"materialize-shadow: {out['n']} records -> {out['path']} [{per}] sha256 {out['sha256'][:12]}"
               + (" (reused)" if out["reused"] else ""))
