"""Self-play corpora: seeds, plans, random openings, GNU Go and MCTS games, resume, the CLI.

The GNU Go tests play a few tiny games (7×7, level 1) and are marked ``gnugo``;
the MCTS test plays one 5×5 game with few playouts.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from fuseki.cli import main
from fuseki.arena.generate import (
    GamePlan,
    GenerateSettings,
    RecipeMismatch,
    derive_seed,
    format_levels,
    game_path,
    generate,
    parse_levels,
    random_opening,
    recipe_command,
)
from fuseki.go.sgf import load_sgf
from fuseki.go.state import GameState
from fuseki.go.sgf import parse_result
from fuseki.util.progress import Progress


def _moves(out: Path, number: int) -> list[str]:
    record = load_sgf(game_path(out, number))
    return [f"{m.color.letter}{m.move}" for m in record.moves]


# ---- pure parts -------------------------------------------------------------------


def test_levels_parse_and_format() -> None:
    assert parse_levels("1-10") == tuple(range(1, 11))
    assert parse_levels("10, 1,5,5") == (1, 5, 10)
    assert format_levels(parse_levels("1-3,7,9-10")) == "1-3,7,9-10"
    for bad in ("", "x", "5-3", "0-11", "-1"):
        with pytest.raises(ValueError):
            parse_levels(bad)


def test_seeds_are_stable_and_spread() -> None:
    assert derive_seed(0, 1) == derive_seed(0, 1)
    seeds = {derive_seed(0, n) for n in range(1, 1001)}
    assert len(seeds) == 1000
    assert all(1 <= s < 2**31 for s in seeds)
    assert derive_seed(0, 1, 0) != derive_seed(0, 1, 1)


def test_plans_draw_levels_and_openings_from_the_settings() -> None:
    s = GenerateSettings(levels=(1, 5, 10), random_opening=4)
    plans = [GamePlan.make(s, n) for n in range(1, 201)]
    assert plans[0] == GamePlan.make(s, 1)
    assert {p.black_level for p in plans} == {1, 5, 10} == {p.white_level for p in plans}
    assert {p.opening for p in plans} == set(range(5))
    mcts = GamePlan.make(GenerateSettings(engine="mcts"), 1)
    assert mcts.black_level is None and mcts.opening == 0


def test_random_opening_avoids_the_first_line_and_is_reproducible() -> None:
    state = GameState.new(9)
    a = random_opening(state, 8, random.Random(5))
    assert a == random_opening(state, 8, random.Random(5))
    assert len(a) == 8 and len({m.point for m in a}) == 8
    assert all(1 <= m.point.row <= 7 and 1 <= m.point.col <= 7 for m in a)
    state.apply_moves(a)  # legal in turn
    assert random_opening(state, 0, random.Random(5)) == []


def test_settings_are_checked() -> None:
    for bad in (dict(engine="leela"), dict(size=1), dict(levels=()), dict(komi=0.3), dict(random_opening=-1)):
        with pytest.raises(ValueError):
            GenerateSettings(**bad)  # type: ignore[arg-type]


def test_recipe_command_names_every_setting() -> None:
    s = GenerateSettings(levels=(1, 2, 3, 10), random_opening=6, seed=7)
    cmd = recipe_command(s, 5000, "corpus/gnugo9", 2)
    assert cmd == (
        "fuseki data generate --engine gnugo --games 5000 --size 9 --out corpus/gnugo9 --workers 2 "
        "--levels 1-3,10 --random-opening 6 --komi 7.5 --seed 7"
    )
    m = recipe_command(GenerateSettings(engine="mcts", playouts=50, size=5), 2, "o", 1)
    assert "--playouts 50" in m and "--levels" not in m
    assert recipe_command(GenerateSettings(clock=True), 1, "o", 1).endswith(" --clock")


# ---- GNU Go ------------------------------------------------------------------------


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_gnugo_games_in_parallel_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    s = GenerateSettings(engine="gnugo", size=7, levels=(1,), random_opening=3)
    lines: list[str] = []
    first = generate(s, out, 2, workers=2, progress=lambda event: lines.append(event.message))
    assert first.played == 2 and first.failed == 0
    assert len([line for line in lines if line.startswith("game ")]) == 2
    for n in (1, 2):
        record = load_sgf(game_path(out, n))
        parse_result(record.result)  # a real result
        assert record.size == 7 and record.komi == 7.5 and record.ruleset == "Chinese"
        assert record.black.startswith("GNU Go") and record.black.endswith("level 1")
        assert f"seed: {derive_seed(0, n, 0)}" in record.comment
        assert "opening: " in record.comment
        record.replay()  # legal throughout
    first_moves = _moves(out, 1)

    # A killed run: game 2's file half written, game 3 never started. Running again
    # keeps game 1, replays game 2 and plays game 3.
    game_path(out, 2).write_bytes(b"(;FF[4]GM[1]SZ[7];B[dd]")
    second = generate(s, out, 3, workers=2)
    assert (second.reused, second.played, second.failed) == (1, 2, 0)
    assert _moves(out, 1) == first_moves
    assert all(load_sgf(game_path(out, n)).result for n in (1, 2, 3))

    recipe = json.loads((out / "recipe.json").read_text())
    assert recipe["settings"]["levels"] == [1] and recipe["games"] == 3
    assert recipe["versions"]["gnugo"].startswith("GNU Go")
    assert [run["played"] for run in recipe["runs"]] == [2, 2]
    assert recipe["command"].startswith("fuseki data generate --engine gnugo --games 3 --size 7")

    with pytest.raises(RecipeMismatch):
        generate(GenerateSettings(engine="gnugo", size=7, levels=(2,)), out, 1)

    # A recipe from before the clock setting existed: those games were played with a clock.
    del recipe["settings"]["clock"]
    (out / "recipe.json").write_text(json.dumps(recipe))
    with pytest.raises(RecipeMismatch, match="clock: True there, False now"):
        generate(s, out, 3)
    assert generate(GenerateSettings(engine="gnugo", size=7, levels=(1,), random_opening=3, clock=True), out, 3).reused == 3


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_gnugo_seeds_make_different_games_and_the_same_seed_the_same_game(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    generate(GenerateSettings(engine="gnugo", size=7, levels=(1,), random_opening=4, seed=1), a, 2)
    generate(GenerateSettings(engine="gnugo", size=7, levels=(1,), random_opening=4, seed=2), b, 1)
    assert len({tuple(_moves(a, 1)), tuple(_moves(a, 2)), tuple(_moves(b, 1))}) == 3
    again = tmp_path / "again"
    generate(GenerateSettings(engine="gnugo", size=7, levels=(1,), random_opening=4, seed=2), again, 1)
    assert _moves(again, 1) == _moves(b, 1)


@pytest.mark.gnugo
@pytest.mark.usefixtures("gnugo")
def test_gnugo_levels_are_real_levels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a clock, level 1 and level 10 play different games from the same seed (on 9×9: on 7×7 they can agree).

    With ``time_settings`` sent, GNU Go ignored ``level`` and both played its
    level-10 moves (measured in docs/match.md), so this failed.
    """
    # The games stop after 8 moves; the referee's final_score of such an open board takes GNU Go seconds.
    monkeypatch.setattr("fuseki.arena.scoring.Referee.final_score", lambda self, state: "B+1.5")
    weak, strong = tmp_path / "weak", tmp_path / "strong"
    generate(GenerateSettings(engine="gnugo", size=9, levels=(1,), seed=3, max_moves=8), weak, 1)
    generate(GenerateSettings(engine="gnugo", size=9, levels=(10,), seed=3, max_moves=8), strong, 1)
    assert _moves(weak, 1) != _moves(strong, 1)


# ---- MCTS and the command line -------------------------------------------------------


def test_mcts_selfplay_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mcts"
    argv = ["data", "generate", "--engine", "mcts", "--games", "1", "--size", "5", "--playouts", "30"]
    argv += ["--random-opening", "2", "--komi", "0.5", "--out", str(out), "--json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["games"] == result["played"] == 1 and result["failed"] == 0
    record = load_sgf(game_path(out, 1))
    assert record.size == 5 and record.komi == 0.5
    assert "mcts 30 playouts" in record.black
    parse_result(record.result)
    record.replay()
    assert main(argv) == 0  # resumed: nothing left to play
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["reused"] == 1


def test_a_second_run_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    from fuseki.arena.generate import run_folder
    from fuseki.util.runs import RunFolderBusy

    settings = GenerateSettings(engine="mcts", size=5, playouts=20, komi=0.5)
    with run_folder(tmp_path / "corpus").locked(), pytest.raises(RunFolderBusy, match="in use by another run"):
        generate(settings, tmp_path / "corpus", 1)
    assert not game_path(tmp_path / "corpus", 1).exists()


def test_a_killed_run_leaves_its_time_in_the_recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fuseki.arena.generate.RUN_SAVE_SECONDS", 0.0)
    settings = GenerateSettings(engine="mcts", size=5, playouts=20, komi=0.5)
    out = tmp_path / "corpus"

    def killed(event: Progress) -> None:
        if event.message.startswith("game "):
            raise KeyboardInterrupt  # killed after its first game

    with pytest.raises(KeyboardInterrupt):
        generate(settings, out, 2, progress=killed)
    runs = json.loads((out / "recipe.json").read_text())["runs"]
    assert [(r["played"], r["finished"]) for r in runs] == [(1, False)] and runs[0]["seconds"] > 0
    generate(settings, out, 2)
    runs = json.loads((out / "recipe.json").read_text())["runs"]
    assert [(r["played"], r["finished"]) for r in runs] == [(1, False), (1, True)]
    assert runs[0]["id"] != runs[1]["id"]


def test_cli_user_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["data", "generate", "--games", "1", "--out", str(tmp_path / "x")]
    assert main([*base, "--engine", "mcts", "--levels", "1-3"]) == 2
    assert "--levels is for --engine gnugo" in capsys.readouterr().err
    assert main([*base, "--engine", "gnugo", "--playouts", "10"]) == 2
    assert main([*base, "--engine", "mcts", "--clock"]) == 2
    assert "--clock is for --engine gnugo" in capsys.readouterr().err
    assert main([*base, "--engine", "gnugo", "--gnugo", str(tmp_path / "no-such-gnugo")]) == 2
    assert "not found" in capsys.readouterr().err
