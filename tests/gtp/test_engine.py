"""Conformance tests of the GTP engine: transcripts, round trips, fuzzing, real controllers."""

from __future__ import annotations

import io
import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuseki.agents import make_agent
from fuseki.go.sgf import game_to_sgf, read_sgf
from fuseki.go.state import GameState
from fuseki.engines.gtp_client import GtpClient
from fuseki.gtp.engine import GtpEngine, clean_line, free_handicap_points, gtp_name

REQUIRED = """protocol_version name version known_command list_commands quit boardsize
clear_board komi play genmove undo fixed_handicap place_free_handicap set_free_handicap
final_score final_status_list time_settings time_left showboard loadsgf printsgf
kgs-genmove_cleanup kgs-time_settings list_stones reg_genmove""".split()

#: One reply: status, optional id, text (maybe several lines), then the blank line.
REPLY = re.compile(r"[=?][0-9]*( [^\n]*)?(\n[^\n]+)*\n\n")


def new_engine(rules: str = "chinese", seed: int = 1) -> GtpEngine:
    return GtpEngine(make_agent("random", seed=seed), rules=rules, stdout=io.StringIO(), log=io.StringIO())


def session(engine: GtpEngine, text: str) -> list[str]:
    """Feed ``text`` through the engine's read loop; return the replies (no blank lines)."""
    engine.stdin = io.StringIO(text, newline="\n")
    out = engine.stdout = io.StringIO()
    engine.done = False
    engine.run()
    raw = out.getvalue()
    assert _all_replies(raw), raw
    return [r for r in raw.split("\n\n") if r]


def _all_replies(raw: str) -> bool:
    pos = 0
    while pos < len(raw):
        m = REPLY.match(raw, pos)
        if m is None:
            return False
        pos = m.end()
    return True


def check(engine: GtpEngine, transcript: str) -> None:
    """Run a transcript: ``command -> expected reply`` per line (``...`` matches any text)."""
    for line in transcript.strip().splitlines():
        command, _, expected = (part.strip() for part in line.partition("->"))
        reply = engine.handle(command)
        assert reply is not None, command
        if expected.endswith("..."):
            assert reply.startswith(expected[:-3]), f"{command!r}: {reply!r}"
        else:
            assert reply == expected or reply == expected + " ", f"{command!r}: {reply!r} != {expected!r}"


# ---- administrative --------------------------------------------------------


def test_administrative_commands():
    e = new_engine()
    check(
        e,
        """
        protocol_version -> = 2
        1 name -> =1 fuseki
        2 version -> =2 ...
        known_command play -> = true
        known_command kgs-genmove_cleanup -> = true
        known_command frobnicate -> = false
        known_command -> ? syntax error...
        7 frobnicate -> ?7 unknown command: 'frobnicate'
        """,
    )
    listed = e.handle("list_commands")[2:].split("\n")
    assert set(REQUIRED) <= set(listed)
    assert all(e.handle(f"known_command {name}") == "= true" for name in listed)
    assert session(e, "10 quit\nname\n") == ["=10 "]  # nothing is answered after quit


def test_command_names_come_from_methods():
    assert gtp_name("cmd_kgs_genmove_cleanup") == "kgs-genmove_cleanup"
    assert gtp_name("cmd_final_status_list") == "final_status_list"

    class Louder(GtpEngine):
        def cmd_shout(self, args: list[str]) -> str:
            return " ".join(args).upper()

    e = Louder(make_agent("random", seed=1), stdout=io.StringIO())
    assert e.handle("shout hi there") == "= HI THERE"
    assert "shout" in e.handle("list_commands")


# ---- board, moves and errors ----------------------------------------------------


@pytest.mark.parametrize("size", range(2, 26))
def test_every_board_size(size):
    e = new_engine()
    top_right = f"{'ABCDEFGHJKLMNOPQRSTUVWXYZ'[size - 1]}{size}"
    check(
        e,
        f"""
        boardsize {size} -> =
        play black A1 -> =
        play white {top_right} -> =
        list_stones black -> = A1
        list_stones white -> = {top_right}
        genmove black -> = ...
        """,
    )
    assert e.handle(f"play b {'ABCDEFGHJKLMNOPQRSTUVWXYZ'[size]}1" if size < 25 else "play b Z26").startswith(
        "? invalid coordinate"
    )


class NineOnlyBot:
    """A random bot that, like an agent built from a network, plays one board size (``board_size``)."""

    name = "nine-only"
    board_size = 9

    def __init__(self) -> None:
        self.bot = make_agent("random", seed=1)

    def select_move(self, state: GameState):  # noqa: ANN201
        assert state.size == self.board_size, "the engine let a fixed-size agent play another size"
        return self.bot.select_move(state)


def test_an_agent_of_one_board_size_refuses_others(tmp_path):
    from fuseki.agents.termination import Terminating

    e = GtpEngine(Terminating(NineOnlyBot(), resign_below=None), stdout=io.StringIO(), log=io.StringIO())
    assert e.size == 9  # starts on the agent's board, not on 19x19
    sgf19 = tmp_path / "19.sgf"
    sgf19.write_text("(;GM[1]FF[4]SZ[19];B[dd])")
    check(
        e,
        f"""
        play b E5 -> =
        boardsize 19 -> ? unacceptable size: nine-only plays 9x9 only, not 19x19
        loadsgf {sgf19} -> ? cannot load file: nine-only plays 9x9 only, not 19x19
        list_stones black -> = E5
        play w J9 -> =
        genmove b -> = ...
        boardsize 26 -> ? unacceptable size: boards from 2 to 25...
        boardsize 9 -> =
        list_stones black -> =
        """,
    )
    assert e.size == 9 and e.state.size == 9
    with pytest.raises(ValueError, match="plays 9x9 only, not 19x19"):
        GtpEngine(NineOnlyBot(), size=19, stdout=io.StringIO())


def test_bad_arguments():
    check(
        new_engine(),
        """
        boardsize 1 -> ? unacceptable size...
        boardsize 26 -> ? unacceptable size...
        boardsize nine -> ? syntax error...
        boardsize -> ? syntax error...
        boardsize 99999999999999999999 -> ? syntax error...
        boardsize 9 -> =
        komi abc -> ? syntax error...
        komi 6.3 -> ? syntax error...
        komi nan -> ? syntax error...
        komi 1e308 -> ? syntax error...
        komi -3 -> =
        play purple E5 -> ? syntax error: invalid color...
        play black I5 -> ? invalid coordinate...
        play black E10 -> ? invalid coordinate...
        play black resign -> ? invalid coordinate...
        play black -> ? syntax error...
        play black E5 extra -> ? syntax error...
        genmove -> ? syntax error...
        genmove nobody -> ? syntax error: invalid color...
        undo -> ? cannot undo
        final_status_list zombie -> ? syntax error...
        list_stones grey -> ? syntax error...
        PLAY black E5 -> ? unknown command: 'PLAY'
        play BLACK e5 -> =
        """,
    )


def test_illegal_moves_say_why():
    e = new_engine()
    check(
        e,
        """
        boardsize 9 -> =
        play b E5 -> =
        play w E5 -> ? illegal move: occupied
        play w A2 -> =
        play b pass -> =
        play w B1 -> =
        play b A1 -> ? illegal move: suicide
        """,
    )
    ko = new_engine("japanese")
    check(
        ko,
        """
        boardsize 9 -> =
        play b E6 -> =
        play w F6 -> =
        play b D5 -> =
        play w G5 -> =
        play b E4 -> =
        play w F4 -> =
        play b pass -> =
        play w E5 -> =
        play b F5 -> =
        play w E5 -> ? illegal move: ko
        """,
    )
    # A cycle longer than a simple ko, found by search on 3x3 (positional superko).
    sk = new_engine("chinese")
    sk.handle("boardsize 3")
    moves = "C3 A2 B2 B1 A3 C2 A1 B3 C1 A2 C3 B1 A3".split()
    for i, v in enumerate(moves):
        assert sk.handle(f"play {'bw'[i % 2]} {v}") == "= ", v
    assert sk.handle("play w C2") == "? illegal move: superko"


def test_undo_after_a_capture_brings_the_stones_back():
    e = new_engine()
    check(
        e,
        """
        boardsize 9 -> =
        play b B1 -> =
        play w A1 -> =
        play b B2 -> =
        play w A2 -> =
        play b A3 -> =
        list_stones white -> =
        undo -> =
        list_stones white -> = A2 A1
        list_stones black -> = B2 B1
        undo -> =
        undo -> =
        undo -> =
        undo -> =
        undo -> ? cannot undo
        """,
    )
    e.handle("play b A3")
    assert "BLACK (X) has captured 0 stones" in e.handle("showboard")


def test_moves_out_of_turn_and_after_the_game_ended():
    e = new_engine()
    check(
        e,
        """
        boardsize 9 -> =
        play b E5 -> =
        play b D4 -> =
        genmove b -> = ...
        play w pass -> =
        play b pass -> =
        play w C3 -> =
        list_stones white -> = C3
        """,
    )
    record = read_sgf(e.handle("printsgf")[2:])
    assert [m.color.letter for m in record.moves] == ["B", "B", "B", "W", "B", "W"]
    assert e.handle("undo") == "= "
    assert e.handle("list_stones white") == "= "


def test_genmove_and_reg_genmove():
    e = new_engine()
    e.handle("boardsize 5")
    e.handle("3 reg_genmove b")
    assert e.handle("list_stones black") == "= "  # reg_genmove does not play
    reply = e.handle("4 genmove b")
    assert re.fullmatch(r"=4 [A-E][1-5]", reply)
    assert e.handle("list_stones black") == "= " + reply[3:]
    assert re.fullmatch(r"= ([A-E][1-5]|pass)", e.handle("kgs-genmove_cleanup w"))
    # On to the end of the game and past it (GTP controllers may go on after two passes).
    for _ in range(60):
        for color in "bw":
            assert re.fullmatch(r"= ([A-E][1-5]|pass|resign)", e.handle(f"genmove {color}"))
    assert re.fullmatch(r"= (B\+|W\+)\d+(\.5)?|= 0", e.handle("final_score"))


# ---- handicap -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "stones", "expected"),
    [
        (9, 9, "C3 G7 C7 G3 E3 E7 C5 G5 E5"),
        (13, 4, "D4 K10 D10 K4"),
        (13, 9, "D4 K10 D10 K4 G4 G10 D7 K7 G7"),
        (19, 2, "D4 Q16"),
        (19, 9, "D4 Q16 D16 Q4 K4 K16 D10 Q10 K10"),
    ],
)
def test_fixed_handicap(size, stones, expected):
    e = new_engine()
    e.handle(f"boardsize {size}")
    assert e.handle(f"fixed_handicap {stones}") == f"= {expected}"
    assert sorted(e.handle("list_stones black")[2:].split()) == sorted(expected.split())
    assert e.handle("fixed_handicap 2") == "? board not empty"
    assert e.handle("genmove white").startswith("= ")  # White moves first
    assert e.handle("undo") == "= "
    assert e.handle("undo") == "? cannot undo"  # the handicap is the start, not a move


def test_fixed_handicap_errors():
    check(
        new_engine(),
        """
        boardsize 9 -> =
        fixed_handicap 1 -> ? invalid number of stones...
        fixed_handicap 10 -> ? invalid number of stones...
        fixed_handicap x -> ? syntax error...
        boardsize 5 -> =
        fixed_handicap 2 -> ? invalid number of stones...
        """,
    )


def test_free_handicap():
    e = new_engine()
    e.handle("boardsize 19")
    placed = e.handle("place_free_handicap 12")[2:].split()
    assert len(set(placed)) == 12
    assert sorted(e.handle("list_stones black")[2:].split()) == sorted(placed)
    assert e.handle("final_score").startswith("= B+")
    check(
        e,
        """
        clear_board -> =
        set_free_handicap A1 -> ? bad vertex list...
        set_free_handicap A1 A1 -> ? bad vertex list...
        set_free_handicap A1 pass -> ? invalid coordinate...
        set_free_handicap A1 Z99 -> ? invalid coordinate...
        set_free_handicap A1 T19 K10 -> =
        list_stones black -> = T19 K10 A1
        place_free_handicap 2 -> ? board not empty
        boardsize 3 -> =
        place_free_handicap 9 -> ? invalid number of stones...
        place_free_handicap 8 -> = ...
        list_stones white -> =
        """,
    )
    assert len(set(free_handicap_points(24, 5))) == 24
    big = new_engine()
    big.handle("boardsize 25")
    assert len(big.handle("place_free_handicap 624")[2:].split()) == 624  # fast, and all distinct
    assert len(big.handle("list_stones black")[2:].split()) == 624


# ---- scoring and time -------------------------------------------------------------------


def test_final_score_and_status():
    e = new_engine()
    check(
        e,
        """
        boardsize 5 -> =
        komi 0.5 -> =
        final_score -> = W+0.5
        komi 0 -> =
        final_score -> = 0
        final_status_list alive -> =
        final_status_list Dead -> =
        """,
    )
    # A dead black corner inside White's wall (play may place either colour).
    for move in "b B5, b A4, b B4, w C5, w C4, w A3, w B3, w C3".split(", "):
        assert e.handle(f"play {move}") == "= "
    assert set(e.handle("final_status_list dead")[2:].split()) == {"A4", "B4", "B5"}
    assert e.handle("final_status_list alive") == "= C5 C4 A3 B3 C3"
    assert e.handle("final_status_list seki") == "= "
    assert e.handle("final_score") == "= W+25"


def test_time_commands():
    check(
        new_engine(),
        """
        time_settings 300 30 5 -> =
        time_settings 300 30 -> ? syntax error...
        time_settings 300 x 5 -> ? syntax error...
        time_settings -1 0 0 -> ? syntax error...
        time_left black 120 3 -> =
        time_left purple 120 3 -> ? syntax error...
        kgs-time_settings none -> =
        kgs-time_settings absolute 600 -> =
        kgs-time_settings byoyomi 600 30 5 -> =
        kgs-time_settings canadian 600 300 25 -> =
        kgs-time_settings canadian 600 -> ? syntax error...
        kgs-time_settings hourglass 60 -> ? syntax error...
        kgs-time_settings -> ? syntax error...
        """,
    )


def test_showboard():
    e = new_engine()
    e.handle("boardsize 9")
    e.handle("play b E5")
    board = e.handle("showboard")
    assert board.startswith("= \n")
    assert "(X)" in board and "A B C D E F G H J" in board
    assert "\n\n" not in board


# ---- SGF ------------------------------------------------------------------------------------


def _random_game(size: int, moves: int, handicap: int = 0) -> GameState:
    bot = make_agent("random", seed=size)
    state = GameState.new(size, "chinese", komi=6.5, handicap=handicap)
    for _ in range(moves):
        if state.is_over():
            break
        state = state.play(bot.select_move(state))
    return state


@pytest.mark.parametrize(("size", "handicap"), [(9, 0), (13, 2), (19, 4)])
def test_loadsgf_printsgf_round_trip(tmp_path, size, handicap):
    state = _random_game(size, 60, handicap)
    path = tmp_path / "game.sgf"
    path.write_bytes(game_to_sgf(state))
    e = new_engine()
    assert e.handle(f"loadsgf {path}") == f"= {state.next_player.name.lower()}"
    assert e.handle("list_stones black")[2:].split() == _stones(state, 1, size)
    assert e.handle("list_stones white")[2:].split() == _stones(state, 2, size)
    original, printed = read_sgf(path.read_bytes()), read_sgf(e.handle("printsgf")[2:])
    assert printed == original
    # To a file, then part of the game.
    out = tmp_path / "out.sgf"
    assert e.handle(f"printsgf {out}") == "= "
    assert read_sgf(out.read_bytes()) == original
    assert e.handle(f"loadsgf {path} 11") == f"= {'white' if handicap else 'black'}"
    assert len(read_sgf(e.handle("printsgf")[2:]).moves) == 10


def _stones(state: GameState, color: int, size: int) -> list[str]:
    grid = state.stones()
    cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    return [f"{cols[c]}{size - r}" for r in range(size) for c in range(size) if grid[r, c] == color]


def test_loadsgf_errors_keep_the_game(tmp_path):
    e = new_engine()
    e.handle("boardsize 9")
    e.handle("play b E5")
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[9];B[ee];W[ee])")
    check(
        e,
        f"""
        loadsgf {tmp_path / "missing.sgf"} -> ? cannot load file...
        loadsgf {bad} -> ? cannot load file...
        loadsgf -> ? syntax error...
        loadsgf /dev/stdin -> ? cannot load file...
        loadsgf {tmp_path} -> ? cannot load file...
        list_stones black -> = E5
        """,
    )


# ---- robustness ------------------------------------------------------------------------------


def test_input_cleaning():
    assert clean_line("\x00 na\x07me \t# comment\r\n") == "name"
    e = new_engine()
    replies = session(
        e,
        "\n   \n# just a comment\n\t1\tname\t\r\n"
        + "2 play b\x1b[31m E5\n"  # an ANSI escape: the control byte goes, the rest stays
        + "3 "
        + "x" * (1 << 20)
        + "\n"  # a 1 MB line
        + "\x00\x01\x02\n"
        + "4 pl\u00e4y b E5\n"
        + "5 protocol_version\n",
    )
    assert replies[0] == "=1 fuseki"
    assert replies[1].startswith("?2 ")
    assert replies[2].startswith("?3 line too long")
    assert replies[3].startswith("?4 unknown command")
    assert replies[4] == "=5 2"
    assert len(replies) == 5


_WORDS = st.sampled_from(REQUIRED + ["b", "w", "black", "E5", "A1", "pass", "9", "-1", "3.5", "#", "\t", "\x00", "é"])
_LINE = st.one_of(
    st.lists(_WORDS, max_size=6).map(" ".join),
    st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=40),
    st.integers(0, 10**6).map(lambda i: f"{i} " + "boardsize 3"),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, max_size=12))
def test_fuzz_replies_stay_well_formed(lines):
    # Not the commands that end the session or touch files (tested on their own).
    lines = [ln for ln in lines if not re.match(r"([0-9]+ +)?(quit|loadsgf|printsgf)\b", clean_line(ln))]
    e = new_engine()
    text = "".join(ln + "\n" for ln in lines) + "99 protocol_version\n"
    engine_out = io.StringIO()
    e.stdin, e.stdout = io.StringIO(text, newline="\n"), engine_out
    e.run()
    raw = engine_out.getvalue()
    assert _all_replies(raw), raw
    replies = raw.split("\n\n")[:-1]
    expected = sum(1 for ln in lines if clean_line(ln)) + 1
    assert len(replies) == expected
    assert replies[-1] == "=99 2"


# ---- real processes --------------------------------------------------------------------------


def test_subprocess_with_our_client():
    argv = [sys.executable, "-m", "fuseki", "gtp", "--bot", "random", "--seed", "1"]
    with GtpClient(argv, timeout=60, ids=True) as c:
        assert c.protocol_version() == "2"
        assert c.name() == "fuseki"
        c.boardsize(9)
        c.komi(6.5)
        c.play("black", "E5")
        move = c.genmove("white")
        assert re.fullmatch(r"[A-HJ][1-9]|pass", move)
        assert c.send("list_stones black") == "E5"
        assert c.final_score().startswith(("B+", "W+"))


@pytest.mark.gnugo
def test_against_gnugo(gnugo):
    ours = new_engine(rules="gnugo")
    with GtpClient([gnugo, "--mode", "gtp", "--level", "1"], timeout=30) as g:
        for size in (9, 13, 19):  # the same handicap points as GNU Go
            g.boardsize(size)
            ours.handle(f"boardsize {size}")
            for stones in range(2, 10):
                g.clear_board()
                ours.handle("clear_board")
                assert sorted(g.send(f"fixed_handicap {stones}").split()) == sorted(
                    ours.handle(f"fixed_handicap {stones}")[2:].split()
                )
        for engine_cmd in ("boardsize 9", "komi 6.5", "clear_board"):
            g.send(engine_cmd)
            assert ours.handle(engine_cmd).startswith("=")
        for turn in range(12):
            if turn % 2 == 0:
                move = g.genmove("black")
                assert ours.handle(f"play black {move}") == "= ", move
            else:
                move = ours.handle("genmove white")[2:]
                g.play("white", move)
        for color in ("black", "white"):
            assert sorted(g.send(f"list_stones {color}").split()) == sorted(ours.handle(f"list_stones {color}")[2:].split())


def test_loadsgf_reads_files_from_the_wild(tmp_path):
    # Fox's form: AP twice, KM x100, HA[2] with its stones in the second node, two white moves
    # in a row, no closing ')'; then a setup node after move 2 (a teaching file).
    path = tmp_path / "fox.sgf"
    path.write_bytes(b"(;GM[1]SZ[9]KM[650]HA[2]AP[a]AP[b];AB[gc][cg];W[ee];W[dd];AB[gg]AE[cg];B[ff]")
    log = io.StringIO()
    e = GtpEngine(make_agent("random", seed=1), rules="chinese", stdout=io.StringIO(), log=log)
    assert e.handle(f"loadsgf {path}") == "= white"
    assert "komi times 100" in log.getvalue() and "follows a white move" in log.getvalue()
    assert e.handle("list_stones black") == "= G7 F4 G3"  # C3 cleared by the setup, G3 added
    assert e.handle("list_stones white") == "= D6 E5"
    printed = read_sgf(e.handle("printsgf")[2:])
    assert printed.komi == 6.5 and printed.setups == read_sgf(path.read_bytes()).setups
    # A new komi replays the game, setup and implied pass included.
    assert e.handle("komi 0.5") == "= " and e.handle("list_stones black") == "= G7 F4 G3"
    assert e.handle("undo") == "= " and e.handle("list_stones black") == "= G7 G3"
    assert e.handle("undo") == "= " and e.handle("list_stones black") == "= G7 C3"
    assert e.handle(f"loadsgf {path} 3") == "= black" and e.handle("list_stones black") == "= G7 G3"


def test_loadsgf_a_game_that_repeats_a_board_continues_with_simple_ko(tmp_path):
    path = tmp_path / "superko.sgf"
    path.write_bytes(
        b"(;FF[4]GM[1]KM[7.5]RU[Chinese]SZ[5];B[ad];W[ed];B[be];W[ca];B[cb];W[cd];B[db];W[de];B[ac];W[aa];"
        b"B[ba];W[ec];B[bd];W[ab];B[ea];W[bb];B[eb];W[da];B[ba];W[ca])"
    )
    e = new_engine("chinese")
    assert e.handle(f"loadsgf {path}") == "= black"
    assert e.rules.ko.value == "simple" and e.state.move_number == 20
