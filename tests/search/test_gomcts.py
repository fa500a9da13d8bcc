"""The fast Go MCTS (fuseki.search.go.gomcts): tactics, limits, passing, tree reuse, superko, errors."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from fuseki.go import Color, GameState, Move, Point
from fuseki.go import kernels as K
from fuseki.search.go import gotree as T
from fuseki.search.go.gomcts import GoMCTS, MCTSConfig, SearchInfo

CONFIGS = {"default": MCTSConfig, "book": MCTSConfig.book}


def position(text: str, komi: float, to_move: Color = Color.BLACK, rules: str | None = None) -> GameState:
    s = GameState.from_ascii(text, to_move=to_move, rules=rules)
    return GameState.from_array(s.stones(), to_move=to_move, rules=s.rules.replace(komi=komi))


def idx(state: GameState, r: int, c: int) -> int:
    return r * state.size + c


def check_info(info: SearchInfo, state: GameState) -> None:
    n = state.size
    assert 0 <= info.move <= n * n
    assert info.move in state.legal_points().tolist()
    chosen = [c for c in info.children if c.move == info.move]
    assert len(chosen) == 1 and chosen[0].visits > 0
    assert info.winrate == chosen[0].winrate  # the reported win rate is the chosen move's
    moves = [c.move for c in info.children]
    assert len(moves) == len(set(moves))
    assert set(moves) <= set(state.legal_points().tolist())
    for c in info.children:
        assert c.visits >= 0
        if c.visits:
            assert 0.0 <= c.winrate <= 1.0
        else:
            assert math.isnan(c.winrate)
        if c.amaf_visits:
            assert 0.0 <= c.amaf_winrate <= 1.0
    assert [c.visits for c in info.children] == sorted((c.visits for c in info.children), reverse=True)
    assert info.ownership.shape == (n * n,)
    assert np.all(info.ownership >= -1.0) and np.all(info.ownership <= 1.0)


# ---- tactics ------------------------------------------------------------------

# Black's four stones on row 5 and White's five on row 4 share the liberty (5,4):
# whoever plays there captures. With komi 10.5 only the capture wins.
CAPTURE = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X X .
O O O O O X .
X X X X . X .
O O O O O O .
"""

# Black's seven stones on row 4 have one liberty, (3,3); connecting there to the
# stone at (2,3) saves them.
SAVE = """
. . . . . . .
. . . . . . .
. . . X . . .
O O O . O O O
X X X X X X X
O O O O O O O
. . . . . . .
"""

# A straight three in the corner: (5,1) makes two eyes; anything else and White kills.
# With komi -30.5 Black wins exactly when the group lives.
SECOND_EYE = """
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O . .
X X X X O . .
. . . X O . .
X X X X O . .
"""

TACTICS = [
    ("capture", CAPTURE, 10.5, (5, 4), {"default": 500, "book": 3000}),
    ("save", SAVE, 0.5, (3, 3), {"default": 500, "book": 2000}),
    ("second-eye", SECOND_EYE, -30.5, (5, 1), {"default": 500, "book": 1000}),
]


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("name,text,komi,best,playouts", TACTICS, ids=[t[0] for t in TACTICS])
def test_search_finds_the_deciding_move(
    config: str, name: str, text: str, komi: float, best: tuple[int, int], playouts: dict[str, int]
) -> None:
    state = position(text, komi)
    hits = 0
    for seed in (1, 2, 3):
        info = GoMCTS(CONFIGS[config](seed=seed)).search(state, playouts=playouts[config])
        check_info(info, state)
        hits += info.move == idx(state, *best)
    assert hits >= 2, (name, config)


def test_second_eye_for_white_too() -> None:
    """The same shape with colours swapped: White must make the second eye."""
    swapped = SECOND_EYE.replace("X", "x").replace("O", "X").replace("x", "O")
    state = position(swapped, 30.5, to_move=Color.WHITE)
    info = GoMCTS(MCTSConfig(seed=4)).search(state, playouts=500)
    assert info.move == idx(state, 5, 1)
    assert info.winrate > 0.8


# ---- limits -------------------------------------------------------------------


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("n", [1, 7, 16, 17, 100, 1000])
def test_playouts_runs_exactly_n_simulations(config: str, n: int) -> None:
    state = GameState.new(7, komi=0.5)
    engine = GoMCTS(CONFIGS[config](seed=1, reuse=False))
    info = engine.search(state, playouts=n)
    assert info.playouts == n
    assert info.reused_visits == 0
    # Every simulation passes through the root: the children's real visits add up to n.
    assert sum(c.visits for c in info.children) == n
    check_info(info, state)


def test_seconds_stops_near_the_limit() -> None:
    state = GameState.new(9, komi=7.5)
    engine = GoMCTS(MCTSConfig(seed=1))
    engine.search(state, playouts=50)  # compile/warm up
    engine.clear()
    limit = 0.3
    t0 = time.perf_counter()
    info = engine.search(state, seconds=limit)
    wall = time.perf_counter() - t0
    assert limit * 0.9 <= info.seconds <= 3 * limit
    assert wall <= 3 * limit + 0.5
    assert info.playouts > 10
    check_info(info, state)


def test_playouts_cap_a_timed_search() -> None:
    info = GoMCTS(MCTSConfig(seed=1)).search(GameState.new(5, komi=0.5), playouts=40, seconds=30.0)
    assert info.playouts == 40
    assert info.seconds < 10


# ---- passing --------------------------------------------------------------------

SPLIT = """
. . X O .
. . X O .
. . X O .
. . X O .
. . X O .
"""


def _passed_split() -> GameState:
    # Black owns 15 points, White 10; komi 0.5. White has just passed.
    start = position(SPLIT, 0.5, to_move=Color.WHITE)
    state = start.play(Move.pass_turn())
    assert state.passes == 1 and not state.is_over()
    return state


def test_passes_back_when_passing_wins_book() -> None:
    state = _passed_split()
    for seed in (1, 2, 3):
        info = GoMCTS(MCTSConfig.book(seed=seed)).search(state, playouts=500)
        assert info.move == 25
        assert info.winrate == 1.0  # two passes: the exact count decides, every time


def test_passes_back_when_passing_wins_default() -> None:
    state = _passed_split()
    for seed in (1, 2, 3):
        info = GoMCTS(MCTSConfig(seed=seed)).search(state, playouts=500)
        assert info.move == 25


def test_does_not_pass_back_when_passing_loses() -> None:
    # Komi -10.5: after Black's pass, White passing back loses by 15.5, so White plays on.
    start = position(SPLIT, -10.5, to_move=Color.BLACK)
    state = start.play(Move.pass_turn())
    info = GoMCTS(MCTSConfig(seed=1)).search(state, playouts=500)
    assert info.move != 25


TWO_EYES = """
. X X X X
X X X X X
X X . X X
X X X X X
X X X X X
"""


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_passes_when_only_own_eyes_are_left(config: str) -> None:
    state = position(TWO_EYES, 0.5)
    assert sorted(state.legal_points().tolist()) == [0, 12, 25]  # two eyes and pass
    info = GoMCTS(CONFIGS[config](seed=1)).search(state, playouts=100)
    assert info.move == 25
    assert [c.move for c in info.children] == [25]
    assert info.winrate == 1.0


# ---- tree reuse -----------------------------------------------------------------


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_tree_reuse_after_own_move_and_reply(config: str) -> None:
    state = GameState.new(7, komi=0.5)
    engine = GoMCTS(CONFIGS[config](seed=1))
    first = engine.search(state, playouts=3000)
    assert first.reused_visits == 0
    after = state.play(first.move)
    # The opponent's most visited reply in the tree (the tree's own arrays).
    node = engine._find_child(0, first.move)
    assert node > 0
    lo, k = int(engine._ti[node, T.T_FIRST]), int(engine._ti[node, T.T_NCHILD])
    assert lo > 0 and k > 0
    row = lo + int(np.argmax(engine._tf[lo : lo + k, T.F_N]))
    reply, expected = int(engine._ti[row, T.T_MOVE]), int(engine._tf[row, T.F_N])
    assert expected > 0
    nxt = after.play(reply)
    info = engine.search(nxt, playouts=50)
    assert info.reused_visits == expected
    assert info.playouts == 50
    check_info(info, nxt)
    # And the same search again from the first position starts afresh (it is not below the root).
    again = engine.search(state, playouts=10)
    assert again.reused_visits == 0


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_searching_the_same_position_reuses_the_root(config: str) -> None:
    state = GameState.new(7, komi=0.5)
    engine = GoMCTS(CONFIGS[config](seed=1))
    engine.search(state, playouts=300)
    # Searching the same position again reuses the whole root.
    again = engine.search(state, playouts=10)
    assert again.reused_visits == 300
    assert again.playouts == 10


def test_tree_reuse_follows_the_best_reply() -> None:
    state = GameState.new(7, komi=0.5)
    engine = GoMCTS(MCTSConfig(seed=2))
    info = engine.search(state, playouts=3000)
    after = state.play(info.move)
    # Ask the engine for White's answer first (reuses the child), then play it.
    reply = engine.search(after, playouts=500)
    # Exactly the visits the first search gave to the move played: that subtree became the root.
    assert reply.reused_visits == next(c.visits for c in info.children if c.move == info.move) > 0
    nxt = after.play(reply.move)
    info2 = engine.search(nxt, playouts=100)
    assert info2.reused_visits == next(c.visits for c in reply.children if c.move == reply.move) > 0


def test_unrelated_position_starts_a_fresh_tree() -> None:
    engine = GoMCTS(MCTSConfig(seed=1))
    engine.search(GameState.new(7, komi=0.5), playouts=1000)
    other = position(SECOND_EYE, -30.5)
    info = engine.search(other, playouts=200)
    assert info.reused_visits == 0
    assert info.playouts == 200
    # A different board size too.
    info = engine.search(GameState.new(5, komi=0.5), playouts=100)
    assert info.reused_visits == 0


def test_reuse_disabled() -> None:
    state = GameState.new(5, komi=0.5)
    engine = GoMCTS(MCTSConfig(seed=1, reuse=False))
    info = engine.search(state, playouts=500)
    info2 = engine.search(state.play(info.move).play(state.size * state.size), playouts=50)
    assert info2.reused_visits == 0


# ---- superko ---------------------------------------------------------------------

# Two kos in the top rows: A (C8/B8) and B (G8/H8). After C8 H8 pass B8, G8 would
# bring back the start board with the other player to move: legal by simple ko,
# forbidden by positional superko (chinese, tromp-taylor), allowed by situational (book).
DOUBLE_KO = """
. X O . . . O X .
X O . O . O X . X
. X O . . . O X .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def double_ko_state(rules: str) -> tuple[GameState, int]:
    s = GameState.from_ascii(DOUBLE_KO, rules=rules)
    for v in ("C8", "H8", "pass", "B8"):
        s = s.play(Move.from_gtp(v, 9))
    return s, 1 * 9 + 6  # G8 = row 1, col 6


@pytest.mark.parametrize("rules", ["chinese", "tromp-taylor"])
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_positional_superko_move_is_never_chosen(rules: str, config: str) -> None:
    state, g8 = double_ko_state(rules)
    assert state.why_illegal(g8) == "superko"
    assert K.legal_code(state._buf, g8) == K.OK  # simple ko allows it
    engine = GoMCTS(CONFIGS[config](seed=1))
    info = engine.search(state, playouts=1000)
    assert info.move != g8
    assert g8 not in [c.move for c in info.children]
    check_info(info, state)
    # Searching again on the reused tree: still banned.
    info2 = engine.search(state, playouts=200)
    assert info2.reused_visits == 1000  # the same position: the whole root
    assert g8 not in [c.move for c in info2.children]


def test_situational_superko_allows_the_same_move() -> None:
    state, g8 = double_ko_state("book")
    assert state.why_illegal(g8) is None
    info = GoMCTS(MCTSConfig(seed=1)).search(state, playouts=300)
    assert g8 in [c.move for c in info.children]


SUICIDE = """
. O . . .
O . O . .
. O . . .
. . . . .
. . . . .
"""


def test_single_stone_suicide_recreating_the_board_is_excluded() -> None:
    """Under Tromp-Taylor a lone suicide is legal by the kernels but repeats the board."""
    state = position(SUICIDE, 0.5, rules="tromp-taylor")
    assert state.why_illegal(Point(1, 1)) == "superko"
    info = GoMCTS(MCTSConfig.book(seed=1)).search(state, playouts=300)
    assert 6 not in [c.move for c in info.children]
    assert info.move != 6


# ---- ownership ------------------------------------------------------------------


def test_ownership_reflects_a_settled_board() -> None:
    state = position(SPLIT, 0.5)
    info = GoMCTS(MCTSConfig(seed=1)).search(state, playouts=300)
    own = info.ownership.reshape(5, 5)
    assert own.dtype == np.float32
    assert np.all(own[:, :3] > 0.5)  # Black's side
    assert np.all(own[:, 3:] < -0.5)  # White's side


# ---- errors and capacity -----------------------------------------------------------


def test_errors() -> None:
    engine = GoMCTS(MCTSConfig(seed=1))
    state = GameState.new(5, komi=0.5)
    over = state.play(Move.pass_turn()).play(Move.pass_turn())
    assert over.is_over()
    with pytest.raises(ValueError):
        engine.search(over, playouts=10)
    with pytest.raises(ValueError):
        engine.search(state, playouts=0)
    with pytest.raises(ValueError):
        engine.search(state, playouts=-5)
    with pytest.raises(ValueError):
        engine.search(state)
    with pytest.raises(ValueError):
        engine.search(state, seconds=0)
    with pytest.raises(ValueError):
        MCTSConfig(policy="medium")
    with pytest.raises(ValueError):
        MCTSConfig(capacity=10)
    with pytest.raises(ValueError):
        MCTSConfig(c=-1.0)


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_tiny_capacity_still_returns_a_legal_move(config: str) -> None:
    state = GameState.new(9, komi=7.5)
    for _ in range(3):
        engine = GoMCTS(CONFIGS[config](seed=1, capacity=1024))
        info = engine.search(state, playouts=3000)
        assert info.playouts == 3000
        assert info.tree_nodes <= 1024
        check_info(info, state)
        state = state.play(info.move)
        if state.is_over():
            break


def test_same_seed_same_search() -> None:
    state = GameState.new(7, komi=0.5)
    a = GoMCTS(MCTSConfig(seed=9)).search(state, playouts=400)
    b = GoMCTS(MCTSConfig(seed=9)).search(state, playouts=400)
    assert a.move == b.move
    assert [(c.move, c.visits) for c in a.children] == [(c.move, c.visits) for c in b.children]


def test_book_preset() -> None:
    cfg = MCTSConfig.book(seed=3)
    assert (cfg.policy, cfg.rave, cfg.priors, cfg.c) == ("light", False, False, 1.5)
    assert cfg.seed == 3
    assert MCTSConfig.book(c=0.7).c == 0.7
