"""`rc1 serve MODEL_URI [mlflow models serve options]`: serve a registered version from the bytes rc1 verified.

    rc1 serve models:/rc1-policy@RC1-dev -h 127.0.0.1 -p 5001

The alias is resolved once to a version; that version is downloaded once, into a private directory, and checked
there with the chain `rc1 verify` checks (rc1.trust.version): every file it serves (adapter, tokenizer, MLmodel, rc1's
files; hidden files and __pycache__ too) has the digest its train run signed, and the chain (with a release alias, a
signed promotion to it) holds. The base model is the one its train run signed: the tiny dev base is the train run's
`base` artifact, downloaded and held to its signed digest, never the directory recorded on the training machine; a
local base directory is hashed in place against the digest the signed model records; a hub base loads by name (its
bytes are the hub's: said so). Then `mlflow models serve -m <that directory>` runs on exactly those files (with
`--env-manager local` unless given), its base pinned through RC1_SERVE_BASE (rc1.tracking.served). A link that does
not hold: one line, exit 2, nothing served.

What plain `mlflow models serve -m models:/rc1-policy@RC1` skips: it downloads whatever the store holds under the
alias at that moment (a hand-set alias, or weights swapped in place under a kept one), checks no digest and no
signature, and loads the base from the path recorded at training time.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import arg
from rc1.core.errors import Rc1Error
from rc1.core.settings import configured
from rc1.stages.shared import Trusting

OWN_OPTIONS = ("-m", "--model-uri", "--model_uri")   # the model is the one rc1 verified, never another


@dataclass(kw_only=True)
class Config(Trusting):
    """Verify a registered version (every file it serves, its base, its signed chain), then serve exactly those bytes
    with `mlflow models serve`; options after the model URI are mlflow's (-h HOST, -p PORT, -w WORKERS, ...)."""

    uri: str = arg(help="models:/<name>@<alias> or models:/<name>/<version>.", argument=True)
    serve_args: tuple[str, ...] = arg((), "`mlflow models serve` options (never -m: the model is the verified one).",
                                      argument=True, mlproject=False)


def refuse_own_options(args: tuple[str, ...]) -> None:
    """A model option in `args`, in any spelling click reads (`-m X`, `-mX`, `--model-uri=X`), is refused: the model
    served is the version rc1 verified."""
    bad = [a for a in args if a.startswith(("-m", *OWN_OPTIONS[1:]))]
    if bad:
        raise Rc1Error(f"rc1 serve: {bad[0]} is not passed on: the model served is the version rc1 verified")


def serve_command(model_dir: Path, args: tuple[str, ...]) -> list[str]:
    """`mlflow models serve -m <model_dir> ...`, in this environment (`--env-manager local`) unless told otherwise."""
    refuse_own_options(args)
    env_manager = any(a == "--env-manager" or a.startswith("--env-manager=") for a in args)
    return [sys.executable, "-m", "mlflow", "models", "serve", "-m", str(model_dir),
            *([] if env_manager else ["--env-manager", "local"]), *args]


@configured
def run(cfg: Config) -> dict:
    """Verify, then serve until the server exits or rc1 is stopped; returns {name, version, returncode}."""
    from rc1.stages.shared import parse_model_uri
    from rc1.tracking.evidence import store_source, version_record
    from rc1.tracking.registry import resolve_version
    from rc1.tracking.served import SERVE_BASE_ENV
    from rc1.train.tiny import resolve_base
    from rc1.trust.models import base_info, signed_base
    from rc1.trust.version import verify_version

    name, version, alias = parse_model_uri(cfg.uri)
    refuse_own_options(cfg.serve_args)   # before anything is downloaded
    trust = cfg.pinned_trust()
    source = store_source(read_only=True)
    mv = resolve_version(version, alias, name=name)   # the alias, once: from here on it is this version
    workdir = Path(tempfile.mkdtemp(prefix="rc1-serve-"))
    try:
        verdict = verify_version(source, name, str(mv.version), alias=alias, trust=trust, keep_model=workdir / "model")
        click.echo(verdict.table(), err=True)
        if not verdict.ok:
            raise Rc1Error(f"rc1 serve refuses {cfg.uri}: {verdict.why}; nothing served")
        base, how = signed_base(source, version_record(mv), verdict.statements["train"], base_info(verdict.model_dir),
                                workdir / "base", local=resolve_base)
        cmd = serve_command(verdict.model_dir, cfg.serve_args)
        click.echo(f"[rc1] serving {name} version {mv.version}{f' ({alias})' if alias else ''}: every file verified, "
                   f"sha256 {verdict.facts['model_sha256'][:12]}; base: {how}", err=True)
        env = {**os.environ, SERVE_BASE_ENV: base if Path(base).is_dir() else ""}
        return {"name": name, "version": str(mv.version), "returncode": _serve(cmd, env)}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _serve(cmd: list[str], env: dict[str, str]) -> int:
    """Run the server in the foreground; a stop (Ctrl-C, SIGTERM) is passed on to it, and rc1 waits for it to end."""
    from rc1.core.proc import Stopped

    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    try:
        return proc.wait()
    except (KeyboardInterrupt, Stopped):
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        raise


def show(res: dict) -> None:
    click.echo(f"rc1 serve: {res['name']} version {res['version']}: the server exited ({res['returncode']})")
