"""The torch device a job runs on: the GPU when one is present, else the CPU.

Training, self-play inference and the dead-stone classifier all take a
``--device`` flag with the same meaning, so one function reads it. torch is
imported when the function is called, so that importing this module (the
bottom layer) stays free of torch.
"""

from __future__ import annotations

from typing import Any

from fuseki.util.errors import FusekiError

__all__ = ["DeviceError", "select_device"]


class DeviceError(FusekiError, ValueError):
    """A device was asked for that this machine does not have, or an unknown device name."""


def select_device(name: str = "auto") -> Any:
    """``auto``: CUDA if torch sees a GPU, else Apple's MPS, else the CPU. Asking for a missing one is an error."""
    import torch

    mps = getattr(torch.backends, "mps", None)
    has_mps = bool(mps is not None and mps.is_available())
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "mps" if has_mps else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise DeviceError("--device cuda was asked for, but torch sees no CUDA GPU")
    if name == "mps" and not has_mps:
        raise DeviceError("--device mps was asked for, but torch sees no MPS device")
    if name not in ("cpu", "cuda", "mps"):
        raise DeviceError(f"unknown device {name!r}; choose auto, cpu, cuda or mps")
    return torch.device(name)
