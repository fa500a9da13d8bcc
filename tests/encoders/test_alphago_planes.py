"""AlphaGo's 48 planes on ASCII positions, and the ladder reader on classic ladders."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.encoders import get_encoder
from fuseki.encoders._features import ladder_captured
from fuseki.encoders.alphago import FEATURE_OFFSETS as OFF
from fuseki.go import Color, GameState, Move, Point


def grid(text: str) -> np.ndarray:
    """An expected plane drawn as text: ``1`` marks a point, anything else is 0."""
    rows = [line.split() for line in text.strip().splitlines()]
    return np.array([[1 if ch == "1" else 0 for ch in row] for row in rows], dtype=np.uint8)


def points(plane: np.ndarray) -> set[tuple[int, int]]:
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(plane))}


def with_stone(text: str, r: int, c: int, ch: str) -> str:
    rows = [line.split() for line in text.strip().splitlines()]
    rows[r][c] = ch
    return "\n".join(" ".join(row) for row in rows)


A = """
    X O . . .
    . X . . .
    . . . . .
    O . . . .
    . O . . .
"""


@pytest.fixture(scope="module")
def a_planes() -> np.ndarray:
    return get_encoder("alphago", 5).encode(GameState.from_ascii(A))


def test_stone_colour_ones_and_zeros(a_planes: np.ndarray) -> None:
    assert points(a_planes[0]) == {(0, 0), (1, 1)}
    assert points(a_planes[1]) == {(0, 1), (3, 0), (4, 1)}
    assert a_planes[2].sum() == 25 - 5
    assert a_planes[3].all() and not a_planes[4].any()


def test_stone_colour_flips_with_the_player_to_move() -> None:
    planes = get_encoder("alphago", 5).encode(GameState.from_ascii(A, to_move=Color.WHITE))
    assert points(planes[0]) == {(0, 1), (3, 0), (4, 1)}
    assert points(planes[1]) == {(0, 0), (1, 1)}


def test_liberties_one_hot(a_planes: np.ndarray) -> None:
    libs = a_planes[OFF["liberties"] : OFF["liberties"] + 8]
    assert points(libs[0]) == {(0, 0), (0, 1)}  # one liberty each
    assert points(libs[2]) == {(1, 1), (3, 0), (4, 1)}  # three
    assert libs[[1, 3, 4, 5, 6, 7]].sum() == 0


def test_liberties_eight_or_more_share_the_last_plane() -> None:
    state = GameState.from_ascii(
        """
        . . . . . . .
        . . . . . . .
        . . X X X . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    planes = get_encoder("alphago", 7).encode(state)
    assert points(planes[OFF["liberties"] + 7]) == {(2, 2), (2, 3), (2, 4)}  # 8 liberties


def test_capture_size_and_liberties_after(a_planes: np.ndarray) -> None:
    cap = a_planes[OFF["capture_size"] : OFF["capture_size"] + 8]
    after = a_planes[OFF["liberties_after"] : OFF["liberties_after"] + 8]
    assert points(cap[1]) == {(0, 2)}  # takes the white stone in atari
    assert cap[0, 0, 2] == 0 and cap[0, 4, 0] == 0  # (4, 0) is suicide: no move features
    assert cap[2:].sum() == 0
    legal = a_planes[2].copy()
    legal[4, 0] = 0
    assert (cap.sum(axis=0) == legal).all()  # every legal move has exactly one capture plane
    assert after[2, 0, 2] == 1  # (0,3), (1,2) and the captured point (0,1)
    assert after[2, 1, 0] == 1  # joins two strings: (2,0), (2,1), (1,2)
    assert after[1, 2, 0] == 1  # next to the white stone: (1,0), (2,1)
    assert after[3, 2, 2] == 1  # an open point: four liberties
    assert after[:, 4, 0].sum() == 0


def test_capture_size_counts_every_string_taken_and_saturates() -> None:
    state = GameState.from_ascii(
        """
        O O O O O O O . X
        X X X X X X X X .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . X . . . . . . .
        X O . . . . . . .
        """
    )
    planes = get_encoder("alphago", 9).encode(state)
    cap = planes[OFF["capture_size"] : OFF["capture_size"] + 8]
    assert points(cap[7]) == {(0, 7)}  # seven stones: the "7 or more" plane
    assert points(cap[1]) == {(8, 2)}


def test_self_atari_size() -> None:
    state = GameState.from_ascii(
        """
        . O . . .
        O . O . .
        . . X . .
        . . . . .
        . . . O .
        """
    )
    planes = get_encoder("alphago", 5).encode(state)
    atari = planes[OFF["self_atari_size"] : OFF["self_atari_size"] + 8]
    after = planes[OFF["liberties_after"] : OFF["liberties_after"] + 8]
    # Single stones left with one liberty: (1,1), (0,2) and (4,4).
    assert points(atari[0]) == {(1, 1), (0, 2), (4, 4)}
    assert atari[1:].sum() == 0
    assert points(after[0]) == {(1, 1), (0, 2), (4, 4)}
    # (0,0) is suicide for Black: no move features at all.
    assert planes[OFF["sensibleness"], 0, 0] == 0
    assert planes[OFF["capture_size"] : OFF["capture_size"] + 8, 0, 0].sum() == 0


def test_self_atari_counts_the_whole_new_string() -> None:
    state = GameState.from_ascii(
        """
        . X O . .
        X . O . .
        O O . . .
        . . . . .
        . . . . .
        """
    )
    planes = get_encoder("alphago", 5).encode(state)
    # Black at (1,1) joins (0,1) and (1,0): three stones with one liberty, (0,0).
    assert planes[OFF["self_atari_size"] + 2, 1, 1] == 1
    assert planes[OFF["liberties_after"], 1, 1] == 1


def test_sensibleness_excludes_own_eyes_and_illegal_moves() -> None:
    state = GameState.from_ascii(
        """
        . X . . .
        X X . . .
        . . . . .
        . . . O O
        . . . O .
        """
    )
    black = get_encoder("alphago", 5).encode(state)[OFF["sensibleness"]]
    white = get_encoder("alphago", 5).encode(GameState.from_ascii(state.to_ascii(False, False), to_move=Color.WHITE))[
        OFF["sensibleness"]
    ]
    empty = state.stones() == 0
    assert points(black) == points(empty) - {(0, 0), (4, 4)}  # own eye; suicide
    assert points(white) == points(empty) - {(0, 0), (4, 4)}  # suicide; own eye


def test_turns_since() -> None:
    state = GameState.new(5)
    order = [Point(0, 0), Point(4, 4), Point(2, 2), Point(0, 4), Point(4, 0), Point(1, 1), Point(3, 3), Point(1, 3), Point(3, 1)]
    for p in order:
        state = state.play(Move.play(p))
    planes = get_encoder("alphago", 5).encode(state)
    turns = planes[OFF["turns_since"] : OFF["turns_since"] + 8]
    # The last move is 1 turn ago, the first of nine is 9: the "8 or more" plane.
    for k, p in enumerate(reversed(order), start=1):
        assert turns[min(k, 8) - 1, p.row, p.col] == 1, (k, p)
    assert (turns.sum(axis=0) == (state.stones() != 0)).all()
    # Passes age the stones too.
    passed = state.play(Move.pass_turn())
    turns = get_encoder("alphago", 5).encode(passed)[OFF["turns_since"] : OFF["turns_since"] + 8]
    assert turns[1, 3, 1] == 1
    # Set-up stones have no move: they count as old.
    setup = get_encoder("alphago", 5).encode(GameState.from_ascii(A))
    assert points(setup[OFF["turns_since"] + 7]) == {(0, 0), (1, 1), (0, 1), (3, 0), (4, 1)}


def test_player_plane_only_in_the_49_plane_version() -> None:
    black = get_encoder("alphago49", 5).encode(GameState.new(5))
    white = get_encoder("alphago49", 5).encode(GameState.new(5).play(Move.pass_turn()))
    assert black.shape == (49, 5, 5) and black[48].all() and not white[48].any()
    assert (black[:48] == get_encoder("alphago", 5).encode(GameState.new(5))).all()


# ---- ladders ----------------------------------------------------------------

# White's two stones have two liberties; Black to move. An atari at (4,5)
# drives them down and right in a working ladder to the edge; an atari at
# (5,4) lets them out.
LADDER = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X X . . . .
    . . X O O . . . .
    . . . X . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


def test_working_ladder_is_a_ladder_capture() -> None:
    planes = get_encoder("alphago", 9).encode(GameState.from_ascii(LADDER))
    assert points(planes[OFF["ladder_capture"]]) == {(4, 5)}
    assert not planes[OFF["ladder_escape"]].any()


@pytest.mark.parametrize("breaker", [(6, 6), (7, 6), (6, 7), (7, 7)])
def test_a_breaker_stone_breaks_the_ladder(breaker: tuple[int, int]) -> None:
    state = GameState.from_ascii(with_stone(LADDER, *breaker, "O"))
    planes = get_encoder("alphago", 9).encode(state)
    assert not planes[OFF["ladder_capture"]].any()


def test_a_black_stone_on_the_path_helps_the_ladder() -> None:
    state = GameState.from_ascii(with_stone(LADDER, 6, 6, "X"))
    planes = get_encoder("alphago", 9).encode(state)
    assert planes[OFF["ladder_capture"], 4, 5] == 1


def test_ladder_escape_from_the_defenders_side() -> None:
    # The white stone is in atari and White is to move: extending at (4,4)
    # does not escape the ladder unless a breaker stands on its path.
    in_atari = with_stone(LADDER, 4, 4, ".")
    state = GameState.from_ascii(in_atari, to_move=Color.WHITE)
    assert not get_encoder("alphago", 9).encode(state)[OFF["ladder_escape"]].any()
    assert ladder_captured(state._buf, 4 * 9 + 3)
    broken = GameState.from_ascii(with_stone(in_atari, 7, 6, "O"), to_move=Color.WHITE)
    assert points(get_encoder("alphago", 9).encode(broken)[OFF["ladder_escape"]]) == {(4, 4)}
    assert not ladder_captured(broken._buf, 4 * 9 + 3)


def test_escape_by_capturing_an_attacker_in_atari() -> None:
    # White's (4,3) is in atari, and so is Black's (4,2): White escapes by
    # taking it at (4,1) as well as by extending to three liberties at (4,4).
    state = GameState.from_ascii(
        """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . O X . . . . .
        . . X O . . . . .
        . . O X . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        to_move=Color.WHITE,
    )
    escape = get_encoder("alphago", 9).encode(state)[OFF["ladder_escape"]]
    assert points(escape) == {(4, 1), (4, 4)}


def test_edge_ladder_on_the_second_line() -> None:
    # White on the second line: the atari from the centre side pushes it to
    # the first line, where it dies; the atari from the edge lets it out.
    state = GameState.from_ascii(
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . X . . . . .
        X O . . . . .
        . . . . . . .
        """
    )
    planes = get_encoder("alphago", 7).encode(state)
    assert points(planes[OFF["ladder_capture"]]) == {(5, 2)}


def test_ladder_reader_directly() -> None:
    state = GameState.from_ascii(LADDER)
    assert not ladder_captured(state._buf, 0)  # an empty point
    assert ladder_captured(state._buf, 4 * 9 + 3)  # Black to move reads the ataris
    assert not ladder_captured(state._buf, 3 * 9 + 3)  # Black's own string, four liberties: no ladder
    broken = GameState.from_ascii(with_stone(LADDER, 7, 6, "O"))
    assert not ladder_captured(broken._buf, 4 * 9 + 4)


def test_long_ladder_on_a_big_board_is_read_to_the_end() -> None:
    # The same shape near the top-left corner of 25x25: about 40 plies to the edge.
    rows = [["."] * 25 for _ in range(25)]
    for r, c, ch in [(0, 1, "X"), (0, 2, "X"), (1, 0, "X"), (1, 1, "O"), (1, 2, "O"), (2, 1, "X")]:
        rows[r + 2][c + 2] = ch
    text = "\n".join(" ".join(row) for row in rows)
    state = GameState.from_ascii(text)
    planes = get_encoder("alphago", 25).encode(state)
    assert points(planes[OFF["ladder_capture"]]) == {(3, 5)}
    rows[20][21] = "O"  # a breaker far away on the diagonal
    broken = GameState.from_ascii("\n".join(" ".join(row) for row in rows))
    assert not get_encoder("alphago", 25).encode(broken)[OFF["ladder_capture"]].any()
