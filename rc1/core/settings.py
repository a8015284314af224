"""The run mode and the judge endpoint a stage runs with: the one module that reads them from the environment.

A stage's Config carries them as fields (`mode`, `judge_provider`, `judge_model`, `judge_base_url`,
`judge_timeout_s`, `judge_rate`; rc1.stages.shared); the command that runs a stage, and every flow step, makes
them the active settings (`use`) for as long as the stage runs, so the library code under it (the judge, the
tracking tags, the gates' side) reads them here and never from os.environ. A field left unset falls back to the
flow's active value, then to the documented environment default (RUN_MODE, SCORER_PROVIDER, SCORER_MODEL,
SCORER_BASE_URL, SCORER_TIMEOUT_S, SCORER_RATE), then to the built-in default. The judge's API key is never a
field: it is read from its named environment variable only (SCORER_API_KEY, or the hosted provider's own)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from typing import Iterator

from rc1.core.errors import Rc1Error

MODES = ("dev", "prod")
MODE_VAR = "RUN_MODE"
LIVE_VAR = "REWARD_LIVE_MODE"
JUDGE_KEY_VAR = "SCORER_API_KEY"   # the judge's API key: an environment variable only, never a field
# the environment defaults of the judge endpoint's fields
JUDGE_VARS = {"provider": "SCORER_PROVIDER", "model": "SCORER_MODEL", "base_url": "SCORER_BASE_URL",
              "timeout_s": "SCORER_TIMEOUT_S", "rate": "SCORER_RATE"}
# the judge client's other tunables (rc1.scoring.judge_settings.JudgeSettings), environment only
JUDGE_SETTING_VARS = {"samples": "SCORER_SAMPLES", "rate": "SCORER_RATE", "burst": "SCORER_BURST",
                      "timeout_s": "SCORER_TIMEOUT_S", "json_mode": "SCORER_JSON_MODE", "tpm": "SCORER_TPM",
                      "concurrency_cap": "SCORER_MAX_CONCURRENCY", "max_reply_bytes": "SCORER_MAX_REPLY_BYTES",
                      "dead_after_s": "SCORER_DEAD_AFTER_S"}


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """The judge a stage scores with; None: unset (the environment default, else the provider's default)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    timeout_s: float | None = None
    rate: float | None = None


@dataclasses.dataclass(frozen=True)
class Active:
    mode: str | None = None
    judge: Endpoint = Endpoint()


_active: list[Active] = []   # process-wide (the judge's worker threads read it too), innermost last


def _env(name: str) -> str | None:
    return os.environ.get(name, "").strip() or None


def _check_mode(mode: str, where: str) -> str:
    mode = mode.strip().lower()
    if mode not in MODES:
        raise Rc1Error(f"{where}={mode!r}: expected dev or prod")
    return mode


def run_mode(mode: str | None = None, default: str = "dev") -> str:
    """The run mode, by the one rule: `mode` when given, else the active stage's, else $RUN_MODE, else `default`
    (dev; a training without either follows its ppo config's run_mode)."""
    if mode:
        return _check_mode(mode, "--mode")
    for a in reversed(_active):
        if a.mode:
            return a.mode
    env = _env(MODE_VAR)
    return _check_mode(env, MODE_VAR) if env else default


def live_mode() -> bool:
    """REWARD_LIVE_MODE: 1/live/true or 0/stub/false; unset follows the run mode (prod -> live)."""
    raw = (_env(LIVE_VAR) or "").lower()
    if not raw:
        return run_mode() == "prod"
    if raw in ("1", "live", "true", "yes", "on"):
        return True
    if raw in ("0", "stub", "false", "no", "off"):
        return False
    raise Rc1Error(f"{LIVE_VAR}={raw!r}: expected 0/1 or stub/live")


def judge_endpoint(**given) -> Endpoint:
    """The judge endpoint: each field as given (not None), else the active stage's, else its environment default
    (provider and model lowercased/stripped as given; a bad number is refused naming its variable)."""
    values = {}
    for f in dataclasses.fields(Endpoint):
        value = given.get(f.name)
        for a in reversed(_active):
            if value is not None:
                break
            value = getattr(a.judge, f.name)
        if value is None and (raw := _env(JUDGE_VARS[f.name])) is not None:
            value = raw if f.name in ("provider", "model", "base_url") else _number(raw, JUDGE_VARS[f.name])
        values[f.name] = value
    return Endpoint(**values)


def _number(raw: str, var: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise Rc1Error(f"judge settings: {var}={raw!r}: not a number") from None


def judge_setting_values() -> dict[str, object]:
    """The judge client's tunables the environment sets ({field: raw value}), the active endpoint's timeout and
    rate over them."""
    values: dict[str, object] = {k: v for k, var in JUDGE_SETTING_VARS.items() if (v := _env(var)) is not None}
    for a in _active:
        values.update({k: v for k in ("timeout_s", "rate") if (v := getattr(a.judge, k)) is not None})
    return values


def setting_source(key: str) -> str:
    """How an error names a judge setting: its environment variable, or --judge-<key> when the stage set it."""
    for a in reversed(_active):
        if getattr(a.judge, key, None) is not None:
            return "--judge-" + key.replace("_", "-")
    return JUDGE_SETTING_VARS.get(key, key)


def api_key(provider_var: str | None = None) -> str | None:
    """The judge's API key: SCORER_API_KEY, else the hosted provider's own variable (`provider_var`)."""
    return _env(JUDGE_KEY_VAR) or (_env(provider_var) if provider_var else None)


@contextlib.contextmanager
def use(mode: str | None = None, judge: Endpoint | None = None) -> Iterator[None]:
    """Make a stage's mode and judge fields the active settings while it runs (unset ones fall through)."""
    _active.append(Active(_check_mode(mode, "--mode") if mode else None, judge or Endpoint()))
    try:
        yield
    finally:
        _active.pop()


def active_fields() -> dict[str, object]:
    """The resolved mode and the judge fields the active stages set, as a stage Config spells them: what a
    subprocess is given on its command line (what the environment sets, it inherits with the environment)."""
    fields: dict[str, object] = {"mode": run_mode()}
    for a in _active:
        fields.update({f"judge_{f.name}": v for f in dataclasses.fields(Endpoint)
                       if (v := getattr(a.judge, f.name)) is not None})
    return fields


def use_config(cfg: object) -> contextlib.AbstractContextManager:
    """`use` with a stage Config's own fields (mode, judge_*), those it has."""
    return use(getattr(cfg, "mode", None),
               Endpoint(**{f.name: getattr(cfg, f"judge_{f.name}", None) for f in dataclasses.fields(Endpoint)}))


def configured(run):
    """A stage's or flow's `run(cfg, ...)` with its Config's mode and judge fields active while it runs, however it
    is called (the `rc1` command, a flow's step, or Python)."""
    @functools.wraps(run)
    def with_settings(cfg, *args, **kwargs):
        with use_config(cfg):
            return run(cfg, *args, **kwargs)
    return with_settings
