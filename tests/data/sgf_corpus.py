"""Seeded random legal games as SGF files, for the data pipeline's tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fuseki.go import GameState, game_to_sgf, save_sgf


def random_game(size: int = 9, seed: int = 0, moves: int = 30, handicap: int = 0) -> GameState:
    """A game of ``moves`` uniformly random legal plays (no passes), fewer if none is left."""
    rng = np.random.default_rng(seed)
    state = GameState.new(size, "chinese", handicap=handicap)
    for _ in range(moves):
        points = state.legal_points()[:-1]  # pass is last
        if len(points) == 0:
            break
        state = state.play(int(rng.choice(points)))
    return state


def write_games(folder: Path, count: int, size: int = 9, seed: int = 0, moves: int = 30) -> list[Path]:
    """``count`` random games as ``folder/game-NNNN.sgf``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"game-{i:04d}.sgf"
        save_sgf(path, game_to_sgf(random_game(size, seed * 100_003 + i, moves)))
        paths.append(path)
    return paths
