"""The Zero engine on chess: batched self-play with the 119 planes and 4,672 actions, and ``fuseki zero train chess``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fuseki.cli import main
from fuseki.games.chess import ChessGame


def test_selfplay_targets_are_legal_and_z_is_the_movers(torch) -> None:
    from fuseki.agents.zero_agent import build_zero_network
    from fuseki.search.evaluators import NetworkEvaluator
    from fuseki.zero.selfplay import SelfPlayConfig, play_games

    torch.manual_seed(0)
    game = ChessGame(claim_draws=True)
    net = build_zero_network(game, 1, 8).eval()
    games, stats = play_games(game, NetworkEvaluator(game, net), 3, SelfPlayConfig(simulations=6, max_moves=12, parallel=3), seed=1)
    assert stats.games == 3 and stats.network_calls < stats.evaluations
    for g in games:
        assert g.planes.shape == (len(g.moves), 119, 8, 8) and g.pi.shape == (len(g.moves), 4672)
        state = game.initial_state()
        for k, move in enumerate(g.moves):
            np.testing.assert_array_equal(g.planes[k], game.planes(state))
            assert np.isclose(g.pi[k].sum(), 1.0)
            assert set(np.flatnonzero(g.pi[k])) <= set(game.legal_actions(state).tolist())
            state = state.play(move)
        assert g.capped and g.winner is None and (g.z == 0).all()  # 12 plies: capped, a draw


def test_the_command_gives_chess_claimed_draws_and_alphazeros_cap(monkeypatch: pytest.MonkeyPatch, torch) -> None:
    import fuseki.zero.loop as loop

    seen = {}

    def fake_run(out, settings, generations, **kw):  # type: ignore[no-untyped-def]
        seen["settings"] = settings
        return {"generation": 0, "best": 0, "history": []}

    monkeypatch.setattr(loop, "run_zero", fake_run)
    assert main(["zero", "train", "chess", "--out", "unused", "--quiet"]) == 0
    assert seen["settings"].game_options == {"claim_draws": True} and seen["settings"].max_moves == 512
    assert main(["zero", "train", "chess", "--out", "unused", "--quiet", "--max-moves", "80"]) == 0
    assert seen["settings"].max_moves == 80
    assert main(["zero", "train", "tictactoe", "--out", "unused", "--quiet"]) == 0
    assert seen["settings"].game_options == {} and seen["settings"].max_moves is None


def test_the_command_trains_chess(tmp_path, capsys: pytest.CaptureFixture[str], torch) -> None:
    out = tmp_path / "run"
    args = ["zero", "train", "chess", "--out", str(out), "--generations", "1", "--games", "2", "--parallel", "2", "--max-moves", "10"]
    args += ["--simulations", "4", "--blocks", "1", "--channels", "8", "--json", "--quiet"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    sp = result["history"][0]["selfplay"]
    assert sp["games"] == 2 and sp["moves"] == 20 and sp["draws"] == 2
    with np.load(out / "selfplay-0001.npz") as data:
        assert data["planes"].shape == (20, 119, 8, 8) and data["pi"].shape == (20, 4672)
    # a warm start of another size is refused in one line
    other = tmp_path / "other"
    assert (
        main(
            ["zero", "train", "chess", "--out", str(other), "--blocks", "2", "--channels", "8", "--init", str(out / "gen-0000.safetensors")]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "does not fit this run (blocks: 1 there, 2 here)" in err and "Traceback" not in err
