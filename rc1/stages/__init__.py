"""The stages, each one command and one MLflow run: a `Config` (its parameters, declared once) and `run(cfg)`.

In the pipeline's order: materialize_shadow, build_pool, validate_pool, difficulty, check_config, check_resources,
check_weights, probe_scorer, assert_not_simulated, shadow_run, judge_robustness, weight_calib, overclar_ablation
(the data gate's stages, composed by rc1.flows.preflight); train, evaluate (composed by rc1.flows.gate); then
export_gguf, promote, bundle; failpack and scorecache are tools. A stage imports no other stage: what two stages
share lives in the part of rc1 it belongs to."""
