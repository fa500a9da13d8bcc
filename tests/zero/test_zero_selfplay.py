"""Batched self-play: the same games whatever the batching, valid targets, temperature, resignation."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.games import make_game  # noqa: E402
from fuseki.search.evaluators import NetworkEvaluator, UniformEvaluator, uniform_priors  # noqa: E402
from fuseki.agents.zero_agent import build_zero_network  # noqa: E402
from fuseki.zero.selfplay import (  # noqa: E402
    SelfPlayConfig,
    SelfPlayGame,
    calibrate_resign,
    capped_judge,
    default_alpha,
    false_resignation_rate,
    play_games,
    resign_record,
    samples_of,
)


def network_evaluator(game: Any) -> NetworkEvaluator:
    torch.manual_seed(1)
    return NetworkEvaluator(game, build_zero_network(game, 1, 8, 16), device="cpu")


@pytest.mark.parametrize("name", ["tictactoe", "hexapawn"])
def test_batched_games_are_the_games_played_one_at_a_time(name: str) -> None:
    game = make_game(name)
    evaluator = network_evaluator(game)
    config = SelfPlayConfig(simulations=16, leaves_per_game=4, temperature_moves=3, parallel=1)
    alone, alone_stats = play_games(game, evaluator, 6, config, seed=5)
    together, stats = play_games(game, evaluator, 6, SelfPlayConfig(**{**config.__dict__, "parallel": 6}), seed=5)
    assert [g.moves for g in together] == [g.moves for g in alone]
    for a, b in zip(alone, together, strict=True):
        np.testing.assert_allclose(a.pi, b.pi)
        np.testing.assert_array_equal(a.planes, b.planes)
    assert stats.evaluations == alone_stats.evaluations
    # the point of batching: far fewer network calls for the same evaluations
    assert stats.network_calls * 3 < alone_stats.network_calls
    assert len({tuple(g.moves) for g in together}) > 1  # the seeds differ per game


def test_samples_are_valid_targets() -> None:
    game = make_game("tictactoe")
    games, stats = play_games(game, network_evaluator(game), 10, SelfPlayConfig(simulations=12, parallel=4), seed=2)
    assert stats.games == 10 and stats.moves == sum(len(g.moves) for g in games)
    assert stats.wins[0] + stats.wins[1] + stats.draws == 10
    for g in games:
        state = game.initial_state()
        assert len(g.pi) == len(g.planes) == len(g.players) == len(g.moves)
        for k, move in enumerate(g.moves):
            assert int(g.players[k]) == state.current_player
            np.testing.assert_array_equal(g.planes[k], game.planes(state))
            legal = game.legal_mask(state)
            assert g.pi[k].sum() == pytest.approx(1.0, abs=1e-6)
            assert np.all(g.pi[k][~legal] == 0)
            state = state.play(move)
        assert state.is_over() and state.winner() == g.winner
        for k in range(len(g.moves)):  # z from the mover's view
            mover = int(g.players[k])
            assert g.z[k] == (0.0 if g.winner is None else (1.0 if g.winner == mover else -1.0))
    planes, pi, z = samples_of(games)
    assert planes.shape == (stats.moves, *game.planes_shape) and pi.shape == (stats.moves, 9) and z.shape == (stats.moves,)


def test_without_noise_and_temperature_every_game_is_the_same() -> None:
    game = make_game("tictactoe")
    config = SelfPlayConfig(simulations=20, temperature_moves=0, dirichlet_epsilon=0.0, parallel=3)
    games, _ = play_games(game, network_evaluator(game), 4, config, seed=3)
    assert len({tuple(g.moves) for g in games}) == 1
    noisy, _ = play_games(game, network_evaluator(game), 4, SelfPlayConfig(simulations=20, temperature_moves=9), seed=3)
    assert len({tuple(g.moves) for g in noisy}) > 1


class BlackIsLost:
    """Uniform priors; every position is lost for player 0 (value -0.95 for 0 to move, +0.95 for 1)."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        values = np.array([-0.95 if s.current_player == 0 else 0.95 for s in states], dtype=np.float32)
        return uniform_priors(self.game, states), values


def test_resignation_and_the_no_resign_games() -> None:
    game = make_game("tictactoe")
    config = SelfPlayConfig(simulations=10, resign_threshold=-0.8, no_resign_share=0.5, parallel=8)
    games, stats = play_games(game, BlackIsLost(game), 20, config, seed=4)
    resigned = [g for g in games if g.resigned is not None]
    played_out = [g for g in games if g.no_resign]
    assert resigned and played_out and len(resigned) + len(played_out) == 20
    for g in resigned:  # player 0 resigns at its first move
        assert g.resigned == 0 and g.winner == 1 and g.moves == [] and len(g.pi) == 1
    for g in played_out:
        assert g.would_resign == 0 and g.resigned is None and len(g.moves) >= 5
    false, would = false_resignation_rate(games)
    assert would == len(played_out) == stats.would_resign == stats.no_resign_games
    # random-ish play from a "lost" position: X, who would have resigned, often does not lose
    assert false == stats.false_resignations and 0 < false <= would
    assert stats.to_dict()["false_resignation_rate"] == pytest.approx(false / would)
    # every played-out game keeps its record, which names the same would-be resignation at this threshold
    assert [i for i, _ in stats.resign_records] == [g.index for g in played_out]
    for g, (_, record) in zip(played_out, stats.resign_records, strict=True):
        assert g.values is not None and len(g.values) == len(g.players)
        assert record == resign_record(g) and record[0][0] == pytest.approx(-0.95, abs=0.05)
    assert calibrate_resign([r for _, r in stats.resign_records], 1.0 - 1e-9) == -0.5  # everything allowed
    # no false resignation allowed: a threshold under which no game resigns falsely, the next one up would
    records = [r for _, r in stats.resign_records]

    def false_at(v: float) -> int:
        return sum(bool(next((f for x, f in r if x < v), False)) for r in records)

    zero = calibrate_resign(records, 0.0)
    assert false_at(zero) == 0 and false_at(zero + 0.01) > 0


def one_game(values: list[float], players: list[int], winner: int | None) -> SelfPlayGame:
    n = len(values)
    return SelfPlayGame(
        index=0,
        planes=np.zeros((n, 1, 1, 1), np.float32),
        pi=np.zeros((n, 1), np.float32),
        players=np.array(players, np.int8),
        moves=[],
        winner=winner,
        returns=(0.0, 0.0),
        no_resign=True,
        values=np.array(values, np.float32),
    )


def test_resign_record_keeps_the_new_lows_and_who_would_have_resigned_falsely() -> None:
    # player 1 wins; player 0's -0.7 and player 1's -0.92 are new lows, player 0's -0.6 and -0.85 are not
    game = one_game([0.1, -0.7, -0.6, -0.92, -0.85, -0.97], [0, 0, 1, 1, 0, 0], winner=1)
    record = resign_record(game, below=1.0)
    assert [v for v, _ in record] == pytest.approx([0.1, -0.7, -0.92, -0.97])
    # player 0 lost, so its resignations are right; player 1 resigning at -0.92 would throw a win away
    assert [f for _, f in record] == [False, False, True, False]
    # by default only the lows a calibrated threshold (at most -0.5) can meet are kept
    assert resign_record(game) == record[1:]
    # a draw: any resignation throws half a point away
    assert all(f for _, f in resign_record(one_game([-0.5, -0.9], [0, 1], winner=None)))
    with pytest.raises(ValueError, match="no root values"):
        resign_record(dataclasses.replace(game, values=None))


def test_calibrate_resign_takes_the_highest_threshold_under_the_target() -> None:
    # ten games: the first crossing of a threshold v is the first entry below it
    true_early = [[-0.6, False]]  # the loser drops to -0.6 and resigns at any v above it
    false_late = [[-0.7, False], [-0.85, True]]  # for v in (-0.85, -0.7] the winner's -0.85 comes first: false
    records = [true_early] * 9 + [false_late]
    # v > -0.7: all ten would resign, none falsely (the false game's loser crosses first, at -0.7)
    assert calibrate_resign(records, 0.05) == -0.5
    assert calibrate_resign(records[-1:], 0.05) == -0.5  # the same game alone
    # not monotone: -0.8 resigns falsely, -0.9 never resigns, -0.65 meets the loser's -0.7 first
    assert calibrate_resign(records[-1:] * 2, 0.0, candidates=[-0.9, -0.8]) == -0.9
    assert calibrate_resign(records[-1:] * 2, 0.0, candidates=[-0.9, -0.8, -0.65]) == -0.65
    records = [true_early] * 9 + [[[-0.85, True]]]
    # v in (-0.85, -0.6]: the false game alone resigns (1 of 1); v > -0.6: 1 of 10, over 5 % but under 15 %
    assert calibrate_resign(records, 0.05) == pytest.approx(-0.85)  # no game reaches -0.85 or lower
    assert calibrate_resign(records, 0.15) == -0.5
    assert calibrate_resign([], 0.05) == -0.5
    with pytest.raises(ValueError, match="target"):
        calibrate_resign(records, 1.0)


def test_uniform_evaluator_and_options() -> None:
    game = make_game("tictactoe")
    assert default_alpha(game) == pytest.approx(10 / 9)
    games, _ = play_games(game, UniformEvaluator(game), 2, SelfPlayConfig(simulations=5, max_moves=3), seed=0)
    assert all(len(g.moves) == 3 and g.winner is None for g in games)
    with pytest.raises(ValueError, match="resign_threshold"):
        SelfPlayConfig(resign_threshold=2.0)


def test_capped_go_games_are_counted() -> None:
    game = make_game("go", size=5)
    config = SelfPlayConfig(simulations=4, max_moves=4, temperature_moves=0, dirichlet_epsilon=0.0, parallel=2)
    judge = capped_judge(game)
    assert judge is not None and capped_judge(make_game("tictactoe")) is None
    games, stats = play_games(game, UniformEvaluator(game), 2, config, seed=0, judge=judge)
    for g in games:
        assert g.capped and len(g.moves) == 4
        state = game.initial_state()
        for move in g.moves:
            state = state.play(move)
        assert g.winner == judge(state) == 1  # two stones each: komi decides
        assert g.z.tolist() == [-1.0, 1.0, -1.0, 1.0]
    assert stats.wins == (0, 2)


@pytest.mark.parametrize(
    ("simulations", "root", "leaves", "reuse"),
    [
        (1, "puct", 1, True),
        (1, "puct", 8, False),
        (1, "gumbel", 8, True),
        (2, "puct", 8, False),
        (2, "gumbel", 4, True),
        (3, "gumbel", 4, False),
    ],
)
def test_any_number_of_simulations_gives_valid_targets(simulations: int, root: str, leaves: int, reuse: bool) -> None:
    """One simulation (only the root's evaluation), fewer than the Gumbel root's m, more leaves than simulations:
    every move is drawn or chosen, every target a distribution over the legal moves (once NaN)."""
    game = make_game("tictactoe")
    evaluator = network_evaluator(game)
    config = SelfPlayConfig(
        simulations=simulations,
        leaves_per_game=leaves,
        root=root,
        gumbel_m=16,  # more than the simulations
        temperature_moves=4,
        reuse=reuse,
        resign_threshold=-0.99,
        no_resign_share=0.5,
        parallel=3,
    )
    games, stats = play_games(game, evaluator, 6, config, seed=1)
    assert stats.games == 6 and stats.evaluations > 0
    for g in games:
        state = game.initial_state()
        for k, move in enumerate(g.moves):
            legal = game.legal_mask(state)
            assert np.isfinite(g.pi[k]).all() and g.pi[k].sum() == pytest.approx(1.0, abs=1e-5)
            assert np.all(g.pi[k][~legal] == 0)
            if simulations == 1:
                # no move visited: the target is the network's own prior (no noise), the search is the network alone
                priors, _ = evaluator.evaluate([state])
                np.testing.assert_allclose(g.pi[k][legal], priors[0][legal] / priors[0][legal].sum(), rtol=1e-5, atol=1e-6)
            state = state.play(move)
    assert len({tuple(g.moves) for g in games}) > 1  # the first moves are drawn, also from a prior alone


def test_one_simulation_resigns_on_the_networks_value() -> None:
    """With one simulation the root value is the network's (it used to read 0, so nobody ever resigned)."""
    game = make_game("tictactoe")
    config = SelfPlayConfig(simulations=1, resign_threshold=-0.8, no_resign_share=0.0, parallel=4)
    games, stats = play_games(game, BlackIsLost(game), 4, config, seed=4)
    assert stats.resigned == 4 and all(g.resigned == 0 and g.moves == [] for g in games)
