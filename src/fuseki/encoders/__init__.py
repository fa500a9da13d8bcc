"""Encoders: Go positions to feature planes, by name (see :mod:`fuseki.encoders.base`)."""

from fuseki.encoders.base import Encoder, available_encoders, get_encoder, register_encoder

__all__ = ["Encoder", "available_encoders", "get_encoder", "register_encoder"]
