"""From an evaluated version to a release: the promotion's settling (reconcile), the registry guard's webhook
receiver, the reproducible bundle, the RC1 report. What is trusted is decided below, in rc1.trust."""
