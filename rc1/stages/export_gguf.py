"""`rc1 export-gguf --version N | --alias A [--outtype f16|q8_0|f32]`.

Loads the version's base model and LoRA adapter, merges them, writes a GGUF file (rc1.inference.gguf_export) and logs it as
an artifact of an `export_gguf` run (tag sha256.<file>). The version is linked to it by its tags
rc1.gguf_run_id, rc1.gguf_sha256, rc1.gguf_outtype and rc1.gguf_artifact; `rc1 evaluate --backend llamacpp`
downloads that artifact and holds it to the digest the export run's signed statement gives it
(rc1.tracking.registry.download_export): the version's tags only find the run.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import arg, logged_params
from rc1.inference.gguf_export import OUTTYPES
from rc1.stages.shared import Moded, Versioned
from rc1.train.quiet import quiet_trl_deprecations
from rc1.core.settings import configured


@dataclass
class Config(Versioned, Moded):
    """Merge a registered version's LoRA adapter into its base and export it as GGUF (for llama.cpp)."""

    outtype: str = arg("f16", "Weight type of 2-D tensors (norms stay f32).", choices=OUTTYPES)


@configured
def run(cfg: Config) -> dict:
    """Export one registered version (unset: alias best) to GGUF; returns {run_id, version, path (artifact name),
    sha256, outtype, bytes}."""
    import gguf

    from rc1.inference.gguf_export import merged_model, write_gguf
    from rc1.tracking import stage_run
    from rc1.tracking.registry import BEST, MODEL_NAME, resolve_version, set_version_tags, version_weights
    from rc1.train.tiny import load_tokenizer

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from rc1.release.reconcile import reconcile_promotions
    from rc1.tracking.evidence import store_source, version_record
    from rc1.trust.version import require_verified

    source = store_source()
    reconcile_promotions()
    version, alias = cfg.version_or_alias(BEST)
    mv = resolve_version(version, alias)
    require_verified(source, version_record(mv), alias, "rc1 export-gguf")   # a hand-set RC1 or best: refused
    params = {**logged_params(cfg), "version": mv.version, "alias": cfg.alias}
    tags = {"rc1.model_version": mv.version, "rc1.registered_model": MODEL_NAME, "rc1.train_run_id": mv.run_id}
    # signed: `rc1 evaluate --backend llamacpp` takes the file the statement names (rc1.tracking.registry.download_export)
    with stage_run("export_gguf", params=params, reuse=False, run_name=f"export_gguf v{mv.version}", tags=tags,
                   attest=True) as st:
        with tempfile.TemporaryDirectory() as d, quiet_trl_deprecations():
            base_name, adapter, tok_src, info = version_weights(mv, Path(d))
            tok = load_tokenizer(tok_src)
            out = Path(d) / "gguf" / f"{MODEL_NAME}-v{mv.version}-{cfg.outtype}.gguf"
            write_gguf(merged_model(base_name, adapter), tok, out, cfg.outtype, name=f"{MODEL_NAME}-v{mv.version}")
            reader = gguf.GGUFReader(str(out))   # what a consumer does first: it must read back
            n_tensors = len(reader.tensors)
            sha = st.log_artifact(out)
            size = out.stat().st_size
        st.log_metrics({"gguf_bytes": size, "gguf_tensors": n_tensors})
        st.set_tags({"rc1.base_model": info.get("base", ""), "rc1.gguf_sha256": sha, "rc1.gguf_outtype": cfg.outtype})
        set_version_tags(mv.version, {"rc1.gguf_run_id": st.run_id, "rc1.gguf_sha256": sha,
                                      "rc1.gguf_outtype": cfg.outtype, "rc1.gguf_artifact": out.name})
    mode = cfg.mode
    click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] export_gguf {MODEL_NAME} v{mv.version}: {out.name} "
               f"({size} bytes, {n_tensors} tensors, {cfg.outtype}) sha256 {sha[:12]}", err=True)
    return {"run_id": st.run_id, "version": str(mv.version), "path": out.name, "sha256": sha, "outtype": cfg.outtype,
            "bytes": size}


def show(res: dict) -> None:
    click.echo(f"export_gguf run {res['run_id']}: version {res['version']} -> {res['path']} sha256 {res['sha256']}")
