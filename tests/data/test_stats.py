"""``fuseki data stats``: counts over a folder of games, a double, a bad file, a recipe's runs."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from sgf_corpus import write_games

from fuseki.cli import main
from fuseki.data.stats import corpus_stats
from fuseki.go import GameState, Point, game_to_sgf, read_sgf


def _folder(tmp_path: Path) -> Path:
    games = tmp_path / "games"
    paths = write_games(games, 4, size=9, seed=3, moves=10)
    record = read_sgf(paths[0].read_bytes())
    # The first game again under other names, resigned by White: the same moves.
    text = paths[0].read_text().replace("(;", "(;PB[GNU Go 3.8 level 2]PW[GNU Go 3.8 level 7]RE[B+R]", 1)
    (games / "again.sgf").write_text(text)
    # Another copy, resigned in SGF's long form, as KGS writes it.
    (games / "again-kgs.sgf").write_text(paths[1].read_text().replace("(;", "(;RE[W+Resign]", 1))
    (games / "broken.sgf").write_bytes(b"(;GM[1]SZ[9];B[ee] %% ;W[cc])")  # beyond repair
    handicap = GameState.new(13, "chinese", handicap=2).play(Point(3, 3))
    (games / "handicap.sgf").write_bytes(game_to_sgf(handicap))
    assert len(record.moves) == 10
    return games


def test_stats_count_games_moves_results_repeats_and_bad_files(tmp_path):
    s = corpus_stats([_folder(tmp_path)])
    assert (s["games"], s["readable"], s["bad"]) == (8, 7, 1)
    assert s["board_sizes"] == {"9": 6, "13": 1}
    assert s["moves"]["min"] == 1 and s["moves"]["max"] == 10
    assert s["distinct_games"] == 5 and s["repeats"] == 2
    assert s["decided_by"]["resign"] == 2 and s["winners"]["B"] >= 1 and s["winners"]["W"] >= 1
    assert s["handicap_games"] == 1
    assert s["players"]["GNU Go 3.8 level 2"] == {"games": 1, "wins": 1, "win_rate": 1.0}
    assert s["players"]["GNU Go 3.8 level 7"] == {"games": 1, "wins": 0, "win_rate": 0.0}
    assert "generated" not in s


def test_stats_read_archives_and_a_recipe(tmp_path):
    games = _folder(tmp_path)
    recipe = {"command": "fuseki data generate ...", "runs": [
        {"id": "a", "played": 30, "seconds": 60.0, "finished": False},
        {"id": "b", "played": 10, "seconds": 30.5, "finished": True},
    ]}
    (games / "recipe.json").write_text(json.dumps(recipe))
    s = corpus_stats([games])
    assert s["generated"] == [{"command": "fuseki data generate ...", "runs": 2, "unfinished_runs": 1,
                               "played": 40, "seconds": 90.5}]
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in sorted(games.glob("*.sgf")):
            zf.write(p, f"inside/{p.name}")
    z = corpus_stats([archive])
    assert (z["games"], z["repeats"], z["bad"]) == (8, 2, 1)


def test_cli_prints_a_summary_and_json(tmp_path, capsys):
    games = _folder(tmp_path)
    assert main(["data", "stats", str(games), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out.strip().splitlines()[-1])["games"] == 8
    assert "repeats of an earlier game's moves: 2" in err and "bad: 1" in err


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_cli_user_errors(tmp_path, capsys, make):
    target = tmp_path / "nothing"
    if make == "empty":
        target.mkdir()
    assert main(["data", "stats", str(target)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and ("no SGF games" in err or "nothing" in err)
