"""The planes of the book's encoders (oneplane, sevenplane, simple, zero) on ASCII positions."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.encoders import get_encoder
from fuseki.encoders.oneplane import OnePlaneEncoder
from fuseki.go import Color, GameState, Move, Point


def grid(text: str) -> np.ndarray:
    """An expected plane drawn as text: ``1`` marks a point, anything else is 0."""
    rows = [line.split() for line in text.strip().splitlines()]
    return np.array([[1 if ch == "1" else 0 for ch in row] for row in rows], dtype=np.uint8)


# Black X: a one-liberty stone in the corner, a two-stone string with 5 liberties.
# White O: a stone with 2 liberties, a string of three with 7 liberties.
POSITION = """
    X O . . .
    . . . X .
    . . . X .
    . O O O .
    . . . . .
"""


def test_oneplane_own_one_opponent_two_and_the_book_values() -> None:
    enc = OnePlaneEncoder(5)
    black = enc.encode(GameState.from_ascii(POSITION, to_move=Color.BLACK))[0]
    white = enc.encode(GameState.from_ascii(POSITION, to_move=Color.WHITE))[0]
    stones = GameState.from_ascii(POSITION).stones()
    assert (black == np.choose(stones, [0, 1, 2])).all()
    # The perspective flips with the player to move.
    assert (white == np.choose(stones, [0, 2, 1])).all()
    book = OnePlaneEncoder.to_book_values(black[None])
    assert book.dtype == np.float32
    assert book[0, 0, 0] == 1.0 and book[0, 0, 1] == -1.0 and book[0, 0, 2] == 0.0


SEVEN_BLACK_TO_MOVE = {
    0: """
        1 . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """,
    1: ". . . . .\n" * 5,
    2: """
        . . . . .
        . . . 1 .
        . . . 1 .
        . . . . .
        . . . . .
    """,
    3: ". . . . .\n" * 5,
    4: """
        . 1 . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """,
    5: """
        . . . . .
        . . . . .
        . . . . .
        . 1 1 1 .
        . . . . .
    """,
    6: ". . . . .\n" * 5,
}


def test_sevenplane_planes_for_black_to_move() -> None:
    planes = get_encoder("sevenplane", 5).encode(GameState.from_ascii(POSITION))
    for k, text in SEVEN_BLACK_TO_MOVE.items():
        assert (planes[k] == grid(text)).all(), f"plane {k}"


def test_sevenplane_perspective_flips_with_the_player_to_move() -> None:
    enc = get_encoder("sevenplane", 5)
    black = enc.encode(GameState.from_ascii(POSITION, to_move=Color.BLACK))
    white = enc.encode(GameState.from_ascii(POSITION, to_move=Color.WHITE))
    assert (white[0:3] == black[3:6]).all()
    assert (white[3:6] == black[0:3]).all()


def test_simple_planes_in_absolute_colours() -> None:
    enc = get_encoder("simple", 5)
    for to_move in (Color.BLACK, Color.WHITE):
        planes = enc.encode(GameState.from_ascii(POSITION, to_move=to_move))
        assert (planes[0] == grid(SEVEN_BLACK_TO_MOVE[0])).all()  # black, 1 liberty
        assert planes[1].sum() == 0 and planes[2].sum() == 0  # black, 2 and 3 liberties
        assert (planes[3] == grid(SEVEN_BLACK_TO_MOVE[2])).all()  # black, 4+ (the two-stone string)
        assert planes[4].sum() == 0
        assert (planes[5] == grid(SEVEN_BLACK_TO_MOVE[4])).all()  # white, 2 liberties
        assert planes[6].sum() == 0
        assert (planes[7] == grid(SEVEN_BLACK_TO_MOVE[5])).all()  # white, 4+ (five liberties)
        assert planes[8].all() == (to_move is Color.BLACK) and planes[8].any() == (to_move is Color.BLACK)
        assert planes[9].all() == (to_move is Color.WHITE) and planes[9].any() == (to_move is Color.WHITE)
        assert planes[10].sum() == 0


def test_zero_planes_from_the_player_to_move() -> None:
    enc = get_encoder("zero", 5)
    black = enc.encode(GameState.from_ascii(POSITION, to_move=Color.BLACK))
    white = enc.encode(GameState.from_ascii(POSITION, to_move=Color.WHITE))
    assert (black[0] == grid(SEVEN_BLACK_TO_MOVE[0])).all()
    assert (black[3] == grid(SEVEN_BLACK_TO_MOVE[2])).all()
    assert (black[5] == grid(SEVEN_BLACK_TO_MOVE[4])).all()
    assert (black[7] == grid(SEVEN_BLACK_TO_MOVE[5])).all()
    assert (white[0:4] == black[4:8]).all() and (white[4:8] == black[0:4]).all()
    # Komi planes: 8 "we get komi" is on for White to move, 9 for Black to move.
    assert black[8].sum() == 0 and black[9].all()
    assert white[8].all() and white[9].sum() == 0


def test_liberty_counts_saturate_where_the_book_says() -> None:
    # A lone stone in the middle has 4 liberties; a string of two has 6.
    state = GameState.from_ascii(
        """
        . . . . .
        . X . . .
        . . . . .
        . . . O O
        . . . . .
        """
    )
    seven = get_encoder("sevenplane", 5).encode(state)
    zero = get_encoder("zero", 5).encode(state)
    assert seven[2, 1, 1] == 1 and seven[5, 3, 3] == 1 and seven[5, 3, 4] == 1
    assert zero[3, 1, 1] == 1 and zero[7, 3, 3] == 1


KO = """
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . . . . .
"""


@pytest.mark.parametrize("name, ko_plane", [("sevenplane", 6), ("simple", 10), ("zero", 10)])
def test_ko_plane_marks_the_point_that_ko_forbids(name: str, ko_plane: int) -> None:
    enc = get_encoder(name, 5)
    state = GameState.from_ascii(KO)
    assert enc.encode(state)[ko_plane].sum() == 0
    taken = state.play(Move.play(Point(1, 2)))  # Black takes the ko
    assert taken.ko_point == Point(1, 1)
    expected = np.zeros((5, 5), dtype=np.uint8)
    expected[1, 1] = 1
    assert (enc.encode(taken)[ko_plane] == expected).all()
    # After a move elsewhere the ko is open again.
    later = taken.play(Move.play(Point(4, 4)))
    assert enc.encode(later)[ko_plane].sum() == 0


def test_ko_plane_ignores_suicide_points() -> None:
    # White's eye at the corner is suicide for Black, not ko.
    state = GameState.from_ascii(
        """
        . O . . .
        O O . . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    assert not state.is_legal(Move.play(Point(0, 0)))
    assert get_encoder("simple", 5).encode(state)[10].sum() == 0


def test_ko_plane_is_exactly_the_points_ko_and_superko_forbid() -> None:
    """Random games under positional superko: the plane matches ``why_illegal``."""
    rng = np.random.default_rng(3)
    enc = get_encoder("simple", 4)
    marked = 0
    for _ in range(30):
        state = GameState.new(4, "chinese")
        for _ in range(80):
            if state.is_over():
                break
            planes = enc.encode(state)
            stones = state.stones()
            for r in range(4):
                for c in range(4):
                    why = state.why_illegal(Move.play(Point(r, c))) if stones[r, c] == 0 else None
                    assert planes[10, r, c] == (why in ("ko", "superko")), (state.to_ascii(), r, c, why)
            marked += int(planes[10].sum())
            legal = state.legal_points()
            state = state.play(int(legal[rng.integers(len(legal))]))
    assert marked > 0
