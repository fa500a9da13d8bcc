"""SGF files from the wild (issue 23): each server's form, each repair's warning, strict refusals.

The files in ``tests/go/wild/`` are written by hand in the forms the servers
write (Fox's header with ``AP`` twice and ``KM[650]``, handicap stones in the
second node, ...). Each test says what the lenient reader makes of a file,
word for word, and what strict reading says instead.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sgfmill import sgf

from fuseki.go.coords import Point, from_gtp, to_gtp
from fuseki.go.handicap import fixed_handicap, max_fixed_handicap
from fuseki.go.rules import KoRule
from fuseki.go.sgf import (
    KINDS,
    GameRecord,
    GameResult,
    Setup,
    SgfError,
    game_to_sgf,
    parse_result,
    read_result,
    read_sgf,
)
from fuseki.go.state import Color, GameState, Move

WILD = Path(__file__).parent / "wild"
AP_TWICE = (
    "duplicate_property",
    "AP is given twice in the root node (AP[GNU Go:3.8] and AP[foxwq]): kept the first, AP[GNU Go:3.8]",
)


def wild(name: str, strict: bool = False) -> GameRecord:
    return read_sgf((WILD / name).read_bytes(), strict=strict)


def replayed(name: str) -> tuple[GameRecord, GameState]:
    record = wild(name)
    return record, record.replay()


def warnings(record: GameRecord) -> list[tuple[str, str]]:
    return [(w.kind, str(w)) for w in record.warnings]


def points(*names: str, size: int = 19) -> frozenset[Point]:
    return frozenset(from_gtp(n, size) for n in names)


# ---- each file: its warnings, word for word, and what strict reading says -------------------

CASES: list[tuple[str, list[tuple[str, str]], str | None]] = [
    (
        "fox_handicap_second_node.sgf",
        [AP_TWICE, ("setup_after_root", "setup (AB) in a node before the first move: read with the root's setup")],
        None,  # valid SGF, but for the AP
    ),
    (
        "fox_handicap_implied.sgf",
        [
            AP_TWICE,
            (
                "handicap_placed",
                "HA[3] without handicap stones (no AB) and White to move first: placed 3 stones on the fixed points D16 Q16 D4",
            ),
        ],
        "HA[3] without handicap stones (no AB) and White to move first",
    ),
    ("fox_komi_650.sgf", [AP_TWICE, ("komi_x100", "KM[650] is komi times 100: read as 6.5")], "KM[650] is komi times 100"),
    ("fox_komi_750.sgf", [AP_TWICE, ("komi_x100", "KM[750] is komi times 100: read as 7.5")], "KM[750] is komi times 100"),
    (
        "fox_komi_375.sgf",
        [AP_TWICE, ("komi_stones", "KM[375] is komi times 100 in stones (3.75, Chinese counting): read as 7.5")],
        "KM[375] is komi times 100 in stones (3.75, Chinese counting)",
    ),
    (
        "fox_two_moves_one_colour.sgf",
        [
            AP_TWICE,
            ("implied_pass", "move 3 (W Q16) follows a white move: replayed after a black pass"),
            ("implied_pass", "move 4 (W D16) follows a white move: replayed after a black pass"),
        ],
        "move 3 (W Q16) is out of turn: black to play",
    ),
    (
        "no_open_paren.sgf",
        [("missing_open", "the file starts with ';' instead of '(;': added the missing '('")],
        "the file starts with ';' instead of '(;'",
    ),
    (
        "no_open_paren_variations.sgf",
        [("missing_open", "the file starts with ';' instead of '(;': added the missing '('")],
        "the file starts with ';' instead of '(;'",
    ),
    (
        "truncated.sgf",
        [("missing_close", "the file ends before the game tree is closed (1 ')' missing): closed it")],
        "the file ends before the game tree is closed (1 ')' missing)",
    ),
    (
        "truncated_in_value.sgf",
        [
            ("truncated", "the file ends inside B[f: dropped the unfinished B"),
            ("missing_close", "the file ends before the game tree is closed (1 ')' missing): closed it"),
        ],
        "the file ends inside B[f",
    ),
    ("fox_duplicate_properties.sgf", [AP_TWICE], None),
    (
        "gb18030_names.sgf",
        [("encoding", "no CA property and the text is not UTF-8: read as GB18030 (a guess)")],
        None,  # strict reading takes the SGF default, ISO-8859-1
    ),
    (
        "broken_utf8.sgf",
        [("encoding", "no CA property and the text is not UTF-8: read as UTF-8 with 1 broken characters replaced")],
        None,
    ),
    ("latin1_names.sgf", [("encoding", "no CA property and the text is not UTF-8: read as ISO-8859-1 (the SGF default)")], None),
    ("results.sgf", [], None),
    (
        "superko_chinese.sgf",
        [
            (
                "superko",
                "move 20 (W C5) repeats an earlier board, which the rules of RU[Chinese] forbid (positional superko): "
                "replayed the game with simple ko, as it was played",
            )
        ],
        "move 20 (W C5) is illegal: superko",
    ),
    (
        "resumed_after_passes.sgf",
        [("resumed", "move 4 (W C7) comes after the game ended by two passes: replayed as a resumed game")],
        "move 4 (W C7) is illegal: game over",
    ),
    (
        "move_in_root.sgf",
        [("move_in_root", "the root node holds a move (B[ee]); moves must come after the root: read it as move 1")],
        "the root node holds a move (B[ee]); moves must come after the root",
    ),
    (
        "setup_in_move_node.sgf",
        [("setup_in_move_node", "move 2's node also holds setup (AB): placed the stones before the move")],
        "move 2's node also holds setup (AB)",
    ),
    ("setup_mid_game.sgf", [("setup_after_root", "setup (AB/AW/AE) in a node after move 2: applied there")], None),
    (
        "handicap_6_top_bottom.sgf",
        [
            AP_TWICE,
            (
                "handicap_placed",
                "HA[6] without handicap stones (no AB) and White to move first: placed 6 stones on the fixed "
                "points D16 K16 Q16 D4 K4 Q4 (the game's moves rule out D10 Q10)",
            ),
        ],
        "HA[6] without handicap stones (no AB) and White to move first",
    ),
]


def test_every_file_is_a_case() -> None:
    assert sorted(p.name for p in WILD.glob("*.sgf")) == sorted(name for name, _, _ in CASES)
    assert {kind for _, found, _ in CASES for kind, _ in found} == set(KINDS) - {"extra_games", "bad_komi"}


@pytest.mark.parametrize(("name", "expected", "strict_error"), CASES, ids=[c[0] for c in CASES])
def test_warnings_word_for_word(name: str, expected: list[tuple[str, str]], strict_error: str | None) -> None:
    record, _ = replayed(name)
    assert warnings(record) == expected
    again = wild(name)
    deque_all(again.states())
    deque_all(again.states())  # replaying again adds no warning twice
    assert warnings(again) == expected
    data = (WILD / name).read_bytes()
    if AP_TWICE in expected:
        # Strict reading stops at the first repair, Fox's second AP; without it, at the case's own.
        with pytest.raises(SgfError, match=r"^AP is given twice in the root node .* \(strict reading repairs nothing\)$"):
            read_sgf(data, strict=True)
        data = data.replace(b"AP[foxwq]", b"")
    if strict_error is None:
        strict = read_sgf(data, strict=True)
        strict.replay()
        assert all(w.is_note for w in strict.warnings)
        return
    with pytest.raises(SgfError) as info:
        read_sgf(data, strict=True).replay()
    message = str(info.value)
    assert message == strict_error or message == f"{strict_error} (strict reading repairs nothing)"
    assert "\n" not in message


def deque_all(states: object) -> None:
    for _ in states:  # type: ignore[attr-defined]
        pass


# ---- what the repairs make of each file ------------------------------------------------------


def test_handicap_stones_in_the_second_node_are_the_root_setup() -> None:
    record, final = replayed("fox_handicap_second_node.sgf")
    assert record.handicap == 3 and record.setup_black == points("Q16", "D4", "D16")
    assert record.initial_state().next_player is Color.WHITE
    assert [m.label(19) for m in record.moves[:2]] == ["W R4", "B P3"]
    assert final.color_at(from_gtp("D16", 19)) is Color.BLACK
    # Written back, the stones are in the root; read again, nothing is left to repair but nothing is lost.
    again = read_sgf(record.to_sgf())
    assert again == record and not again.warnings and b";AB" not in record.to_sgf()


def test_implied_handicap_stones_are_the_same_as_written_ones() -> None:
    implied, final = replayed("fox_handicap_implied.sgf")
    assert implied.setup_black == frozenset(fixed_handicap(3, 19)) == points("D4", "Q16", "D16")
    assert final.color_at(from_gtp("D16", 19)) is Color.BLACK and final.handicap == 3
    # W Q15 and B R15 then W R14: White's Q15 stone touches Black's Q16; the replay knows it is there.
    assert final.liberties(from_gtp("Q16", 19)) < 4


def test_six_stones_on_the_top_and_bottom_when_the_moves_say_so() -> None:
    record, final = replayed("handicap_6_top_bottom.sgf")
    assert record.setup_black == points("D4", "Q16", "D16", "Q4", "K4", "K16")
    assert final.color_at(from_gtp("D10", 19)) is Color.WHITE  # White's first move, on GTP's sixth stone


@pytest.mark.parametrize(("name", "komi"), [("fox_komi_650.sgf", 6.5), ("fox_komi_750.sgf", 7.5), ("fox_komi_375.sgf", 7.5)])
def test_komi_times_100_and_in_stones(name: str, komi: float) -> None:
    record, final = replayed(name)
    assert record.komi == komi and final.rules.komi == komi
    assert b"KM[%g]" % komi in record.to_sgf()


def test_two_moves_of_one_colour_are_played_after_an_implied_pass() -> None:
    record, final = replayed("fox_two_moves_one_colour.sgf")
    assert [m.label(19) for m in record.moves] == ["B R4", "W D4", "W Q16", "W D16", "B F3"]
    states = list(record.states())
    assert len(states) == len(record.moves) + 1  # position n is after move n, as in the file
    assert [m.gtp(19) for m in final.moves()] == ["R4", "D4", "pass", "Q16", "pass", "D16", "F3"]
    assert states[3].color_at(from_gtp("Q16", 19)) is Color.WHITE and states[3].next_player is Color.BLACK
    steps = list(record.steps())
    assert steps[2].before.last_move == Move.pass_turn() and steps[2].before.next_player is Color.WHITE


def test_a_missing_opening_paren_keeps_the_game_and_its_variations() -> None:
    plain = wild("no_open_paren.sgf")
    assert [m.label(19) for m in plain.moves] == ["B Q16", "W D4", "B Q4", "W D16"] and plain.result == "W+R"
    record = wild("no_open_paren_variations.sgf")
    # The old reader took the first variation, "(;B[pp]...", for the game: "the root node holds a move".
    assert [m.label(19) for m in record.moves] == ["B Q16", "W D4", "B Q4", "W D16"]
    assert record.komi == 7.5 and record.black == "Black" and record.variation_count == 1


def test_truncated_files_keep_every_whole_move() -> None:
    assert [m.label(19) for m in wild("truncated.sgf").moves][-1] == "B F17"
    assert len(wild("truncated.sgf").moves) == 5
    assert len(wild("truncated_in_value.sgf").moves) == 4


def test_names_in_other_encodings() -> None:
    gb = wild("gb18030_names.sgf")
    assert (gb.black, gb.white, gb.event) == ("柯洁", "芈昱廷", "围棋比赛")
    assert wild("broken_utf8.sgf").black == "娱\ufffd?版围棋" and wild("broken_utf8.sgf").white == "风暴雷霆"
    assert wild("latin1_names.sgf").black == "Jürgen Müller"
    assert wild("gb18030_names.sgf", strict=True).black == "柯洁".encode("gb18030").decode("latin-1")
    # Written back as UTF-8, with CA saying so: nothing to guess any more.
    again = read_sgf(gb.to_sgf())
    assert again.black == "柯洁" and not again.warnings


def test_a_game_that_repeats_a_board_replays_with_simple_ko() -> None:
    record, final = replayed("superko_chinese.sgf")
    assert record.rules.ko is KoRule.POSITIONAL  # what RU[Chinese] names ...
    assert final.rules.ko is KoRule.SIMPLE  # ... and what the game was played under
    assert final.rules.replace(ko=KoRule.POSITIONAL) == record.rules
    boards = [s.stones().tobytes() for s in record.states()]
    assert boards[20] == boards[17]  # move 20 brings back the board after move 17
    assert len(final.moves()) == 20


def test_moves_after_two_passes_resume_the_game() -> None:
    record, final = replayed("resumed_after_passes.sgf")
    steps = list(record.steps())
    assert [s.resumed for s in steps] == [False, False, False, True, False]
    assert final.color_at(from_gtp("C7", 9)) is Color.WHITE and final.color_at(from_gtp("G3", 9)) is Color.BLACK


def test_a_move_in_the_root_is_move_one() -> None:
    record, _ = replayed("move_in_root.sgf")
    assert [m.label(9) for m in record.moves] == ["B E5", "W C7", "B G3"] and record.komi == 7
    written = record.to_sgf()
    assert written.startswith(b"(;FF[4]CA[UTF-8]GM[1]KM[7]SZ[9];B[ee];W[cc];B[gg])")
    assert read_sgf(written) == record


def test_setup_later_in_the_game() -> None:
    record, final = replayed("setup_mid_game.sgf")
    assert record.setups == {2: Setup(points("G3", size=9), points("C3", size=9), points("E5", size=9))}
    assert record.comments == {2: "Setup after move 2"}
    states = list(record.states())
    assert states[2].color_at(from_gtp("E5", 9)) is None and states[2].color_at(from_gtp("C3", 9)) is Color.WHITE
    assert states[2].next_player is Color.BLACK  # the colour of the next move, as at the root
    assert final.color_at(from_gtp("G7", 9)) is Color.BLACK
    written = record.to_sgf()
    nodes = sgf.Sgf_game.from_bytes(written).get_main_sequence()
    assert [sorted(n.get_raw_property_map()) for n in nodes[1:]] == [["B"], ["C", "W"], ["AB", "AE", "AW"], ["B"]]
    assert read_sgf(written) == record
    mixed, final = replayed("setup_in_move_node.sgf")
    assert mixed.setups == {1: Setup(points("G3", size=9))}
    assert final.color_at(from_gtp("G3", 9)) is Color.BLACK
    assert len(final.moves()) == 2  # a setup starts a new history: W C7 and B G7 after it
    again = read_sgf(mixed.to_sgf())  # the setup now in a node of its own: valid SGF, a note
    assert again == mixed and [w.kind for w in again.warnings] == ["setup_after_root"]


# ---- results ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B+R", GameResult(Color.BLACK, "resign")),
        ("W+Resign", GameResult(Color.WHITE, "resign")),
        ("B+T", GameResult(Color.BLACK, "time")),
        ("W+Time", GameResult(Color.WHITE, "time")),
        ("B+F", GameResult(Color.BLACK, "forfeit")),
        ("W+Forfeit", GameResult(Color.WHITE, "forfeit")),
        ("Void", GameResult(None, "void")),
        ("?", GameResult(None, "unknown")),
        ("0", GameResult(None, "draw", 0.0)),
        ("Draw", GameResult(None, "draw", 0.0)),
        ("draw", GameResult(None, "draw", 0.0)),
        ("Jigo", GameResult(None, "draw", 0.0)),
        ("W+0.0", GameResult(None, "draw", 0.0)),
        ("B+0.25", GameResult(Color.BLACK, "score", 0.25)),
        ("W+12.5", GameResult(Color.WHITE, "score", 12.5)),
        ("W+102.75", GameResult(Color.WHITE, "score", 102.75)),
        ("b+r", GameResult(Color.BLACK, "resign")),
        ("w+resign", GameResult(Color.WHITE, "resign")),
        ("b+t", GameResult(Color.BLACK, "time")),
        ("void", GameResult(None, "void")),
        ("B+", GameResult(Color.BLACK, "score")),
        (" W+3.5 ", GameResult(Color.WHITE, "score", 3.5)),
    ],
)
def test_results_in_every_form(text: str, expected: GameResult) -> None:
    assert read_result(text) == expected
    if expected.kind in ("void", "unknown"):
        with pytest.raises(ValueError, match="not a finished game's result"):
            parse_result(text)
    else:
        assert parse_result(text) == (expected.winner, expected.kind)


@pytest.mark.parametrize("text", ["", "B+x", "X+R", "W-R", "B+R+", "draw?"])
def test_what_is_no_result(text: str) -> None:
    with pytest.raises(ValueError, match="not a game result"):
        read_result(text)


def test_a_record_reads_its_result() -> None:
    assert wild("results.sgf").outcome == GameResult(Color.BLACK, "resign")
    assert wild("fox_komi_375.sgf").outcome == GameResult(Color.BLACK, "score", 0.25)
    assert read_sgf("(;SZ[9]RE[nonsense])").outcome is None and read_sgf("(;SZ[9])").outcome is None


# ---- never a traceback ---------------------------------------------------------------------

WILD_BYTES = [p.read_bytes() for p in sorted(WILD.glob("*.sgf"))]


@settings(max_examples=300, deadline=None)
@given(
    source=st.sampled_from(WILD_BYTES),
    cut=st.floats(0, 1),
    edits=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(list(b"()[];\\:BWCABSZKMHAPL19ae z\n\xff\x00"))), max_size=4),
    strict=st.booleans(),
)
def test_damaged_wild_files_give_only_sgf_errors(source: bytes, cut: float, edits: list[tuple[float, int]], strict: bool) -> None:
    data = bytearray(source)
    for where, byte in edits:
        data[int(where * (len(data) - 1))] = byte
    data = data[: int(cut * len(data)) + 1] if cut < 0.9 else data
    try:
        record = read_sgf(bytes(data), strict=strict)
        record.replay()
        again = read_sgf(record.to_sgf(), strict=strict)
        assert again.moves == record.moves
    except SgfError as e:
        assert "\n" not in str(e) and str(e)


# ---- property: a written game, damaged by one repairable fault, loads the same ----------------


@st.composite
def written_games(draw: st.DrawFn) -> GameState:
    size = draw(st.sampled_from([9, 13, 19]))
    rules = draw(st.sampled_from(["chinese", "japanese", "book"]))
    komi = draw(st.integers(-20, 20)) / 2
    handicap = draw(st.sampled_from([0, 0, 2, 3, 4, 5, max_fixed_handicap(size)]))
    state = GameState.new(size, rules, komi=komi, handicap=handicap)
    for _ in range(draw(st.integers(0, 40))):
        legal = state.legal_points()
        if len(legal) == 0:
            break
        state = state.play(int(legal[draw(st.integers(0, len(legal) - 1))]))
    return state


def _drop_close(game: sgf.Sgf_game, data: bytes, record: GameRecord) -> bytes:
    stripped = data.rstrip()
    assert stripped.endswith(b")")
    return stripped[:-1]


def _drop_open(game: sgf.Sgf_game, data: bytes, record: GameRecord) -> bytes:
    assert data.startswith(b"(;")
    return data[1:]


def _setup_to_second_node(game: sgf.Sgf_game, data: bytes, record: GameRecord) -> bytes:
    root = game.get_root()
    assume(root.has_property("AB"))
    stones = root.get_raw_list("AB")
    root.unset("AB")
    second = root.new_child(0)
    for child in list(root)[1:]:
        child.reparent(second)
    second.set_raw_list("AB", stones)
    return game.serialise()


def _komi_x100(game: sgf.Sgf_game, data: bytes, record: GameRecord) -> bytes:
    assume(record.komi != 0)
    game.get_root().set_raw("KM", b"%d" % round(record.komi * 100))
    return game.serialise()


def _komi_in_stones(game: sgf.Sgf_game, data: bytes, record: GameRecord) -> bytes:
    assume(record.komi % 1 == 0.5)  # a half point: a quarter stone, as Chinese counting states it
    game.get_root().set_raw("KM", b"%d" % round(record.komi * 50))
    return game.serialise()


def _ap_twice(game: sgf.Sgf_game, data: bytes, record: GameRecord) -> bytes:
    return data.replace(b"(;", b"(;AP[GNU Go:3.8]AP[foxwq]", 1)


def _implied_handicap(game: sgf.Sgf_game, data: bytes, record: GameRecord) -> bytes:
    assume(record.handicap >= 2)
    root = game.get_root()
    root.unset("AB")
    return game.serialise()


FAULTS = {
    "missing_close": _drop_close,
    "missing_open": _drop_open,
    "setup_after_root": _setup_to_second_node,
    "komi_x100": _komi_x100,
    "komi_stones": _komi_in_stones,
    "duplicate_property": _ap_twice,
    "handicap_placed": _implied_handicap,
}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(state=written_games(), fault=st.sampled_from(sorted(FAULTS)))
def test_a_written_game_with_one_repairable_fault_loads_the_same(state: GameState, fault: str) -> None:
    data = game_to_sgf(state)
    record = read_sgf(data)
    assert not record.warnings
    damaged = FAULTS[fault](sgf.Sgf_game.from_bytes(data), data, record)
    assert damaged != data
    read = read_sgf(damaged)
    assert [w.kind for w in read.warnings] == [fault]
    assert read.moves == record.moves
    assert (read.setup_black, read.setup_white, read.setup_empty) == (
        record.setup_black,
        record.setup_white,
        record.setup_empty,
    )
    assert (read.komi, read.handicap, read.to_play, read.setups) == (record.komi, record.handicap, record.to_play, {})
    assert read == record
    final, expected = read.replay(), record.replay()
    assert np.array_equal(final.stones(), expected.stones()) and final.rules == expected.rules
    with pytest.raises(SgfError, match="strict reading repairs nothing") if fault != "setup_after_root" else _no_error():
        read_sgf(damaged, strict=True)


class _no_error:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_the_fixed_points_are_gtps() -> None:
    # What handicap_placed puts down is what GTP's fixed_handicap and the servers' AB say (Fox: 1,045 files agree).
    nine = {"D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10"}
    assert {to_gtp(p, 19) for p in fixed_handicap(9, 19)} == nine
    assert list(itertools.islice(wild("fox_handicap_second_node.sgf").states(), 1))[0].handicap == 3
