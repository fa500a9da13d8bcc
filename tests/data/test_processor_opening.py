"""Generated games' random opening moves are played but not used as training examples."""

from __future__ import annotations

from fuseki.data.processor import encode_game, random_opening_moves
from fuseki.encoders import get_encoder

GAME = "(;FF[4]GM[1]SZ[5]KM[0.5]RU[Chinese]C[{comment}];B[cc];W[bb];B[dd];W[bd];B[db])"


def test_opening_moves_are_skipped() -> None:
    enc = get_encoder("oneplane", 5)
    plain, plain_labels = encode_game(GAME.format(comment="a game").encode(), enc, 5)
    skipped, labels = encode_game(GAME.format(comment="seed: 3\nopening: 2 random moves").encode(), enc, 5)
    assert len(plain) == 5 and len(skipped) == 3
    # The examples that remain are the same positions and moves as the plain game's last three.
    assert (skipped == plain[2:]).all() and (labels == plain_labels[2:]).all()


def test_comment_parsing() -> None:
    assert random_opening_moves("opening: 1 random move") == 1
    assert random_opening_moves("opening: 12 random moves\nnote: x") == 12
    assert random_opening_moves("") == 0
    assert random_opening_moves("my opening: 3 random moves were bad") == 0
