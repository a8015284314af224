"""Judge scoring: providers, cache, rate limiting and the K-sample judge (see base.py for the contract)."""
