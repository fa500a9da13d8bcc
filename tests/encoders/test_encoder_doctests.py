"""The doctest examples in the encoder modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fuseki.encoders",
    "fuseki.encoders._common",
    "fuseki.encoders._features",
    "fuseki.encoders.oneplane",
    "fuseki.encoders.sevenplane",
    "fuseki.encoders.simple",
    "fuseki.encoders.alphago",
    "fuseki.encoders.zero",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0, f"{name} has no doctest examples"
    assert failures == 0
