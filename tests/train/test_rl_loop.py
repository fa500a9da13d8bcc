"""The RL loop: rounds that finish and record, the gate, resume after a kill, refused folders, CLI errors."""

from __future__ import annotations

import json

import pytest
import torch

from fuseki.agents.agent_file import read_agent_info, save_agent
from fuseki.cli import main
from fuseki.encoders import get_encoder
from fuseki.nets.registry import build_network
from fuseki.train import rl_loop
from fuseki.util.stats import binomial_test
from fuseki.train.rl_loop import (
    LOOP_FILE,
    RATINGS_FILE,
    EvalRecord,
    LoopMismatch,
    LoopSettings,
    comparable,
    format_table,
    promotes,
    round_dir,
    run_loop,
)

torch.set_num_threads(1)

OPTIONS = {"layers": [[4, 3]], "board_hidden": 16, "policy_hidden": 16, "value_hidden": 16}


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    """A tiny untrained actor-critic agent and a tiny policy agent on 5x5."""
    root = tmp_path_factory.mktemp("agents")
    enc = get_encoder("oneplane", 5)
    torch.manual_seed(0)
    ac = build_network("ac", in_planes=1, size=5, num_moves=25, **OPTIONS)
    save_agent(root / "ac.safetensors", ac, encoder=enc, network="ac", network_options=OPTIONS, kind="ac")
    torch.manual_seed(1)
    ac2 = build_network("ac", in_planes=1, size=5, num_moves=25, **OPTIONS)
    save_agent(root / "ac_other.safetensors", ac2, encoder=enc, network="ac", network_options=OPTIONS, kind="ac")
    pg = build_network("fc", in_planes=1, size=5, num_moves=25, hidden=[16])
    save_agent(root / "pg.safetensors", pg, encoder=enc, network="fc", network_options={"hidden": [16]})
    return root


def tiny(agent, **changes):
    options = {"method": "ac", "agent": str(agent), "games": 4, "eval_games": 4, "dead_playouts": 10, "seed": 5}
    options.update(changes)
    return LoopSettings(**options)


def forced(records):
    """A stand-in for the evaluation that returns the given records, round after round."""
    calls = []

    def play(settings, out, rec, workers, say):
        calls.append(rec["round"])
        return records[rec["round"] - 1]

    return play, calls


# ---- the gate -------------------------------------------------------------------------


def test_the_gate_is_a_one_sided_binomial_test_above_half():
    assert EvalRecord(60, 40).p_value == pytest.approx(0.02844, abs=1e-5)  # the book's 60/100 passes
    assert promotes(EvalRecord(60, 40), 0.05)
    assert not promotes(EvalRecord(51, 49), 0.05)  # its 51/100 does not
    assert promotes(EvalRecord(5, 0), 0.05)  # p = 1/32
    assert not promotes(EvalRecord(4, 0), 0.05)  # p = 1/16: too few games to tell
    assert not promotes(EvalRecord(60, 40), 0.01)  # a stricter alpha
    assert not promotes(EvalRecord(0, 0, 10), 0.99)  # all draws: a 50 % score is not better
    assert EvalRecord(4, 5).p_value < 0.9 and not promotes(EvalRecord(4, 5), 0.9)  # a loose alpha, a losing record
    assert promotes(EvalRecord(0, 10), 0.05, keep_latest=True)
    j = EvalRecord(3, 1, 2).to_dict()
    assert j["games"] == 6 and j["win_rate"] == pytest.approx(4 / 6) and j["elo"] > 0
    assert j["p_value"] == pytest.approx(5 / 16)  # 3 or more wins of 4 decided games
    with pytest.raises(ValueError, match="wins"):
        EvalRecord(-1, 2)


def test_a_forced_significant_win_promotes_and_a_narrow_one_does_not(agents, tmp_path, monkeypatch):
    play, calls = forced([EvalRecord(10, 0), EvalRecord(6, 4)])
    monkeypatch.setattr(rl_loop, "_play_eval", play)
    state = run_loop(tiny(agents / "ac.safetensors", window=2), tmp_path / "loop", 2)
    r1, r2 = state["rounds"]
    assert calls == [1, 2]
    assert r1["promoted"] and r1["eval"]["p_value"] == pytest.approx(1 / 1024)
    assert r1["champion"] == "start.safetensors" and r1["champion_after"] == "round-001/candidate.safetensors"
    # round 2 plays and trains from the new champion, on the experience of both rounds (--window 2)
    assert r2["champion"] == "round-001/candidate.safetensors" and r2["champion_name"] == "v1"
    assert r2["train"]["experience"] == ["round-001/selfplay/experience.npz", "round-002/selfplay/experience.npz"]
    assert "round-001/candidate.safetensors" in read_agent_info(tmp_path / "loop" / r2["train"]["candidate"]).training["start"]
    assert not r2["promoted"] and r2["eval"]["p_value"] == pytest.approx(0.377, abs=1e-3)
    assert state["champion"] == "round-001/candidate.safetensors" and state["champion_name"] == "v1"
    table = format_table(state)
    assert "v1 vs v0" in table and "v2 vs v1" in table and "yes" in table and " no" in table


def test_keep_latest_always_promotes(agents, tmp_path, monkeypatch):
    play, _ = forced([EvalRecord(0, 4), EvalRecord(1, 3)])
    monkeypatch.setattr(rl_loop, "_play_eval", play)
    state = run_loop(tiny(agents / "ac.safetensors", keep_latest=True), tmp_path / "loop", 2)
    assert [r["promoted"] for r in state["rounds"]] == [True, True]
    assert state["champion"] == "round-002/candidate.safetensors" and state["champion_name"] == "v2"
    assert state["rounds"][1]["champion"] == "round-001/candidate.safetensors"


# ---- a real loop, and resuming it ----------------------------------------------------------


@pytest.fixture(scope="module")
def whole(agents, tmp_path_factory):
    """An uninterrupted 2-round loop with real self-play, training and evaluation."""
    out = tmp_path_factory.mktemp("whole") / "loop"
    lines: list[str] = []
    state = run_loop(tiny(agents / "ac.safetensors"), out, 2, progress=lambda event: lines.append(event.message))
    return out, state, lines


def test_a_two_round_loop_finishes_and_records_every_round(whole):
    out, state, lines = whole
    assert json.loads((out / LOOP_FILE).read_text()) == state
    assert (out / RATINGS_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert state["step"] == {"round": 2, "step": "done"} and state["rounds_target"] == 2
    assert [r["round"] for r in state["rounds"]] == [1, 2]
    for r in state["rounds"]:
        assert r["step"] == "done"
        assert r["selfplay"]["games"] == 4 and r["selfplay"]["positions"] > 0
        assert (out / r["selfplay"]["experience"]).is_file()
        assert read_agent_info(out / r["train"]["candidate"]).kind == "ac"
        e = r["eval"]
        assert e["games"] == 4 and e["wins"] + e["losses"] + e["draws"] == 4
        # The gate's test: one-sided exact binomial of the candidate's wins among the decided games.
        assert e["p_value"] == binomial_test(e["wins"], e["wins"] + e["losses"], alternative="greater")
        assert len(e["elo_ci95"]) == 2
        assert len(list((round_dir(out, r["round"]) / "eval").glob("game_*.sgf"))) == 4
        assert r["promoted"] is False  # 4 games can never reach p < 0.05 (4/4 gives 1/16)
        assert r["champion_after"] == "start.safetensors"
    names = [x["agent"] for x in state["ratings"]["ratings"]]
    assert names == ["v1", "v0", "v2"] and state["ratings"]["anchor"] == "v0"
    assert any(line.startswith("round  candidate vs champion") for line in lines)  # the table after each round
    assert sum("round 1 eval: game" in line for line in lines) == 4


class Killed(Exception):
    pass


def test_a_loop_killed_after_self_play_resumes_to_the_same_state(agents, whole, tmp_path, monkeypatch):
    out = tmp_path / "loop"
    real = rl_loop._train_candidate

    def boom(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(rl_loop, "_train_candidate", boom)
    with pytest.raises(Killed):
        run_loop(tiny(agents / "ac.safetensors"), out, 2)
    state = json.loads((out / LOOP_FILE).read_text())
    assert state["step"] == {"round": 1, "step": "train"} and state["rounds"][0]["selfplay"]["games"] == 4
    monkeypatch.setattr(rl_loop, "_train_candidate", real)
    lines: list[str] = []
    resumed = run_loop(tiny(agents / "ac.safetensors"), out, 2, progress=lambda event: lines.append(event.message))
    assert "round 1: resuming at step train" in lines
    assert not any("round 1 self-play" in line for line in lines)  # not played again
    assert comparable(resumed) == comparable(whole[1])


def test_a_loop_killed_during_evaluation_keeps_its_games_and_can_grow(agents, whole, tmp_path):
    out = tmp_path / "loop"

    def kill_at_game_3(event):
        if event.message.startswith("round 1 eval: game 3/4"):
            raise Killed

    with pytest.raises(Killed):
        run_loop(tiny(agents / "ac.safetensors"), out, 1, progress=kill_at_game_3)
    assert json.loads((out / LOOP_FILE).read_text())["step"] == {"round": 1, "step": "eval"}
    lines: list[str] = []
    run_loop(tiny(agents / "ac.safetensors"), out, 1, progress=lambda event: lines.append(event.message))
    assert sum("[from an earlier run]" in line for line in lines) == 3  # games 1-3 were on disk
    # a finished loop continues with more rounds
    grown = run_loop(tiny(agents / "ac.safetensors"), out, 2)
    assert comparable(grown) == comparable(whole[1])


def test_a_folder_of_another_loop_is_refused(agents, whole):
    out = whole[0]
    with pytest.raises(LoopMismatch, match="games: 4 there, 6 now"):
        run_loop(tiny(agents / "ac.safetensors", games=6), out, 2)
    with pytest.raises(LoopMismatch, match="another start agent"):
        run_loop(tiny(agents / "ac_other.safetensors"), out, 2)
    with pytest.raises(LoopMismatch, match="keep_latest"):
        run_loop(tiny(agents / "ac.safetensors", keep_latest=True), out, 2)


def test_a_second_loop_on_the_same_folder_is_refused(agents, tmp_path):
    from fuseki.train.rl_loop import run_folder
    from fuseki.util.runs import RunFolderBusy

    out = tmp_path / "loop"
    with run_folder(out).locked(), pytest.raises(RunFolderBusy, match="in use by another run"):
        run_loop(tiny(agents / "ac.safetensors"), out, 1)
    assert not (out / LOOP_FILE).exists()


def test_a_start_file_of_the_wrong_kind_is_refused(agents, tmp_path):
    with pytest.raises(ValueError, match="trains 'ac' agents"):
        run_loop(tiny(agents / "pg.safetensors"), tmp_path / "loop", 1)
    assert not (tmp_path / "loop").exists()


# ---- the command ------------------------------------------------------------------------


def test_the_command_runs_a_round_and_ends_with_json(agents, tmp_path, capsys, monkeypatch):
    play, _ = forced([EvalRecord(7, 1)])
    monkeypatch.setattr(rl_loop, "_play_eval", play)
    out = tmp_path / "loop"
    code = main(["rl-loop", "--method", "pg", "--agent", str(agents / "pg.safetensors"), "--out", str(out),
                 "--games", "3", "--eval-games", "8", "--seed", "2", "--lr", "0.01", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    state = json.loads(captured.out.strip().splitlines()[-1])
    assert state["settings"]["method"] == "pg" and state["settings"]["lr"] == 0.01
    assert state["rounds"][0]["promoted"] and state["champion_name"] == "v1"
    assert "v1 vs v0" in captured.out and "round 1: self-play" in captured.err
    assert read_agent_info(out / "round-001/candidate.safetensors").training["lr"] == 0.01


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--alpha", "1.5"], "--alpha: the significance level must be between 0 and 1"),
        (["--games", "0"], "--games: must be at least 1"),
        (["--window", "x"], "--window: 'x' is not a whole number"),
        (["--eval-temperature", "2"], "--eval-temperature: must be from 0 to 1"),
        (["--rules", "nope"], "--rules: unknown rule set 'nope'"),
    ],
)
def test_bad_flags_are_one_line_errors(agents, tmp_path, capsys, flags, message):
    args = ["rl-loop", "--method", "ac", "--agent", str(agents / "ac.safetensors"), "--out", str(tmp_path / "l"), *flags]
    try:
        code = main(args)
    except SystemExit as e:  # argparse's own errors
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and message in err
    assert "Traceback" not in err and not (tmp_path / "l").exists()


def test_wrong_kind_missing_file_and_other_settings_are_one_line_errors(agents, whole, tmp_path, capsys):
    base = ["rl-loop", "--out", str(tmp_path / "l")]
    assert main([*base, "--method", "q", "--agent", str(agents / "ac.safetensors")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fuseki rl-loop: error:") and "--method q trains 'q' agents" in err and "\n" not in err
    assert main([*base, "--method", "ac", "--agent", str(tmp_path / "missing.safetensors")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fuseki rl-loop: error:") and "\n" not in err
    assert main(["rl-loop", "--method", "ac", "--agent", str(agents / "ac.safetensors"), "--out", str(whole[0]),
                 "--games", "5", "--eval-games", "4", "--seed", "5", "--dead-playouts", "10"]) == 2
    err = capsys.readouterr().err.strip()
    assert "holds a loop made with other settings (games: 4 there, 5 now)" in err and "\n" not in err
