"""fuseki alphago train: the stages in one folder, resume, refused folders, the model it makes, CLI errors;
the rollout policy's trainer learns a rule."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from fuseki.cli import main
from fuseki.go import GameState, game_to_sgf
from fuseki.train.alphago.games import load_move_arrays
from fuseki.train.alphago.pipeline import (
    MODEL_FILE,
    STAGES,
    STATE_FILE,
    AlphaGoSettings,
    run_folder,
    run_pipeline,
)
from fuseki.train.alphago.rollout import RolloutTrainConfig, train_rollout_policy
from fuseki.util.runs import RunFolderBusy, RunMismatch

torch.set_num_threads(1)


def _games(folder, count, size, seed, rule=None):
    """``count`` games of random legal moves (no own true eye), or of ``rule(state, rng)`` when given."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for g in range(count):
        s = GameState.new(size, komi=0.5)
        while not s.is_over() and s.move_number < 3 * size * size:
            pts = [int(p) for p in s.legal_points() if p < size * size and not s.is_eye(int(p), s.next_player)]
            if not pts:
                s = s.play(size * size)
                continue
            move = rule(s, pts, rng) if rule else int(rng.choice(pts))
            s = s.play(move)
        (folder / f"game_{g:04d}.sgf").write_bytes(game_to_sgf(s, black="a", white="b"))
    return folder


def tiny(corpus, **changes):
    options = dict(
        corpora=(str(corpus),),
        size=5,
        komi=0.5,
        seed=3,
        rollout_epochs=1,
        sl_layers=3,
        sl_filters=8,
        sl_epochs=1,
        sl_batch_size=32,
        rl_games=4,
        rl_eval_games=2,
        value_games=40,
        value_chunk_games=20,
        value_epochs=1,
        value_hidden=8,
    )
    options.update(changes)
    return AlphaGoSettings(**options)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return _games(tmp_path_factory.mktemp("corpus") / "games", 30, 5, 1)


@pytest.fixture(scope="module")
def model(tmp_path_factory, corpus):
    """A finished tiny run, made in two goes: up to the SL policy, then the rest (a resumed run)."""
    out = tmp_path_factory.mktemp("run") / "run"
    lines = []
    state = run_pipeline(tiny(corpus), out, stop_after="sl", device="cpu", progress=lines.append)
    assert list(state["stages"]) == ["data", "rollout", "sl"]
    assert not (out / MODEL_FILE).exists()
    state = run_pipeline(tiny(corpus), out, device="cpu", progress=lines.append)
    assert "sl: done earlier" in lines and "value: done in" in " ".join(lines)
    assert list(state["stages"]) == list(STAGES)
    return out


def test_the_run_makes_a_model_with_every_stage_measured(model):
    state = json.loads((model / STATE_FILE).read_text())
    st = state["stages"]
    assert st["data"]["positions"] > 100 and st["data"]["test_games"] >= 1
    assert 0.0 <= st["rollout"]["test_top1"] <= 1.0 and st["rollout"]["test_positions"] > 0
    assert 0.0 <= st["sl"]["test_top1"] <= 1.0
    vs = st["rl"]["rl_vs_sl"]
    assert vs["wins"] + vs["losses"] + vs["draws"] == 2
    assert st["value_data"]["positions"] + st["value_data"]["dropped"] == 40
    assert st["value"]["init"] == "sl"  # same layers and filters as the SL policy: its convolutions are the start
    manifest = json.loads((model / MODEL_FILE).read_text())
    for part, name in manifest["files"].items():
        assert (model / name).is_file(), part
    table = (model / "metrics.md").read_text()
    for row in ("rollout policy", "SL policy", "RL policy against", "value network, MSE"):
        assert row in table


def test_the_model_plays_as_an_agent(model):
    from fuseki.agents import make_agent

    bot = make_agent("alphago", model=str(model), playouts=60, seed=1, device="cpu")
    s = GameState.new(5, komi=0.5)
    move = bot.select_move(s)
    assert s.is_legal(move)
    assert bot.last_info.simulations == 60 and bot.last_info.evaluations >= 1
    with pytest.raises(Exception, match="5x5 only"):
        bot.select_move(GameState.new(7))


def test_a_second_run_and_other_settings_are_refused(model, corpus):
    with run_folder(model).locked():
        with pytest.raises(RunFolderBusy):
            run_pipeline(tiny(corpus), model, device="cpu")
    with pytest.raises(RunMismatch, match="sl_layers: 3 there, 4 now"):
        run_pipeline(tiny(corpus, sl_layers=4), model, device="cpu")


def test_more_value_games_remake_only_the_value_stages(model, corpus, tmp_path):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(model, copy)
    lines = []
    state = run_pipeline(tiny(corpus, value_games=60), copy, device="cpu", progress=lines.append)
    assert "rl: done earlier" in lines and any("value games changed from 40 to 60" in x for x in lines)
    assert state["stages"]["value_data"]["positions"] + state["stages"]["value_data"]["dropped"] == 60


def test_command_line_errors_are_one_line(tmp_path, capsys):
    assert main(["alphago", "train", "--out", str(tmp_path / "r"), "--corpus", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no corpus at" in err[0]
    assert main(["alphago"]) == 2


def test_the_rollout_trainer_learns_a_local_rule(tmp_path):
    """Games whose every move touches the last one (when it can): the response features learn it."""

    def near_last(state, pts, rng):
        last = state.last_index
        n = state.size
        if last is not None and last < n * n:
            r, c = divmod(last, n)
            near = [p for p in pts if abs(p // n - r) + abs(p % n - c) == 1]
            if near:
                return int(rng.choice(near))
        return int(rng.choice(pts))

    folder = _games(tmp_path / "g", 40, 7, 2, near_last)
    ids = sorted(str(p) for p in folder.glob("*.sgf"))
    train, test = load_move_arrays(ids[:32], 7), load_move_arrays(ids[32:], 7)
    _, history = train_rollout_policy(train, test, RolloutTrainConfig(epochs=3, lr=0.05))
    # Uniform guessing over ~30 candidates is ~3 %; knowing "next to the last move" narrows it to ~1 in 3.
    assert history[-1]["test_top1"] > 0.2
    assert history[-1]["train_loss"] < history[0]["train_loss"] or history[0]["train_top1"] > 0.2
