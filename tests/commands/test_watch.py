"""``fuseki watch``: bot vs bot in the terminal, optionally saved as SGF."""

from __future__ import annotations

import argparse
import io
import re

import pytest
from sgfmill import sgf

from fuseki import cli
from fuseki.commands import watch
from fuseki.go.coords import Point
from fuseki.go.state import GameState, Move


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command's own flags, without building the whole CLI."""
    parser = argparse.ArgumentParser(prog="fuseki watch")
    watch.add_arguments(parser)
    return parser.parse_args(argv)


def run_watch(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    rc = watch.run(parse_args(argv))
    return rc, capsys.readouterr().out


def replay_sgf(data: bytes) -> tuple[sgf.Sgf_game, GameState]:
    """Read an SGF with sgfmill (not our reader) and replay its moves with the engine."""
    game = sgf.Sgf_game.from_bytes(data)
    size = game.get_size()
    rules = {"Chinese": "chinese", "Japanese": "japanese"}[game.get_root().get("RU")]
    state = GameState.new(size, rules, komi=game.get_komi())
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        assert colour == state.next_player.letter.lower()
        if move is None:
            state = state.play(Move.pass_turn())
        else:
            row, col = move  # sgfmill counts rows from the bottom
            state = state.play(Move.play(Point(size - 1 - row, col)))
    return game, state


def test_5x5_game_saved_as_sgf_replays_to_the_same_result(tmp_path, capsys) -> None:
    path = tmp_path / "out.sgf"
    rc, out = run_watch(["--size", "5", "--delay", "0", "--seed", "3", "--sgf", str(path)], capsys)
    assert rc == 0
    printed = re.search(r"^Result: (\S+)", out, re.MULTILINE)
    assert printed is not None, out[-1000:]
    assert "Game over: both players passed." in out
    assert f"Saved the game to {path}." in out

    game, state = replay_sgf(path.read_bytes())
    root = game.get_root()
    assert game.get_size() == 5
    assert root.get("PB") == "fuseki random" and root.get("PW") == "fuseki random"
    assert game.get_komi() == 7.5
    assert state.is_over()
    assert root.get("RE") == printed.group(1) == state.result()


def test_japanese_rules_and_komi_reach_the_sgf(tmp_path, capsys) -> None:
    path = tmp_path / "j.sgf"
    rc, out = run_watch(
        ["--size", "5", "--delay", "0", "--seed", "4", "--rules", "japanese", "--komi", "0.5", "--sgf", str(path)],
        capsys,
    )
    assert rc == 0
    game, state = replay_sgf(path.read_bytes())
    assert game.get_komi() == 0.5
    assert game.get_root().get("RE") == state.result()
    assert "Score by japanese rules (territory and prisoners), komi 0.5" in out


def test_same_seed_same_game(capsys) -> None:
    _, first = run_watch(["--size", "7", "--delay", "0", "--seed", "11"], capsys)
    _, second = run_watch(["--size", "7", "--delay", "0", "--seed", "11"], capsys)
    assert first == second


def test_moves_cap_stops_an_endless_game_and_saves_it_unfinished(tmp_path, capsys) -> None:
    path = tmp_path / "capped.sgf"
    argv = ["--size", "5", "--delay", "0", "--black", "uniform", "--white", "uniform", "--moves-cap", "10"]
    rc, out = run_watch([*argv, "--seed", "1", "--sgf", str(path)], capsys)
    assert rc == 0
    assert "Stopped after 10 moves (--moves-cap 10)." in out
    assert "Result if it ended now:" in out
    game, state = replay_sgf(path.read_bytes())
    assert state.move_number == 10 and not state.is_over()
    assert len(game.get_main_sequence()) == 11
    assert not game.get_root().has_property("RE")  # an unfinished game has no result
    assert game.get_main_sequence()[-1].get("C") == "stopped after 10 moves"


def test_every_move_is_drawn_without_control_codes_when_not_a_tty(capsys) -> None:
    rc, out = run_watch(["--size", "5", "--delay", "0", "--seed", "2", "--moves-cap", "6"], capsys)
    assert rc == 0
    assert "\x1b" not in out
    assert out.count("  A B C D E\n5 ") == 7  # the start and six moves
    assert "Move 6: White (random) plays" in out or "Move 6: White (random) passes." in out


def test_the_screen_is_cleared_on_a_terminal(monkeypatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stdout", screen)
    watch.run(parse_args(["--size", "5", "--delay", "0", "--seed", "2", "--moves-cap", "3"]))
    assert screen.getvalue().count(watch.CLEAR_SCREEN) == 4


def test_delay_sleeps_between_moves(monkeypatch, capsys) -> None:
    naps: list[float] = []
    monkeypatch.setattr(watch.time, "sleep", naps.append)
    run_watch(["--size", "5", "--delay", "0.25", "--seed", "2", "--moves-cap", "5"], capsys)
    assert naps == [0.25] * 5
    naps.clear()
    run_watch(["--size", "5", "--delay", "0", "--seed", "2", "--moves-cap", "5"], capsys)
    assert naps == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--delay", "-1"], "--delay must be 0 or a positive number of seconds, got -1"),
        (["--delay", "inf"], "--delay must be 0 or a positive"),
        (["--moves-cap", "0"], "--moves-cap must be at least 1, got 0"),
        (["--black", "nobody"], "unknown agent 'nobody'"),
        (["--size", "26"], "--size must be from 2 to 25"),
        (["--sgf", "/nonexistent/dir/game.sgf"], "does not exist"),
    ],
)
def test_bad_flags_give_status_2_and_one_line(argv: list[str], message: str, capsys) -> None:
    rc = cli.main(["watch", *argv])
    captured = capsys.readouterr()
    assert rc == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fuseki watch: error: ")
    assert message in lines[0]
    assert "Traceback" not in captured.err


def test_through_the_cli(tmp_path, capsys) -> None:
    path = tmp_path / "cli.sgf"
    rc = cli.main(["watch", "--size", "5", "--delay", "0", "--seed", "5", "--white", "uniform", "--sgf", str(path)])
    assert rc == 0
    assert "random (Black) vs uniform (White) on 5x5" in capsys.readouterr().out
    assert path.exists()
