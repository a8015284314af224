"""Running a policy: the evaluation, batched decoding and its caches, llama.cpp and the GGUF export."""
