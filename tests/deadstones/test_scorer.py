"""The classifier at work: the static atari rule, the shipped model, estimators, agreement, make-data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fuseki.deadstones.dataset import load_block_dataset
from fuseki.deadstones.make_data import MakeDataError, make_block_data
from fuseki.deadstones.scorer import (
    DEFAULT_MODEL,
    agreement,
    final_status_estimator,
    load_dead_stone_model,
    nn_dead_stones,
    nn_final_status,
)
from fuseki.go import GameState, game_to_sgf, save_sgf
from fuseki.go.coords import Point, from_gtp



def _game(size: int, moves: list[str]) -> GameState:
    state = GameState.new(size, "chinese")
    for m in moves:
        state = state.play(size * size if m == "pass" else from_gtp(m, size))
    return state


# Black walls off columns A-D, White G-J. C3 is a black stone inside Black's own area (alive);
# C7 is a white stone that cannot live there (dead).
WALLS_9 = [
    "E1", "G1", "E2", "G2", "E3", "G3", "E4", "G4", "E5", "G5", "E6", "G6", "E7", "G7", "E8", "G8", "E9", "G9",
    "C3", "C7", "pass", "pass",
]


def test_shipped_model_loads_and_finds_the_lone_stone() -> None:
    model = load_dead_stone_model()
    assert model.feature_set in ("A", "B")
    state = _game(9, WALLS_9)
    status = nn_final_status(state)
    assert status["dead"] == [from_gtp("C7", 9)]
    assert from_gtp("C3", 9) in status["alive"] and status["seki"] == []
    assert len(status["alive"]) + len(status["dead"]) == int((state.stones() > 0).sum())
    assert nn_dead_stones(state) == status["dead"]
    # Scoring with it: C7 comes off the board and counts for Black under area rules.
    assert state.score(dead=status["dead"]).winner is not None


def test_a_block_in_atari_is_dead_by_the_static_rule() -> None:
    state = GameState.from_ascii(
        """
        . X O . .
        X O O . .
        O O . . .
        . . . . .
        . . . . .
        """
    )

    class AlwaysAlive:
        feature_set = "A"

        def predict(self, features: np.ndarray) -> np.ndarray:
            return np.zeros(len(features))

    status = nn_final_status(state, AlwaysAlive())  # type: ignore[arg-type]
    # The black stones at B5 and A4 each have one liberty: dead whatever the network says.
    assert status["dead"] == [Point(0, 1), Point(1, 0)]


def test_estimators_check_their_settings_at_once(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown dead-stone estimate 'magic'"):
        final_status_estimator("magic")
    with pytest.raises(ValueError, match="network estimate only"):
        final_status_estimator("playouts", model=DEFAULT_MODEL)
    with pytest.raises(ValueError, match="no dead-stone model"):
        final_status_estimator("network", model=str(tmp_path / "missing.safetensors"))
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError):
        final_status_estimator("network", model=str(bad))
    state = _game(9, WALLS_9)
    for method in ("playouts", "network"):
        status = final_status_estimator(method)(state)
        assert set(status) == {"alive", "dead", "seki"}
        assert from_gtp("C7", 9) in status["dead"]


def test_agreement_counts_blocks_and_games() -> None:
    states = [_game(9, WALLS_9), _game(7, ["D4", "pass", "pass"])]
    c7 = from_gtp("C7", 9)
    result = agreement(
        states,
        {"right": lambda s: [c7] if s.size == 9 else [], "all alive": lambda s: []},
        lambda s: frozenset({c7}) if s.size == 9 else frozenset(),
    )
    assert result["games"] == 2 and result["blocks"] == 4 + 1  # two walls, C3 and C7; one stone
    assert result["estimators"]["right"]["blocks_agree_pct"] == 100.0
    assert result["estimators"]["right"]["games_agree"] == 2
    assert result["estimators"]["all alive"]["blocks_agree"] == 4
    assert result["estimators"]["all alive"]["games_agree"] == 1


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_make_data_labels_skips_and_resumes(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    save_sgf(games / "a.sgf", game_to_sgf(_game(9, WALLS_9)))
    save_sgf(games / "b.sgf", game_to_sgf(_game(7, ["D4", "C3", "pass", "pass"])))
    save_sgf(games / "c.sgf", game_to_sgf(_game(9, ["E5", "C3"])))  # not finished
    (games / "d.sgf").write_bytes(b"(;SZ[9];B[ee];W[ee])")  # illegal: the same point twice
    out = tmp_path / "blocks.npz"
    summary = make_block_data([games], out, chunk_games=2, workers=1)
    assert summary["games_used"] == 2 and summary["games_listed"] == 4
    assert summary["skipped"] == {"not finished by two passes": 1, "bad SGF": 1}
    assert summary["labelled_by"] == {"gnugo": 2}
    data = load_block_dataset(out)
    assert len(data) == summary["blocks"] == 2 + 2 + 2  # two walls, C3, C7 on 9x9; D4 and C3 on 7x7
    assert int(data.dead.sum()) == 1 and sorted(set(data.size.tolist())) == [7, 9]
    row = int(np.flatnonzero(data.dead)[0])
    assert data.color[row] == 2 and data.stones[row] == 1  # the white stone at C7
    # A rerun keeps the finished chunks; other settings are refused.
    again = make_block_data([games], out, chunk_games=2, workers=1)
    assert again["chunks_kept"] == again["chunks"] == 2 and again["blocks"] == summary["blocks"]
    with pytest.raises(MakeDataError, match="other settings"):
        make_block_data([games], out, chunk_games=3)


def test_make_data_with_marks_needs_no_engine(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    (games / "kgs.sgf").write_bytes(b"(;GM[1]FF[4]SZ[9]KM[6.5]RE[B+10.5];B[cc];W[bb];B[hh];W[tt];B[tt]TB[bb][aa]TW[ii])")
    (games / "plain.sgf").write_bytes(b"(;GM[1]FF[4]SZ[9];B[cc];W[gg];B[tt];W[tt])")
    summary = make_block_data([games], tmp_path / "b.npz", labeller="marks", gnugo="no-such-engine")
    assert summary["games_used"] == 1 and summary["skipped"] == {"no dead-stone marks": 1}
    data = load_block_dataset(tmp_path / "b.npz")
    assert data.dead.tolist().count(1) == 1 and len(data) == 3


def test_make_data_errors(tmp_path: Path) -> None:
    with pytest.raises(MakeDataError, match="unknown labeller"):
        make_block_data([tmp_path], tmp_path / "x.npz", labeller="oracle")
    with pytest.raises(MakeDataError, match="no SGF games"):
        make_block_data([tmp_path], tmp_path / "x.npz", labeller="marks")
    with pytest.raises(MakeDataError, match="not installed"):
        make_block_data([tmp_path], tmp_path / "x.npz", gnugo="/no/such/gnugo --mode gtp")
