"""From an evaluated version to a release: the trust chain promote verifies, the reproducible bundle, the
RC1 report."""
