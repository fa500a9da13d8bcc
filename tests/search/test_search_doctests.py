"""The doctest examples in the games and search modules run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fuseki.games",
    "fuseki.games.tictactoe",
    "fuseki.games.hexapawn",
    "fuseki.games.go",
    "fuseki.games.symmetry",
    "fuseki.search",
    "fuseki.search.minimax",
    "fuseki.search.uct",
    "fuseki.search.evaluators",
    "fuseki.search.puct",
    "fuseki.agents.search_agents",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0, f"{name} has no doctest examples"
    assert failures == 0
