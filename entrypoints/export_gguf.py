"""`rc1 export-gguf --version N | --alias A [--outtype f16|q8_0|f32]`.

Loads the version's base model and LoRA adapter, merges them, writes a GGUF file (rc1.gguf_export) and logs it as
an artifact of an `export_gguf` run (tag sha256.<file>). The version is linked to it by its tags
rc1.gguf_run_id, rc1.gguf_sha256, rc1.gguf_outtype and rc1.gguf_artifact; `rc1 evaluate --backend llamacpp`
downloads that artifact and checks its sha256.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from entrypoints._common import quiet_trl_deprecations
from rc1.errors import Rc1Error
from rc1.gguf_export import OUTTYPES


def download_export(mv, dst: Path) -> tuple[Path, str]:
    """(local path of the version's GGUF export, its out type), sha256-verified; Rc1Error when there is none."""
    from mlflow.tracking import MlflowClient

    from rc1.io import sha256_file

    tags = mv.tags or {}
    run_id, name, sha = tags.get("rc1.gguf_run_id"), tags.get("rc1.gguf_artifact"), tags.get("rc1.gguf_sha256")
    if not (run_id and name and sha):
        raise Rc1Error(f"version {mv.version} has no GGUF export: run `rc1 export-gguf --version {mv.version}` first")
    dst.mkdir(parents=True, exist_ok=True)
    path = Path(MlflowClient().download_artifacts(run_id, name, str(dst)))
    if sha256_file(path) != sha:
        raise Rc1Error(f"version {mv.version}: GGUF artifact {name} of run {run_id} does not match its sha256 tag")
    return path, tags.get("rc1.gguf_outtype", "")


def run_export_gguf(version: str | int | None = None, alias: str | None = None, outtype: str = "f16") -> dict:
    """Export one registered version to GGUF; returns {run_id, version, path (artifact name), sha256, outtype}."""
    import gguf

    from entrypoints.evaluate import version_weights
    from rc1.gguf_export import merged_model, write_gguf
    from rc1.tracking import run_mode, setup_tracking, stage_run
    from rc1.tracking.registry import MODEL_NAME, resolve_version, set_version_tags
    from rc1.train.tiny import load_tokenizer

    if outtype not in OUTTYPES:
        raise Rc1Error(f"--outtype {outtype!r}: choose one of {', '.join(OUTTYPES)}")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    setup_tracking()
    mv = resolve_version(version, alias) if (version is not None or alias is not None) else resolve_version(alias="best")
    params = {"version": mv.version, "alias": alias, "outtype": outtype}
    tags = {"rc1.model_version": mv.version, "rc1.registered_model": MODEL_NAME, "rc1.train_run_id": mv.run_id}
    with stage_run("export_gguf", params=params, reuse=False, run_name=f"export_gguf v{mv.version}", tags=tags) as st:
        with tempfile.TemporaryDirectory() as d, quiet_trl_deprecations():
            base_name, adapter, tok_src, info = version_weights(mv, Path(d))
            tok = load_tokenizer(tok_src)
            out = Path(d) / "gguf" / f"{MODEL_NAME}-v{mv.version}-{outtype}.gguf"
            write_gguf(merged_model(base_name, adapter), tok, out, outtype, name=f"{MODEL_NAME}-v{mv.version}")
            reader = gguf.GGUFReader(str(out))   # what a consumer does first: it must read back
            n_tensors = len(reader.tensors)
            sha = st.log_artifact(out)
            size = out.stat().st_size
        st.log_metrics({"gguf_bytes": size, "gguf_tensors": n_tensors})
        st.set_tags({"rc1.base_model": info.get("base", ""), "rc1.gguf_sha256": sha, "rc1.gguf_outtype": outtype})
        set_version_tags(mv.version, {"rc1.gguf_run_id": st.run_id, "rc1.gguf_sha256": sha,
                                      "rc1.gguf_outtype": outtype, "rc1.gguf_artifact": out.name})
    mode = run_mode()
    click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] export_gguf {MODEL_NAME} v{mv.version}: {out.name} "
               f"({size} bytes, {n_tensors} tensors, {outtype}) sha256 {sha[:12]}", err=True)
    return {"run_id": st.run_id, "version": str(mv.version), "path": out.name, "sha256": sha, "outtype": outtype,
            "bytes": size}


@click.command("export-gguf")
@click.option("--version", default=None, help="model version of rc1-policy")
@click.option("--alias", default=None, help="model alias (default: best when no --version)")
@click.option("--outtype", type=click.Choice(OUTTYPES), default="f16", show_default=True,
              help="weight type of 2-D tensors (norms stay f32)")
def command(version, alias, outtype):
    """Merge a registered version's LoRA adapter into its base and export it as GGUF (for llama.cpp)."""
    res = run_export_gguf(version, alias, outtype)
    click.echo(f"export_gguf run {res['run_id']}: version {res['version']} -> {res['path']} sha256 {res['sha256']}")
