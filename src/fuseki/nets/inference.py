"""Inference on a few positions at a time: one CPU thread, not torch's pool.

A bot asks its network about one position a move. On a CPU, torch splits
even that tiny forward pass over its thread pool, whose threads spin while
they wait for work, and on a machine where other processes also want the
cores (GNU Go in a match, a second worker, a training run) they lose badly.
``benchmarks/policy_bot.py`` times a 9×9 forward pass of the shipped policy
both ways on this 2-core machine: with 2 and 4 extra spinning processes
torch's pool of 2 threads was 13× and 96× slower than one thread (21 ms and
175 ms against under 2 ms); with no extra load it was 1.2× faster (1.1 ms
against 1.4 ms). A bot plays beside other programs, so it takes one thread.
:func:`inference` runs a block under ``torch.inference_mode`` with one
thread when the batch is small and the model is on the CPU, and then puts
the caller's thread count back, so that a training loop in the same process
keeps its threads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["SMALL_BATCH", "inference"]

#: Batches up to this size run on one CPU thread.
SMALL_BATCH = 8


@contextlib.contextmanager
def inference(device: Any = "cpu", batch: int = 1) -> Iterator[None]:
    """``torch.inference_mode()``, on one thread for a small batch on the CPU."""
    import torch

    threads = torch.get_num_threads()
    single = batch <= SMALL_BATCH and torch.device(device).type == "cpu" and threads != 1
    if single:
        torch.set_num_threads(1)
    try:
        with torch.inference_mode():
            yield
    finally:
        if single:
            torch.set_num_threads(threads)
