"""Encoders: Go positions to feature planes, by name (see :mod:`fuseki.encoders.base`).

Importing this package registers the book's encoders: ``oneplane`` (ch. 6),
``sevenplane`` and ``simple`` (ch. 7), ``alphago`` and ``alphago49`` (ch. 13)
and ``zero`` (ch. 14). ``docs/encoders.md`` lists every plane.

>>> from fuseki.encoders import get_encoder
>>> get_encoder("sevenplane", 9).shape
(7, 9, 9)
"""

from fuseki.encoders.base import Encoder, available_encoders, get_encoder, register_encoder
from fuseki.encoders.oneplane import OnePlaneEncoder
from fuseki.encoders.sevenplane import SevenPlaneEncoder
from fuseki.encoders.simple import SimpleEncoder
from fuseki.encoders.alphago import AlphaGoEncoder
from fuseki.encoders.zero import ZeroEncoder

__all__ = [
    "Encoder",
    "available_encoders",
    "get_encoder",
    "register_encoder",
    "OnePlaneEncoder",
    "SevenPlaneEncoder",
    "SimpleEncoder",
    "AlphaGoEncoder",
    "ZeroEncoder",
]
