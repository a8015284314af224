"""The process group one training run is part of: a single process when the gate trains in-process, N processes
under `accelerate launch` (torchrun underneath; gloo on CPU, NCCL on GPUs). accelerate's PartialState is the one
source of truth (the Trainer's Accelerator shares it).

The main process (index 0) is the only one that talks to MLflow, writes checkpoints and registers versions; every
process trains its share of each global batch and meets the others at the same points (`barrier`). Whatever
decides what the next batch holds (the replay history) is computed from the whole batch (`gather`), so every
process draws the same plan.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, TypeVar

T = TypeVar("T")


def _state():
    import torch
    from accelerate import PartialState

    return PartialState(cpu=not torch.cuda.is_available())


def world() -> tuple[int, int]:
    """(this process's index, the number of processes)."""
    s = _state()
    return s.process_index, s.num_processes


def barrier() -> None:
    _state().wait_for_everyone()


def broadcast(obj: T) -> T:
    """The main process's value of `obj`, in every process."""
    if _state().num_processes == 1:
        return obj
    from accelerate.utils import broadcast_object_list

    box = [obj]
    broadcast_object_list(box, from_process=0)
    return box[0]


def gather(items: list[Any]) -> list[Any]:
    """Every process's `items`, concatenated in process order (the same list in every process)."""
    if _state().num_processes == 1:
        return list(items)
    from accelerate.utils import gather_object

    return list(gather_object(list(items)))


@contextmanager
def main_first() -> Iterator[None]:
    """The main process runs the block first (e.g. builds the tiny model's cache), then the others."""
    with _state().main_process_first():
        yield
