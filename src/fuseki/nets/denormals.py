"""Subnormal floats: why fuseki flushes them to zero, and where.

A float32 below 1.2e-38 in magnitude (a *subnormal*, or denormal) costs an
x86 core a microcode assist in every multiply that touches it, tens to
hundreds of cycles instead of one. Training with weight decay drives the
weights of dead units geometrically towards zero, through the subnormal
range: 15 % of the weights of the shipped ``alphago-9x9`` SL policy and 13 %
of ``policy-19x19``'s are subnormal. On an Ice Lake core, one torch thread,
the SL policy evaluated 21 positions a second at batch 16 where the same
network with those weights set to zero evaluates 269 (12.7×; batch 1: 4.9×),
with bit-identical outputs; a training step ran 14 samples a second against
94 with the weights zeroed and 140 with the CPU's flush-to-zero mode on
(9.7×). ``policy-19x19``: 7–8× in inference, 12× in training
(``benchmarks/denormals.py``; ``benchmarks/results/denormals_9.json``,
``denormals_19.json``).

Two remedies, both standard and both invisible at float32 precision (the
values replaced lie more than 30 orders of magnitude below the weights that matter):

* :func:`flush_subnormal_weights` sets a loaded network's subnormal
  parameters and buffers to zero. The agent-file loader calls it, so every
  shipped network evaluates at full speed in any process, a library user's
  included, on every thread.
* :func:`flush_denormals_in_this_process` turns on the CPU's flush-to-zero and
  denormals-are-zero modes (``torch.set_flush_denormal``), which also cover
  activations, gradients and optimiser state during training. The mode is a
  per-thread register that new threads inherit, so the ``fuseki`` command
  turns it on first thing, before torch starts its thread pool. A library
  does not change its caller's floating-point environment on import, so
  code that imports fuseki decides for itself.
"""

from __future__ import annotations

from typing import Any

__all__ = ["flush_denormals_in_this_process", "flush_subnormal_weights"]


def flush_subnormal_weights(module: Any) -> int:
    """Set the subnormal entries of ``module``'s floating-point parameters and buffers to 0; how many there were."""
    import torch

    count = 0
    with torch.no_grad():
        for tensor in [*module.parameters(), *module.buffers()]:
            if not tensor.is_floating_point():
                continue
            tiny = torch.finfo(tensor.dtype).tiny
            subnormal = (tensor != 0) & (tensor.abs() < tiny)
            n = int(subnormal.sum())
            if n:
                tensor.masked_fill_(subnormal, 0.0)
                count += n
    return count


def flush_denormals_in_this_process() -> bool:
    """Turn on flush-to-zero for this thread and the threads it starts later; False where the CPU has no such mode."""
    import torch

    return bool(torch.set_flush_denormal(True))
