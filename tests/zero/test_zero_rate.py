"""``fuseki zero rate``: a tiny 5x5 Go run rated against cheap anchors, resumed without replaying a game; GNU Go as an anchor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.cli import main  # noqa: E402
from fuseki.util.errors import InputError  # noqa: E402
from fuseki.zero.loop import ZeroSettings, run_zero  # noqa: E402
from fuseki.zero.rate import anchor_of, parse_anchors, run_rate  # noqa: E402

GO5 = ZeroSettings(
    game="go", game_options={"size": 5}, games=4, simulations=4, blocks=1, channels=8, value_hidden=16, epochs=1, max_moves=30, seed=1
)
CHEAP = parse_anchors("random", ["mcts:playouts=8"])


@pytest.fixture(scope="module")
def go5_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("go5") / "run"
    run_zero(folder, GO5, 2)
    return folder


def test_anchor_names() -> None:
    assert [a.spec for a in parse_anchors("random,mcts:1000,gnugo:1")] == [
        "random",
        "mcts:playouts=1000",
        "gtp:gnugo --mode gtp --level 1",
    ]
    assert anchor_of("mcts:playouts=50,rave=false").spec == "mcts:playouts=50,rave=false"
    with pytest.raises(InputError, match="names no registered agent"):
        anchor_of("nonsense")
    with pytest.raises(InputError, match="given twice"):
        parse_anchors("random,random")
    with pytest.raises(InputError, match="at least one anchor"):
        parse_anchors(None)


def test_generations_against_anchors_resume_without_replaying(go5_run: Path) -> None:
    rate = go5_run / "rate"
    seen: list[tuple[str, list[int], bool]] = []

    def watch(event: Any) -> None:
        # what ratings.json holds while generation 2 plays: the curve so far, generation 0's, marked incomplete
        if event.message.startswith("gen 2 vs ") and not seen:
            doc = json.loads((rate / "ratings.json").read_text())
            seen.append((event.message, [g["generation"] for g in doc["generations"]], doc["complete"]))

    result = run_rate(go5_run, CHEAP, 2, generations=[0, 2], anchor_games=2, simulations=4, progress=watch)
    assert seen and seen[0][1:] == ([0], False) and result["complete"] is True
    assert [g["generation"] for g in result["generations"]] == [0, 2]
    assert result["anchors"][0] == {**result["anchors"][0], "name": "random", "elo": 0.0}
    pairs = {(p["a"], p["b"]): p for p in result["pairs"]}
    assert set(pairs) == {
        ("random", "mcts:playouts=8"),
        ("gen 0", "random"),
        ("gen 0", "mcts:playouts=8"),
        ("gen 2", "random"),
        ("gen 2", "mcts:playouts=8"),
    }
    for p in pairs.values():
        assert p["games"] == 2 and p["a_wins"] + p["b_wins"] + p["draws"] == 2 and 1 <= p["distinct_games"] <= 2
    for g in result["generations"]:
        low, high = g["ci95"]
        assert low <= g["elo"] <= high
    assert json.loads((rate / "ratings.json").read_text())["generations"] == result["generations"]
    assert (rate / "elo.png").read_bytes().startswith(b"\x89PNG")
    # again, with generation 1 added: only its games are played, the others are read back
    games = {p: p.stat().st_mtime_ns for p in rate.glob("*/game_*.sgf")}
    events: list[str] = []
    again = run_rate(go5_run, CHEAP, 2, anchor_games=2, simulations=4, progress=lambda e: events.append(e.message))
    assert [g["generation"] for g in again["generations"]] == [0, 1, 2]
    assert {p: p.stat().st_mtime_ns for p in games} == games
    fresh = [e for e in events if "[from an earlier run]" not in e]
    assert len(fresh) == 4 and all(e.startswith("gen 1 vs ") for e in fresh)
    with pytest.raises(InputError, match="at least one generation"):
        run_rate(go5_run, CHEAP, 2, generations=[], anchor_games=2, simulations=4)
    # the Zero agent's search is a setting of the rating: another one is refused
    with pytest.raises(ValueError, match="simulations: 4 there, 5 now"):
        run_rate(go5_run, CHEAP, 2, anchor_games=2, simulations=5)


def test_the_command(go5_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["zero", "rate", str(go5_run), "--anchors", "random", "--anchor", "mcts:playouts=8", "--games", "2"]
    assert main([*argv, "--simulations", "4", "--every", "2", "--progress", "none"]) == 0
    out = capsys.readouterr().out
    assert "anchor random" in out and "generation 2" in out and "generation 1 " not in out
    assert main([*argv, "--anchors", "bogus:1x", "--progress", "none"]) == 2
    assert "names no registered agent" in capsys.readouterr().err


def test_gnugo_as_an_anchor(go5_run: Path, gnugo: str) -> None:
    result = run_rate(go5_run, parse_anchors("random,gnugo:1"), 2, generations=[2], anchor_games=2, simulations=4)
    pairs = {(p["a"], p["b"]): p for p in result["pairs"]}
    assert pairs[("gen 2", "gnugo:1")]["games"] == 2 and pairs[("gen 2", "gnugo:1")]["forfeits"] == 0
    assert pairs[("random", "gnugo:1")]["b_wins"] == 2  # GNU Go beats random moves
