"""Hugging Face datasets as a source, only when the hub is reachable. The HF copies use their own
schemas; each row is turned back into the official record shape and through the same normalizer."""

from __future__ import annotations

import functools
import logging
import os
import re
import socket
from typing import Any, Iterable

from rc1.data.formats import BadRecord, normalize_gsm8k, normalize_hotpotqa, normalize_strategyqa
from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_text
from rc1.core.records import Task

log = logging.getLogger("rc1.data")
HUB_HOST = "huggingface.co"


@functools.lru_cache(maxsize=1)
def hub_online(timeout: float = 2.0) -> bool:
    """False at once under HF_HUB_OFFLINE/HF_DATASETS_OFFLINE, else a TCP connect to the hub within `timeout`."""
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0") or os.environ.get("HF_DATASETS_OFFLINE", "0") not in ("", "0"):
        return False
    host = os.environ.get("HF_ENDPOINT", f"https://{HUB_HOST}").split("://")[-1].split("/")[0]
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


def hotpotqa_row(row: dict) -> dict:
    """hotpotqa/hotpot_qa: supporting_facts {title, sent_id}, context {title, sentences} -> official lists."""
    sf, ctx = row.get("supporting_facts") or {}, row.get("context") or {}
    return {
        "_id": row.get("id", row.get("_id")),
        "question": row.get("question"),
        "answer": row.get("answer"),
        "type": row.get("type"),
        "level": row.get("level"),
        "supporting_facts": [[t, i] for t, i in zip(sf.get("title", []), sf.get("sent_id", []))]
        if isinstance(sf, dict) else sf,
        "context": [[t, list(s)] for t, s in zip(ctx.get("title", []), ctx.get("sentences", []))]
        if isinstance(ctx, dict) else ctx,
    }


def strategyqa_row(row: dict) -> dict:
    """ChilleD/StrategyQA and similar: facts may be one string; decomposition may be missing."""
    facts = row.get("facts", [])
    if isinstance(facts, str):
        facts = [f.strip() for f in re.split(r"(?<=[.!?])\s+", facts) if f.strip()]
    decomposition = row.get("decomposition", [])
    if isinstance(decomposition, str):
        decomposition = [d.strip() for d in decomposition.splitlines() if d.strip()]
    return {**row, "qid": row.get("qid"), "facts": facts, "decomposition": decomposition or []}


def normalize_hf_rows(task: str, rows: Iterable[dict], on_bad_record: str = "error",
                      where: str = "hf") -> tuple[list[Task], int]:
    out: list[Task] = []
    skipped = 0
    for n, row in enumerate(rows, 1):
        try:
            if task == "hotpotqa":
                out.append(normalize_hotpotqa(hotpotqa_row(row)))
            elif task == "strategyqa":
                out.append(normalize_strategyqa(strategyqa_row(row)))
            else:
                out.append(normalize_gsm8k(row, n))
        except BadRecord as e:
            if on_bad_record == "error":
                raise Rc1Error(f"{where}: row {n}: {e}") from None
            skipped += 1
    return out, skipped


def load_hf(task: str, name: str, config: str | None, split: str | None, on_bad_record: str = "error"
            ) -> tuple[list[Task], str, str, int]:
    """(records, uri, digest, skipped) from `datasets.load_dataset`; raises OSError-like errors when unavailable."""
    import datasets

    ds: Any = datasets.load_dataset(name, config, split=split or "train")
    uri = f"hf://{name}" + (f"/{config}" if config else "") + f"@{split or 'train'}"
    records, skipped = normalize_hf_rows(task, ds, on_bad_record, where=uri)
    digest = getattr(ds, "_fingerprint", None) or ""
    return records, uri, sha256_text(f"{uri}|{digest}|{len(records)}"), skipped
