"""`rc1 train --config configs/ppo_scale.yaml [--resume-from DIR] [--seed S] [--max-steps N] [--pool PATH]`.

One MLflow run (tag rc1.stage=train; a child run when the gate's run is active) per seed: GRPO with LoRA/QLoRA,
tools wiki/calc/ask_user, the judge-based reward; rc1's metrics per step and transformers' MLflowCallback report
into that same run. The best checkpoint (by the held-out eval/reward) is logged as an MLflow 3 LoggedModel of the
run, an MLflow Model (transformers flavor with the LoRA adapter, see rc1.tracking.policy_model), and registered as a
version of `rc1-policy` made from it (alias `best` once the run's statement is signed, see rc1.tracking.registry). A gate's `accelerate launch` runs this command in every process
(rc1.train.launch.launch_train).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Iterator

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import GATES_PATH, default_ppo_config, load_thresholds, run_mode
from rc1.core.ppo_config import load_ppo_config
from rc1.core.settings import configured, use
from rc1.core.outdir import claim_out_dir
from rc1.core.errors import Rc1Error
from rc1.core.io import read_json, sha256_dir, sha256_file, write_json, write_jsonl
from rc1.stages.shared import Freshened, Judged, Moded, PpoConfigured, StepCapped, SystemMetered, Weighted
from rc1.tracking import stage_run
from rc1.tracking.gate_launch import active_gate_run, launched_gate_run
from rc1.train.checkpoints import step_of
from rc1.train.inputs import load_fresh, load_pool
from rc1.train.quiet import quiet_trl_deprecations

log = logging.getLogger("rc1.train")

RUN_META = "run_meta.json"
HELDOUT = "heldout.jsonl"
GATE_LINK = ("rc1.gated", "rc1.gate_run_id", "rc1.preflight_run_id")   # set from the launching gate run only
RC1_FILES = ("rc1_state.json", "trainer_state.json")   # rc1's part of the best checkpoint, kept beside the model
# the control runs of a learning benchmark (dev only): the same run with every reward's sign flipped (the policy is
# pushed away from what the reward pays: success must not rise), or with the LoRA frozen (learning rate 0)
CONTROLS = ("flipped", "frozen")


@dataclass
class Config(Weighted, Freshened, StepCapped, PpoConfigured, SystemMetered, Moded, Judged):
    """Train the policy with GRPO (one seed), checkpoint it and register its best adapter (also under accelerate)."""

    resume_from: str | None = arg(None, "A training output dir (resumes its `latest`) or one step_XXXXX/ checkpoint; "
                                        "with it, another --config than the interrupted run's is refused.")
    seed: int | None = arg(None, "Training seed (unset: the config's first seed).")
    pool: str | None = arg(None, "Pool (unset: the newest passing preflight's).")
    out_dir: str | None = arg(None, "Checkpoint directory (unset: out/train/...).")
    gates: str | None = arg(None, "Gates file that checks --weights and is recorded as an input (unset: "
                                  "configs/gates.yaml, not recorded).")
    # plumbing, not in --help or MLproject
    stop_after: int | None = arg(None, "Stop after N steps without a final save (a stand-in for a kill, for resume "
                                       "tests).", hidden=True)
    result_out: str | None = arg(None, "Write the result (or the refusal) as JSON here: how a gate hears back from "
                                       "`accelerate launch`.", hidden=True)
    control: str | None = arg(None, "A learning benchmark's control run (dev only): flipped (every reward's sign "
                                    "flipped) or frozen (learning rate 0); tagged rc1.control.", hidden=True,
                              choices=CONTROLS)

    resolves_mode: ClassVar[bool] = False   # unset: the flow's, else the environment's, else the ppo config's


def default_pool(mode: str) -> str:
    """The balanced pool of the newest passing preflight of `mode` (what the gate would train on)."""
    from rc1.tracking.store import setup_tracking
    from rc1.tracking.queries import newest_preflight

    setup_tracking()
    pre = newest_preflight(mode, passing=True)
    path = pre and (pre.data.tags.get("rc1.path.balanced") or pre.data.tags.get("rc1.path.pool"))
    if not path:
        raise Rc1Error(f"no --pool given and no passing {mode} preflight names one; pass --pool PATH")
    return path


@contextlib.contextmanager
def hf_mlflow_env() -> Iterator[None]:
    """Let rc1's run own the MLflow run: transformers' MLflowCallback then logs into the active run instead of
    starting its own ("Run ... is already active"), and never logs whole checkpoints as artifacts."""
    keys = ("MLFLOW_NESTED_RUN", "MLFLOW_RUN_ID", "HF_MLFLOW_LOG_ARTIFACTS")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ["MLFLOW_NESTED_RUN"] = "false"
    os.environ.pop("MLFLOW_RUN_ID", None)
    os.environ["HF_MLFLOW_LOG_ARTIFACTS"] = "false"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def export_policy(ckpt: Path, dst: Path, base: str, base_info: dict, generation: dict | None = None) -> Path:
    """The registrable part of a checkpoint as an MLflow Model (rc1.tracking.policy_model): the LoRA adapter on
    its base (transformers flavor, PEFT), the checkpoint's tokenizer/chat template, and rc1's files beside it
    (`generation`: the thinking budget the served model applies, rc1.tracking.served)."""
    from peft import PeftModel

    from rc1.tracking.policy_model import save_policy_model
    from rc1.generation.device import device
    from rc1.train.tiny import load_model, load_tokenizer

    if not (ckpt / "adapter_config.json").is_file():
        raise Rc1Error(f"{ckpt}: no LoRA adapter in the checkpoint")

    tok = load_tokenizer(str(ckpt) if (ckpt / "tokenizer_config.json").is_file() else base)
    dtype = device().torch_dtype   # as trained (grpo_settings)
    model = PeftModel.from_pretrained(load_model(base, dtype=dtype), str(ckpt)).eval()
    info = write_json(dst.parent / "rc1_base.json", base_info)
    files = {"rc1_base.json": info, **{n: ckpt / n for n in RC1_FILES if (ckpt / n).is_file()}}
    return save_policy_model(model, tok, dst, base=base, rc1_files=files, generation=generation)


def _resume_meta(resume_from: str, **given: Any) -> tuple[Path, Path, dict, dict]:
    from rc1.train.checkpoints import resolve_resume

    store, step_dir = resolve_resume(resume_from)
    meta = read_json(store.root / RUN_META) if (store.root / RUN_META).is_file() else {}
    for key, value in given.items():
        if value is not None and key in meta and str(meta[key]) != str(value):
            raise Rc1Error(f"--resume-from {resume_from}: {key} was {meta[key]!r} in the interrupted run, not "
                           f"{value!r}; an exact resume needs the same {key}")
    return store.root, step_dir, meta, store.state(step_dir)


@configured
def run(cfg: Config, parent_tags: dict | None = None) -> dict:
    """Train one seed; returns {run_id, best_checkpoint, model_version, out_dir, global_step, ...}.

    Provenance: the run records the sha256 of the pool, config, weights (and, from a gate, the gates file) it
    trained with as `input_sha256.<name>`, and `rc1.gated`: true only when a gate run launched it (the active run
    is a gate stage, or the gate started this process through `accelerate launch`: rc1.tracking.gate_launch.launched_gate_run),
    with that gate's and its preflight's run ids. An ungated version never takes `best` and `rc1 promote` refuses it.

    Under `accelerate launch` every process runs this: each trains its share of the global batch; only the main
    process opens the MLflow run, writes the output dir and checkpoints, and registers the version (the others
    return {"process": i} after training). --result-out: the result, or the refusal, as JSON (rc1.train.launch)."""
    try:
        with contextlib.ExitStack() as scope:   # the mode train resolves is the active one from then on
            res = _train(cfg, parent_tags, scope)
    except Rc1Error as e:
        # any process: a refusal every process meets may come first from a worker, and torchrun then stops the main
        # process before it writes one (the gate would hear a crash); the writes are atomic, each a whole refusal
        if cfg.result_out:
            write_json(cfg.result_out, {"refused": str(e)})
        raise
    if cfg.result_out and "run_id" in res:   # the main process reports (a worker returns {"process": i})
        write_json(cfg.result_out, res)
    return res


def _train(cfg: Config, parent_tags: dict | None, scope: contextlib.ExitStack) -> dict:
    config_path, seed, pool_path, max_steps, out_dir = cfg.config, cfg.seed, cfg.pool, cfg.max_steps, cfg.out_dir
    resume_from, fresh_path, weights_path, gates_path = cfg.resume_from, cfg.fresh, cfg.weights, cfg.gates
    from rc1.train.tiny import require_budget
    from rc1.scoring.judge import make_judge
    from rc1.scoring.reward import RewardModel, RewardParams, checked_weights
    from rc1.train import dist, engine, units
    from rc1.train.sampler import drop_heldout, split_heldout
    from rc1.train.gguf_base import is_gguf
    from rc1.train.tiny import corpus_from_pool_items, is_tiny, resolve_base
    from rc1.train.rollout import vllm_weights
    from rc1.tracking.registry import MODEL_NAME, claim_alias, log_policy_model, register_logged_model

    config_path = config_path or (None if resume_from else default_ppo_config(run_mode(cfg.mode)))   # resume: the run's
    resume_dir = resume_state = None
    if resume_from:   # first: a checkpoint that fails its sha256 refuses before anything is loaded
        # the config too: another one (a strategy, backend or finetune) would continue the run under tags it did not
        # start with; without --config the run's own
        root, resume_dir, meta, resume_state = _resume_meta(resume_from, seed=seed, pool=pool_path,
                                                            max_steps=max_steps)
        config_path = config_path or meta.get("config")
        if config_path and meta.get("config_sha256") and Path(config_path).is_file() \
                and sha256_file(config_path) != meta["config_sha256"]:
            raise Rc1Error(f"--resume-from {resume_from}: config {config_path} is not the one the interrupted run "
                           f"trained with (sha256 differs from {meta['config']}'s); an exact resume needs the same config")
        out_dir = root
        seed = seed if seed is not None else meta.get("seed")
        pool_path = pool_path or meta.get("pool")
        max_steps = max_steps or meta.get("max_steps")
        fresh_path = fresh_path or meta.get("fresh")
    if not config_path:
        raise Rc1Error(f"--resume-from {resume_from}: the interrupted run recorded no config; pass --config")
    ppo = load_ppo_config(config_path)
    mode = run_mode(cfg.mode, default=ppo.run_mode)
    # what runs under train (the judge, the data sources, the run's tags and key) follows that mode too: a ppo config
    # saying prod is prod for all of it, the heuristic judge refused
    scope.enter_context(use(mode=mode))
    if cfg.control and mode == "prod":
        raise Rc1Error(f"--control {cfg.control} is a learning benchmark's control run, dev only: a prod run trains on "
                       f"the reward as it is")
    require_budget(ppo, config_path, mode)
    weights = checked_weights(weights_path, load_thresholds(gates_path or GATES_PATH))   # validated as preflight does
    fresh_items = load_fresh(fresh_path)             # bad input refuses before anything heavy is loaded
    rollouts = engine.rollout_plan(ppo, mode)        # refuses vLLM without CUDA+vllm in prod
    process, processes = dist.world()
    engine.prompts_per_process(ppo, processes)       # the global batch must split evenly
    seed = int(seed if seed is not None else ppo.seeds[0])
    pool_path = pool_path or default_pool(mode)
    plan_steps = units.schedule(ppo)
    steps = int(max_steps or plan_steps.steps)       # optimizer steps: --max-steps caps what ppo.episodes make
    if out_dir is None:
        ts = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
        out_dir = Path("out") / "train" / f"{Path(config_path).stem}-seed{seed}-{ts}-{os.getpid()}"
    out_dir = Path(dist.broadcast(str(out_dir)))      # one output dir for all processes: the main one's
    if not resume_from:   # a new run writes only into a new directory or an earlier training output (rc1.core.outdir)
        claim_out_dir(out_dir, "train", "--out-dir")

    pool = load_pool(pool_path)
    train_pool, heldout = split_heldout(pool, ppo.sampling.heldout_frac)
    if not train_pool:
        raise Rc1Error(f"{pool_path}: every pool item is held out (sampling.heldout_frac={ppo.sampling.heldout_frac})")
    evalset = engine.heldout_slice(heldout, ppo.sampling.heldout_eval_items)
    if not evalset:
        raise Rc1Error(f"{pool_path}: no held-out pool items (sampling.heldout_frac={ppo.sampling.heldout_frac} of "
                       f"{len(pool)}); best/ is chosen by the held-out eval/reward, so a held-out slice is required")
    fresh = drop_heldout(fresh_items, heldout)
    plan = engine.finetune_plan(ppo, mode)           # refuses qlora without CUDA+bitsandbytes in prod
    with dist.main_first():                           # the main process builds/caches the tiny base, then the others
        base = resolve_base(ppo.model.base, corpus_from_pool_items(pool), seed=0)
    engine.check_chat_template(ppo, base)
    reward_model = RewardModel(make_judge(), weights, RewardParams.from_config(ppo))
    fit = functools.partial(engine.train, ppo, base=base, pool=train_pool, seed=seed, out_dir=out_dir,
                            max_steps=steps, reward_model=reward_model, mode=mode, fresh=fresh,
                            resume_dir=resume_dir, resume_state=resume_state, stop_after=cfg.stop_after, finetune=plan,
                            heldout=evalset, rollouts=rollouts, control=cfg.control)
    if process != 0:                                  # a worker: trains its share, logs and writes nothing
        with hf_mlflow_env(), quiet_trl_deprecations():
            res = fit(report_to=[])
        return {"process": process, "global_step": res.global_step}
    launched = launched_gate_run()                    # a gate that started this process through `accelerate launch`
    gate = launched or active_gate_run()
    if not resume_from:
        write_json(out_dir / RUN_META, {"config": config_path, "config_sha256": sha256_file(config_path),
                                        "seed": seed, "pool": str(pool_path),
                                        "max_steps": steps, "fresh": fresh_path, "base": ppo.model.base})
    provenance = {"rc1.gated": "true" if gate else "false"}
    if gate is not None:
        provenance.update({"rc1.gate_run_id": gate.info.run_id,
                           "rc1.preflight_run_id": gate.data.tags.get("rc1.preflight_run_id", "")})
    parent_tags = {**{k: v for k, v in (parent_tags or {}).items() if k not in GATE_LINK}, **provenance}
    # each option under its own name, as resolved (one name per param: no rc1.seed beside seed); what the run worked
    # out besides, unprefixed; the files' sha256 are the input_sha256.<name> tags
    params = {**logged_params(cfg), "config": config_path, "seed": seed, "pool": str(pool_path), "max_steps": steps,
              "out_dir": str(out_dir), **({"resume_from": str(resume_dir)} if resume_dir else {}),
              "base": ppo.model.base, "n_pool_train": len(train_pool), "n_heldout": len(heldout),
              "n_heldout_eval": len(evalset), "n_fresh": len(fresh), "strategy": ppo.trainer.strategy,
              **plan_steps.params()}
    if gate is not None and gate.data.tags.get("rc1.gate_kind"):
        parent_tags["rc1.gate_kind"] = gate.data.tags["rc1.gate_kind"]
    tags = {**parent_tags, "rc1.seed": seed, "rc1.mode": mode, "rc1.finetune": plan.requested,
            "rc1.finetune_effective": plan.effective, "rc1.base_model": ppo.model.base,
            "rc1.launcher": ppo.launcher, "rc1.processes": processes, "rc1.strategy": ppo.trainer.strategy,
            "rc1.rollout_backend": rollouts.requested, "rc1.rollout_backend_effective": rollouts.effective,
            **engine.device().tags()}
    if plan.warning:
        tags["rc1.finetune_warning"] = plan.warning
        click.echo(f"[rc1 DEV] {plan.warning}", err=True)
    if rollouts.vllm:
        tags["rc1.vllm_weights"] = vllm_weights(ppo, plan.effective)   # merged | adapter: how vLLM got the policy
    if rollouts.warning:
        tags["rc1.rollout_backend_warning"] = rollouts.warning
        click.echo(f"[rc1 DEV] {rollouts.warning}", err=True)
    if resume_dir:
        tags["rc1.resumed_from"] = str(resume_dir)
    if cfg.control:
        tags["rc1.control"] = cfg.control
    inputs = {"pool": str(pool_path), "config": config_path, "weights": weights_path,
              **({"gates": gates_path} if gates_path else {}), **({"fresh": fresh_path} if fresh_path else {})}
    with stage_run("train", params=params, inputs=inputs, reuse=False, run_name=f"train seed={seed}",
                   tags=tags, parent_run_id=launched.info.run_id if launched else None, attest=True,
                   system_metrics=cfg.system_metrics) as st:
        st.log_config(ppo, "ppo.json")
        # what evaluate needs on any machine: the config file and the held-out split, from the tracking server
        st.log_named_artifact("config", config_path)
        write_jsonl(out_dir / HELDOUT, heldout)
        held_sha = st.log_named_artifact("heldout", out_dir / HELDOUT, artifact_path="training")
        st.log_json([{"ppo": a, "grpo": b, "note": c} for a, b, c in engine.PPO_TO_GRPO], "ppo_to_grpo.json")
        st.log_file_input(pool_path, "pool", context="training")
        # the split eval/reward is measured on (and evaluate's held-out items): from this run's artifacts
        st.log_dataset(out_dir / HELDOUT, "heldout", "evaluation", held_sha,
                       source=f"runs:/{st.run_id}/training/{HELDOUT}")
        # rc1's callback is the one reporter (TRL's metrics under TRL's names, rc1's under rc1.*): transformers'
        # MLflowCallback logged ~220 TrainingArguments as params; the whole config is config/ppo.json
        with hf_mlflow_env(), quiet_trl_deprecations():
            res = fit(log_metrics=st.log_metrics, report_to=[])
        sps = res.sec_per_step[1:] or res.sec_per_step   # the first step includes warm-up
        st.log_metrics({"rc1.final_step": res.global_step, "rc1.sec_per_step_mean": sum(sps) / max(1, len(sps)),
                        **{f"rc1.{k}": v for k, v in reward_model.stats().items()}})
        best = {"rc1.best_reward": res.best_metric}   # the held-out reward: linked to the logged model when there is one
        for f in ("metrics.jsonl", "ckpt_manifest.jsonl"):
            if (out_dir / f).is_file():
                st.log_artifact(out_dir / f, artifact_path="training")
        result = {"run_id": st.run_id, "seed": seed, "out_dir": str(out_dir), "global_step": res.global_step,
                  "best_checkpoint": str(res.best_dir) if res.best_dir else None, "best_reward": res.best_metric,
                  "model_version": None, "finetune_effective": res.finetune_effective, "gated": gate is not None,
                  "sec_per_step": sum(sps) / max(1, len(sps)) if sps else None,
                  "stopped_early": res.stopped_early}
        if res.stopped_early:
            st.log_metrics(best)
            st.set_tags({"rc1.stopped_early": "true"})
            return result
        if res.best_dir is None:
            raise Rc1Error(f"run {st.run_id}: no checkpoint was saved ({steps} optimizer steps < the "
                           f"{plan_steps.save_every_steps} that checkpoint.save_every_episodes "
                           f"{ppo.checkpoint.save_every_episodes} makes?); nothing to register")
        best_step = step_of(Path(res.best_dir).name.partition("_")[2])   # best/NNN_step_XXXXX
        # a local base's digest goes into the signed model (rc1/rc1_base.json): `rc1 serve`, evaluate and export-gguf
        # load that base only when it still hashes to it (rc1.trust.models.signed_base); a hub base is loaded by name
        # (a GGUF base: also the file's own digest, checked before anything converts or loads it)
        local_base = is_tiny(ppo.model.base) or Path(base).is_dir()
        base_info = {"base": ppo.model.base, "tiny": is_tiny(ppo.model.base),
                     "base_sha256": sha256_dir(base) if local_base else None,
                     **({"base_gguf_sha256": sha256_file(ppo.model.base)} if is_gguf(ppo.model.base) else {})}
        # the best checkpoint as an MLflow 3 LoggedModel of this run; the version is made from it (source
        # models:/<model_id>), and the run's signed statement holds its digest (rc1.tracking.registry)
        with tempfile.TemporaryDirectory() as d:
            from rc1.tracking.served import generation_settings

            model_dir = export_policy(Path(res.best_dir), Path(d) / "model", base, base_info, generation_settings(ppo))
            model_id, _ = log_policy_model(st, model_dir, title=model_title(seed, best_step, mode, parent_tags),
                                           tags={"rc1.seed": seed, "rc1.step": best_step, "rc1.mode": mode})
        st.log_metrics(best, model_id=model_id)
        if is_tiny(ppo.model.base):   # the tiny base is built here, not downloadable: keep it with the run
            st.log_artifact(base, name="base")
        version = register_logged_model(
            st.run_id, model_id, score=res.best_metric, gate_run_id=gate.info.run_id if gate else None, claim=False,
            tags={**{k: v for k, v in parent_tags.items() if k.startswith("rc1.")}, "rc1.seed": seed,
                  "rc1.train_run_id": st.run_id, "rc1.base_model": ppo.model.base,
                  "rc1.finetune_effective": plan.effective, "rc1.best_checkpoint": Path(res.best_dir).name,
                  "rc1.mode": mode, **({"rc1.control": cfg.control} if cfg.control else {})})
        st.set_tags({"rc1.model_version": version, "rc1.registered_model": MODEL_NAME})
        result["model_version"] = version
        click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] train seed={seed}: {res.global_step} steps, best reward "
                   f"{res.best_metric if res.best_metric is not None else float('nan'):.4f}, "
                   f"registered {MODEL_NAME} version {version}", err=True)
    claim_alias(result["model_version"])   # `best` (or trial-best) last, once the run's statement is signed
    return result


def model_title(seed: int, step: int | None, mode: str, tags: dict) -> str:
    """A LoggedModel's name in the experiment's Models tab, where rows are told apart by it: what a user looks for,
    the seed and the step of the checkpoint (`rc1-policy seed=20250820 step=4 dev`, `... trial` for a trial gate's;
    MLflow refuses / : . % and quotes in it)."""
    kind = " trial" if tags.get("rc1.gate_kind") == "trial" else ""
    return f"rc1-policy seed={seed} step={step if step is not None else 'unknown'} {mode}{kind}"


def show(res: dict) -> None:
    if "run_id" not in res:   # a worker process under `accelerate launch`: the main process reports
        return
    from rc1.core import summary
    from rc1.tracking.ui import ui_hint, ui_url

    gated = "" if res.get("gated") else " (ungated: never takes `best`, never promoted; a gate trains those)"
    click.echo(summary.render(f"train {res['run_id']} seed={res['seed']}", [
        f"{res['global_step']} steps; best checkpoint {res['best_checkpoint']} by held-out reward "
        f"{summary.num(res['best_reward'])}",
        f"registered rc1-policy version {res['model_version']}{gated}" if res["model_version"] else "registered: nothing",
    ], ui_url(res["run_id"]), ui_hint()))
