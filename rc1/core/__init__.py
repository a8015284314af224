"""What every part of rc1 stands on: the config models, errors, safe file IO, processes, redaction, text
primitives and the record shapes."""
