"""SGF reading, replaying and writing (fuseki.go.sgf)."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseki.go.coords import Point, from_gtp
from fuseki.go.handicap import max_fixed_handicap
from fuseki.go.rules import PRESETS, Rules
from fuseki.go.sgf import (
    GameRecord,
    RecordedMove,
    SgfError,
    game_to_sgf,
    load_sgf,
    read_sgf,
    save_sgf,
)
from fuseki.go.state import Color, GameState, Move

# A 19x19 handicap game: AB stones, White first, comments (one on a node
# without a move), an unknown property (BL) and one variation after move 3.
HANDICAP_19 = """\
(;GM[1]FF[4]CA[UTF-8]AP[CGoban:3]SZ[19]KM[0.5]HA[2]RU[Japanese]
PB[Honinbo Shusaku]BR[4d]PW[Gennan Inseki]WR[8d]DT[1846-09-11]
EV[Castle game]GN[Ear-reddening game]RE[B+2]
C[A famous game \\] (not really).]
AB[pd][dp]
;W[qp]C[White takes the corner.]
;B[oq];W[pn]
(;B[mp]C[Main line.];C[A node with no move.];W[dc];B[ce]
;W[fq]BL[120]
)
(;B[nc]C[A variation.];W[jd]))
"""

# A 9x9 game: a capture in the corner, then two passes (one written "tt").
GAME_9 = """\
(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]PB[Black]PW[White]RE[W+4]
;B[ee];W[aa];B[ba];W[ii];B[ab]C[Captures A9.];W[tt];B[])
"""

# 25x25: letters beyond 's', and "tt" is a point here, not a pass.
GAME_25 = """\
(;GM[1]FF[4]SZ[25]KM[7.5]RU[Tromp-Taylor]
;B[tt];W[yy];B[ay];W[ya];B[mm]C[Centre of 25x25.])
"""


def moves_of(record: GameRecord) -> list[Move]:
    return [m.move for m in record.moves]


# ---- reading --------------------------------------------------------------


def test_handicap_game_fields() -> None:
    record = read_sgf(HANDICAP_19)
    assert record.size == 19
    assert record.komi == 0.5
    assert record.handicap == 2
    assert record.ruleset == "Japanese"
    assert record.rules == Rules.preset("japanese").replace(komi=0.5)
    assert record.setup_black == {from_gtp("Q16", 19), from_gtp("D4", 19)}
    assert record.setup_white == frozenset()
    assert (record.black, record.black_rank) == ("Honinbo Shusaku", "4d")
    assert (record.white, record.white_rank) == ("Gennan Inseki", "8d")
    assert record.result == "B+2"
    assert record.date == "1846-09-11"
    assert record.event == "Castle game"
    assert record.game_name == "Ear-reddening game"
    assert record.comment == "A famous game ] (not really)."
    assert [m.label(19) for m in record.moves] == ["W R4", "B P3", "W Q6", "B N4", "W D17", "B C15", "W F3"]
    # The move-less node's comment joins the comment of the move before it.
    assert record.comments == {1: "White takes the corner.", 4: "Main line.\n\nA node with no move."}
    assert record.variation_count == 1


def test_handicap_game_replay() -> None:
    record = read_sgf(HANDICAP_19)
    start = record.initial_state()
    assert start.next_player is Color.WHITE
    assert start.handicap == 2
    assert start.color_at(from_gtp("D4", 19)) is Color.BLACK
    final = record.replay()
    assert final.move_number == 7
    assert final.next_player is Color.BLACK
    assert final.color_at(from_gtp("F3", 19)) is Color.WHITE
    assert int((final.stones() != 0).sum()) == 9
    states = list(record.states())
    assert len(states) == 8
    assert states[-1].moves() == moves_of(record)
    assert final.rules.komi == 0.5


def test_replay_with_other_rules() -> None:
    record = read_sgf(HANDICAP_19)
    assert record.replay("chinese").rules == Rules.preset("chinese").replace(komi=0.5)
    rules = Rules(komi=3.0)
    assert record.replay(rules).rules == rules


def test_9x9_game_with_capture_and_passes() -> None:
    record = read_sgf(GAME_9)
    assert record.rules == Rules.preset("chinese").replace(komi=7.0)
    passes = [RecordedMove(Color.WHITE, Move.pass_turn()), RecordedMove(Color.BLACK, Move.pass_turn())]
    assert record.moves[-2:] == passes
    final = record.replay()
    assert final.is_over()
    assert final.captures(Color.BLACK) == 1
    assert final.color_at(Point(0, 0)) is None
    assert final.result() == record.result == "W+4"
    assert record.comments == {5: "Captures A9."}
    assert record.variation_count == 0


def test_25x25_game() -> None:
    record = read_sgf(GAME_25)
    assert record.size == 25
    assert moves_of(record)[:4] == [
        Move.play(Point(19, 19)),  # "tt" is a point on a board over 19x19
        Move.play(Point(24, 24)),
        Move.play(Point(24, 0)),
        Move.play(Point(0, 24)),
    ]
    final = record.replay()
    assert final.color_at(Point(24, 24)) is Color.WHITE
    assert record.rules == Rules.preset("tromp-taylor")
    assert b"B[tt]" in record.to_sgf()


@pytest.mark.parametrize("size", [9, 19])
def test_tt_is_a_pass_up_to_19(size: int) -> None:
    record = read_sgf(f"(;GM[1]SZ[{size}];B[tt];W[])")
    assert moves_of(record) == [Move.pass_turn(), Move.pass_turn()]
    assert record.replay().is_over()


@pytest.mark.parametrize(
    ("ru", "preset"),
    [("Chinese", "chinese"), ("japanese", "japanese"), ("Tromp-Taylor", "tromp-taylor"), ("TT", "tromp-taylor"), ("Korean", "japanese")],
)
def test_rules_names(ru: str, preset: str) -> None:
    record = read_sgf(f"(;GM[1]SZ[9]KM[6.5]RU[{ru}])")
    assert record.ruleset == ru
    assert record.rules == Rules.preset(preset).replace(komi=6.5)


def test_aga_nz_and_unknown_rules() -> None:
    aga = read_sgf("(;SZ[9]RU[AGA]KM[7.5])").rules
    nz = read_sgf("(;SZ[9]RU[New Zealand]KM[7])").rules
    assert aga.ko.value == nz.ko.value == "situational"
    assert not aga.suicide and nz.suicide
    assert aga.handicap_bonus.value == "N-1"
    assert read_sgf("(;SZ[9]RU[Ing]KM[8])").rules == Rules(komi=8.0)
    assert read_sgf("(;SZ[9])").rules == Rules(komi=0.0)


def test_defaults_of_an_empty_game() -> None:
    record = read_sgf("(;)")
    assert record == GameRecord(size=19)
    assert record.replay().next_player is Color.BLACK


def test_player_to_move_and_setup() -> None:
    record = read_sgf("(;GM[1]SZ[5]AB[aa:bb]AW[dd]AE[ee]PL[W];W[cc])")
    assert record.setup_black == {Point(0, 0), Point(0, 1), Point(1, 0), Point(1, 1)}
    assert record.setup_white == {Point(3, 3)}
    assert record.setup_empty == {Point(4, 4)}
    assert record.to_play is Color.WHITE
    assert record.replay().stones().sum() == 4 * 1 + 2 * 2


def test_bytes_encodings() -> None:
    utf8 = "(;SZ[9]PB[Cho Chikun 趙治勲])".encode()
    assert read_sgf(utf8).black == "Cho Chikun 趙治勲"
    latin1 = "(;SZ[9]PB[Müller])".encode("latin-1")  # no CA, not UTF-8: Latin-1
    assert read_sgf(latin1).black == "Müller"
    declared = "(;CA[ISO-8859-1]SZ[9]PB[Müller])".encode("latin-1")
    record = read_sgf(declared)
    assert record.black == "Müller"
    assert "PB[Müller]".encode() in record.to_sgf()  # written back as UTF-8


def test_load_sgf(tmp_path) -> None:
    path = tmp_path / "game.sgf"
    path.write_text(GAME_9)
    assert load_sgf(path) == read_sgf(GAME_9)
    assert load_sgf(str(path)) == read_sgf(GAME_9)


# ---- errors ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("hello world", "not an SGF file: no '(;' in 'hello world'"),
        (b"", "not an SGF file"),
        (b"\x00" * 1500, "not an SGF file: 1,500 bytes, all zero"),
        ("(;GM[1]SZ[9]B)", "malformed SGF file: property with no values"),
        ("(;GM[1]SZ[9];B[ee]W)", "malformed SGF file"),
        ("(;GM[2]SZ[8])", "not a Go game: GM[2]"),
        ("(;GM[1]SZ[30])", "unsupported board size 30"),
        ("(;GM[1]SZ[26])", "unsupported board size 26"),
        ("(;GM[1]SZ[1])", "unsupported board size 1"),
        ("(;GM[1]SZ[nine])", "bad board size SZ[nine]"),
        ("(;GM[1]SZ[19:13])", "bad board size SZ[19:13]"),
        ("(;GM[1]SZ[9]HA[two])", "bad handicap HA[two]"),
        ("(;GM[1]SZ[9]HA[-1])", "bad handicap HA[-1]"),
        ("(;GM[1]SZ[9]PL[X])", "bad player to move PL[X]"),
        ("(;GM[1]SZ[9]AB[zz])", "bad setup stones AB[zz]"),
        ("(;GM[1]SZ[9]AB[aa]AW[aa])", "setup point A9 is in both AB and AW"),
        ("(;GM[1]SZ[9];B[ee]W[cc])", "move 1: two moves in one node (B[ee] and W[cc])"),
        ("(;GM[1]SZ[9];B[aa];W[bb];B[cc];W[dd];B[ee];W[ff];B[zz])", "move 7: B[zz] is off the 9x9 board"),
        ("(;GM[1]SZ[9];B[jj])", "move 1: B[jj] is off the 9x9 board"),
        ("(;GM[1]SZ[9];B[a])", "move 1: B[a] is not an SGF point"),
        ("(;GM[1]SZ[9];B[E5])", "move 1: B[E5] is not an SGF point"),
        ("(;GM[1]SZ[9];B[aa][bb])", "move 1: B has 2 values"),
    ],
)
def test_read_errors(data: str | bytes, message: str) -> None:
    for strict in (False, True):
        with pytest.raises(SgfError) as info:
            read_sgf(data, strict=strict)
        assert str(info.value).startswith(message)
        assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("(;GM[1]SZ[9];B[ee];W[c", "the file ends inside W[c"),
        ("(;GM[1]SZ[9];B[ee]", "the file ends before the game tree is closed (1 ')' missing)"),
        ("(;GM[1]SZ[9]KM[six])", "bad komi KM[six] (not a number)"),
        ("(;GM[1]SZ[9]KM[6.3])", "bad komi KM[6.3] (not a multiple of 0.5 of modest size)"),
        ("(;GM[1]SZ[9]KM[inf])", "bad komi KM[inf] (not a number)"),
        ("(;GM[1]SZ[9]KM[nan])", "bad komi KM[nan] (not a number)"),
        ("(;GM[1]SZ[9]KM[650])", "KM[650] is komi times 100"),
        ("(;GM[1]SZ[9]B[aa];W[bb])", "the root node holds a move (B[aa]); moves must come after the root"),
    ],
)
def test_strict_reading_refuses_what_the_lenient_one_repairs(data: str, message: str) -> None:
    with pytest.raises(SgfError) as info:
        read_sgf(data, strict=True)
    assert str(info.value) == f"{message} (strict reading repairs nothing)"
    record = read_sgf(data)
    assert [w.problem for w in record.warnings if w.problem == message]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("(;GM[1]SZ[9];B[ee];W[dd];B[ee])", "move 3 (B E5) is illegal: occupied"),
        # Ko: Black takes at C8, White may not take back at B8 at once.
        (
            "(;GM[1]SZ[9]RU[Japanese];B[ba];W[ca];B[ab];W[bb];B[bc];W[cc];B[ii];W[db];B[cb];W[bb])",
            "move 10 (W B8) is illegal: ko",
        ),
        # Suicide is illegal under the default rules but legal under Tromp-Taylor.
        ("(;GM[1]SZ[9];B[ba];W[ii];B[ab];W[aa])", "move 4 (W A9) is illegal: suicide"),
        ("(;GM[1]SZ[9]AB[aa]AW[ab][ba])", "impossible setup position: the string at A9 has no liberties"),
    ],
)
def test_replay_errors(data: str, message: str) -> None:
    for strict in (False, True):
        record = read_sgf(data, strict=strict)  # the structure is fine; the rules are not
        with pytest.raises(SgfError) as info:
            record.replay()
        assert str(info.value) == message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("(;GM[1]SZ[9];B[aa];B[bb])", "move 2 (B B8) is out of turn: white to play"),
        ("(;GM[1]SZ[9]PL[W];B[aa])", "move 1 (B A9) is out of turn: white to play"),
        ("(;GM[1]SZ[9];B[];W[];B[ee])", "move 3 (B E5) is illegal: game over"),
    ],
)
def test_strict_replay_errors(data: str, message: str) -> None:
    record = read_sgf(data, strict=True)
    with pytest.raises(SgfError) as info:
        record.replay()
    assert str(info.value) == message
    assert not record.warnings
    lenient = read_sgf(data)
    lenient.replay()  # the lenient replay repairs it
    assert lenient.warnings


def test_suicide_allowed_by_nz_rules() -> None:
    # Under Tromp-Taylor the same move is illegal too: a one-stone suicide
    # repeats the previous position (positional superko). NZ's superko is situational.
    record = read_sgf("(;GM[1]SZ[9]RU[NZ];B[ba];W[ii];B[ab];W[aa])")
    assert record.replay().color_at(Point(0, 0)) is None


def test_states_stop_at_the_bad_move() -> None:
    record = read_sgf("(;GM[1]SZ[9];B[ee];W[dd];B[ee])")
    states = record.states()
    assert [s.move_number for s in itertools.islice(states, 3)] == [0, 1, 2]
    with pytest.raises(SgfError):
        next(states)


VALID = [HANDICAP_19, GAME_9, GAME_25]


@settings(max_examples=300, deadline=None)
@given(
    source=st.sampled_from(VALID),
    cut=st.floats(0, 1),
    edits=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(list(b"()[];\\:BWCABSZKMHA19ae z\n\xff"))), max_size=4),
)
def test_damaged_files_give_only_sgf_errors(source: str, cut: float, edits: list[tuple[float, int]]) -> None:
    data = bytearray(source.encode())
    for where, byte in edits:
        data[int(where * (len(data) - 1))] = byte
    data = data[: int(cut * len(data)) + 1] if cut < 0.9 else data
    try:
        record = read_sgf(bytes(data))
        record.replay()
        read_sgf(record.to_sgf())
    except SgfError as e:
        assert "\n" not in str(e)


# ---- writing and round trips ------------------------------------------------


@pytest.mark.parametrize("source", VALID)
def test_round_trip_of_examples(source: str) -> None:
    record = read_sgf(source)
    written = record.to_sgf()
    again = read_sgf(written)
    assert again == record
    assert again.variation_count == record.variation_count
    assert again.to_sgf() == written  # writing is a fixed point after the first pass


def test_round_trip_keeps_variations_and_unknown_properties() -> None:
    written = read_sgf(HANDICAP_19).to_sgf()
    assert b"AP[CGoban:3]" in written
    assert b"BL[120]" in written
    assert b"C[A variation.]" in written
    assert b"W[jd]" in written


def test_edited_record_keeps_variations_up_to_the_change() -> None:
    record = read_sgf(HANDICAP_19)
    record.result = "W+R"
    record.moves[5] = RecordedMove(Color.BLACK, Move.play(from_gtp("K10", 19)))
    again = read_sgf(record.to_sgf())
    assert again == record
    assert again.result == "W+R"
    assert again.variation_count == 1  # it branches at move 4, before the change
    record.moves = record.moves[:2]
    record.comments = {1: "short"}
    shorter = read_sgf(record.to_sgf())
    assert shorter == record
    assert shorter.variation_count == 0  # the branch point is no longer on the main line


def test_a_record_built_by_hand() -> None:
    record = GameRecord(
        size=13,
        komi=6.5,
        black="A",
        moves=[RecordedMove(Color.BLACK, Move.play(Point(3, 3))), RecordedMove(Color.WHITE, Move.pass_turn())],
        comments={2: "pass"},
    )
    assert read_sgf(record.to_sgf()) == record
    assert b"W[]" in record.to_sgf()
    record.comments[3] = "no such move"
    with pytest.raises(ValueError, match="comment for move 3, but the record has 2 moves"):
        record.to_sgf()
    record.comments = {}
    record.moves.append(RecordedMove(Color.BLACK, Move.resign()))
    with pytest.raises(ValueError, match="move 3 is a resignation"):
        record.to_sgf()


def test_game_to_sgf_handicap_comments_resignation() -> None:
    state = GameState.new(19, "chinese", komi=0.5, handicap=2)
    for vertex in ("Q4", "D16", "R16"):
        state = state.play(Move.play(from_gtp(vertex, 19)))
    state = state.play(Move.resign())  # Black resigns on move 4
    data = game_to_sgf(state, black="Ann", white="Bob", comments={1: "first", 3: "", 4: "gives up"}, date="2024-05-01")
    record = read_sgf(data)
    assert record.handicap == 2
    assert record.setup_black == {from_gtp("D4", 19), from_gtp("Q16", 19)}
    assert record.to_play is Color.WHITE
    assert record.result == "W+R"
    assert record.ruleset == "Chinese"
    assert (record.black, record.white, record.date) == ("Ann", "Bob", "2024-05-01")
    assert [m.label(19) for m in record.moves] == ["W Q4", "B D16", "W R16"]
    assert record.comments == {1: "first", 3: "gives up"}  # a resignation's comment goes on the last node
    final = record.replay()
    assert final.rules == state.rules
    assert np.array_equal(final.stones(), state.stones())
    assert final.handicap == 2


def test_game_to_sgf_defaults() -> None:
    state = GameState.new(9, "japanese", komi=6.5)
    assert read_sgf(game_to_sgf(state)) == GameRecord(size=9, komi=6.5, ruleset="Japanese")
    state = state.play(Move.pass_turn()).play(Move.pass_turn())
    record = read_sgf(game_to_sgf(state, result="Void", rules_name="My rules"))
    assert (record.result, record.ruleset) == ("Void", "My rules")
    assert read_sgf(game_to_sgf(state)).result == "W+6.5"
    with pytest.raises(ValueError, match="comment for move 5"):
        game_to_sgf(state, comments={5: "no such move"})


def test_game_to_sgf_unnamed_rules() -> None:
    rules = Rules.preset("japanese").replace(suicide=True)
    record = read_sgf(game_to_sgf(GameState.new(9, rules)))
    assert record.ruleset == ""


def test_save_sgf_is_atomic(tmp_path) -> None:
    path = tmp_path / "game.sgf"
    path.write_bytes(b"old")
    save_sgf(path, read_sgf(GAME_9))
    assert read_sgf(path.read_bytes()) == read_sgf(GAME_9)
    save_sgf(str(path), b"(;SZ[9])")
    assert path.read_bytes() == b"(;SZ[9])"
    assert os.listdir(tmp_path) == ["game.sgf"]  # no temporary file left behind
    with pytest.raises(TypeError):
        save_sgf(path, "text is not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == b"(;SZ[9])"
    assert os.listdir(tmp_path) == ["game.sgf"]


# ---- property: random legal games round-trip --------------------------------

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n]\\[:;()"), max_size=30)
NAME = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=12)


@st.composite
def played_games(draw: st.DrawFn) -> tuple[GameState, dict[int, str]]:
    size = draw(st.sampled_from([2, 9, 19, 20, 25]) | st.integers(2, 25))
    rules = draw(st.sampled_from(sorted(PRESETS)))
    komi = draw(st.integers(-30, 30)) / 2
    kind = draw(st.sampled_from(["none", "fixed", "free"]))
    if kind == "fixed" and max_fixed_handicap(size) >= 2:
        state = GameState.new(size, rules, komi=komi, handicap=draw(st.integers(2, max_fixed_handicap(size))))
    elif kind == "free" and size >= 3:
        points = draw(st.sets(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), min_size=2, max_size=5))
        state = GameState.new(size, rules, komi=komi, handicap_points=[Point(*p) for p in points])
    else:
        state = GameState.new(size, rules, komi=komi)
    for _ in range(draw(st.integers(0, 80))):
        legal = state.legal_points()
        if len(legal) == 0:
            break
        state = state.play(int(legal[draw(st.integers(0, len(legal) - 1))]))
    if not state.is_over() and draw(st.booleans()):
        state = state.play(Move.resign())
    number = len(state.moves())
    comments = draw(st.dictionaries(st.integers(1, number), TEXT, max_size=5)) if number else {}
    return state, comments


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=played_games(), black=NAME, white=NAME, date=st.none() | st.just("2024-01-02"))
def test_random_games_round_trip(
    game: tuple[GameState, dict[int, str]], black: str, white: str, date: str | None
) -> None:
    state, comments = game
    record = GameRecord.from_state(state, black=black, white=white, comments=comments, date=date)
    data = game_to_sgf(state, black=black, white=white, comments=comments, date=date)
    assert data == record.to_sgf()
    read = read_sgf(data)
    assert read == record
    assert read_sgf(read.to_sgf()) == read
    # Replaying gives back the same game (a resignation lives only in the result).
    played = [m for m in state.moves() if not m.is_resign]
    final = read.replay()
    assert final.moves() == played
    assert final.rules == state.rules
    assert final.handicap == state.handicap
    assert np.array_equal(final.stones(), state.stones())
    assert np.array_equal(read.initial_state().stones(), state.root().stones())
    assert read.result == (state.result() if state.is_over() else "")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_variations_survive_round_trips(data: st.DataObject) -> None:
    size = data.draw(st.integers(2, 25))
    state = GameState.new(size)
    for _ in range(data.draw(st.integers(1, 20))):
        legal = state.legal_points()
        if len(legal) == 0:
            break
        state = state.play(int(legal[data.draw(st.integers(0, len(legal) - 1))]))
    record = read_sgf(game_to_sgf(state))
    main = record.tree.get_main_sequence()
    for _ in range(data.draw(st.integers(1, 5))):
        node = main[data.draw(st.integers(0, len(main) - 2))]  # not the leaf: its first child is the main line
        branch = node.new_child()
        branch.set("C", data.draw(TEXT) or "side")
        if data.draw(st.booleans()):
            branch.new_child().set_raw("W", b"aa")
    again = read_sgf(record.to_sgf())
    assert again == record
    assert again.variation_count == record.variation_count
