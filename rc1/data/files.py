"""Readers for the official files (plain or gzip-compressed, `<official file>.gz`): a bad record is an Rc1Error
naming file and line/item, or (skip mode) counted and left out."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rc1.data.formats import BadRecord, normalize_gsm8k, normalize_hotpotqa, normalize_strategyqa
from rc1.core.errors import Rc1Error
from rc1.core.io import PARSE_ERRORS, json_problem, parse_problem, readable_file
from rc1.core.records import Task

OnBad = Literal["error", "skip"]

# --data-dir DIR reads these (the layout of ../shared/data)
DATA_FILES = {
    "hotpotqa": "hotpotqa/hotpot_dev_distractor_v1.json",
    "strategyqa": "strategyqa/strategyqa_train.json",
    "gsm8k": "gsm8k/train.jsonl",
}
MAX_SKIP_EXAMPLES = 5


def task_file(directory: str | Path, task: str) -> Path:
    """DIR/<official file>, else DIR/<official file>.gz when only that exists (the bundled sample's layout)."""
    path = Path(directory) / DATA_FILES[task]
    gz = path.with_name(path.name + ".gz")
    return gz if not path.is_file() and gz.is_file() else path


def _open(path: Path):
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


@dataclass
class ReadResult:
    records: list[Task]
    skipped: int = 0
    skip_examples: list[str] = field(default_factory=list)

    def skip(self, message: str) -> None:
        self.skipped += 1
        if len(self.skip_examples) < MAX_SKIP_EXAMPLES:
            self.skip_examples.append(message)


def _check_mode(on_bad_record: str) -> None:
    if on_bad_record not in ("error", "skip"):
        raise Rc1Error(f"on_bad_record: {on_bad_record!r} is not 'error' or 'skip'")


def read_json_list(path: str | Path, task: str, on_bad_record: OnBad = "error") -> ReadResult:
    """HotpotQA / StrategyQA: one JSON list of records ('item N' is 1-based)."""
    _check_mode(on_bad_record)
    path = readable_file(path)
    normalize = {"hotpotqa": normalize_hotpotqa, "strategyqa": normalize_strategyqa}[task]
    try:
        with _open(path) as fh:
            items = json.load(fh)
    except (EOFError, gzip.BadGzipFile) as e:  # gzip: truncated or not gzip
        raise Rc1Error(f"{path}: unreadable ({e})") from None
    except UnicodeDecodeError:
        raise Rc1Error(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise Rc1Error(f"{path}: {json_problem(e)} (truncated file?)") from None
    except OSError as e:
        raise Rc1Error(f"{path}: cannot read ({e.strerror or type(e).__name__})") from None
    except PARSE_ERRORS as e:
        raise Rc1Error(f"{path}: {parse_problem(e)}") from None
    if not isinstance(items, list):
        raise Rc1Error(f"{path}: expected a JSON list of {task} records, got {type(items).__name__}")
    out = ReadResult([])
    seen: set[str] = set()
    for n, raw in enumerate(items, 1):
        try:
            rec = normalize(raw)
            if rec["id"] in seen:
                raise BadRecord(f"duplicate id {rec['id']!r}")
        except BadRecord as e:
            msg = f"{path}: item {n}: {e}"
            if on_bad_record == "error":
                raise Rc1Error(msg) from None
            out.skip(msg)
            continue
        seen.add(rec["id"])
        out.records.append(rec)
    return out


def read_gsm8k_jsonl(path: str | Path, on_bad_record: OnBad = "error") -> ReadResult:
    """GSM8K: JSONL of {question, answer}; the source id is the 1-based line number."""
    _check_mode(on_bad_record)
    path = readable_file(path)
    out = ReadResult([])
    try:
        fh = _open(path)
    except OSError as e:
        raise Rc1Error(f"{path}: cannot read ({e.strerror or type(e).__name__})") from None
    with fh:
        try:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    try:
                        raw = json.loads(line)
                    except (json.JSONDecodeError, *PARSE_ERRORS) as e:
                        raise BadRecord(parse_problem(e)) from None
                    out.records.append(normalize_gsm8k(raw, lineno))
                except BadRecord as e:
                    msg = f"{path}: line {lineno}: {e}"
                    if on_bad_record == "error":
                        raise Rc1Error(msg) from None
                    out.skip(msg)
        except UnicodeDecodeError:
            raise Rc1Error(f"{path}: not UTF-8 text") from None
        except (OSError, EOFError) as e:
            raise Rc1Error(f"{path}: unreadable ({e})") from None
    return out


def read_task_file(task: str, path: str | Path, on_bad_record: OnBad = "error") -> ReadResult:
    if task == "gsm8k":
        return read_gsm8k_jsonl(path, on_bad_record)
    if task in ("hotpotqa", "strategyqa"):
        return read_json_list(path, task, on_bad_record)
    raise Rc1Error(f"unknown task {task!r}; known: {', '.join(DATA_FILES)}")
