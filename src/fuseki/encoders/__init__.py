"""Encoders: Go positions to feature planes, by name (see :mod:`fuseki.encoders.base`).

The registry holds the book's encoders: ``oneplane`` (ch. 6), ``sevenplane``
and ``simple`` (ch. 7), ``alphago`` and ``alphago49`` (ch. 13) and ``zero``
(ch. 14); each is imported when first built. ``docs/encoders.md`` lists every
plane.

>>> from fuseki.encoders import get_encoder
>>> get_encoder("sevenplane", 9).shape
(7, 9, 9)
"""

from __future__ import annotations

import importlib
from typing import Any

from fuseki.encoders.base import (
    ENCODERS,
    Encoder,
    EncoderError,
    available_encoders,
    get_encoder,
    register_encoder,
)

__all__ = [
    "ENCODERS",
    "AlphaGoEncoder",
    "Encoder",
    "EncoderError",
    "OnePlaneEncoder",
    "SevenPlaneEncoder",
    "SimpleEncoder",
    "ZeroEncoder",
    "available_encoders",
    "get_encoder",
    "register_encoder",
]

_CLASSES = {
    "OnePlaneEncoder": "fuseki.encoders.oneplane",
    "SevenPlaneEncoder": "fuseki.encoders.sevenplane",
    "SimpleEncoder": "fuseki.encoders.simple",
    "AlphaGoEncoder": "fuseki.encoders.alphago",
    "ZeroEncoder": "fuseki.encoders.zero",
}


def __getattr__(name: str) -> Any:
    """``from fuseki.encoders import OnePlaneEncoder`` still works, imported on first use (start-up time:
    the encoders load the Go engine's Numba kernels)."""
    module = _CLASSES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
