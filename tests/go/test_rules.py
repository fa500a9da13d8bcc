"""Go rules from ASCII positions: captures, suicide, ko, superko, seki and scoring."""

from __future__ import annotations

import pytest

from fuseki.go import Color, GameState, IllegalMoveError, KoRule, Move, Point, Rules, Scoring
from fuseki.go.coords import from_gtp


def at(state: GameState, vertex: str) -> Move:
    """A move from a GTP vertex on the state's board."""
    return Move.from_gtp(vertex, state.size)


def play_all(state: GameState, *vertices: str) -> GameState:
    for v in vertices:
        state = state.play(at(state, v))
    return state


def board(state: GameState) -> str:
    return state.to_ascii(coordinates=False, mark_last=False)


# ---- captures ---------------------------------------------------------------


def test_single_stone_capture_in_the_middle() -> None:
    s = GameState.from_ascii(
        """
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
        """
    )
    s = s.play(at(s, "C2"))
    assert s.color_at(Point(2, 2)) is None
    assert s.captures(Color.BLACK) == 1


def test_corner_capture() -> None:
    s = GameState.from_ascii(
        """
        O X .
        . . .
        . . .
        """
    )
    s = s.play(at(s, "A2"))
    assert s.color_at(Point(0, 0)) is None
    assert s.captures(Color.BLACK) == 1


def test_edge_capture_of_a_string() -> None:
    s = GameState.from_ascii(
        """
        X O O . .
        . X X . .
        . . . . .
        . . . . .
        . . . . .
        """
    )
    assert s.liberties(Point(0, 1)) == 1
    s = s.play(at(s, "D5"))
    assert s.color_at(Point(0, 1)) is None and s.color_at(Point(0, 2)) is None
    assert s.captures(Color.BLACK) == 2


def test_one_move_captures_two_strings() -> None:
    s = GameState.from_ascii(
        """
        . O X . .
        O X . . .
        X . . . .
        . . . . .
        . . . . .
        """
    )
    assert s.why_illegal(Point(0, 0)) is None  # no liberty, but it captures
    s = s.play(Point(0, 0))
    assert s.color_at(Point(0, 1)) is None and s.color_at(Point(1, 0)) is None
    assert s.captures(Color.BLACK) == 2
    assert s.liberties(Point(0, 0)) == 2


def test_capture_gives_liberties_back_to_every_neighbour() -> None:
    s = GameState.from_ascii(
        """
        . X X X .
        X O O O .
        . X X X .
        . . . . .
        . . . . .
        """
    )
    s = s.play(at(s, "E4"))
    assert s.stones()[1].tolist() == [1, 0, 0, 0, 1]
    assert s.liberties(Point(0, 1)) == 5  # the top string got back three liberties


# ---- suicide ----------------------------------------------------------------


SUICIDE_POSITION = """
    . O . . .
    O . O . .
    . O . . .
    . . . . .
    . . . . .
"""


def test_single_stone_suicide_is_illegal_by_default() -> None:
    s = GameState.from_ascii(SUICIDE_POSITION)
    with pytest.raises(IllegalMoveError) as err:
        s.play(at(s, "B4"))
    assert err.value.reason == "suicide"
    assert s.why_illegal(at(s, "B4")) == "suicide"
    assert 1 * 5 + 1 not in s.legal_points().tolist()


def test_multi_stone_suicide_is_legal_under_tromp_taylor() -> None:
    position = """
        X X O . .
        . O . . .
        O . . . .
        . . . . .
        . . . . .
    """
    s = GameState.from_ascii(position)
    assert s.why_illegal(Point(1, 0)) == "suicide"
    tt = GameState.from_ascii(position, rules="tromp-taylor")
    assert tt.why_illegal(Point(1, 0)) is None
    after = tt.play(Point(1, 0))
    # The black string (three stones) removed itself; White gets the prisoners.
    assert after.color_at(Point(0, 0)) is None and after.color_at(Point(0, 1)) is None
    assert after.color_at(Point(1, 0)) is None
    assert after.captures(Color.WHITE) == 3
    assert after.next_player is Color.WHITE


def test_single_stone_suicide_under_tromp_taylor_repeats_the_position() -> None:
    """A lone suicide recreates the board, so positional superko forbids it."""
    s = GameState.from_ascii(SUICIDE_POSITION, rules="tromp-taylor")
    assert s.why_illegal(at(s, "B4")) == "superko"
    no_superko = GameState.from_ascii(SUICIDE_POSITION, rules=Rules.preset("tromp-taylor").replace(ko=KoRule.SIMPLE))
    after = no_superko.play(at(no_superko, "B4"))
    assert board(after) == board(no_superko)
    assert after.captures(Color.WHITE) == 1


# ---- ko ---------------------------------------------------------------------

KO = """
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . . . . .
"""


@pytest.mark.parametrize("rules", ["japanese", "chinese", "book", "tromp-taylor"])
def test_simple_ko_forbids_immediate_recapture(rules: str) -> None:
    s = GameState.from_ascii(KO, rules=rules)
    s = s.play(at(s, "C4"))  # Black takes the ko
    assert s.ko_point == Point(1, 1)
    with pytest.raises(IllegalMoveError) as err:
        s.play(at(s, "B4"))
    assert err.value.reason == "ko"
    assert 1 * 5 + 1 not in s.legal_points().tolist()
    # After a ko threat and an answer, White may take back.
    s = play_all(s, "E1", "D1")
    s = s.play(at(s, "B4"))
    assert s.color_at(Point(1, 2)) is None
    assert s.captures(Color.WHITE) == 1


def test_ko_is_lifted_by_a_pass() -> None:
    s = GameState.from_ascii(KO)
    s = play_all(s, "C4", "pass", "pass")
    assert s.is_over()
    s = GameState.from_ascii(KO)
    s = play_all(s, "C4", "E1", "pass")
    assert s.ko_point is None


# Three kos: in A and C Black can capture, in B White can. Taking them in turn
# brings back the first position after six moves (a triple-ko cycle).
TRIPLE_KO = """
    . X O . . . O X .
    X O . O . O X . X
    . X O . . . O X .
    . . . . . . . . .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
CYCLE = ["C8", "H8", "C4", "B8", "G8"]  # the sixth move, B4, would close the cycle


@pytest.mark.parametrize(
    ("rules", "closing_move_reason"),
    [("japanese", None), ("gnugo", None), ("chinese", "superko"), ("book", "superko"), ("tromp-taylor", "superko")],
)
def test_triple_ko_cycle(rules: str, closing_move_reason: str | None) -> None:
    start = GameState.from_ascii(TRIPLE_KO, rules=rules)
    s = play_all(start, *CYCLE)
    assert s.why_illegal(at(s, "B4")) == closing_move_reason
    if closing_move_reason is None:
        s = s.play(at(s, "B4"))
        assert board(s) == board(start) and s.next_player is start.next_player
    else:
        with pytest.raises(IllegalMoveError) as err:
            s.play(at(s, "B4"))
        assert err.value.reason == "superko"
        assert 5 * 9 + 1 not in s.legal_points().tolist()


# Two kos and a pass: the board comes back with the other player to move.
DOUBLE_KO = "\n".join(TRIPLE_KO.strip().splitlines()[:3] + ["." * 9] * 6)


@pytest.mark.parametrize(
    ("rules", "reason"),
    [("japanese", None), ("book", None), ("chinese", "superko"), ("tromp-taylor", "superko")],
)
def test_positional_and_situational_superko_differ(rules: str, reason: str | None) -> None:
    """Positional superko forbids the repeated board; situational only with the same player to move."""
    start = GameState.from_ascii(DOUBLE_KO, rules=rules)
    s = play_all(start, "C8", "H8", "pass", "B8")
    assert s.why_illegal(at(s, "G8")) == reason
    if reason is None:
        s = s.play(at(s, "G8"))
        assert board(s) == board(start) and s.next_player is not start.next_player


def test_superko_history_is_per_line_of_play() -> None:
    """Branching from an earlier state must not see positions of another branch."""
    start = GameState.from_ascii(TRIPLE_KO, rules="chinese")
    line = play_all(start, *CYCLE)
    assert line.why_illegal(at(line, "B4")) == "superko"
    # Another branch from the start: the same moves are fine there.
    other = play_all(start, "C8", "H8", "E1")
    assert other.why_illegal(at(other, "B8")) is None


# ---- seki and scoring ---------------------------------------------------------

SEKI = """
    . X X X .
    O O O O O
    X X X X X
    X X X X X
    . X . X .
"""


def test_seki_neither_side_can_approach() -> None:
    s = GameState.from_ascii(SEKI)
    # Black filling a shared liberty puts its own string in atari; White takes 4.
    s2 = s.play(Point(0, 0))
    s3 = s2.play(Point(0, 4))
    assert s3.captures(Color.WHITE) == 4


@pytest.mark.parametrize("rules", ["chinese", "japanese"])
def test_seki_scoring_shared_liberties_are_neutral(rules: str) -> None:
    s = GameState.from_ascii(SEKI, rules=Rules.preset(rules).replace(komi=0.5))
    score = s.score()
    if s.rules.scoring is Scoring.AREA:
        assert (score.black, score.white) == (18, 5.5)  # stones count; the two shared liberties are dame
    else:
        assert (score.black, score.white) == (3, 0.5)  # only the three black eyes are territory


FINISHED = """
    . X O . .
    X X O . X
    . X O O O
    X X O . .
    . X O . .
"""


def test_area_scoring_with_and_without_dead_stones() -> None:
    s = GameState.from_ascii(FINISHED, rules=Rules.preset("chinese").replace(komi=0.5))
    alive = s.score()
    # All alive: the black stone at E4 counts, and the region it touches is dame.
    assert (alive.black, alive.white) == (11, 11.5)
    assert alive.result == "W+0.5"
    dead = s.score(dead=[Point(1, 4)])
    assert (dead.black, dead.white) == (10, 15.5)
    assert dead.result == "W+5.5"


def test_territory_scoring_counts_prisoners_and_dead_stones() -> None:
    s = GameState.from_ascii(FINISHED, rules=Rules.preset("japanese").replace(komi=0.5))
    alive = s.score()
    assert (alive.black, alive.white) == (3, 4.5)
    dead = s.score(dead=[Point(1, 4)])
    # Eight points of white territory (E4 included) plus one dead black stone.
    assert (dead.black, dead.white) == (3, 9.5)
    # Captures made during the game count as prisoners too.
    ko = GameState.from_ascii(KO, rules=Rules.preset("japanese").replace(komi=0))
    taken = ko.play(at(ko, "C4"))
    assert taken.score().black - ko.score().black == 1 + 1  # one prisoner, one more point of territory


def test_whole_komi_allows_a_draw() -> None:
    s = GameState.from_ascii(FINISHED, rules=Rules.preset("chinese").replace(komi=0))
    assert s.score().result == "0"
    s = play_all(s, "pass", "pass")
    assert s.is_over() and s.winner() is None and s.result() == "0"


def test_game_end_after_two_passes_and_resignation() -> None:
    s = GameState.new(9)
    s = play_all(s, "E5", "pass", "D4", "pass")
    assert not s.is_over()  # pass, stone, pass: not two in a row
    s = s.play(Move.pass_turn())
    assert s.is_over()
    assert s.winner() is Color.BLACK  # 81 points to 0 + 7.5
    assert s.result() == "B+73.5"
    with pytest.raises(IllegalMoveError) as err:
        s.play(Move.pass_turn())
    assert err.value.reason == "game over"
    r = GameState.new(9).play(Move.resign())
    assert r.is_over() and r.resigned is Color.BLACK and r.winner() is Color.WHITE and r.result() == "W+R"
    assert r.undo().next_player is Color.BLACK


# ---- handicap -----------------------------------------------------------------


def test_fixed_handicap_and_handicap_komi_per_rule_set() -> None:
    s = GameState.new(19, "chinese", handicap=4)
    assert s.next_player is Color.WHITE
    assert {p for p in map(tuple, zip(*s.stones().nonzero()))} == {
        tuple(from_gtp(v, 19)) for v in ("D4", "Q16", "D16", "Q4")
    }
    empty_area = s.score()
    # Chinese rules give White one point per handicap stone.
    assert empty_area.white == 7.5 + 4
    jp = GameState.new(19, "japanese", handicap=4)
    assert jp.score().white == 6.5  # territory rules: no compensation
    free = GameState.new(9, handicap_points=[Point(0, 0), Point(8, 8)])
    assert free.handicap == 2 and free.next_player is Color.WHITE
    with pytest.raises(ValueError):
        GameState.new(9, handicap=10)
    with pytest.raises(ValueError):
        GameState.new(5, handicap=2)


# ---- bad input -----------------------------------------------------------------


def test_occupied_and_off_board_moves_have_reasons() -> None:
    s = GameState.new(5).play(Point(2, 2))
    with pytest.raises(IllegalMoveError) as err:
        s.play(Point(2, 2))
    assert err.value.reason == "occupied" and "C3" in str(err.value)
    for bad in (Point(5, 0), Point(-1, 0), 26, -7):
        with pytest.raises(IllegalMoveError) as err:
            s.play(bad)
        assert err.value.reason == "off board"
    assert s.why_illegal(Point(9, 9)) == "off board"


@pytest.mark.parametrize("size", [1, 26, 0, -3])
def test_bad_board_size(size: int) -> None:
    with pytest.raises(ValueError, match="board size"):
        GameState.new(size)


def test_bad_ascii_board() -> None:
    with pytest.raises(ValueError, match="square"):
        GameState.from_ascii(". .\n. . .")
    with pytest.raises(ValueError, match="unknown board character"):
        GameState.from_ascii(". ?\n. .")
    with pytest.raises(ValueError, match="no liberties"):
        GameState.from_ascii("X O\nO .")


def test_two_by_two_board_and_twenty_five() -> None:
    s = GameState.new(2)
    s = play_all(s, "A1", "B2")
    assert sorted(s.legal_points().tolist()) == [0, 3, 4]  # A2, B1 and pass
    big = GameState.new(25).play(from_gtp("Z25", 25))
    assert big.color_at(Point(0, 24)) is Color.BLACK
