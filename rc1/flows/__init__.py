"""The flows: ordered lists of configured stages (rc1.stages), each a command of its own. preflight runs the data
gate's stages, gate trains and evaluates each seed, main runs preflight then gate, scale runs the scale stages."""
