"""Which source a task's records come from: --data-dir, else configs/data.yaml's sources in order
(local file, Hugging Face when online, the real sample bundled with rc1).

A source that is absent (no such local file, the hub offline) is passed over; a source that is there but
fails (a malformed file, a Hugging Face load that raises) is an error naming it, never a fall-through to
the next one. In prod (--mode prod) the bundled sample is refused: it exists for offline runs and tests, so
reaching it is an error naming the task, the file and what was passed over."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from rc1.core.config import DataConfig, Source, TASKS, TaskSources, load_data_config
from rc1.data.files import DATA_FILES, read_task_file, task_file
from rc1.data.hf import hub_online, load_hf
from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_file, stat_fingerprint, why_not_a_file
from rc1.core.records import Task
from rc1.core.text import strip_format_chars

log = logging.getLogger("rc1.data")
DATA_CONFIG = Path("configs") / "data.yaml"
BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"   # the real sample shipped with rc1 (README.md there)


@dataclass
class LoadedTasks:
    records: list[Task]
    source_kind: str            # local | hf | bundled
    source_uri: str             # absolute file path (bundled: the .gz file), hf://name/config@split
    digest: str                 # file sha256 | sha256 of the HF fingerprint
    skipped: int = 0            # bad records left out (on_bad_record=skip)
    task: str = ""
    skip_examples: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)   # earlier sources passed over, and why
    format_chars: int = 0       # invisible format characters (zero-width, soft hyphen, bidi) stripped at load

    def __post_init__(self):
        # a question with a zero-width space in each word reads the same to a person and to the model: the records
        # hold its visible text, so the shadow set's guards meet it as the plain question (rc1.core.text)
        self.format_chars += strip_record_format_chars(self.records)
        if self.format_chars:
            log.info("%s: stripped %d invisible format character(s) (Unicode Cf) from its texts", self.source_uri,
                        self.format_chars)

    def summary(self) -> dict:
        return {"task": self.task, "n": len(self.records), "source_kind": self.source_kind,
                "source_uri": self.source_uri, "digest": self.digest, "skipped": self.skipped,
                "format_chars": self.format_chars}


def strip_record_format_chars(records: list[Task]) -> int:
    """Strip format characters from every text of the records in place (question, answer, facts, decomposition,
    context sentences); returns how many there were."""
    def clean(s: str) -> str:
        nonlocal n
        out, k = strip_format_chars(s)
        n += k
        return out

    n = 0
    for r in records:
        for key in ("question", "answer"):
            if isinstance(r.get(key), str):
                r[key] = clean(r[key])
        for key in ("facts", "decomposition"):
            if r.get(key):
                r[key] = [clean(x) if isinstance(x, str) else x for x in r[key]]
        for para in r.get("context") or []:   # [title, [sentences]] (or [title, text])
            if isinstance(para, list) and len(para) == 2:
                title, body = para
                para[0] = clean(title) if isinstance(title, str) else title
                para[1] = clean(body) if isinstance(body, str) else [clean(x) if isinstance(x, str) else x
                                                                     for x in body]
    return n


def default_data_config() -> DataConfig:
    """configs/data.yaml from the working directory, else the one beside the package, else the bundled sample."""
    for path in (DATA_CONFIG, Path(__file__).resolve().parents[2] / DATA_CONFIG):
        if path.is_file():
            return load_data_config(path)
    return DataConfig(tasks={t: TaskSources(sources=[Source(kind="bundled")]) for t in TASKS})


def sources_identity(data_cfg: DataConfig | None = None, mode: str | None = None) -> dict:
    """What decides the records load_tasks returns without --data-dir, known before loading them (a reuse key part):
    configs/data.yaml's sources, the mode (prod refuses the bundled sample), whether the hub answers (when a source is on
    it) and each local source file's size and modification time."""
    cfg = data_cfg or default_data_config()
    sources = [s for ts in cfg.tasks.values() for s in ts.sources]
    out = {"config": cfg.model_dump(mode="json"), "mode": _mode(mode),
           "local": {s.path: stat_fingerprint(s.path) for s in sources if s.kind == "local" and s.path}}
    if any(s.kind == "hf" for s in sources):
        out["hub_online"] = hub_online()
    return out


def _from_file(task: str, path: Path, on_bad_record: str, kind: str = "local") -> LoadedTasks:
    res = read_task_file(task, path, on_bad_record)  # type: ignore[arg-type]
    if res.skipped:
        log.warning("%s: skipped %d bad record(s), e.g. %s", path, res.skipped, res.skip_examples[0])
    return LoadedTasks(res.records, kind, str(path.resolve()), sha256_file(path), res.skipped, task,
                       res.skip_examples)


def _mode(mode: str | None) -> str:
    from rc1.core.settings import run_mode

    return run_mode(mode)


def load_tasks(task: str, data_dir: str | Path | None = None, data_cfg: DataConfig | None = None,
               on_bad_record: str | None = None, mode: str | None = None) -> LoadedTasks:
    """The records of one task from the first available source (see module doc). data_dir given: DIR/<official
    file> (or .gz) must exist; on_bad_record (error|skip) overrides data.yaml's; mode defaults to the run mode (rc1.core.settings)."""
    if task not in TASKS:
        raise Rc1Error(f"unknown task {task!r}; known: {', '.join(TASKS)}")
    cfg = data_cfg or default_data_config()
    bad = on_bad_record or cfg.on_bad_record
    if bad not in ("error", "skip"):
        raise Rc1Error(f"on_bad_record: {bad!r} is not 'error' or 'skip'")
    if data_dir is not None:
        path = task_file(data_dir, task)
        if why_not_a_file(path):
            raise Rc1Error(f"{path}: {why_not_a_file(path)} (--data-dir DIR needs DIR/{DATA_FILES[task]})")
        return _from_file(task, path, bad)

    sources = cfg.tasks[task].sources if task in cfg.tasks else [Source(kind="bundled")]
    tried: list[str] = []
    for src in sources:
        if src.kind == "local":
            path = Path(src.path or "")
            if not path.is_file():
                tried.append(f"local {path}: not found")
                continue
            loaded = _from_file(task, path, bad)
        elif src.kind == "hf":
            if not hub_online():
                tried.append(f"hf {src.name}: offline")
                continue
            try:
                records, uri, digest, skipped = load_hf(task, src.name or "", src.config, src.split, bad)
            except Rc1Error:
                raise
            except Exception as e:  # network, auth, missing config: an error naming the dataset, not a fallback
                what = f"{src.name}" + (f" ({src.config})" if src.config else "") + (f" split {src.split}" if src.split else "")
                first = str(e).splitlines()[0][:160] if str(e) else ""
                raise Rc1Error(f"{task}: Hugging Face dataset {what} failed to load: {type(e).__name__}: {first}"
                               " (fix the source in configs/data.yaml or pass --data-dir)") from None
            loaded = LoadedTasks(records, "hf", uri, digest, skipped, task)
        else:   # bundled
            path = task_file(src.path or BUNDLED_DIR, task)
            if not path.is_file():
                tried.append(f"bundled {path}: not found")
                continue
            if _mode(mode) == "prod":
                raise Rc1Error(f"{task}: prod refuses the bundled sample (offline runs and tests only) {path}; "
                               f"passed over: {'; '.join(tried) or 'no other source configured'}. "
                               "Configure a local file or Hugging Face dataset in configs/data.yaml, or pass --data-dir")
            loaded = _from_file(task, path, bad, "bundled")
        if not loaded.records:
            tried.append(f"{loaded.source_kind} {loaded.source_uri}: no records")
            continue
        loaded.tried = tried
        return loaded
    raise Rc1Error(f"{task}: no data source available ({'; '.join(tried) or 'none configured'})")


def bundled_tasks(task: str) -> list[Task]:
    """The records of one task of the real sample bundled with rc1 (tests, probes and benchmarks use it)."""
    return load_tasks(task, BUNDLED_DIR).records


def source_tags(loaded: dict[str, LoadedTasks]) -> dict[str, str]:
    """The tags every data run carries: rc1.data_source.<task> = local|hf|bundled, rc1.data_uri.<task> = where."""
    return {**{f"rc1.data_source.{t}": lt.source_kind for t, lt in loaded.items()},
            **{f"rc1.data_uri.{t}": lt.source_uri[:500] for t, lt in loaded.items()}}
