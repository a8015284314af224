"""One step of a flow: a stage module (its `Config` and `run`) and the fields the flow sets for it.

A step's Config receives every field its flow's Config has under the same name (mode, judge_*, gates, reuse, seed,
data_dir, n, ...): a flow never copies them by hand, and a field a flow adds reaches each stage that declares it. What
the step sets itself (`configure`: this round's paths, a derived value) comes on top. The step's name is its stage's
(the module's `STAGE`, the name its MLflow run is tagged with, else the module's own name). While the stage runs its
Config's mode and judge fields are the active settings (every stage's run is rc1.core.settings.configured)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable


def inherited(config: type, flow_cfg: Any) -> dict[str, Any]:
    """The fields of `config` that `flow_cfg` has under the same name and has set (not None)."""
    names = {f.name for f in dataclasses.fields(config)}
    return {f.name: v for f in dataclasses.fields(flow_cfg)
            if f.name in names and (v := getattr(flow_cfg, f.name)) is not None}


def step_name(stage: ModuleType) -> str:
    return getattr(stage, "STAGE", stage.__name__.rsplit(".", 1)[-1])


@dataclass(frozen=True)
class Step:
    """A stage of a flow. `configure(ctx, *args)` returns the step's own fields (a dict) for this call."""

    stage: ModuleType                           # a module of rc1.stages: Config, run
    configure: Callable[..., dict[str, Any]] = lambda *_: {}
    rounds: tuple[int, ...] = (1, 2)            # preflight: the rounds it runs in
    # fields named like one of the flow's that mean something else in this stage (probe-scorer's --n counts probe
    # requests, not the pool's seeds): never inherited
    not_shared: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return step_name(self.stage)

    def config(self, flow_cfg: Any, *args: Any, **own: Any) -> Any:
        shared = {k: v for k, v in inherited(self.stage.Config, flow_cfg).items() if k not in self.not_shared}
        return self.stage.Config(**{**shared, **self.configure(*args), **own})

    def run(self, flow_cfg: Any, *args: Any, run_kwargs: dict[str, Any] | None = None, **own: Any) -> dict:
        """Run the stage with its Config (the flow's fields, the step's own, `own` over both)."""
        return self.stage.run(self.config(flow_cfg, *args, **own), **(run_kwargs or {})) or {}
