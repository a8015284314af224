"""The stages, each one command and one MLflow run: a `Config` (its parameters, declared once) and `run(cfg)`. A stage
imports no other command: what two stages share lives in the part of rc1 it belongs to (rc1.cli.STAGES: the order)."""
