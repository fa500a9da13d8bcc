"""The Numba Go Zero search against the Python PUCT: the same visit counts, games, planes and rules."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest
from needs import need_module

torch = need_module("torch")  # skips here, fails under CI

from fuseki.agents.zero_agent import ZeroAgent, build_zero_network  # noqa: E402
from fuseki.games.go import GoGame, GoGameState  # noqa: E402
from fuseki.go import kernels as K  # noqa: E402
from fuseki.go.state import Move  # noqa: E402
from fuseki.search.evaluators import NetworkEvaluator, UniformEvaluator  # noqa: E402
from fuseki.search.go.zeropuct import GoPUCT, GoZeroForest  # noqa: E402
from fuseki.search.puct import PUCT, PUCTConfig, considered_visits  # noqa: E402
from fuseki.util.errors import InputError  # noqa: E402
from fuseki.zero.selfplay import SelfPlayConfig, capped_judge, play_games  # noqa: E402


def network(game: Any, seed: int = 1, blocks: int = 1, channels: int = 8) -> NetworkEvaluator:
    torch.manual_seed(seed)
    return NetworkEvaluator(game, build_zero_network(game, blocks, channels, 16), device="cpu")


def random_line(game: Any, moves: int, seed: int) -> list[GoGameState]:
    """The positions of a random game (pass only when nothing else is legal), its start first."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    line = [state]
    for _ in range(moves):
        legal = state.legal_moves()
        move = legal[int(rng.integers(len(legal) - 1))] if len(legal) > 1 else legal[-1]
        state = state.play(move)
        if state.is_over():
            break
        line.append(state)
    return line


def both(game: Any, evaluator: Any, **options: Any) -> tuple[PUCT, GoPUCT]:
    config = PUCTConfig(**options)
    return PUCT(game, evaluator, config), GoPUCT.single(game, evaluator, config)


def assert_same_result(a: Any, b: Any) -> None:
    np.testing.assert_array_equal(a.visit_counts, b.visit_counts)
    assert a.move == b.move and a.value == b.value and a.iterations == b.iterations and a.reused_visits == b.reused_visits
    assert [(s.move, s.visits, s.prior) for s in a.stats] == [(s.move, s.visits, s.prior) for s in b.stats]
    if a.improved is None:
        assert b.improved is None
    else:
        np.testing.assert_array_equal(a.improved, b.improved)


GO9 = GoGame(size=9)


@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_root_visits_are_the_python_searchs(batch: int, root: str) -> None:
    """The same network, no noise: the same visit counts, move, value and statistics, with 1 or 8 leaves a round."""
    evaluator = network(GO9)
    for state in random_line(GO9, 45, seed=4)[::11]:
        python, numba = both(GO9, evaluator, simulations=64, batch_size=batch, root=root, gumbel_m=8)
        assert_same_result(python.search(state), numba.search(state))


class Recorder:
    """An evaluator that keeps the planes and masks it was asked about."""

    def __init__(self, inner: NetworkEvaluator) -> None:
        self.inner = inner
        self.game = inner.game
        self.planes: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []

    def evaluate(self, states: Any) -> Any:
        for s in states:
            self.planes.append(self.game.planes(s))
            self.masks.append(self.game.legal_mask(s))
        return self.inner.evaluate(states)

    def evaluate_planes(self, planes: np.ndarray, masks: np.ndarray) -> Any:
        self.planes.extend(planes.copy())
        self.masks.extend(masks.copy())
        return self.inner.evaluate_planes(planes, masks)


def test_leaves_are_sent_with_the_planes_and_masks_of_games_go() -> None:
    """Every leaf the Numba search evaluates has games/go.py's planes (8 positions of history) and legal mask."""
    inner = network(GO9)
    state = random_line(GO9, 12, seed=2)[-1]
    python, numba = Recorder(inner), Recorder(inner)
    PUCT(GO9, python, simulations=80, batch_size=4).search(state)
    GoPUCT.single(GO9, numba, PUCTConfig(simulations=80, batch_size=4)).search(state)
    assert len(numba.planes) == len(python.planes) > 20
    np.testing.assert_array_equal(np.stack(numba.planes), np.stack(python.planes))
    np.testing.assert_array_equal(np.stack(numba.masks), np.stack(python.masks))


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_self_play_makes_the_games_of_the_python_search(root: str) -> None:
    """Noise, temperature, resignation with no-resign games, tree reuse, several leaves: the same games either way."""
    game = GoGame(size=7, komi=7.5)
    evaluator = network(game, seed=3)
    config = dict(
        simulations=12,
        leaves_per_game=4,
        parallel=2,
        temperature_moves=6,
        max_moves=40,
        resign_threshold=-0.95,
        no_resign_share=0.5,
        root=root,
        gumbel_m=8,
    )
    python, ps = play_games(game, evaluator, 3, SelfPlayConfig(**config, engine="python"), seed=7, judge=capped_judge(game))
    numba, ns = play_games(game, evaluator, 3, SelfPlayConfig(**config, engine="numba"), seed=7, judge=capped_judge(game))
    for a, b in zip(python, numba, strict=True):
        assert a.moves == b.moves and a.winner == b.winner and a.resigned == b.resigned and a.capped == b.capped
        np.testing.assert_array_equal(a.pi, b.pi)
        np.testing.assert_array_equal(a.planes, b.planes)
    assert (ps.evaluations, ps.network_calls, ps.moves) == (ns.evaluations, ns.network_calls, ns.moves)
    assert len({tuple(g.moves) for g in numba}) == 3


def test_self_play_games_are_legal_and_their_planes_are_games_go() -> None:
    """Every game replays through the rules engine; every sample's planes are GoGame.planes, also as the kernel makes them."""
    game = GoGame(size=7, komi=7.5)
    games, _ = play_games(game, network(game), 3, SelfPlayConfig(simulations=8, parallel=3, max_moves=40), seed=1)
    forest = GoZeroForest(game, PUCTConfig(simulations=4), 1)
    for g in games:
        state = game.initial_state()
        for k, move in enumerate(g.moves):
            np.testing.assert_array_equal(g.planes[k], game.planes(state))
            np.testing.assert_array_equal(forest.root_planes(state), game.planes(state))
            state = GoGameState(state.go.play(move))  # raises on an illegal move
        assert state.is_over() or g.capped or g.resigned is not None
        if state.is_over():
            assert g.winner == state.winner()


def superko_positions(game: GoGame, count: int) -> list[GoGameState]:
    """Positions of random 4x4 games where the ko rule forbids a move that simple ko allows."""
    found = []
    for seed in range(400):
        for state in random_line(game, 120, seed):
            if len(state.go.legal_points()) < K.fill_legal(state.go.buffer.copy()):
                found.append(state)
                break
        if len(found) == count:
            break
    return found


@pytest.mark.parametrize("rules", ["chinese", "book"])  # positional and situational superko
def test_superko_is_the_rules_engines_at_the_root_and_in_the_tree(rules: str) -> None:
    game = GoGame(size=4, komi=0.5, rules=rules)
    positions = superko_positions(game, 3)
    assert positions, "the random games found no superko position"
    evaluator = network(game)
    for state in positions:
        search = GoPUCT.single(game, evaluator, PUCTConfig(simulations=4))
        search.start(state)
        assert search.forest.collect([search]) == 1  # the root, waiting for its evaluation
        np.testing.assert_array_equal(search.forest.masks[0], game.legal_mask(state))
        # And a search from a few moves earlier, whose tree reaches the repetition.
        python, numba = both(game, evaluator, simulations=200)
        earlier = state.go.parent.parent if state.go.parent and state.go.parent.parent else state.go
        assert_same_result(python.search(GoGameState(earlier)), numba.search(GoGameState(earlier)))


@pytest.mark.parametrize("rules", ["japanese", "tromp-taylor"])
def test_finished_games_are_valued_by_the_rules_count(rules: str) -> None:
    """After a pass, passing ends the game: its value is the rules' count (territory and prisoners, or area)."""
    game = GoGame(size=5, komi=0.5, rules=rules)
    for state in random_line(game, 14, seed=9)[4::3]:
        passed = GoGameState(state.go.play(Move.pass_turn()))
        python, numba = both(game, UniformEvaluator(game), simulations=120)
        a, b = python.search(passed), numba.search(passed)
        assert_same_result(a, b)
        after = passed.play(Move.pass_turn())
        mover = passed.current_player
        exact = 1.0 if after.winner() == mover else (0.0 if after.winner() == 1 - mover else 0.5)
        pass_stats = next(s for s in b.stats if s.action == 25)
        assert pass_stats.visits > 0 and pass_stats.value == exact


def test_tree_reuse_and_a_tree_that_must_grow() -> None:
    evaluator = network(GO9)
    python, numba = both(GO9, evaluator, simulations=3, batch_size=2)
    state = random_line(GO9, 6, seed=5)[-1]
    for _ in range(4):
        a, b = python.search(state, 400), numba.search(state, 400)  # far more rows than the forest was made for
        assert_same_result(a, b)
        state = state.play(a.move)
        python.advance(a.move)
        numba.advance(b.move)
    assert a.reused_visits > 0


def test_zero_agents_on_go_choose_the_same_moves_with_either_search() -> None:
    """The agent keeps its tree by finding the new position among the old root's descendants, as PUCT does."""
    torch.manual_seed(2)
    net = build_zero_network(GO9, 1, 8, 16)
    agents = [ZeroAgent(GO9, net, simulations=24, engine=engine) for engine in ("python", "numba")]
    states = [GO9.initial_state(), GO9.initial_state()]
    for _ in range(12):
        moves = [agent.select_move(state) for agent, state in zip(agents, states, strict=True)]
        assert moves[0] == moves[1]
        states = [state.play(moves[0]) for state in states]


@pytest.mark.parametrize("engine", ["python", "numba"])
def test_a_timed_zero_agent_thinks_for_its_seconds_on_one_tree(engine: str) -> None:
    """``seconds``: rounds of simulations on the same tree until the time is up; the root's visits add up."""
    torch.manual_seed(2)
    net = build_zero_network(GO9, 1, 8, 16)
    state = GO9.initial_state()
    # The budget is three rounds as this machine runs them: a fixed 0.3 s held only one
    # round of the Python search on a slow CI core, so "several rounds" could not be seen.
    one_round = ZeroAgent(GO9, net, engine=engine, simulations=ZeroAgent.TIME_ROUND)
    one_round.select_move(state)  # warm-up (JIT, first allocations)
    started = time.perf_counter()
    one_round.select_move(state)
    budget = max(0.3, 3.0 * (time.perf_counter() - started))
    agent = ZeroAgent(GO9, net, engine=engine, seconds=budget)
    started = time.perf_counter()
    result = agent._search_for(state, budget)
    took = time.perf_counter() - started
    assert budget <= took < budget + 5.0  # at least its time; one round more at most (generous: a loaded machine)
    assert result.iterations > ZeroAgent.TIME_ROUND  # several rounds
    assert result.visit_counts.sum() >= result.iterations - 1  # every round's visits are in the root's counts
    assert result.move is not None and result.seconds == pytest.approx(took, abs=0.05)
    capped = ZeroAgent(GO9, net, engine=engine, seconds=60.0, max_simulations=100)
    result = capped._search_for(state, 60.0)
    assert result.iterations == 100  # the cap ends it long before the time
    assert capped.select_move(state) in state.legal_moves()
    with pytest.raises(InputError, match="give simulations, not seconds"):
        ZeroAgent(GO9, net, root="gumbel", seconds=1.0)
    for bad in (0.0, -1.0, float("nan"), "abc"):
        with pytest.raises(InputError, match="seconds must be a positive number"):
            ZeroAgent(GO9, net, seconds=bad)  # type: ignore[arg-type]  # an agent spec's text arrives as it is


@pytest.mark.parametrize("batch", [1, 4])
def test_gumbel_root_spends_exactly_the_budget_by_sequential_halving(batch: int) -> None:
    evaluator = network(GO9)
    search = GoPUCT.single(GO9, evaluator, PUCTConfig(simulations=40, batch_size=batch, root="gumbel", gumbel_m=16, gumbel_noise=True))
    state = random_line(GO9, 10, seed=1)[-1]
    first = search.search(state)
    assert first.visit_counts.sum() == 39  # the root's own evaluation is the first simulation
    assert sorted(int(v) for v in first.visit_counts if v > 0) == sorted(halving_counts(16, 39))
    state = state.play(first.move)
    search.advance(first.move)
    second = search.search(state)
    assert second.visit_counts.sum() - second.reused_visits == 40  # a reused root: every simulation visits a child


@pytest.mark.parametrize("simulations", [1, 2, 3])
@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_fewer_simulations_than_leaves_or_gumbel_m_are_the_python_searchs(simulations: int, root: str) -> None:
    """One simulation (the root's evaluation alone), fewer than m, fewer than the leaves a round: the same results,
    the network's prior as the policy target and its value when no move was visited."""
    evaluator = network(GO9)
    state = random_line(GO9, 20, seed=3)[-1]
    options = dict(simulations=simulations, batch_size=8, root=root, gumbel_m=16, dirichlet_epsilon=0.25, seed=5)
    python, numba = both(GO9, evaluator, **options)
    a, b = python.search(state), numba.search(state)
    assert_same_result(a, b)
    np.testing.assert_allclose(a.prior, b.prior, rtol=1e-6)
    for r in (a, b):
        target = r.policy_target()
        assert np.isfinite(target).all() and target.sum() == pytest.approx(1.0, abs=1e-5)
        assert r.move_distribution().sum() == pytest.approx(1.0)
        assert r.visit_counts.sum() == simulations - 1
    if simulations == 1:
        priors, values = evaluator.evaluate([state])
        legal = GO9.legal_mask(state)
        np.testing.assert_allclose(a.move_distribution()[legal], priors[0][legal] / priors[0][legal].sum(), rtol=1e-5)
        assert a.value == pytest.approx(float(values[0]), abs=1e-6)


def test_self_play_with_one_simulation_makes_the_games_of_the_python_search() -> None:
    game = GoGame(size=7, komi=7.5)
    evaluator = network(game, seed=3)
    config = dict(simulations=1, leaves_per_game=4, parallel=2, temperature_moves=6, max_moves=30, resign_threshold=-0.95)
    python, _ = play_games(game, evaluator, 3, SelfPlayConfig(**config, engine="python"), seed=7, judge=capped_judge(game))
    numba, _ = play_games(game, evaluator, 3, SelfPlayConfig(**config, engine="numba"), seed=7, judge=capped_judge(game))
    for a, b in zip(python, numba, strict=True):
        assert a.moves == b.moves and a.winner == b.winner and a.resigned == b.resigned
        np.testing.assert_allclose(a.pi, b.pi, rtol=1e-5, atol=1e-7)
        assert np.isfinite(b.pi).all()


def halving_counts(m: int, n: int) -> list[int]:
    """The visits sequential halving gives each of ``m`` actions over ``n`` simulations."""
    counts = [0] * m
    for need in considered_visits(m, n):
        counts[counts.index(need)] += 1
    return [c for c in counts if c > 0]


def test_bad_input() -> None:
    from fuseki.games import make_game

    with pytest.raises(ValueError, match="plays Go"):
        GoZeroForest(make_game("tictactoe"), PUCTConfig(), 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Numba search"):
        play_games(make_game("tictactoe"), UniformEvaluator(make_game("tictactoe")), 1, SelfPlayConfig(engine="numba"))
    search = GoPUCT.single(GO9, UniformEvaluator(GO9), PUCTConfig(simulations=4))
    with pytest.raises(ValueError, match="plays 9x9"):
        search.search(GoGame(size=7).initial_state())
    with pytest.raises(RuntimeError, match="no search is open"):
        search.result()
