"""`rc1 failpack [--out PATH]`: one tar.gz with what a person needs to debug a failed run: reports/
(ERROR_*.json, preflight verdicts), configs/, training logs and manifests (out/train/*/metrics.jsonl,
ckpt_manifest.jsonl, run_meta.json), and *.log files. Never model weights, never the tracking database,
never environment variables (no secrets)."""

from __future__ import annotations

import datetime as _dt
import tarfile
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import arg
from rc1.core.settings import configured

SMALL_FILES = ("metrics.jsonl", "ckpt_manifest.jsonl", "run_meta.json", "latest")
MAX_FILE_BYTES = 20 * 2**20


@dataclass
class Config:
    """Bundle reports, configs and training logs into one tar.gz for a bug report."""

    out: str | None = arg(None, "Archive path (unset: reports/failpack_<ts>.tar.gz).")


def failpack_members(root: Path = Path(".")) -> list[Path]:
    members: list[Path] = []
    for folder in ("reports", "configs"):
        members += sorted(p for p in (root / folder).rglob("*") if p.is_file())
    train = root / "out" / "train"
    if train.is_dir():
        members += sorted(p for p in train.glob("*/*") if p.is_file() and p.name in SMALL_FILES)
    members += sorted(p for p in root.glob("*.log") if p.is_file())
    members += sorted(p for p in (root / "logs").rglob("*") if p.is_file()) if (root / "logs").is_dir() else []
    return [p for p in members if p.stat().st_size <= MAX_FILE_BYTES and not p.name.startswith("failpack_")]


@configured
def run(cfg: Config, root: str = ".") -> dict:
    """Write the archive; returns {path, files}. `root`: the checkout whose files are packed."""
    root_p = Path(root)
    ts = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    dest = Path(cfg.out) if cfg.out else root_p / "reports" / f"failpack_{ts}.tar.gz"
    members = [p for p in failpack_members(root_p) if p.resolve() != dest.resolve()]
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp")
    with tarfile.open(tmp, "w:gz") as tar:
        for p in members:
            tar.add(p, arcname=str(Path(f"failpack_{ts}") / p.relative_to(root_p)))
    tmp.replace(dest)
    return {"path": str(dest), "files": len(members)}


def show(res: dict) -> None:
    click.echo(f"{res['path']}: {res['files']} files")
