"""The Zero loop: generations in a run folder, resumed to the same state, refused when busy or different;
and the key check: tic-tac-toe learned from zero never loses to perfect play."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.arena.perfect import losses_against_perfect  # noqa: E402
from fuseki.util.runs import RunFolderBusy, RunMismatch  # noqa: E402
from fuseki.agents.zero_agent import ZeroAgent, load_zero_network  # noqa: E402
from fuseki.zero.loop import (  # noqa: E402
    STATE_FILE,
    ZeroSettings,
    _run_folder,
    load_state,
    network_path,
    recorded_hours,
    resign_threshold_for,
    run_zero,
    settings_at,
)
from fuseki.zero.selfplay import calibrate_resign  # noqa: E402

TINY = ZeroSettings(games=12, simulations=8, blocks=1, channels=8, value_hidden=16, epochs=2, window=2, seed=3)


def without_times(state: dict[str, Any]) -> dict[str, Any]:
    """The state with the seconds taken removed (they differ from run to run)."""
    clean = json.loads(json.dumps(state))
    for entry in clean["history"]:
        entry["selfplay"].pop("seconds")
        entry["train"].pop("seconds")
        if entry["gate"]:
            entry["gate"].pop("seconds")
    return clean


def weights(path: Path) -> list[Any]:
    net, _, _ = load_zero_network(path)
    return [t.clone() for t in net.state_dict().values()]


def test_a_stopped_run_resumes_to_the_same_state(tmp_path: Path) -> None:
    straight = run_zero(tmp_path / "a", TINY, 2)
    first = run_zero(tmp_path / "b", TINY, 1)  # stopped after generation 1 ...
    assert first["generation"] == 1 and len(first["history"]) == 1
    resumed = run_zero(tmp_path / "b", TINY, 2)  # ... and run again
    assert without_times(resumed) == without_times(straight)
    assert without_times(load_state(tmp_path / "b")) == without_times(straight)
    for g in (0, 1, 2):
        for x, y in zip(weights(network_path(tmp_path / "a", g)), weights(network_path(tmp_path / "b", g)), strict=True):
            assert torch.equal(x, y)
    # a step whose file is there is not redone: a run killed after self-play keeps its games
    state_path = tmp_path / "b" / STATE_FILE
    state_path.write_text(json.dumps(first))  # as if killed after generation 2's files, before its state
    network_path(tmp_path / "b", 2).unlink()  # and before its training ended
    again = run_zero(tmp_path / "b", TINY, 2)
    assert without_times(again) == without_times(straight)
    assert again["history"][1]["selfplay"] == resumed["history"][1]["selfplay"]  # read back, not played again
    assert run_zero(tmp_path / "b", TINY, 2) == again  # nothing left to do


def test_a_second_run_or_other_settings_are_refused(tmp_path: Path) -> None:
    with _run_folder(tmp_path / "run").locked(), pytest.raises(RunFolderBusy, match="in use by another run"):
        run_zero(tmp_path / "run", TINY, 1)
    run_zero(tmp_path / "run", TINY, 0)
    with pytest.raises(RunMismatch, match="simulations: 8 there, 9 now"):
        run_zero(tmp_path / "run", dataclasses.replace(TINY, simulations=9), 1)


def test_a_learning_rate_drop_added_on_resume_trains_as_if_planned(tmp_path: Path) -> None:
    planned = dataclasses.replace(TINY, lr_schedule=((3, 0.002),))
    straight = run_zero(tmp_path / "planned", planned, 3)
    assert [e["train"]["lr"] for e in straight["history"]] == [0.02, 0.02, 0.002]
    run_zero(tmp_path / "amended", TINY, 2)  # the run as first started, without a schedule ...
    amended = run_zero(tmp_path / "amended", planned, 3)  # ... and the drop added before generation 3
    assert without_times(amended) == without_times(straight)
    for x, y in zip(weights(network_path(tmp_path / "planned", 3)), weights(network_path(tmp_path / "amended", 3)), strict=True):
        assert torch.equal(x, y)
    saved = json.loads((tmp_path / "amended" / "zero.json").read_text())
    assert saved["settings"]["lr_schedule"] == [[3, 0.002]]
    assert saved["amendments"] == [{"from_generation": 3, "changes": {"lr_schedule": {"was": [], "now": [[3, 0.002]]}}}]
    # the drop changes the weights: the same generation at the old rate is another network
    run_zero(tmp_path / "kept", TINY, 3)
    assert any(
        not torch.equal(x, y)
        for x, y in zip(weights(network_path(tmp_path / "kept", 3)), weights(network_path(tmp_path / "amended", 3)), strict=True)
    )
    # a generation already trained keeps its rate, and the schedule may not hide another change
    with pytest.raises(RunMismatch, match="has trained generation 2 at learning rate 0.02"):
        run_zero(tmp_path / "amended", dataclasses.replace(TINY, lr_schedule=((2, 0.002),)), 4)
    with pytest.raises(RunMismatch, match="simulations: 8 there, 9 now"):
        run_zero(tmp_path / "amended", dataclasses.replace(planned, lr_schedule=((4, 0.001),), simulations=9), 4)
    with pytest.raises(ValueError, match="increasing"):
        ZeroSettings(lr_schedule=((5, 0.01), (5, 0.001)))
    assert ZeroSettings(lr=0.1, lr_schedule=((3, 0.01), (6, 0.001))).lr_at(2) == 0.1
    assert [ZeroSettings(lr=0.1, lr_schedule=((3, 0.01), (6, 0.001))).lr_at(g) for g in (3, 5, 6, 9)] == [0.01, 0.01, 0.001, 0.001]


def test_a_larger_window_drawn_from_applies_from_the_next_generation_and_survives_a_resume(tmp_path: Path) -> None:
    run_zero(tmp_path / "a", TINY, 2)
    wider = dataclasses.replace(TINY, window=3, train_samples=40)
    straight = run_zero(tmp_path / "a", wider, 4)
    assert [e["train"]["window"] for e in straight["history"]] == [[1, 1], [1, 2], [1, 3], [2, 4]]
    assert [e["train"]["samples"] for e in straight["history"]][2:] == [40, 40]  # each epoch
    assert all(e["train"]["samples"] > 40 for e in straight["history"][:2])  # all of a window of 2
    saved = json.loads((tmp_path / "a" / "zero.json").read_text())
    assert saved["amendments"] == [
        {"from_generation": 3, "changes": {"window": {"was": 2, "now": 3}, "train_samples": {"was": None, "now": 40}}}
    ]
    assert settings_at(wider, saved["amendments"], 2) == TINY and settings_at(wider, saved["amendments"], 3) == wider
    # the same amendment, the run stopped after generation 3 and resumed: the same state and weights
    run_zero(tmp_path / "b", TINY, 2)
    run_zero(tmp_path / "b", wider, 3)
    resumed = run_zero(tmp_path / "b", wider, 4)
    assert without_times(resumed) == without_times(straight)
    for x, y in zip(weights(network_path(tmp_path / "a", 4)), weights(network_path(tmp_path / "b", 4)), strict=True):
        assert torch.equal(x, y)
    # the same settings again add no amendment
    run_zero(tmp_path / "b", wider, 4)
    assert len(json.loads((tmp_path / "b" / "zero.json").read_text())["amendments"]) == 1
    with pytest.raises(ValueError, match="train_samples must be at least 2"):
        ZeroSettings(train_samples=1)


def test_the_resignation_threshold_is_recalibrated_before_each_generation(tmp_path: Path) -> None:
    settings = dataclasses.replace(TINY, games=16, resign_threshold=-0.5, resign_target=0.05, no_resign_share=0.5)
    state = run_zero(tmp_path / "run", settings, 3)
    stats = [entry["selfplay"] for entry in state["history"]]
    assert stats[0]["resign_threshold"] == -0.5  # the first generation's, given
    for s in stats:
        assert len(s["resign_records"]) == s["no_resign_games"] > 0
    for g in (2, 3):  # from the no-resign games of the window (2) generations before
        window = [r for s in stats[max(0, g - 1 - settings.window) : g - 1] for _, r in s["resign_records"]]
        assert stats[g - 1]["resign_threshold"] == calibrate_resign(window, 0.05)
    # the window decides: generation 1's false resignations at -0.8 are out of sight from generation 4
    lost = [[-0.7, False]]  # the loser at -0.7: any threshold above it resigns rightly
    thrown = [[-0.6, True]]  # the winner at -0.6: any threshold above it resigns falsely
    history = [
        {"generation": 1, "selfplay": {"resign_records": [[0, thrown]] * 5}},
        {"generation": 2, "selfplay": {"resign_records": [[0, lost]] * 5}},
        {"generation": 3, "selfplay": {}},  # a generation from before the records were kept
    ]
    assert resign_threshold_for(settings, history, 4) == -0.5
    assert resign_threshold_for(settings, history, 3) == pytest.approx(-0.6)  # the -0.6 games count now
    assert resign_threshold_for(settings, history[2:], 4) == -0.5  # no records: the first threshold
    assert resign_threshold_for(dataclasses.replace(settings, resign_threshold=-0.95), history[2:], 4) == -0.95
    # a fixed threshold stays fixed, and a target needs a first threshold and no-resign games
    fixed = run_zero(tmp_path / "fixed", dataclasses.replace(TINY, resign_threshold=-0.5), 2)
    assert [e["selfplay"]["resign_threshold"] for e in fixed["history"]] == [-0.5, -0.5]
    with pytest.raises(ValueError, match="needs resign_threshold"):
        dataclasses.replace(TINY, resign_target=0.05)
    with pytest.raises(ValueError, match="needs no-resign games"):
        dataclasses.replace(TINY, resign_threshold=-0.5, resign_target=0.05, no_resign_share=0.0)


def test_recorded_hours_adds_every_steps_seconds() -> None:
    state = {
        "history": [
            {"selfplay": {"seconds": 1800.0}, "train": {"seconds": 900.0}, "gate": None},
            {"selfplay": {"seconds": 600.0}, "train": {"seconds": 300.0}, "gate": {"seconds": 360.0}},
            {"selfplay": {"seconds": 36.0}, "train": {}, "gate": {"score": 0.5}},  # steps of an older loop kept no time
        ]
    }
    assert recorded_hours(state) == pytest.approx((1800 + 900 + 600 + 300 + 360 + 36) / 3600)
    assert recorded_hours({"history": []}) == 0.0


def test_hours_stop_a_run_before_a_generation_and_a_larger_limit_goes_on(tmp_path: Path) -> None:
    # A limit the first generation passes: the run stops after it, though 3 generations were asked for.
    state = run_zero(tmp_path / "run", TINY, 3, hours=1e-9)
    assert state["generation"] == 1 and recorded_hours(state) > 0
    assert run_zero(tmp_path / "run", TINY, 3, hours=1e-9) == state  # resumed: still out of time, nothing played
    # A larger limit goes on from there, to the same state as a run never limited.
    longer = run_zero(tmp_path / "run", TINY, 2, hours=100.0)
    assert longer["generation"] == 2
    assert without_times(longer) == without_times(run_zero(tmp_path / "straight", TINY, 2))
    with pytest.raises(ValueError, match="hours must be > 0"):
        run_zero(tmp_path / "run", TINY, 3, hours=0.0)


def test_gating_keeps_or_promotes(tmp_path: Path) -> None:
    settings = dataclasses.replace(TINY, gating=True, gate_games=4)
    state = run_zero(tmp_path / "gated", settings, 1)
    gate = state["history"][0]["gate"]
    assert gate["games"] == 4 and gate["wins"] + gate["draws"] + gate["losses"] == 4
    assert state["best"] == (1 if gate["score"] >= 0.55 else 0) and gate["promoted"] == (state["best"] == 1)
    assert (tmp_path / "gated" / "gate-0001.json").exists() and gate["seconds"] > 0
    state = run_zero(tmp_path / "gated", settings, 2)
    for picture in ("losses.png", "elo.png"):
        assert (tmp_path / "gated" / picture).read_bytes().startswith(b"\x89PNG")


#: The tic-tac-toe run of docs/zero.md (13-25 s on one core of a shared 2-core machine).
TICTACTOE = ZeroSettings(games=80, simulations=30, temperature_moves=4, epochs=4, seed=0)


def never_loses(folder: Path, generation: int) -> None:
    """The network's own policy (one simulation: the root's priors decide) and small searches lose no game."""
    best = network_path(folder, generation)
    for simulations in (1, 25):
        assert losses_against_perfect(lambda s=simulations: ZeroAgent.from_file(best, simulations=s)) == []


def test_tictactoe_sanity(tmp_path: Path) -> None:
    """Three quick generations: the loss falls and self-play draws more often."""
    settings = dataclasses.replace(TICTACTOE, games=60, simulations=24)
    state = run_zero(tmp_path / "ttt", settings, 3)
    history = state["history"]
    assert history[-1]["train"]["loss"] < history[0]["train"]["loss"]
    assert history[-1]["selfplay"]["draws"] > history[0]["selfplay"]["draws"]


def test_tictactoe_from_zero_never_loses_to_perfect_play(tmp_path: Path) -> None:
    """Ten generations of 80 games from a random network: no loss in the 18 games against alpha-beta."""
    state = run_zero(tmp_path / "ttt", TICTACTOE, 10)
    assert state["best"] == 10
    never_loses(tmp_path / "ttt", 10)


def test_tictactoe_from_zero_with_the_gumbel_root_and_few_simulations(tmp_path: Path) -> None:
    """Gumbel AlphaZero's root learns from 8 simulations a move (the PUCT run above uses 30).

    The random network of generation 0 loses 11-17 of the 18 games against
    perfect play; after ten generations at most 6, with the network alone and
    with a 25-simulation search. Not "none" as with 30 simulations: at 8 the
    outcome moves with the floating-point sums of the CPU and of the input
    layout. Over seeds 0-2 and generations 8-13, in both layouts, the network
    alone lost 0-6 and the 25-simulation search 0-4 on an Ice Lake
    (benchmarks/results/zero_ttt_seeds*.json; docs/zero.md, "The Gumbel root").
    """
    settings = dataclasses.replace(TICTACTOE, simulations=8, root="gumbel", gumbel_m=9)
    state = run_zero(tmp_path / "ttt", settings, 10)
    assert state["history"][-1]["train"]["loss"] < state["history"][0]["train"]["loss"]
    start = network_path(tmp_path / "ttt", 0)
    assert len(losses_against_perfect(lambda: ZeroAgent.from_file(start, simulations=1))) >= 10
    best = network_path(tmp_path / "ttt", 10)
    for simulations in (1, 25):
        lost = losses_against_perfect(lambda s=simulations: ZeroAgent.from_file(best, simulations=s))
        assert len(lost) <= 6, lost


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tictactoe_from_zero_with_other_seeds(tmp_path: Path, seed: int) -> None:
    run_zero(tmp_path / "ttt", dataclasses.replace(TICTACTOE, seed=seed), 10)
    never_loses(tmp_path / "ttt", 10)
