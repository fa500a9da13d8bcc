"""``fuseki play``: a human (scripted input) against a bot in the terminal."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterable

import pytest

from fuseki import cli
from fuseki.commands import play
from fuseki.commands.play import TerminalGame
from fuseki.go.state import Color, GameState


PASSES = ["pass"] * 200  # far more than a 5x5 game against the random bot needs


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command's own flags, without building the whole CLI."""
    parser = argparse.ArgumentParser(prog="fuseki play")
    play.add_arguments(parser)
    return parser.parse_args(argv)


def run_play(argv: list[str], lines: Iterable[str], feed_stdin: Callable, capsys: pytest.CaptureFixture) -> tuple[int, str]:
    """Play with scripted input against ``--bot random`` unless ``argv`` names a bot.

    These tests are about the terminal game, so they pin the quick, seeded
    random bot rather than the default (a network or a search).
    """
    feed_stdin(lines)
    if "--bot" not in argv:
        argv = ["--bot", "random", *argv]
    rc = play.run(parse_args(argv))
    return rc, capsys.readouterr().out


def scripted_game(state: GameState, bot: object, lines: Iterable[str], human: str = "black") -> tuple[TerminalGame, str]:
    """A TerminalGame with in-memory input and output."""
    pending = list(lines)

    def read(prompt: str) -> str:
        if not pending:
            raise EOFError
        return pending.pop(0)

    out = io.StringIO()
    game = TerminalGame(state, bot, human=human, rules_name="japanese", read=read, out=out)  # type: ignore[arg-type]
    game.play()
    return game, out.getvalue()


def result_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("Result"))


# ---- whole games -------------------------------------------------------


def test_whole_game_by_passing_ends_with_the_score(feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "5", "--seed", "1"], ["c3"] + PASSES, feed_stdin, capsys)
    assert rc == 0
    assert "Game over: both players passed." in out
    assert "Score by chinese rules" in out and "komi 7.5" in out
    assert result_line(out).startswith("Result: W+")  # the bot fills the board while we pass
    assert "counted as alive" in out  # no dead-stone removal yet, and the user is told


def test_the_result_matches_the_engine(scripted_bot) -> None:
    from fuseki.agents import RandomBot

    game, out = scripted_game(GameState.new(5, "japanese"), RandomBot(seed=4), ["b2", "d4"] + PASSES)
    assert game.state.is_over()
    assert result_line(out).startswith(f"Result: {game.state.result()} ")
    score = game.state.score()
    assert f"Black (you) {score.black:g}, White (random) {score.white:g}" in out


def test_board_shows_coordinates_last_move_and_captures(feed_stdin, capsys) -> None:
    _, out = run_play(["--size", "5", "--seed", "2"], ["c3", "quit"], feed_stdin, capsys)
    assert "  A B C D E" in out
    assert "(O)" in out  # the bot's reply is marked
    assert "Captures: Black 0, White 0." in out
    assert "Black to play>" in out
    assert "Move 2: White (random) plays" in out


def test_human_plays_white_against_a_bot_that_moves_first(feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "5", "--color", "white", "--seed", "3"], ["quit"], feed_stdin, capsys)
    assert rc == 0
    assert "Move 1: Black (random) plays" in out
    assert "White to play>" in out


def test_handicap_gives_black_stones_and_white_the_first_move(feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "9", "--handicap", "4", "--color", "white", "--seed", "1"], ["quit"], feed_stdin, capsys)
    assert rc == 0
    assert "Black has 4 handicap stones" in out
    assert "komi 0.5" in out
    assert "White to play>" in out and "Black (random) plays" not in out


# ---- bad input is explained and asked again -----------------------------


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("hello", "'hello' is not a move or a command"),
        ("Z9", "'Z9' is off the 5x5 board (columns A-E, rows 1-5)."),
        ("F1", "'F1' is off the 5x5 board"),
        ("a6", "'a6' is off the 5x5 board"),
        ("i3", "skip the letter I"),
        ("c", "'c' is not a move or a command"),
        ("3c", "'3c' is not a move or a command"),
    ],
)
def test_unreadable_input_is_explained_and_asked_again(typed: str, message: str, feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "5", "--seed", "1"], [typed, "quit"], feed_stdin, capsys)
    assert rc == 0
    assert message in out
    assert out.count("Black to play>") == 2  # asked once, then again
    assert "Traceback" not in out


def test_occupied_point_is_refused(feed_stdin, capsys) -> None:
    _, out = run_play(["--size", "5", "--seed", "1"], ["c3", "C3", "quit"], feed_stdin, capsys)
    assert "C3 is already occupied." in out
    assert out.count("Black to play>") == 3


def test_suicide_is_refused(scripted_bot) -> None:
    state = GameState.from_ascii(
        """
        . O . . .
        O . . . .
        . . . . .
        . . . . .
        . . . . .
        """,
        rules="japanese",
    )
    game, out = scripted_game(state, scripted_bot(), ["a5", "quit"])
    assert "A5 would be suicide" in out
    assert game.state.move_number == 0


def test_ko_retake_is_refused(scripted_bot) -> None:
    # White (the bot) takes the ko at B4; Black may not retake at C4 at once.
    state = GameState.from_ascii(
        """
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . .
        """,
        rules="japanese",
        to_move=Color.WHITE,
    )
    game, out = scripted_game(state, scripted_bot(["B4"]), ["c4", "e1", "quit"])
    assert "C4 retakes the ko at once; play elsewhere first." in out
    assert "Captures: Black 0, White 1." in out
    assert game.state.moves()[1].gtp(5) == "E1"  # the move after the refusal was played


def test_every_illegal_reason_has_a_sentence() -> None:
    from fuseki.commands.play import _illegal_message

    assert _illegal_message("C4", "superko") == "C4 would repeat an earlier position (superko)."
    for reason in ("occupied", "suicide", "ko", "off board"):
        assert _illegal_message("C4", reason).startswith("C4 ")
    assert "illegal" in _illegal_message("C4", "some new reason")


def test_empty_lines_are_ignored(feed_stdin, capsys) -> None:
    _, out = run_play(["--size", "5", "--seed", "1"], ["", "   ", "quit"], feed_stdin, capsys)
    assert "not a move" not in out
    assert "Game stopped before the end." in out


def test_help_lists_the_commands(feed_stdin, capsys) -> None:
    _, out = run_play(["--size", "5"], ["help", "quit"], feed_stdin, capsys)
    for word in ("pass", "undo", "resign", "help", "quit"):
        assert f"  {word}" in out


# ---- undo, resign, quit, EOF -------------------------------------------


def test_undo_takes_back_the_bots_reply_and_your_move() -> None:
    from fuseki.agents import RandomBot

    game, out = scripted_game(GameState.new(5), RandomBot(seed=1), ["c3", "b2", "undo"])
    assert "Took back your last move and the bot's reply." in out
    assert game.state.moves()[0].gtp(5) == "C3"
    assert game.state.move_number == 2  # C3 and the bot's reply remain
    assert game.state.next_player is Color.BLACK


def test_undo_at_the_start_says_there_is_nothing(feed_stdin, capsys) -> None:
    _, out = run_play(["--size", "5"], ["undo", "quit"], feed_stdin, capsys)
    assert "Nothing to undo" in out


def test_undo_when_the_bot_moved_first_keeps_the_bots_first_move() -> None:
    from fuseki.agents import RandomBot

    game, _ = scripted_game(GameState.new(5), RandomBot(seed=1), ["c3", "undo", "undo"], human="white")
    assert game.state.move_number == 1
    assert game.state.next_player is Color.WHITE


def test_resign(feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "5", "--seed", "1"], ["c3", "resign"], feed_stdin, capsys)
    assert rc == 0
    assert "Game over: Black (you) resigned." in out
    assert "Result: W+R (White wins by resignation)" in out


def test_end_of_input_ends_cleanly(feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "5"], [], feed_stdin, capsys)
    assert rc == 0
    assert "End of input" in out


def test_quit(feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "5"], ["c3", "quit"], feed_stdin, capsys)
    assert rc == 0
    assert "Game stopped before the end." in out
    assert "Result" not in out


# ---- flags -------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "30"], "--size must be from 2 to 25, got 30"),
        (["--size", "1"], "--size must be from 2 to 25"),
        (["--size", "5", "--handicap", "2"], "no handicap stones can be placed on 5x5"),
        (["--handicap", "12"], "--handicap must be 0 or from 2 to 9 on 9x9, got 12"),
        (["--size", "8", "--handicap", "5"], "from 2 to 4 on 8x8"),
        (["--handicap", "1"], "--handicap must be 0 or from 2 to 9"),
        (["--komi", "7.3"], "--komi must be a multiple of 0.5"),
        (["--komi", "nan"], "--komi must be a multiple of 0.5"),
        (["--rules", "klingon"], "unknown rule set 'klingon'; known: book, chinese"),
        (["--bot", "deep-blue"], "unknown agent 'deep-blue'; known agents: "),
        (["--sgf", "/nonexistent/dir/game.sgf"], "does not exist"),
    ],
)
def test_bad_flags_give_status_2_and_one_line(argv: list[str], message: str, capsys) -> None:
    rc = cli.main(["play", *argv])
    captured = capsys.readouterr()
    assert rc == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("fuseki play: error: ")
    assert message in lines[0]
    assert "Traceback" not in captured.err + captured.out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "nine"], "argument --size: invalid int value: 'nine'"),
        (["--color", "green"], "argument --color: invalid choice: 'green'"),
        (["--komi", "lots"], "argument --komi: invalid float value"),
    ],
)
def test_unparsable_flags_give_argparse_usage_error(argv: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["play", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("fuseki play: error: ")
    assert message in err
    assert "Traceback" not in err


def test_color_and_rules_are_case_insensitive(feed_stdin, capsys) -> None:
    rc, out = run_play(["--size", "5", "--color", "WHITE", "--rules", "Japanese"], ["quit"], feed_stdin, capsys)
    assert rc == 0
    assert "You play White (O)" in out and "japanese rules, komi 6.5" in out


# ---- the real command --------------------------------------------------


def test_subprocess_game_with_piped_input(tmp_path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.run(
        [sys.executable, "-m", "fuseki.cli", "play", "--bot", "random", "--size", "5", "--seed", "7"],
        input="c3\nnonsense\n" + "pass\n" * 200,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "'nonsense' is not a move or a command" in proc.stdout
    assert "Black to play> c3" in proc.stdout  # piped input is echoed into the transcript
    lines = proc.stdout.splitlines()
    assert any(line.startswith("Result: ") for line in lines), proc.stdout[-2000:]


# ---- SGF ---------------------------------------------------------------


def test_finished_game_is_saved_as_sgf(tmp_path, feed_stdin, capsys) -> None:
    from sgfmill import sgf

    path = tmp_path / "game.sgf"
    rc, out = run_play(["--size", "5", "--seed", "1", "--sgf", str(path)], ["c3"] + PASSES, feed_stdin, capsys)
    assert rc == 0
    assert f"Saved the game to {path}." in out
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    root = game.get_root()
    assert (root.get("PB"), root.get("PW")) == ("Human", "fuseki random")
    assert root.get("RE") == result_line(out).split()[1]
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert moves[0] == ("b", (2, 2))  # C3
    assert moves[-2:] == [("b", None), ("w", None)]


def test_stopped_handicap_game_is_saved_without_a_result(tmp_path, feed_stdin, capsys) -> None:
    from sgfmill import sgf

    path = tmp_path / "stopped.sgf"
    argv = ["--size", "9", "--handicap", "3", "--color", "white", "--seed", "1", "--sgf", str(path)]
    rc, _ = run_play(argv, ["e5"], feed_stdin, capsys)  # then end of input
    assert rc == 0
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    root = game.get_root()
    assert root.get("HA") == 3 and len(root.get("AB")) == 3
    assert game.get_komi() == 0.5
    assert not root.has_property("RE")
    sequence = game.get_main_sequence()
    assert [node.get_move()[0] for node in sequence[1:]] == ["w", "b"]
    assert sequence[-1].get("C") == "game stopped before the end"
