"""The doctest examples in the dead-stone feature modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["fuseki.deadstones.regions", "fuseki.deadstones.territory", "fuseki.deadstones.features"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0, f"{name} has no doctest examples"
    assert failures == 0
