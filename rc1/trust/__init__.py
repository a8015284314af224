"""The trust room: statements, keys, the trust root and verifying a chain. It stands under rc1.tracking (which
stores and fetches bytes, rc1.tracking.evidence) and imports nothing above it: no MLflow, no tracking, release,
checks or stages. Whatever a person or a later stage relies on (a promotion, a bundle, a report, a served or
exported model, a gate's admission) is built from what this room verified, never from a store's tags or params.

    statements  in-toto Statement v1 in a DSSE envelope (securesystemslib), one signature each
    keys        signing keys, the trust root (--trust, $RC1_TRUST, else the rc1 checkout's configs/trust.yaml)
    source      what the room asks of a store (Source: records and bytes)
    runs        a run's verified statement and its files held to the signed digests
    rules       what each link of the chain must hold (pure)
    models      the bytes a version serves, its base weights, its GGUF export, held to what its train run signed
    version     verify_version: the whole chain of a registered version (and its alias)
"""
