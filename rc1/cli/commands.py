"""The table of rc1's commands: name -> the module that declares it (its `Config` and `run`)."""

# every command, in the pipeline's order: the flows (lists of stages), the stages, then the tools around them
FLOWS = ("main", "preflight", "gate", "scale")
STAGES = ("materialize_shadow", "build_pool", "validate_pool", "difficulty", "check_config", "check_resources",
          "check_weights", "probe_scorer", "assert_not_simulated", "shadow_run", "judge_robustness", "weight_calib",
          "overclar_ablation", "train", "evaluate", "export_gguf", "promote", "verify", "serve", "guard", "bundle", "failpack",
          "scorecache")
COMMANDS = {name.replace("_", "-"): f"rc1.{package}.{name}"
            for package, names in (("flows", FLOWS), ("stages", STAGES)) for name in names}
