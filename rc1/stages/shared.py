"""The parameters many stages take, each declared once; a stage's `Config` lists these among its bases."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from rc1.cli.options import arg
from rc1.core.config import GATES_PATH, WEIGHTS_PATH
from rc1.core.errors import Rc1Error
from rc1.core.redaction import has_credentials
from rc1.core.settings import JUDGE_KEY_VAR, JUDGE_VARS, MODE_VAR, run_mode
from rc1.data.plan import CLARIFY_RATE, DEFAULT_TARGET_TEXT

PIPELINE_SEED = 20250820   # the pipeline's random seed: item draws, shadow set, responder


@dataclass
class Gated:
    gates: str = arg(GATES_PATH, "Gate thresholds file.", log=False)   # its digest is a stage input


@dataclass
class Reusable:
    reuse: bool = arg(True, "Reuse a finished run with the same params, input digests and code version instead of "
                            "recomputing.", log=False)


@dataclass
class FromData:
    data_dir: str | None = arg(None, "Directory laid out like ../shared/data (hotpotqa/, strategyqa/, gsm8k/). Unset "
                                     "or 'auto': the sources of configs/data.yaml (the bundled real sample last).")


@dataclass
class Moded:
    mode: str | None = arg(None, f"dev or prod (unset: the flow's, else ${MODE_VAR}, else dev; train: else its ppo "
                                 f"config's run_mode).", choices=("dev", "prod"))

    def __post_init__(self) -> None:
        if self.mode is None and self.resolves_mode:
            self.mode = run_mode()
        getattr(super(), "__post_init__", lambda: None)()   # the other mixins' checks

    resolves_mode: ClassVar[bool] = True   # train leaves an unset mode to its ppo config (rc1.core.settings.run_mode)


@dataclass
class Seeded:
    seed: int = arg(PIPELINE_SEED, "The pipeline's random seed (item draws, shadow set, responder).")


@dataclass
class BadRecords:
    on_bad_record: str | None = arg(None, "Override configs/data.yaml on_bad_record.", choices=("error", "skip"))


def parse_n(value: int | str | None) -> int | None:
    """--n: a number of seeds (a ceiling the data must supply) or 'auto' (None: the largest pool the data supports)."""
    if value is None or str(value).strip().lower() in ("auto", ""):
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise Rc1Error(f"--n: {value!r} is not a number of seeds or 'auto'") from None
    if not f.is_integer() or f < 0:
        raise Rc1Error(f"--n: {value!r} is not a number of seeds or 'auto'")
    return int(f)



@dataclass
class PoolSized:
    n: int | None = arg(None, "Pool items: a ceiling the data must supply (unset or auto: the largest pool the "
                              "data supports, each source item posed at most build-pool's max-poses-per-item times).",
                        parse=parse_n)

    def __post_init__(self) -> None:
        self.n = parse_n(self.n)   # a bad --n is refused before anything runs (preflight, main)
        getattr(super(), "__post_init__", lambda: None)()


@dataclass
class Targeted:
    target: str = arg(DEFAULT_TARGET_TEXT, "Difficulty shares: the poses the pool is built in (easy open-book, medium "
                                           "evidence through tools, hard closed-book), the balanced pool's buckets.")


@dataclass
class Clarifying:
    clarify_rate: float = arg(CLARIFY_RATE, "Share of items made clarification items: a fact the question needs is "
                                            "removed and kept as hidden_info.")


# ---- the scoring and reward stages (probe-scorer, shadow-run, judge-robustness, weight-calib, overclar-ablation, ...)
@dataclass
class Weighted:
    weights: str = arg(WEIGHTS_PATH, "Reward weights file (JSON: one weight per judge dimension).", log=False)


@dataclass
class PpoConfigured:
    config: str | None = arg(None, "ppo config (unset: what the run being continued used, where there is one: an "
                                   "interrupted training's, an evaluated version's; else by the mode, "
                                   "configs/ppo_dev.yaml in dev where it exists, else configs/ppo_scale.yaml).")


@dataclass
class RewardOverrides:
    alpha: float | None = arg(None, "Over-clarification penalty per needless question (unset: the ppo config's).")
    cap: int | None = arg(None, "Questions the penalty counts at most (unset: the ppo config's).")
    beta: float | None = arg(None, "Difficulty weighting in [0.05, 0.10] (unset: the ppo config's).")


@dataclass
class Responding:
    responder: str = arg("reference", "Candidate source (reference = contrastive variants of the gold data).",
                         choices=("reference", "model", "endpoint"))
    responder_model: str | None = arg(None, "model: local model directory; endpoint: model name (or RESPONDER_MODEL).")
    responder_base_url: str | None = arg(None, "endpoint: OpenAI-compatible base URL (or RESPONDER_BASE_URL; key from "
                                               "RESPONDER_API_KEY).", mlproject=False)

    def __post_init__(self) -> None:
        if self.responder_base_url and has_credentials(self.responder_base_url):
            raise Rc1Error("--responder-base-url: the URL carries a credential (user info or a key-like parameter); "
                           "put the key in RESPONDER_API_KEY")
        getattr(super(), "__post_init__", lambda: None)()


@dataclass
class FromShadow:
    shadow: str | None = arg(None, "A materialized shadow set (JSONL) instead of building one as materialize-shadow "
                                   "does (--data-dir, --n, --seed).")


@dataclass
class FromScored:
    scored: str | None = arg(None, "scored_candidates.jsonl (unset: the newest shadow_run's scored by the judge "
                                   "configured now, else a fresh shadow run's).", log=False)


@dataclass
class Judged:
    """The judge endpoint (rc1.core.settings): each unset field is the flow's, else its environment default. The API
    key is never a field: it is read from its environment variable only."""

    judge_provider: str | None = arg(None, f"Judge provider (unset: ${JUDGE_VARS['provider']}, else heuristic in dev; "
                                           f"the key from ${JUDGE_KEY_VAR} or the provider's own variable).",
                                     aliases=("--provider",))   # the seeds' runbook: probe-scorer --provider
    judge_model: str | None = arg(None, f"Judge model (unset: ${JUDGE_VARS['model']}, else the provider's default).")
    # not in MLproject, as --responder-base-url: MLflow logs a -P value as given, before rc1 could refuse a key in it
    judge_base_url: str | None = arg(None, f"Judge base URL, OpenAI-compatible, without a query string (unset: "
                                           f"${JUDGE_VARS['base_url']}, else the hosted provider's).", mlproject=False)
    judge_timeout_s: float | None = arg(None, f"Judge HTTP timeout per call in seconds (unset: "
                                              f"${JUDGE_VARS['timeout_s']}, else 60).")
    judge_rate: float | None = arg(None, f"Judge requests per second (unset: ${JUDGE_VARS['rate']}, else 8).")

    def __post_init__(self) -> None:
        if self.judge_provider is not None:
            from rc1.scoring.providers import provider_name

            provider_name(self.judge_provider, "--judge-provider")
        url = self.judge_base_url
        if url is not None:
            if not url.startswith(("http://", "https://")):
                raise Rc1Error("--judge-base-url: expected an http(s) URL")
            if any(c in url for c in "?#;") or has_credentials(url):
                raise Rc1Error("--judge-base-url: a query string, path parameters, fragment or user info is refused "
                               f"(a key rides in them); put the key in {JUDGE_KEY_VAR}")
        for name in ("judge_timeout_s", "judge_rate"):
            v = getattr(self, name)
            if v is not None and not 0 < v < float("inf"):
                raise Rc1Error(f"--{name.replace('_', '-')} {v}: expected a positive finite number")
        getattr(super(), "__post_init__", lambda: None)()


# ---- the model stages (train, evaluate, export-gguf, promote, bundle) and the gate
@dataclass
class Versioned:
    """The registered version a stage works on: --version N, or --alias A (with neither, the stage's own alias:
    `best` for evaluate, export-gguf and promote, `RC1` for bundle and verify)."""

    version: str | None = arg(None, "Model version of rc1-policy.")
    alias: str | None = arg(None, "Model alias of rc1-policy, when no --version (unset: best; bundle, verify: RC1).")

    def version_or_alias(self, default_alias: str) -> tuple[str | None, str | None]:
        """(version, alias) to resolve: the alias `default_alias` when neither is given."""
        if self.version is None and self.alias is None:
            return None, default_alias
        return self.version, self.alias


MODEL_URI = re.compile(r"^models:/(?P<name>[^/@]+)(?:@(?P<alias>[^/@]+)|/(?P<version>\d+))$")


def parse_model_uri(uri: str) -> tuple[str, str | None, str | None]:
    """(registered model, version, alias) of models:/<name>@<alias> or models:/<name>/<version>; Rc1Error else."""
    m = MODEL_URI.match(uri or "")
    if not m:
        raise Rc1Error(f"{uri}: not a model URI; give models:/<name>@<alias> or models:/<name>/<version>")
    return m["name"], m["version"], m["alias"]


@dataclass
class Trusting:
    trust: str | None = arg(None, "The trust root: the file of public keys whose signatures count (unset: $RC1_TRUST, "
                                  "else configs/trust.yaml of the rc1 checkout, never the working directory's); "
                                  "printed with its sha256.", log=False)

    def pinned_trust(self):
        """The trust root this command verifies with (--trust pinned for it and what it launches); its verdict's
        table names it (path, sha256, how it was chosen)."""
        from rc1.trust.keys import load_trust, pin

        pin(self.trust)
        return load_trust()


@dataclass
class SystemMetered:
    system_metrics: bool = arg(True, "Log MLflow's system/ metrics on the train and evaluate runs (CPU, memory, disk, "
                                     "network; GPU with nvidia-ml-py and a GPU): every 1 s in dev, every 10 s in prod "
                                     "($MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL overrides).", log=False)


@dataclass
class StepCapped:
    max_steps: int | None = arg(None, "Cap in optimizer steps per seed, each training on ppo.batch_size x group_size "
                                      "episodes (0 or unset: the steps the config's ppo.episodes make; prod gate: only "
                                      "those).")


@dataclass
class Freshened:
    fresh: str | None = arg(None, "Task records (JSONL) for the non-pool share of training (unset: filled from the "
                                  "pool).")
