"""The doctest examples in the chess modules run and hold (the encoding, scores, UCI parsing, openings, match)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "fuseki.games.chess",
    "fuseki.games.chess_encoding",
    "fuseki.chess.scores",
    "fuseki.chess.uci",
    "fuseki.chess.openings",
    "fuseki.chess.match",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module)
    assert tried > 0, f"{name} has no doctest examples"
    assert failures == 0
