"""A version's weights, as its train run signed them: the bytes a registered version serves (the LoggedModel its
train run signed, every file of it), the base model it loads (the train run's signed `base` artifact for the tiny
dev model; a local base directory held to the digest the signed model records; a hub name cannot be held to
anything and is said so), and a version's GGUF export. Each is downloaded from the store and checked here before
anything loads it; a mismatch is Rc1Error (exit 2), one line naming the version."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from rc1.core.errors import Rc1Error
from rc1.core.io import read_json, sha256_dir, sha256_file
from rc1.trust.keys import Trust
from rc1.trust.runs import fetch_signed, run_statement
from rc1.trust.source import FetchError, Source, VersionRecord
from rc1.trust.statements import AttestationError, Statement

RC1_DIR = "rc1"                     # rc1's own files inside a version's MLflow Model (rc1.tracking.policy_model)
BASE_INFO = "rc1_base.json"
REGISTRY_META = "registered_model_meta"   # MLflow's registry writes it into a model directory as it downloads it


def model_id_of(mv: VersionRecord) -> str | None:
    """The LoggedModel a version was made from (its source models:/<model_id>), else None."""
    rest = mv.source[len("models:/"):] if mv.source.startswith("models:/") else ""
    return rest if rest.startswith("m-") and "/" not in rest else (mv.model_id or None)


def train_statement(source: Source, mv: VersionRecord, trust: Trust | None = None) -> Statement:
    """The verified statement of the version's train run; Rc1Error naming the version when it has none that holds."""
    run = source.run(mv.run_id)
    if run is None:
        raise Rc1Error(f"{mv.name} version {mv.version}: its train run {mv.run_id} is not in the tracking server")
    try:
        return run_statement(source, run, "train", trust)
    except AttestationError as e:
        raise Rc1Error(f"{mv.name} version {mv.version}: train run {mv.run_id} {e}") from None


def source_problem(source: Source, mv: VersionRecord, stmt: Statement) -> str | None:
    """Why the version does not serve exactly the LoggedModel its train run signed, as the model it signed it for
    (None when it does): its source must be models:/<that model_id>, that LoggedModel's source run the train run, and
    the registered model the one the train run signed."""
    where = f"{mv.name} version {mv.version}"
    want = stmt.tags.get("rc1.model_id")
    if not want:
        return f"{where}: train run {mv.run_id} signed no logged model"
    if stmt.tags.get("rc1.registered_model") != mv.name:
        return (f"{where}: train run {mv.run_id} signed its model for registered model "
                f"{stmt.tags.get('rc1.registered_model')!r}, not {mv.name!r}")
    if mv.source != f"models:/{want}":
        return (f"{where}: its source {mv.source} is not train run {mv.run_id}'s logged model models:/{want} (a "
                f"version made any other way is refused)")
    source_run = source.logged_model_run(want)
    if source_run is None:
        return f"{where}: its logged model {want} is not in the tracking server"
    if source_run != mv.run_id:
        return f"{where}: logged model {want} comes from run {source_run}, not {mv.run_id}"
    return None


def pinned_model(source: Source, mv: VersionRecord, dst: str | Path, stmt: Statement) -> tuple[Path, str]:
    """The bytes the version serves (models:/<name>/<version>, what load_model and `mlflow models serve` download),
    downloaded into `dst` and held, every file of them, to the model digest its train run signed; (local dir,
    digest)."""
    problem = source_problem(source, mv, stmt)
    if problem:
        raise Rc1Error(problem)
    try:
        local = source.download_model(f"models:/{mv.name}/{mv.version}", Path(dst))
    except FetchError as e:
        raise Rc1Error(f"{mv.name} version {mv.version}: its model cannot be downloaded ({e})") from None
    # not a file of the model: the registry's note of the version's name and number, written by the download
    (local / REGISTRY_META).unlink(missing_ok=True)
    got = sha256_dir(local)
    if got != stmt.subjects.get("model"):
        raise Rc1Error(f"{mv.name} version {mv.version}: the model it serves does not match the digest train run "
                       f"{mv.run_id} signed (altered in the store?); refusing to load it")
    return local, got


def base_info(model_dir: Path) -> dict:
    """rc1_base.json of a verified model directory (what base it was trained on, and that base's digest)."""
    path = Path(model_dir) / RC1_DIR / BASE_INFO
    if not path.is_file():
        path = Path(model_dir) / BASE_INFO   # a version from before the MLflow Model format: a bare adapter
    return read_json(path) if path.is_file() else {}


def signed_base(source: Source, mv: VersionRecord, stmt: Statement, info: dict, dst: str | Path,
                local: Callable[[str], str] = str) -> tuple[str, str]:
    """(the base model to load, how it was verified). The tiny dev base: the train run's `base` artifact, downloaded
    into `dst` and held to its signed digest (never the path on the training machine); a local base: the directory
    `local` makes of the name training was given (a GGUF file, first held to its own signed digest: the model
    directory training converted it into, rc1.train.tiny.resolve_base), held in place to the digest the signed
    model's rc1_base.json records; a hub name:
    loaded by name (not verifiable here: say so)."""
    where = f"{mv.name} version {mv.version}"
    if info.get("tiny"):
        want = stmt.subjects.get("base")
        if not want or (info.get("base_sha256") and info["base_sha256"] != want):
            raise Rc1Error(f"{where}: train run {mv.run_id} signed no base model that its rc1_base.json names")
        run = source.run(mv.run_id)
        try:
            local = fetch_signed(source, run, "base", want, dst, directory="base" in stmt.directories)
        except Rc1Error:
            raise Rc1Error(f"{where}: the base model train run {mv.run_id} logged does not match the digest it "
                           f"signed (altered in the store?); refusing to load it") from None
        return str(local), f"the train run's base artifact, sha256 {want[:12]} (downloaded)"
    base = info.get("base") or ""
    if not base:
        raise Rc1Error(f"{where}: its signed model names no base model (rc1/{BASE_INFO})")
    if Path(base).is_dir() or info.get("base_sha256"):
        want = info.get("base_sha256")
        if not want:
            raise Rc1Error(f"{where}: its base {base} is a local directory whose digest the train run did not sign")
        gguf = info.get("base_gguf_sha256")   # a GGUF file: held to its own digest before it is converted or read
        try:
            same = not gguf or (Path(base).is_file() and sha256_file(base) == gguf)
        except OSError:   # unreadable here
            same = False
        if not same:
            raise Rc1Error(f"{where}: the GGUF base {base} is not the file the train run signed (sha256 differs or "
                           f"it is gone); refusing to load it")
        try:
            path = local(base)
        except (Rc1Error, OSError) as e:   # a GGUF base that no longer converts here (its model cache unwritable)
            raise Rc1Error(f"{where}: its base {base} cannot be made a model directory here ({e}); refusing to "
                           f"load it") from None
        if not Path(path).is_dir() or sha256_dir(path) != want:
            raise Rc1Error(f"{where}: the local base model {path} is not the one the train run signed (sha256 "
                           f"differs or it is gone); refusing to load it")
        return path, f"local directory {path}, sha256 {want[:12]} (hashed here)"
    return base, f"hub model {base} (by name: its bytes are the hub's, not held to a signed digest)"


def download_export(source: Source, mv: VersionRecord, dst: Path) -> tuple[Path, str]:
    """(local path of the version's GGUF export (`rc1 export-gguf`), its out type): the version's tags only find the
    export run; the file is held to the digest that run's signed statement gives it, and that statement must be of
    an export of this version. Rc1Error when there is none, or it does not verify."""
    run_id, name = mv.tags.get("rc1.gguf_run_id"), mv.tags.get("rc1.gguf_artifact")
    if not (run_id and name):
        raise Rc1Error(f"version {mv.version} has no GGUF export: run `rc1 export-gguf --version {mv.version}` first")
    run = source.run(run_id)
    if run is None:
        raise Rc1Error(f"version {mv.version}: its GGUF export run {run_id} is not in the tracking server")
    try:
        stmt = run_statement(source, run, "export_gguf")
    except AttestationError as e:
        raise Rc1Error(f"version {mv.version}: its GGUF export run {run_id} {e}") from None
    said = (stmt.tags.get("rc1.registered_model"), stmt.tags.get("rc1.model_version"), stmt.tags.get("rc1.train_run_id"))
    if said != (mv.name, str(mv.version), mv.run_id) or not stmt.subjects.get(name):
        raise Rc1Error(f"version {mv.version}: its GGUF export run {run_id} signed no export {name} of this version")
    return (fetch_signed(source, run, name, stmt.subjects[name], dst, directory=name in stmt.directories),
            stmt.tags.get("rc1.gguf_outtype", ""))
