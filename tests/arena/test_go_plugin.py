"""Go's evaluation games through the generic loop give the same games as before the loop existed.

``data/`` holds games played by the evaluation's own loop before it was
replaced by :func:`fuseki.arena.loop.play_game` with :class:`GoPlugin`
(same settings, same seeds): scored with dead stones removed, stopped at the
move cap, and ended by resignation. The outcomes and the SGF bytes (the date
aside) must not change. When a player's engine changes on purpose, its
reference games are played again with the same settings and seeds (the MCTS
cases were, when issue 25 changed the heavy playouts); the random and
uniform case still dates from before the loop.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fuseki.arena.eval_games import play_numbered_game
from fuseki.arena.eval_settings import EvalSettings
from fuseki.arena.go_plugin import (
    GoPlugin,
    SgfRecorder,
    color_of,
    player_of,
    result_text,
)
from fuseki.arena.loop import Outcome
from fuseki.arena.scoring import OwnCount
from fuseki.games.go import GoGame
from fuseki.go.sgf import load_sgf
from fuseki.go.state import Color, GameState, Move

DATA = Path(__file__).parent / "data"
CASES = json.loads((DATA / "eval_outcomes.json").read_text(encoding="utf-8"))


def without_date(sgf: bytes) -> bytes:
    return re.sub(rb"DT\[[^\]]*\]", b"DT[]", sgf)


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_evaluation_games_are_unchanged(name: str) -> None:
    settings = EvalSettings.from_dict(CASES[name]["settings"])
    for number, expected in zip((1, 2), CASES[name]["outcomes"], strict=True):
        outcome, sgf = play_numbered_game(settings, number)
        assert outcome.to_dict() == expected
        assert without_date(sgf) == (DATA / f"{name}_game{number}.sgf").read_bytes()


def test_kinds_of_the_reference_games() -> None:
    kinds = {o["kind"] for case in CASES.values() for o in case["outcomes"]}
    reasons = " ".join(o["reason"] for case in CASES.values() for o in case["outcomes"])
    assert kinds == {"score", "resign"} and "move cap" in reasons


def test_players_and_colours() -> None:
    assert [player_of(c) for c in (Color.BLACK, Color.WHITE)] == [0, 1]
    assert [color_of(p) for p in (0, 1)] == [Color.BLACK, Color.WHITE]


def test_judge_counts_a_finished_game_and_names_resignation() -> None:
    plugin = GoPlugin(OwnCount())
    state = GameState.new(5, komi=0.5)
    passed = state.play(Move.pass_turn()).play(Move.pass_turn())
    verdict = plugin.judge(GoGame.wrap(passed), capped=False)
    assert (verdict.winner, verdict.reason, verdict.margin, verdict.text) == (1, "score", 0.5, "W+0.5")
    resigned = state.play(Move.resign())
    verdict = plugin.judge(GoGame.wrap(resigned), capped=False)
    assert (verdict.winner, verdict.reason, verdict.text) == (1, "resign", "W+R")


def test_sgf_recorder_writes_the_record(tmp_path: Path) -> None:
    final = GameState.new(5).play(Move.from_gtp("C3", 5)).play(Move.pass_turn()).play(Move.pass_turn())
    outcome = Outcome(0, "score", (1.0, -1.0), (), GoGame.wrap(final), margin=17.5, text="B+17.5")
    path = tmp_path / "g.sgf"
    recorder = SgfRecorder(black="b", white="w", event="e", game_name="g", comment=lambda o: o.reason, path=path)
    recorder.on_end(outcome)
    record = load_sgf(path)
    assert (record.result, record.black, record.white, record.comment, len(record.moves)) == (
        "B+17.5",
        "b",
        "w",
        "score",
        3,
    )
    forfeit = Outcome(1, "forfeit", (-1.0, 1.0), (), GoGame.wrap(final), detail="x")
    assert result_text(forfeit) == "W+F"
    with pytest.raises(ValueError, match="without a judge"):
        result_text(Outcome(None, "draw", (0.0, 0.0), (), GoGame.wrap(final)))
