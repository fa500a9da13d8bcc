"""The thesis's block features, sets A (33) and B (89) (spec row T1; Guisov 2006, §1.3.2).

Every feature is checked on a small ASCII position whose value is worked out
by hand in the comment next to it. Coordinates are (row, col), row 0 on top.
"""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.deadstones.features import (
    FEATURES_A,
    FEATURES_B,
    FEATURES_FULL,
    Block,
    block_features,
    board_features,
    feature_names,
    find_blocks,
)
from fuseki.deadstones.regions import analyze_board
from fuseki.deadstones.territory import bouzy_territory
from fuseki.go.coords import Point
from fuseki.go.state import Color, GameState

# A black block around a one-point eye, with a black stone at (0, 4) that
# shares the liberty (0, 3) with it. No White on the board.
EYE = """
    X X X . X
    X . X . .
    X X X X .
    . . . . .
    . . . . .
"""

# A White ring (4x4 square, 12 stones) with one Black stone inside it.
RING = """
    . . . . . . .
    . O O O O . .
    . O . . O . .
    . O . X O . .
    . O O O O . .
    . . . . . . .
    . . . . . . .
"""

# Black A = (2, 1) and B = (2, 3) share the liberty (2, 2): one chain.
# White: W1 = (1, 1), W2 = (2, 0), W3 = (3, 1) (one chain through (1, 0) and
# (3, 0)), and W4 = (2, 4) + (3, 4).
NEIGHBOURS = """
    . . . . . . .
    . O . . . . .
    O X . X O . .
    . O . . O . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""

# A black wall with a straight-three eye in the corner; White walls it in.
STRAIGHT_THREE = """
    . . . X O . .
    X X X X O . .
    O O O O O . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
"""


def features_of(position: str, point: tuple[int, int], feature_set: str = "full") -> dict[str, float]:
    """The named features of the block that holds ``point``."""
    blocks, x = block_features(GameState.from_ascii(position), feature_set)
    for block, row in zip(blocks, x):
        if Point(*point) in block.points:
            return dict(zip(feature_names(feature_set), row.tolist()))
    raise AssertionError(f"no block at {point}")


# ---- the sets -------------------------------------------------------------------


def test_vector_lengths_and_names() -> None:
    assert len(FEATURES_A) == 33 and len(FEATURES_B) == 89 and len(FEATURES_FULL) == 90
    assert len(set(FEATURES_FULL)) == 90
    # B is every feature but the later-added power; A is B's first 33.
    assert set(FEATURES_FULL) - set(FEATURES_B) == {"pacer_average_power"}
    assert FEATURES_A == FEATURES_B[:33]
    assert FEATURES_A[0] == "size" and FEATURES_A[-1] == "chain_ext_opp_liberties"
    assert FEATURES_B[-1] == "terr_all_opp_liberties"
    s = GameState.from_ascii(RING)
    for name, k in (("A", 33), ("B", 89), ("full", 90)):
        blocks, x = block_features(s, name)
        assert x.shape == (2, k) and x.dtype == np.float32


def test_sets_are_columns_of_the_full_vector() -> None:
    s = GameState.from_ascii(NEIGHBOURS)
    _, full = block_features(s, "full")
    _, a = block_features(s, "A")
    _, b = block_features(s, "B")
    idx = {n: i for i, n in enumerate(FEATURES_FULL)}
    assert np.array_equal(a, full[:, [idx[n] for n in FEATURES_A]])
    assert np.array_equal(b, full[:, [idx[n] for n in FEATURES_B]])


def test_bad_feature_set_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="unknown feature set 'C'"):
        block_features(GameState.new(5), "C")


def test_empty_board_has_no_blocks() -> None:
    blocks, x = block_features(GameState.new(9), "B")
    assert blocks == [] and x.shape == (0, 89)
    assert find_blocks(GameState.new(5)) == []


def test_find_blocks_order_and_liberties() -> None:
    blocks = find_blocks(GameState.from_ascii(NEIGHBOURS))
    # Row-major by first point: W1 (1,1), W2 (2,0), A (2,1), B (2,3), W4 (2,4), W3 (3,1).
    assert [b.anchor for b in blocks] == [Point(1, 1), Point(2, 0), Point(2, 1), Point(2, 3), Point(2, 4), Point(3, 1)]
    a = blocks[2]
    assert isinstance(a, Block) and a.color is Color.BLACK and a.size == 1
    assert a.liberties == (Point(2, 2),) and a.in_atari
    assert blocks[4].points == (Point(2, 4), Point(3, 4))


# ---- the block itself (§1.3.2 items 1-9) -------------------------------------------


def test_block_shape_features() -> None:
    f = features_of(EYE, (0, 0))
    # 9 stones; outside points touching them: 3 above, 3 left, (1,1), (0,3), (1,3),
    # (2,4), (3,0..3) = 14.
    assert f["size"] == 9 and f["perimeter"] == 14
    # Rows 0-2 x columns 0-3.
    assert f["bb_square"] == 12
    # Mean column 11/9, mean row 10/9; nearest edges are the left and the top.
    assert f["cm_x"] == pytest.approx(11 / 9) and f["cm_y"] == pytest.approx(10 / 9)
    g = features_of(RING, (1, 1))
    # The ring's centre of mass is (2.5, 2.5) on a 7x7 board: 2.5 from the top and the left.
    assert g["cm_x"] == 2.5 and g["cm_y"] == 2.5
    # Perimeter: 16 outside points + the 4 inner points = 20; box 4x4.
    assert g["perimeter"] == 20 and g["bb_square"] == 16


def test_liberties_of_three_ranks() -> None:
    s = GameState.from_ascii("\n".join([". . . . . . ."] * 3 + [". . . X . . ."] + [". . . . . . ."] * 3))
    blocks, x = block_features(s, "full")
    f = dict(zip(FEATURES_FULL, x[0].tolist()))
    # A lone stone at the centre of 7x7: ranks are the diamonds at distance 1, 2, 3.
    assert (f["liberties_1"], f["liberties_2"], f["liberties_3"]) == (4, 8, 12)
    e = features_of(EYE, (0, 0))
    # Rank 1: (1,1) (0,3) (1,3) (2,4) (3,0..3) = 8; rank 2: (1,4) (3,4) (4,0..3) = 6;
    # rank 3: (4,4) = 1 ((0,4) is a stone).
    assert (e["liberties_1"], e["liberties_2"], e["liberties_3"]) == (8, 6, 1)


def test_protected_liberties() -> None:
    f = features_of(EYE, (0, 0))
    # White at (1,1) would have no liberty (suicide) and at (0,3) one, (1,3);
    # the others have two or more: 2 protected liberties.
    assert f["protected_liberties"] == 2
    # The lone stone at (0,4): (0,3) is protected, (1,4) is not.
    assert features_of(EYE, (0, 4))["protected_liberties"] == 1
    # White (2,0) in NEIGHBOURS: Black at (1,0) or (3,0) would be in atari: 2.
    assert features_of(NEIGHBOURS, (2, 0))["protected_liberties"] == 2


def test_protected_liberty_counts_captures() -> None:
    # Black (0,1) and (1,0) share their only liberty (0,0). White there would
    # have no liberty of its own, but it captures both stones and then has two,
    # (0,1) and (1,0): not protected. (Without the capture it would look like
    # suicide and be counted.)
    pos = """
        . X O . .
        X O . . .
        O . . . .
        . . . . .
        . . . . .
    """
    f = features_of(pos, (0, 1))
    assert f["liberties_1"] == 1 and f["protected_liberties"] == 0


def test_chain_connections_and_opponents() -> None:
    # (0,3) is a liberty of both black blocks: one connection each.
    assert features_of(EYE, (0, 0))["chain_connections"] == 1
    assert features_of(EYE, (0, 4))["chain_connections"] == 1
    # A (2,1) touches W1, W2 and W3; B (2,3) only W4.
    assert features_of(NEIGHBOURS, (2, 1))["opp_blocks_num"] == 3
    assert features_of(NEIGHBOURS, (2, 3))["opp_blocks_num"] == 1
    # W2 (2,0) shares (1,0) with W1 and (3,0) with W3.
    assert features_of(NEIGHBOURS, (2, 0))["chain_connections"] == 2


def test_local_majority() -> None:
    # Within distance 2 of (2,1): Black (2,1), (2,3); White (1,1), (2,0), (3,1): 2 - 3.
    assert features_of(NEIGHBOURS, (2, 1))["local_majority"] == -1
    # The stone in the ring: itself against (1,3) (2,4) (3,1) (3,4) (4,2) (4,3) (4,4).
    assert features_of(RING, (3, 3))["local_majority"] == 1 - 7
    # EYE: all 10 black stones lie within distance 2 of the big block, no White.
    assert features_of(EYE, (0, 0))["local_majority"] == 10


# ---- regions: eyes, partially accessible regions, the opponent's region ----------------


def test_eyes() -> None:
    f = features_of(STRAIGHT_THREE, (1, 0))
    # One eye: (0,0) (0,1) (0,2); outside it: 3 above, (0,-1), (0,3), (1,0..2) = 8;
    # its middle point splits it. The rest of the board holds White: not an eye.
    assert (f["eye_num"], f["eye_sum_size"], f["eye_sum_perimeter"], f["eye_sum_split_points"]) == (1, 3, 8, 1)
    e = features_of(EYE, (0, 0))
    # Two eyes: (1,1) (size 1, perimeter 4, no split point) and the 14 empty points
    # outside; with no White on the board that region is an eye too. In it, (1,3),
    # (1,4), (2,4) and (3,4) each cut (0,3) ... off from the rest: 4 split points.
    assert (e["eye_num"], e["eye_sum_size"], e["eye_sum_split_points"]) == (2, 15, 4)
    # Perimeters: 4 for (1,1); the big region touches 1 off-board point above
    # (-1,3), 2 on the left, 5 below, 4 on the right ((1,5) (2,5) (3,5) (4,5)) and
    # the stones (0,2) (0,4) (1,2) (2,0) (2,1) (2,2) (2,3): 19.
    assert e["eye_sum_perimeter"] == 4 + 19


def test_partially_accessible_regions() -> None:
    w = features_of(RING, (1, 1))
    # The ring's inner region (2,2) (2,3) (3,2) (3,3) holds a Black stone and
    # White liberties: partially accessible. Accessible: the empty space
    # (2,2) (2,3) (3,2): 3 points, touching (1,2) (1,3) (2,1) (2,4) (3,1) (3,3)
    # (4,2) = 7. Internal: the Black stone, perimeter 4, no split point.
    assert (w["pacer_sum_acc_size"], w["pacer_sum_acc_perimeter"]) == (3, 7)
    assert (w["pacer_sum_int_size"], w["pacer_sum_int_perimeter"], w["pacer_sum_int_split_points"]) == (1, 4, 0)
    b = features_of(RING, (3, 3))
    # For the Black stone, the region enclosed by Black is all 48 other points;
    # accessible: the same 3 empty points; internal: 45 points (the ring and the
    # outside), touching the 28 off-board points, the stone and the 3 = 32.
    assert (b["pacer_sum_acc_size"], b["pacer_sum_int_size"], b["pacer_sum_int_perimeter"]) == (3, 45, 32)


def test_pacer_average_power_is_the_mean_influence_of_the_region() -> None:
    s = GameState.from_ascii(RING)
    power = bouzy_territory(s, 5, 10)
    region = [(2, 2), (2, 3), (3, 2), (3, 3)]
    # Signed so that the block's colour (White, negative in the map) is positive.
    expected = -np.mean([power[p] for p in region])
    assert features_of(RING, (1, 1))["pacer_average_power"] == pytest.approx(expected)
    # Hand check: the dead stone keeps 128 - 10 erosions x 4 = 88; the inner empty
    # points touch both colours, never dilate and stay 0: -(88 / 4) = -22.
    assert expected == pytest.approx(-22.0)


def test_opponent_region() -> None:
    b = features_of(RING, (3, 3))
    # The region enclosed by White that holds the stone: the 2x2 inside, perimeter 8.
    assert (b["opp_cer_size"], b["opp_cer_perimeter"]) == (4, 8)
    w = features_of(RING, (1, 1))
    # For White it is every point but the Black stone: 48, perimeter 28 + 1.
    assert (w["opp_cer_size"], w["opp_cer_perimeter"]) == (48, 29)


# ---- the chain ----------------------------------------------------------------------


def test_chain_features() -> None:
    a = features_of(NEIGHBOURS, (2, 1))
    # A and B: 2 blocks, 2 stones, perimeter 4 + 4 - 1 (the shared (2,2)) = 7,
    # liberties (2,2) (1,3) (3,3) = 3, of which (2,2) joins the blocks and (3,3)
    # touches White.
    assert (a["chain_blocks_num"], a["chain_size"], a["chain_perimeter"], a["chain_liberties"]) == (2, 2, 7, 3)
    assert (a["chain_split_liberties"], a["chain_ext_opp_liberties"]) == (1, 1)
    # Black encloses a single region (all 47 non-black points): adjacent, not an
    # eye (White stones in it), accessible but larger than 9.
    assert a["chain_adj_cer_num"] == 1 and a["chain_eye_num"] == 0
    assert (a["chain_pacer5_num"], a["chain_pacer9_num"]) == (0, 0)
    e = features_of(EYE, (0, 4))
    # The lone stone's chain is the big block + itself: its two eyes.
    assert (e["chain_blocks_num"], e["chain_size"], e["chain_liberties"]) == (2, 10, 9)
    assert (e["chain_eye_num"], e["chain_eye_sum_size"], e["chain_eye_sum_perimeter"]) == (2, 15, 23)
    assert e["chain_eye_sum_split_points"] == 4
    # Perimeter of the 10 stones: the block's 14 outside points plus those of (0,4)
    # that are new, (-1,4), (0,5) and (1,4): 17.
    assert e["chain_perimeter"] == 17


def test_chain_small_partially_accessible_regions() -> None:
    w = features_of(RING, (1, 1))
    # The ring's inner region has 4 points (<= 5 and <= 9), its mean power -22.
    assert (w["chain_pacer5_num"], w["chain_pacer9_num"]) == (1, 1)
    assert w["chain_pacer5_ave_power"] == pytest.approx(-22.0)
    assert w["chain_pacer9_ave_power"] == pytest.approx(-22.0)


def test_chain_estimated_territory() -> None:
    # No White on the board: every empty point is Black's territory after 5/21,
    # and all 15 are in areas that hold a liberty of the chain.
    assert features_of(EYE, (0, 0))["chain_estimated_adj_terr"] == 15
    # The ring's outside (33 points) is White's; the inside is contested (0).
    assert features_of(RING, (1, 1))["chain_estimated_adj_terr"] == 33
    # The dead stone has no territory at all.
    assert features_of(RING, (3, 3))["chain_estimated_adj_terr"] == 0


# ---- neighbours -------------------------------------------------------------------------


def test_two_weakest_opponent_neighbours() -> None:
    a = features_of(NEIGHBOURS, (2, 1))
    # Weakest: W2 (2,0), 2 liberties, both protected (Black would be in atari at
    # (1,0) and (3,0)), 2 connections, no common liberty with A (A's only is (2,2)).
    got = [a[f"opp1_{k}"] for k in ("size", "perimeter", "liberties", "common_liberties")]
    assert got == [1, 4, 2, 0]
    assert (a["opp1_protected_liberties"], a["opp1_chain_connections"], a["opp1_eye_num"]) == (2, 2, 0)
    # Second: W1 or W3 (identical descriptions): 3 liberties, 1 protected, 1 connection.
    assert (a["opp2_liberties"], a["opp2_protected_liberties"], a["opp2_chain_connections"]) == (3, 1, 1)
    b = features_of(NEIGHBOURS, (2, 3))
    # B has one neighbour, W4: 2 stones, perimeter 6, 5 liberties, 1 in common ((3,3)).
    assert [b[f"opp1_{k}"] for k in ("size", "perimeter", "liberties", "common_liberties")] == [2, 6, 5, 1]
    assert all(b[f"opp2_{k}"] == 0 for k in ("size", "liberties", "perimeter"))


def test_opponent_chain_of_the_weakest() -> None:
    a = features_of(NEIGHBOURS, (2, 1))
    # W1 + W2 + W3: 3 stones; outside points (0,1) (1,0) (1,2) (2,1) (3,0) (2,-1)
    # (4,1) (3,2) = 8; (1,0) and (3,0) each join two of its blocks; no eyes.
    assert (a["opp1_chain_size"], a["opp1_chain_perimeter"], a["opp1_chain_split_liberties"]) == (3, 8, 2)
    assert a["opp1_chain_eye_num"] == 0
    b = features_of(RING, (3, 3))
    # The ring's chain is the ring: 12 stones, perimeter 20, one eye (the outside,
    # 33 points, perimeter 28 off-board + 12 stones = 40, no split point).
    assert (b["opp1_chain_size"], b["opp1_chain_perimeter"]) == (12, 20)
    assert (b["opp1_chain_eye_num"], b["opp1_chain_eye_sum_size"], b["opp1_chain_eye_sum_perimeter"]) == (1, 33, 40)
    assert b["opp1_chain_eye_sum_split_points"] == 0


def test_weakest_opponent_sharing_a_liberty_with_the_chain() -> None:
    a = features_of(NEIGHBOURS, (2, 1))
    # A's chain has liberties (2,2) (1,3) (3,3); only W4 touches one of them ((3,3)).
    # W4: 2 stones, perimeter 6, 5 liberties, none in common with A, none protected.
    got = [a[f"shared_opp_{k}"] for k in ("size", "perimeter", "liberties", "common_liberties", "protected_liberties")]
    assert got == [2, 6, 5, 0, 0]


def test_strongest_friendly_neighbour() -> None:
    a = features_of(NEIGHBOURS, (2, 1))
    # A's friendly neighbour is B: 1 stone, 3 liberties, 1 shared, 1 connection.
    got = [a[f"friend_{k}"] for k in ("size", "perimeter", "liberties", "common_liberties", "chain_connections")]
    assert got == [1, 4, 3, 1, 1]
    e = features_of(EYE, (0, 4))
    # The lone stone's friend: the big block (9 stones, 8 liberties, 2 protected, 2 eyes).
    assert (e["friend_size"], e["friend_liberties"], e["friend_protected_liberties"]) == (9, 8, 2)
    assert (e["friend_eye_num"], e["friend_eye_sum_size"], e["friend_eye_sum_split_points"]) == (2, 15, 4)
    # With no friendly neighbour everything is 0.
    assert all(v == 0 for k, v in features_of(RING, (3, 3)).items() if k.startswith("friend_"))


# ---- territory -------------------------------------------------------------------------------


def test_territory_liberties() -> None:
    e = features_of(EYE, (0, 0))
    # All 8 liberties are Black territory; of the 15 territory points, 9 touch a
    # Black stone ((1,1) (0,3) (1,3) (1,4) (2,4) (3,0..3)); none touch White.
    assert (e["terr_direct_liberties"], e["terr_all_friend_liberties"], e["terr_all_opp_liberties"]) == (8, 9, 0)
    w = features_of(RING, (1, 1))
    # The ring's 16 outside liberties are White territory; the 3 inside are not.
    assert (w["terr_direct_liberties"], w["terr_all_friend_liberties"], w["terr_all_opp_liberties"]) == (16, 16, 0)


# Black walls off a 6x6 corner with a dead White stone at (1,1); White lives outside.
DEAD_INVADER = """
    . . . . . . X O .
    . O . . . . X O .
    . . . . . . X O .
    . . . . . . X O .
    . . . . . . X O .
    . . . . . . X O .
    X X X X X X X O .
    O O O O O O O O .
    . . . . . . . . .
"""


def test_territory_counts_opponent_liberties_inside() -> None:
    s = GameState.from_ascii(DEAD_INVADER)
    t = bouzy_territory(s)
    # The corner's 35 empty points are one empty space; 5/21 leaves most of them
    # at 0 but five positive ((3,5) (4,5) (5,3) (5,4) (5,5)), none negative apart
    # from (0,0) next to the stone: the sum is positive, so it is Black's territory.
    corner = [(r, c) for r in range(6) for c in range(6) if (r, c) != (1, 1)]
    assert sum(int(t[p]) for p in corner) > 0
    f = features_of(DEAD_INVADER, (0, 6))
    # The wall's liberties are all in the corner: row 5 (6 points) and column 5
    # above it (5): 11, all touching Black; the stone's liberties (0,1) (1,0)
    # (1,2) (2,1) are the opponent liberties in that territory.
    assert (f["terr_direct_liberties"], f["terr_all_friend_liberties"], f["terr_all_opp_liberties"]) == (11, 11, 4)
    # The 5 positive points form one 5/21 area that holds wall liberties.
    assert f["chain_estimated_adj_terr"] == 5
    # The dead stone has no territory of its own colour next to it.
    d = features_of(DEAD_INVADER, (1, 1))
    assert (d["terr_direct_liberties"], d["terr_all_friend_liberties"], d["chain_estimated_adj_terr"]) == (0, 0, 0)


# ---- the morphological operators ---------------------------------------------------------------


def test_bouzy_dilation_by_hand() -> None:
    board = np.zeros((3, 3), dtype=np.int8)
    board[1, 1] = 1
    # One dilation: the 4 neighbours gain 1 (one positive neighbour), corners stay 0.
    assert bouzy_territory(board, 1, 0).tolist() == [[0, 1, 0], [1, 128, 1], [0, 1, 0]]
    # Two: edges 1 + 1 (the stone), corners 0 + 2 (two edges), and the stone
    # 128 + 4 (its four neighbours are now positive).
    assert bouzy_territory(board, 2, 0).tolist() == [[2, 2, 2], [2, 132, 2], [2, 2, 2]]


def test_bouzy_erosion_by_hand() -> None:
    board = np.zeros((3, 3), dtype=np.int8)
    board[1, 0] = 1
    board[1, 2] = 2
    # After one dilation the middle column touches both colours and stays 0:
    # [[1, 0, -1], [128, 0, -128], [1, 0, -1]].
    assert bouzy_territory(board, 1, 0).tolist() == [[1, 0, -1], [128, 0, -128], [1, 0, -1]]
    # One erosion: (0,0) loses 1 for (0,1) = 0 and stops at 0; the stone loses 1 for (1,1).
    assert bouzy_territory(board, 1, 1).tolist() == [[0, 0, 0], [127, 0, -127], [0, 0, 0]]


def test_bouzy_territory_defaults_to_5_21_and_validates() -> None:
    board = np.zeros((9, 9), dtype=np.int8)
    board[4, :] = 1
    board[6, :] = 2
    t = bouzy_territory(board)
    # Rows 0-3 are Black's territory, rows 7-8 White's, row 5 between the walls is neutral.
    assert (t[:4] > 0).all() and (t[7:] < 0).all() and (t[5] == 0).all()
    with pytest.raises(ValueError, match="erosions"):
        bouzy_territory(board, 5, -1)
    with pytest.raises(ValueError, match="board values"):
        bouzy_territory(np.full((5, 5), 7), 5, 21)


# ---- symmetries ------------------------------------------------------------------------------------


def _random_position(size: int, moves: int, seed: int) -> np.ndarray:
    """A legal position from random moves of our rules engine (never fills own eyes)."""
    rng = np.random.default_rng(seed)
    s = GameState.new(size)
    for _ in range(moves):
        legal = [int(p) for p in s.legal_points() if p < size * size and not s.is_eye(int(p), s.next_player)]
        if not legal:
            break
        s = s.play(int(rng.choice(legal)))
    return s.stones().astype(np.int8)


def _by_points(blocks: list[Block], x: np.ndarray) -> dict[frozenset[tuple[int, int]], np.ndarray]:
    return {frozenset(tuple(p) for p in b.points): row for b, row in zip(blocks, x)}


@pytest.mark.parametrize("seed", [1, 2])
def test_rotation_and_reflection_invariance(seed: int) -> None:
    board = _random_position(9, 60, seed)
    n = board.shape[0]
    blocks, x = board_features(board, "full")
    base = _by_points(blocks, x)
    cx, cy = FEATURES_FULL.index("cm_x"), FEATURES_FULL.index("cm_y")
    for k in range(4):
        for flip in (False, True):
            t = np.rot90(board, k)
            if flip:
                t = t[:, ::-1]

            def image(r: int, c: int, k: int = k, flip: bool = flip) -> tuple[int, int]:
                for _ in range(k):  # np.rot90 (counter-clockwise): (r, c) -> (n-1-c, r)
                    r, c = n - 1 - c, r
                return (r, n - 1 - c) if flip else (r, c)

            tb, tx = board_features(np.ascontiguousarray(t), "full")
            got = _by_points(tb, tx)
            assert len(got) == len(base)
            swaps = k % 2 == 1  # a quarter turn exchanges rows and columns
            for pts, row in base.items():
                other = got[frozenset(image(r, c) for r, c in pts)].copy()
                if swaps:
                    other[[cx, cy]] = other[[cy, cx]]
                np.testing.assert_allclose(other, row, rtol=1e-5, err_msg=f"k={k} flip={flip}")


@pytest.mark.parametrize("seed", [3, 4])
def test_colour_symmetry(seed: int) -> None:
    board = _random_position(9, 70, seed)
    swapped = np.where(board == 0, 0, 3 - board).astype(np.int8)
    blocks, x = board_features(board, "full")
    sb, sx = board_features(swapped, "full")
    assert [b.points for b in blocks] == [b.points for b in sb]
    assert all(b.color is s.color.other for b, s in zip(blocks, sb))
    np.testing.assert_allclose(sx, x, rtol=1e-5)


def test_gamestate_and_array_agree_and_regions_are_consistent() -> None:
    s = GameState.from_ascii(NEIGHBOURS)
    b1, x1 = block_features(s, "B")
    b2, x2 = board_features(s.stones(), "B")
    assert b1 == b2 and np.array_equal(x1, x2)
    r = analyze_board(s.stones())
    # Every block sits in exactly one chain; the chains' blocks cover all blocks.
    assert sorted(r.cblocks.tolist()) == list(range(r.nb))
    assert r.nc == 3  # A+B, W1+W2+W3, W4


@pytest.mark.parametrize("size", [5, 13, 19])
def test_any_board_size_gives_finite_vectors_that_cover_the_stones(size: int) -> None:
    board = _random_position(size, size * size // 2, seed=size)
    blocks, x = board_features(board, "B")
    assert x.shape == (len(blocks), 89) and np.isfinite(x).all()
    stones = {(r, c) for r, c in zip(*np.nonzero(board))}
    covered = [tuple(p) for b in blocks for p in b.points]
    assert len(covered) == len(stones) and set(covered) == stones
    # Sizes, liberties and chain sizes agree with the rules engine.
    s = GameState.from_array(board)
    for b, row in zip(blocks, x):
        assert row[FEATURES_B.index("size")] == b.size
        assert row[FEATURES_B.index("liberties_1")] == s.liberties(b.anchor) == len(b.liberties)
        assert row[FEATURES_B.index("chain_size")] >= b.size
