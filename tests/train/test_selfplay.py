"""Self-play: experience that matches the agent, resume after a kill, workers that change nothing, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from fuseki.agents.agent_file import save_agent
from fuseki.cli import main
from fuseki.encoders import get_encoder
from fuseki.nets.registry import build_network
from fuseki.data.experience import load_experience
from fuseki.train.selfplay import (
    EXPERIENCE_FILE,
    SelfPlayMismatch,
    SelfPlaySettings,
    chunk_path,
    selfplay,
)

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    root = tmp_path_factory.mktemp("agents")
    enc = get_encoder("sevenplane", 5)
    torch.manual_seed(0)
    net = build_network("fc", in_planes=7, size=5, num_moves=25, hidden=[16])
    save_agent(root / "pg.safetensors", net, encoder=enc, network="fc", network_options={"hidden": [16]})
    options = {"layers": [[4, 3]], "board_hidden": 16, "policy_hidden": 16, "value_hidden": 16}
    ac = build_network("ac", in_planes=7, size=5, num_moves=25, **options)
    save_agent(root / "ac.safetensors", ac, encoder=enc, network="ac", network_options=options, kind="ac")
    return root


def arrays(path):
    buf = load_experience(path)
    return [buf.states, buf.actions, buf.rewards, buf.advantages], buf


def same(a, b):
    return all(x.dtype == y.dtype and np.array_equal(x, y) for x, y in zip(a, b))


def test_selfplay_writes_experience_that_matches_the_agent(agents, tmp_path):
    out = tmp_path / "sp"
    summary = selfplay(SelfPlaySettings(str(agents / "pg.safetensors"), chunk_size=2, seed=1), out, 4, sgf=True)
    (states, actions, rewards, advantages), buf = arrays(out / EXPERIENCE_FILE)
    assert buf.encoder == "sevenplane" and buf.board_size == 5 and buf.games == 4
    assert states.dtype == np.uint8 and states.shape[1:] == (7, 5, 5) and len(states) == summary.positions > 0
    assert actions.max() < 25 and set(np.unique(rewards)) <= {-1.0, 1.0}
    assert np.array_equal(rewards, advantages)  # a policy agent estimates no values
    results = buf.metadata["results"]
    assert [r["number"] for r in results] == [1, 2, 3, 4]
    assert summary.played == 4 and len(list((out / "sgf").glob("game_*.sgf"))) == 4
    # in self-play both sides are recorded: as many +1 as -1 decisions per game cannot be assumed, but both signs occur
    assert (rewards > 0).any() and (rewards < 0).any()


def test_a_killed_run_resumes_to_the_same_result(agents, tmp_path):
    settings = SelfPlaySettings(str(agents / "pg.safetensors"), chunk_size=2, seed=3)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    selfplay(settings, whole, 4)
    selfplay(settings, cut, 4)
    # simulate a kill while the last chunk was written and before the merge
    last = chunk_path(cut, 2)
    last.write_bytes(last.read_bytes()[:100])
    (cut / EXPERIENCE_FILE).unlink()
    again = selfplay(settings, cut, 4)
    assert again.played == 2 and again.games == 4
    assert same(arrays(whole / EXPERIENCE_FILE)[0], arrays(cut / EXPERIENCE_FILE)[0])
    # more games later: the finished chunks are kept
    more = selfplay(settings, cut, 5)
    assert more.played == 1 and more.games == 5


def test_two_workers_play_the_same_games_as_one(agents, tmp_path):
    settings = SelfPlaySettings(str(agents / "ac.safetensors"), chunk_size=1, seed=7, temperature=0.05)
    one = selfplay(settings, tmp_path / "one", 3, workers=1)
    two = selfplay(settings, tmp_path / "two", 3, workers=2)
    a, buf_a = arrays(tmp_path / "one" / EXPERIENCE_FILE)
    b, buf_b = arrays(tmp_path / "two" / EXPERIENCE_FILE)
    assert same(a, b) and buf_a.metadata["results"] == buf_b.metadata["results"]
    assert one.positions == two.positions
    rewards, advantages = a[2], a[3]
    assert not np.array_equal(rewards, advantages)  # the value head's estimates are recorded


def test_other_settings_in_the_same_folder_are_refused(agents, tmp_path):
    out = tmp_path / "sp"
    selfplay(SelfPlaySettings(str(agents / "pg.safetensors"), chunk_size=2), out, 2)
    with pytest.raises(SelfPlayMismatch, match="seed: 0 there, 1 now"):
        selfplay(SelfPlaySettings(str(agents / "pg.safetensors"), chunk_size=2, seed=1), out, 2)
    with pytest.raises(SelfPlayMismatch, match="agent_sha256"):
        selfplay(SelfPlaySettings(str(agents / "ac.safetensors"), chunk_size=2), out, 2)


def test_against_a_fixed_opponent_only_the_learner_is_recorded(agents, tmp_path):
    out = tmp_path / "vs"
    summary = selfplay(
        SelfPlaySettings(str(agents / "ac.safetensors"), agent2=str(agents / "pg.safetensors"), chunk_size=4), out, 4
    )
    _, buf = arrays(out / EXPERIENCE_FILE)
    results = buf.metadata["results"]
    assert [r["learner"] for r in results] == ["B", "W", "B", "W"]
    learner_moves = sum((r["moves"] + (r["learner"] == "B")) // 2 for r in results)
    both_sides = sum(r["moves"] for r in results)
    assert 0 < len(buf) <= learner_moves < both_sides  # passes with no acceptable move are not decisions
    assert "learner_wins" in summary.to_dict()


def test_the_move_limit_stops_and_scores_games(agents, tmp_path):
    summary = selfplay(SelfPlaySettings(str(agents / "pg.safetensors"), max_moves=6, komi=0.5), tmp_path / "cap", 2)
    j = summary.to_dict()
    assert j["capped"] == 2 and j["mean_moves"] == 6 and j["black_wins"] + j["white_wins"] == 2


def test_a_second_run_on_the_same_folder_is_refused(agents, tmp_path):
    from fuseki.train.selfplay import run_folder
    from fuseki.util.runs import RunFolderBusy

    settings = SelfPlaySettings(agent=str(agents / "pg.safetensors"), chunk_size=1)
    with run_folder(tmp_path / "out").locked(), pytest.raises(RunFolderBusy, match="in use by another run"):
        selfplay(settings, tmp_path / "out", 2)
    assert not list((tmp_path / "out").glob("chunks/*.npz"))


def test_the_command_prints_a_summary_and_refuses_bad_flags(agents, tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(["selfplay", "--agent", str(agents / "pg.safetensors"), "--games", "2", "--out", str(out),
                 "--chunk-size", "1", "--json"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out.strip().splitlines()[-1])["games"] == 2
    assert "games/min" in captured.err
    code = main(["selfplay", "--agent", str(agents / "pg.safetensors"), "--games", "2", "--out", str(out),
                 "--seed", "9"])
    err = capsys.readouterr().err
    assert code == 2 and "other settings" in err and len(err.strip().splitlines()) == 1
    code = main(["selfplay", "--agent", str(tmp_path / "missing.safetensors"), "--games", "2", "--out", str(out)])
    assert code == 2 and "no such agent file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["selfplay", "--agent", "x", "--games", "2", "--out", str(out), "--temperature", "2"])
    assert "from 0 to 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["selfplay", "--agent", "x", "--games", "0", "--out", str(out)])
