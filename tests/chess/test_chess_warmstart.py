"""The supervised warm start: Stockfish labels (resumable) and a network trained on them, the ``--init`` of the Zero loop."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import numpy as np
import pytest
from needs import need_stockfish

from fuseki.chess.scores import cp_to_value, value_to_cp
from fuseki.chess.warmstart import LabelSettings, WarmStartSettings, label_games, load_labels, train_warmstart, unpack_planes
from fuseki.games.chess import ChessGame
from fuseki.cli import main
from fuseki.games.chess_encoding import decode_actions, encode_planes
from fuseki.util.errors import InputError
from fuseki.util.runs import RunMismatch


def test_scores_round_trip() -> None:
    for cp in (-900, -191, -30, 0, 1, 55, 400, 2000):
        assert value_to_cp(cp_to_value(cp)) == cp
    assert value_to_cp(1.0) == 10_000 and value_to_cp(-1.0) == -10_000
    assert abs(cp_to_value(191) - 0.5) < 0.002


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("labels") / "l"
    settings = LabelSettings(depth=3, max_plies=40, games_per_chunk=2, stockfish=need_stockfish(), seed=4)
    totals = label_games(out, settings, 3)
    return out, settings, totals


def test_labels_are_stockfish_moves_and_values_with_the_planes(labels) -> None:
    out, _, totals = labels
    data = load_labels(out)
    n = totals["positions"]
    assert n == len(data["action"]) == len(data["planes"]) == len(data["fen"]) > 10
    assert data["planes"].shape == (n, 952) and data["planes"].dtype == np.uint8
    planes = unpack_planes(data["planes"])
    game = ChessGame()
    for i in range(n):
        board = chess.Board(str(data["fen"][i]))
        move = decode_actions([int(data["action"][i])], board)[0]
        assert move in board.legal_moves
        # the position's own 12 piece planes and the constant planes are those of its FEN
        np.testing.assert_array_equal(planes[i, :12], encode_planes([board], [0])[:12])
        np.testing.assert_array_equal(planes[i, 112:], encode_planes([board], [0])[112:])
        assert -1.0 <= data["value"][i] <= 1.0 and np.sign(data["value"][i]) == np.sign(data["cp"][i])
        assert data["result"][i] in (-1.0, 0.0, 1.0)
    assert game.num_actions == 4672


def test_labelling_resumes_and_refuses_other_settings(labels, stockfish: str) -> None:
    out, settings, _ = labels
    first = (out / "label-0001.npz").read_bytes()
    totals = label_games(out, settings, 4)  # chunk 2 grows from 1 game to 2, chunk 1 stays
    assert (out / "label-0001.npz").read_bytes() == first
    assert totals["positions"] > 0 and len(list(out.glob("label-*.npz"))) == 2
    with pytest.raises(RunMismatch, match="depth: 3 there, 5 now"):
        label_games(out, LabelSettings(depth=5, max_plies=40, games_per_chunk=2, stockfish=stockfish, seed=4), 4)


def test_train_writes_a_zero_network_the_loop_and_uci_accept(labels, tmp_path, torch) -> None:
    from fuseki.agents.zero_agent import load_zero_network
    from fuseki.chess.uci import check_chess_model
    from fuseki.zero.loop import ZeroSettings, network_path, run_zero

    out, _, _ = labels
    model = tmp_path / "warm.safetensors"
    summary = train_warmstart(out, model, WarmStartSettings(blocks=1, channels=8, epochs=3, lr=3e-3, holdout=0.2, batch_size=32))
    history = summary["history"]
    assert history[-1]["loss"] < history[0]["loss"]
    assert 0.0 <= history[-1]["holdout_accuracy"] <= 1.0 and history[-1]["holdout_positions"] > 0
    net, game, info = load_zero_network(model)
    assert game.name == "chess" and info["game_options"] == {"claim_draws": True} and info["warmstart"]["positions"] > 0
    assert check_chess_model(model)["blocks"] == 1
    # the Zero loop starts from it: generation 0 is the warm-start network
    settings = ZeroSettings(
        game="chess", game_options={"claim_draws": True}, blocks=1, channels=8, games=1, simulations=2, parallel=1, max_moves=4,
        init=str(model),
    )  # fmt: skip
    run_zero(tmp_path / "run", settings, 1)
    start, _, start_info = load_zero_network(network_path(tmp_path / "run", 0))
    assert start_info["init"] == str(model)
    for k, v in net.state_dict().items():
        assert torch.equal(v, start.state_dict()[k])


def test_labels_of_two_workers_are_the_labels_of_one(tmp_path: Path, stockfish: str) -> None:
    """Chunks are the same bytes whichever process labels them, and a folder resumes at another number of workers."""
    settings = LabelSettings(depth=3, max_plies=16, games_per_chunk=1, stockfish=stockfish, seed=7)
    one, two = tmp_path / "one", tmp_path / "two"
    totals_one = label_games(one, settings, 3)
    lines: list[str] = []
    totals_two = label_games(two, settings, 3, workers=2, progress=lines.append)
    assert sorted(line.split(":")[0] for line in lines) == ["chunk 1/3", "chunk 2/3", "chunk 3/3"]
    assert {k: v for k, v in totals_one.items() if k != "out"} == {k: v for k, v in totals_two.items() if k != "out"}

    def same(count: int) -> None:
        for k in range(1, count + 1):
            assert (one / f"label-{k:04d}.npz").read_bytes() == (two / f"label-{k:04d}.npz").read_bytes(), k
        a, b = load_labels(one), load_labels(two)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])

    same(3)
    assert (one / "label-0001.npz").read_bytes() != (one / "label-0002.npz").read_bytes()  # the games differ
    label_games(one, settings, 5, workers=2)  # begun with one worker, resumed with two, and the other way round
    label_games(two, settings, 5, workers=1)
    same(5)
    assert "workers" not in json.loads((one / "label.json").read_text())["settings"]


def test_workers_below_one_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match="workers must be at least 1, got 0"):
        label_games(tmp_path / "l", LabelSettings(), 1, workers=0)
    with pytest.raises(SystemExit) as e:
        main(["chess-warmstart", "label", "--out", str(tmp_path / "c"), "--games", "1", "--workers", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--workers: must be at least 1, got 0" in err and "Traceback" not in err
    assert not (tmp_path / "c").exists() and not (tmp_path / "l").exists()


def test_train_stops_at_its_time_and_names_its_device(labels, tmp_path, torch, capsys: pytest.CaptureFixture[str]) -> None:
    out, _, _ = labels
    model = tmp_path / "warm.safetensors"
    summary = train_warmstart(out, model, WarmStartSettings(blocks=0, channels=4, epochs=3, holdout=0.2), max_seconds=0.0)
    assert len(summary["history"]) == 1 and summary["stopped"] == "time" and summary["device"] == "cpu" and model.exists()
    if not torch.cuda.is_available():
        code = main(["chess-warmstart", "train", str(out), "--model-out", str(tmp_path / "x.safetensors"), "--device", "cuda"])
        err = capsys.readouterr().err
        assert code == 2 and "no CUDA GPU" in err and "Traceback" not in err and not (tmp_path / "x.safetensors").exists()
