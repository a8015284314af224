"""The MLflow-facing shell: one thin click command per entry point (see MLproject)."""
