"""Evaluation of agents (spec row R3): the statistics, agent specs, the game loop, workers, GTP, resume.

The p-values are checked three ways: against the book's printed value
(``binom_test(53, 100, 0.5) = 0.6173``), against an independent exact
computation in this file (the two tails of a symmetric binomial, in
fractions), and against SciPy where it is installed.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuseki.arena.eval_settings import EvalSettings, EvalSettingsMismatch, game_seed
from fuseki.arena.evaluate import evaluate, round_robin
from fuseki.arena.go_plugin import play_go_game, record_kind, result_text
from fuseki.arena.gtp_player import GtpAgent
from fuseki.arena.outcome import Forfeit
from fuseki.arena.scoring import OwnershipScorer
from fuseki.arena.specs import AgentSpec, build_agent, check_spec, parse_agent_spec
from fuseki.go.sgf import load_sgf
from fuseki.go.state import Color, GameState, Move
from fuseki.util.stats import binomial_test, clip_score, elo_difference, elo_interval, fisher_exact

FAKE_ENGINE = Path(__file__).parents[1] / "fakes" / "fake_gtp_engine.py"


def find_gnugo() -> str | None:
    return shutil.which("gnugo") or shutil.which("/usr/games/gnugo")


def symmetric_p_value(k: int, n: int) -> Fraction:
    """Two-sided p at 1/2, computed differently: twice the far tail, as a fraction (1 at the centre)."""
    far = max(k, n - k)
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(far, n + 1))
    return min(Fraction(1), 2 * tail) if 2 * far != n else Fraction(1)


# ---- binomial test ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("wins", "games", "expected"),
    [
        (60, 100, 0.056887933640981),  # ch. 12, ac_v2 against ac_v1
        (51, 100, 0.920410762612821),  # ac_v3's first try
        (62, 100, 0.020978735677852),  # ac_v3 after 15,000 games
        (53, 100, 0.61729941358925255),  # ch. 10: the book's scipy output
        (530, 1000, 0.062023195098363),  # ch. 10: "about 6 %"
    ],
)
def test_binomial_test_known_values(wins: int, games: int, expected: float) -> None:
    p = binomial_test(wins, games)
    assert p == pytest.approx(expected, rel=1e-12)
    assert p == pytest.approx(float(symmetric_p_value(wins, games)), rel=1e-14)


def test_binomial_test_book_thresholds() -> None:
    """The book's reading of ch. 12: 60/100 is borderline, 51/100 says nothing, 62/100 is significant."""
    assert 0.05 < binomial_test(60, 100) < 0.06
    assert binomial_test(60, 100, alternative="greater") < 0.05  # one-sided it clears 5 %
    assert binomial_test(51, 100) > 0.9
    assert binomial_test(62, 100) < 0.05


def test_binomial_test_against_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for k, n, p in [(60, 100, 0.5), (7, 20, 0.3), (0, 10, 0.5), (10, 10, 0.5), (40, 90, 0.6), (700, 3000, 0.25)]:
        for alt in ("two-sided", "greater", "less"):
            ours = binomial_test(k, n, p, alternative=alt)
            theirs = stats.binomtest(k, n, p, alternative=alt).pvalue
            assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-15), (k, n, p, alt)


def test_binomial_test_general_p_against_fractions() -> None:
    """For p != 1/2 the two-sided sum keeps outcomes no more likely than the observed one."""
    n, p = 12, Fraction(1, 4)
    pmf = [math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]
    for k in range(n + 1):
        expected = sum(x for x in pmf if x <= pmf[k])
        assert binomial_test(k, n, 0.25) == pytest.approx(float(expected), rel=1e-12)


def test_binomial_test_edges_and_tails() -> None:
    assert binomial_test(0, 0) == 1.0
    assert binomial_test(50, 100) == 1.0
    assert binomial_test(10, 10) == pytest.approx(2 / 1024)
    assert binomial_test(3, 3, alternative="greater") == 0.125
    assert binomial_test(0, 3, alternative="less") == 0.125
    assert binomial_test(3, 3, alternative="less") == 1.0
    assert binomial_test(5, 5, 1.0) == 1.0
    assert binomial_test(4, 5, 1.0) == 0.0


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((11, 10), {}), ((-1, 10), {}), ((1.5, 10), {}), ((1, 10, 1.5), {}), ((1, 10), {"alternative": "up"})],
)
def test_binomial_test_rejects_bad_input(args: tuple, kwargs: dict) -> None:
    with pytest.raises(ValueError):
        binomial_test(*args, **kwargs)


@given(st.integers(0, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_binomial_test_is_a_symmetric_probability(kn: tuple[int, int]) -> None:
    k, n = kn
    p = binomial_test(k, n)
    assert 0.0 < p <= 1.0
    assert p == binomial_test(n - k, n)
    # Less lopsided records have larger p-values.
    if 2 * k > n:
        assert binomial_test(k - 1, n) >= p


# ---- Elo ---------------------------------------------------------------------------


def test_elo_difference_values() -> None:
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.75) == pytest.approx(190.848501887865, abs=1e-9)  # 400 log10(3)
    assert elo_difference(0.75) == pytest.approx(191, abs=0.5)
    assert elo_difference(0.25) == pytest.approx(-elo_difference(0.75))
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf
    # The inverse of the Elo expected score.
    for d in (-400.0, -50.0, 0.0, 120.0, 800.0):
        assert elo_difference(1 / (1 + 10 ** (-d / 400))) == pytest.approx(d, abs=1e-9)
    with pytest.raises(ValueError):
        elo_difference(1.2)


def test_elo_interval_contains_the_estimate_and_is_clipped() -> None:
    lo, hi = elo_interval(62, 100)
    assert lo < elo_difference(0.62) < hi
    assert lo > 0  # 62/100 is significant, so the interval excludes 0
    lo, hi = elo_interval(51, 100)
    assert lo < 0 < hi
    # A perfect score: finite, the top clipped at half a game short of 100 %.
    lo, hi = elo_interval(10, 10)
    assert math.isfinite(hi) and hi == pytest.approx(elo_difference(0.95))
    assert 0 < lo < hi
    lo, hi = elo_interval(0, 10)
    assert lo == pytest.approx(elo_difference(0.05)) and hi < 0
    assert elo_interval(0, 0) == (-math.inf, math.inf)
    assert clip_score(1.0, 4) == 0.875 and clip_score(0.5, 4) == 0.5


def test_game_seeds_differ_and_repeat() -> None:
    seeds = {game_seed(0, n, side) for n in range(1, 50) for side in range(4)}
    assert len(seeds) == 49 * 4
    assert game_seed(3, 7, 1) == game_seed(3, 7, 1)
    assert all(0 <= s < 2**31 for s in seeds)


# ---- agent specs --------------------------------------------------------------------


def test_parse_registry_specs() -> None:
    spec = parse_agent_spec("mcts:playouts=50,rave=false,resign-below=none,policy=light,c=1.5")
    assert spec.kind == "registry" and spec.target == "mcts"
    assert dict(spec.options) == {"playouts": 50, "rave": False, "resign_below": None, "policy": "light", "c": 1.5}
    assert spec.label == "mcts:playouts=50,rave=false,resign-below=none,policy=light,c=1.5"
    assert parse_agent_spec(" random ") == AgentSpec("random", "registry", "random")


def test_parse_gtp_spec() -> None:
    spec = parse_agent_spec("gtp:gnugo --mode gtp --level 1")
    assert (spec.kind, spec.target, spec.in_process) == ("gtp", "gnugo --mode gtp --level 1", False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nosuchbot", "names no registered agent"),
        ("", "must not be empty"),
        ("gtp:", "needs an engine command"),
        ("gtp:gnugo 'unbalanced", "cannot split"),
        ("mcts:playouts", "KEY=VALUE"),
        ("mcts:playouts=1,playouts=2", "given twice"),
        ("file:/no/such/agent.safetensors", "no agent file"),
    ],
)
def test_bad_specs(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_agent_spec(text)


def test_bad_options_and_missing_programs() -> None:
    with pytest.raises(ValueError, match="cannot be built with"):
        build_agent(parse_agent_spec("random:playouts=3"), 0)
    with pytest.raises(ValueError, match="not found"):
        check_spec(parse_agent_spec("gtp:/no/such/engine --mode gtp"), 5)


@pytest.fixture
def tiny_agent_file(tmp_path: Path) -> Path:
    """A 5x5 policy agent file with untrained weights."""
    import torch

    from fuseki.agents.agent_file import save_agent
    from fuseki.encoders import get_encoder
    from fuseki.nets.registry import available_networks, register_network

    if "test-eval-linear" not in available_networks():
        register_network(
            "test-eval-linear",
            lambda in_planes, size, num_moves: torch.nn.Sequential(
                torch.nn.Flatten(), torch.nn.Linear(in_planes * size * size, num_moves)
            ),
            "a linear test net",
        )
    torch.manual_seed(0)
    enc = get_encoder("oneplane", 5)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(25, 25))
    path = tmp_path / "tiny.safetensors"
    save_agent(path, net, encoder=enc, network="test-eval-linear", metadata={"data": "none", "epochs": 0})
    return path


def test_fisher_exact_against_scipy_and_by_hand() -> None:
    from scipy import stats  # installed with scikit-learn, a dependency

    cases = [(14, 20, 11, 20), (14, 20, 0, 20), (82, 100, 50, 100), (0, 5, 0, 7), (5, 5, 0, 3), (3, 10, 7, 10)]
    for a, n, b, m in cases:
        for alt in ("two-sided", "greater", "less"):
            ours = fisher_exact(a, n, b, m, alternative=alt)
            theirs = stats.fisher_exact([[a, n - a], [b, m - b]], alternative=alt).pvalue
            assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-15), (a, n, b, m, alt)
    # By hand: A 2/2, B 0/2. Given 2 wins in all, A won both in 1 of C(4, 2) = 6 equally likely tables.
    assert fisher_exact(2, 2, 0, 2, alternative="greater") == pytest.approx(1 / 6)
    assert fisher_exact(2, 2, 0, 2) == pytest.approx(2 / 6)  # and B won both in another 1
    assert fisher_exact(7, 10, 7, 10) == 1.0 and fisher_exact(0, 0, 3, 4) == 1.0
    with pytest.raises(ValueError, match="0 <= wins <= games"):
        fisher_exact(3, 2, 0, 2)
    with pytest.raises(ValueError, match="alternative"):
        fisher_exact(1, 2, 0, 2, alternative="bigger")


def test_agent_file_specs(tiny_agent_file: Path) -> None:
    spec = parse_agent_spec(str(tiny_agent_file))
    assert spec.kind == "file" and spec.options == ()
    with_opts = parse_agent_spec(f"{tiny_agent_file}:clip=0.01,epsilon=0.25")
    assert with_opts.kind == "file" and dict(with_opts.options) == {"clip": 0.01, "epsilon": 0.25}
    agent = build_agent(with_opts, 1)
    assert agent.clip == 0.01 and agent.epsilon == 0.25
    check_spec(spec, 5)
    with pytest.raises(ValueError, match="plays 5x5 only"):
        check_spec(spec, 9)
    with pytest.raises(ValueError, match="bad options"):
        build_agent(parse_agent_spec(f"{tiny_agent_file}:nonsense=1"), 1)


def test_agent_files_go_through_load_rl_agent(tiny_agent_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every agent file is built by ``load_rl_agent`` (no other loader), with the match's seed."""
    import fuseki.arena.specs as specs_module
    from fuseki.agents import make_agent

    calls: list[tuple[str, dict]] = []

    def load_rl_agent(path: str, seed: int | None = None) -> object:
        calls.append((path, {"seed": seed}))
        return make_agent("random", seed=seed)

    monkeypatch.setattr(specs_module, "load_rl_agent", load_rl_agent)
    agent = build_agent(parse_agent_spec(str(tiny_agent_file)), 42)
    assert agent.name == "random"
    assert calls == [(str(tiny_agent_file), {"seed": 42})]


def test_agent_files_use_the_real_rl_loader(tiny_agent_file: Path) -> None:
    from fuseki.agents import rl_agents

    agent = build_agent(parse_agent_spec(str(tiny_agent_file)), 3)
    assert isinstance(agent, rl_agents.PolicyAgent) and agent.board_size == 5
    with pytest.raises(ValueError, match="bad options"):
        build_agent(parse_agent_spec(f"{tiny_agent_file}:bogus=1"), 1)


# ---- the game loop -----------------------------------------------------------------


class Scripted:
    """Plays the given GTP moves, then passes."""

    name = "scripted"

    def __init__(self, moves: list[str]) -> None:
        self.moves = list(moves)

    def select_move(self, state: GameState) -> Move:
        return Move.from_gtp(self.moves.pop(0), state.size) if self.moves else Move.pass_turn()


def test_play_go_game_scores_with_dead_stones_removed() -> None:
    # Black walls off the left three columns; White's lone stone at E5 is inside nothing: both pass.
    black = Scripted(["C1", "C2", "C3", "C4", "C5"])
    white = Scripted(["A1"])  # a white stone inside Black's area: dead
    game = play_go_game(
        {Color.BLACK: black, Color.WHITE: white},
        GameState.new(5, komi=0.5),
        move_cap=100,
        scorer=OwnershipScorer(playouts=100, seed=1),
    )
    assert game.state.go.is_over() and (game.winner, game.reason) == (0, "score")
    assert game.text is not None and game.text.startswith("B+") and game.margin == float(game.text[2:])
    assert record_kind(game) == "score" and result_text(game) == game.text
    assert any("dead stone" in n for n in game.notes)


def test_play_go_game_illegal_move_is_a_forfeit() -> None:
    black = Scripted(["C3", "C3"])
    white = Scripted(["D4"])
    game = play_go_game(
        {Color.BLACK: black, Color.WHITE: white},
        GameState.new(5),
        move_cap=100,
        scorer=OwnershipScorer(playouts=10),
    )
    assert (game.winner, game.reason) == (1, "forfeit") and "illegal move C3 at move 3" in game.detail
    assert (result_text(game), record_kind(game)) == ("W+F", "forfeit")
    assert game.state.go.move_number == 2  # the moves before the forfeit are kept


def test_play_go_game_gtp_style_forfeit_names_the_colour() -> None:
    class Crashing:
        def select_move(self, state: GameState) -> Move:
            raise Forfeit(Color.WHITE, "crashed")

    game = play_go_game(
        {Color.BLACK: Scripted(["C3"]), Color.WHITE: Crashing()},
        GameState.new(5),
        move_cap=100,
        scorer=OwnershipScorer(playouts=10),
    )
    assert (game.winner, game.reason, game.detail, result_text(game)) == (0, "forfeit", "crashed", "B+F")


def test_play_go_game_move_cap_and_resignation() -> None:
    from fuseki.agents import make_agent

    agents = {Color.BLACK: make_agent("uniform", seed=1), Color.WHITE: make_agent("uniform", seed=2)}
    game = play_go_game(agents, GameState.new(5), move_cap=6, scorer=OwnershipScorer(playouts=10))
    assert game.state.go.move_number == 6 and game.reason == "move_cap" and any("move cap" in n for n in game.notes)
    assert record_kind(game) in ("score", "draw")
    resigner = Scripted(["resign"])
    game = play_go_game(
        {Color.BLACK: resigner, Color.WHITE: Scripted([])},
        GameState.new(5),
        move_cap=10,
        scorer=OwnershipScorer(playouts=10),
    )
    assert (result_text(game), game.reason, game.winner, record_kind(game)) == ("W+R", "resign", 1, "resign")


# ---- whole evaluations ----------------------------------------------------------------


def test_same_seed_same_games_with_one_and_two_workers(tmp_path: Path) -> None:
    settings = EvalSettings("random", "mcts:playouts=20", size=5, seed=7)
    one = evaluate(settings, 4, sgf_dir=tmp_path / "one", workers=1)
    two = evaluate(settings, 4, sgf_dir=tmp_path / "two", workers=2)
    assert [o.to_dict() for o in one.match.outcomes] == [o.to_dict() for o in two.match.outcomes]
    for n in range(1, 5):
        a = load_sgf(tmp_path / "one" / f"game_{n:04d}.sgf")
        b = load_sgf(tmp_path / "two" / f"game_{n:04d}.sgf")
        assert a.moves == b.moves and a.result == b.result
    # Colours alternate: A (random) is Black in games 1 and 3.
    first = load_sgf(tmp_path / "one" / "game_0001.sgf")
    assert (first.black, first.white) == ("random", "mcts:playouts=20")
    assert [o.a_color for o in one.match.outcomes] == [Color.BLACK, Color.WHITE, Color.BLACK, Color.WHITE]
    # MCTS is far stronger than random even with 20 playouts on 5x5.
    assert one.match.b_wins >= 3
    # Another seed gives other games.
    other = evaluate(EvalSettings("random", "mcts:playouts=20", size=5, seed=8), 4)
    assert [o.moves for o in other.match.outcomes] != [o.moves for o in one.match.outcomes]


def test_summary_numbers() -> None:
    summary = evaluate(EvalSettings("random", "uniform", size=5, seed=1), 4)
    m = summary.match
    assert m.games == 4 and m.a_wins + m.b_wins + m.draws == 4
    data = summary.to_dict()
    assert list(data)[:7] == ["games", "a_wins", "b_wins", "draws", "forfeits", "a_win_rate", "ci95"]
    assert data["p_value"] == pytest.approx(binomial_test(m.a_wins, m.a_wins + m.b_wins))
    assert summary.as_result() == ("random", "uniform", m.a_wins + 0.5 * m.draws, m.b_wins + 0.5 * m.draws)
    text = summary.describe()
    assert "binomial test" in text and "Elo difference" in text


def test_resume_reuses_finished_games_and_replays_broken_ones(tmp_path: Path) -> None:
    settings = EvalSettings("random", "uniform", size=5, seed=3, max_moves=60)
    first = evaluate(settings, 4, sgf_dir=tmp_path)
    (tmp_path / "game_0003.sgf").unlink()  # lost
    (tmp_path / "game_0002.sgf").write_text("(;FF[4]SZ[5];B[aa")  # cut off mid-write
    lines: list[str] = []
    second = evaluate(settings, 5, sgf_dir=tmp_path, progress=lambda event: lines.append(event.message))
    reused = [o.number for o in second.match.outcomes if o.reused]
    assert reused == [1, 4]
    assert sum("[from an earlier run]" in line for line in lines) == 2
    # The replayed games are the same games (same seed, same number).
    for n in (1, 2, 3, 4):
        assert second.match.outcomes[n - 1].result == first.match.outcomes[n - 1].result
    assert second.games == 5 and (tmp_path / "game_0005.sgf").exists()
    with pytest.raises(EvalSettingsMismatch, match="seed"):
        evaluate(EvalSettings("random", "uniform", size=5, seed=4, max_moves=60), 5, sgf_dir=tmp_path)


def test_distinct_games_count_repeats_the_same_whether_played_or_read_back(tmp_path: Path) -> None:
    settings = EvalSettings("random", "mcts:playouts=8", size=5, seed=5, max_moves=60)
    played = evaluate(settings, 4, sgf_dir=tmp_path)
    assert played.match.distinct_games == 4  # random's games differ
    read = evaluate(settings, 4, sgf_dir=tmp_path)  # every game from its SGF file
    assert [o.reused for o in read.match.outcomes] == [True] * 4
    assert [o.digest for o in read.match.outcomes] == [o.digest for o in played.match.outcomes]
    # Game 3 (A Black, as in game 1) becomes a copy of game 1: three distinct games of four.
    (tmp_path / "game_0003.sgf").write_bytes((tmp_path / "game_0001.sgf").read_bytes())
    again = evaluate(settings, 4, sgf_dir=tmp_path)
    assert again.match.distinct_games == 3
    assert again.to_dict()["distinct_games"] == 3 and "; 3 distinct" in again.match.describe()
    # Outcomes without a digest (built by hand) leave the count unknown rather than guessed.
    bare = dataclasses.replace(again.match.outcomes[0], digest="")
    assert dataclasses.replace(again.match, outcomes=(bare, *again.match.outcomes[1:])).distinct_games is None


def test_agent_file_plays_in_process(tiny_agent_file: Path) -> None:
    summary = evaluate(EvalSettings(str(tiny_agent_file), "random", size=5, komi=0.5, seed=2), 2)
    assert summary.games == 2 and all(o.kind in ("score", "resign", "draw") for o in summary.match.outcomes)


def test_fake_gtp_engine_that_repeats_its_move_forfeits(tmp_path: Path) -> None:
    command = f"{sys.executable} {FAKE_ENGINE} --genmove=C3"
    summary = evaluate(EvalSettings(f"gtp:{command}", "random", size=5), 2, sgf_dir=tmp_path)
    for outcome in summary.match.outcomes:
        assert outcome.kind == "forfeit" and outcome.winner == "B"
        assert "illegal move C3" in outcome.reason
    assert "forfeit:" in load_sgf(tmp_path / "game_0001.sgf").comment


def test_seed_placeholder_restarts_a_gtp_agent_with_each_games_seed(tmp_path: Path) -> None:
    # A deterministic engine (GNU Go, a network's argmax) would otherwise play every game with the same colours alike.
    command = f"{sys.executable} {FAKE_ENGINE} --genmove=pass --touch={tmp_path}/started-{{seed}}"
    settings = EvalSettings(f"gtp:{command}", "random", size=5, seed=4)
    summary = evaluate(settings, 3)
    assert summary.games == 3
    seeds = {game_seed(4, n, 0) for n in (1, 2, 3)}
    assert len(seeds) == 3
    assert {p.name for p in tmp_path.glob("started-*")} == {f"started-{s}" for s in seeds}


@pytest.mark.gnugo
@pytest.mark.skipif(find_gnugo() is None, reason="GNU Go is not installed")
def test_gnugo_as_a_gtp_agent(tmp_path: Path) -> None:
    summary = evaluate(
        EvalSettings("gtp:gnugo --mode gtp --level 1", "random", size=5, komi=0.5), 2, sgf_dir=tmp_path
    )
    assert summary.games == 2
    assert [o.kind for o in summary.match.outcomes] != ["forfeit", "forfeit"]
    assert summary.match.a_wins == 2  # GNU Go does not lose to a random bot
    record = load_sgf(tmp_path / "game_0002.sgf")
    assert record.white == "gtp:gnugo --mode gtp --level 1" and record.black == "random"
    record.replay()  # every move in the file is legal


@pytest.mark.gnugo
@pytest.mark.skipif(find_gnugo() is None, reason="GNU Go is not installed")
def test_gtp_agent_follows_the_game_and_starts_new_ones() -> None:
    agent = GtpAgent("gnugo --mode gtp --level 1", label="A", move_time=10)
    try:
        state = GameState.new(5, komi=0.5)
        state = state.play(agent.select_move(state))
        state = state.play(Move.from_gtp("A1", 5) if state.is_legal(Move.from_gtp("A1", 5)) else Move.pass_turn())
        state = state.play(agent.select_move(state))
        assert state.move_number == 3
        assert "GNU Go" in agent.name
        fresh = GameState.new(5, komi=0.5).play(Move.from_gtp("C3", 5))
        move = agent.select_move(fresh)  # a new game: the engine is reset and told C3
        assert fresh.is_legal(move) and move != Move.from_gtp("C3", 5)
    finally:
        agent.stop()


def test_round_robin_library(tmp_path: Path) -> None:
    summaries = round_robin(["random", "uniform", "mcts:playouts=10"], 2, sgf_dir=tmp_path, size=5, seed=1)
    assert [(s.match.engine_a, s.match.engine_b) for s in summaries] == [
        ("random", "uniform"),
        ("random", "mcts:playouts=10"),
        ("uniform", "mcts:playouts=10"),
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pair_01_02", "pair_01_03", "pair_02_03"]
    with pytest.raises(ValueError, match="given twice"):
        round_robin(["random", "random"], 2, size=5)


def test_eval_settings_validation() -> None:
    with pytest.raises(ValueError, match="komi"):
        EvalSettings("random", "random", komi=0.3)
    with pytest.raises(ValueError):
        EvalSettings("random", "random", rules="nonsense")
    with pytest.raises(ValueError, match="max moves"):
        EvalSettings("random", "random", max_moves=0)
    assert EvalSettings("a", "b", size=7).move_cap == 147
    assert EvalSettings.from_dict(EvalSettings("a", "b").to_dict() | {"extra": 1}) == EvalSettings("a", "b")


@pytest.mark.gnugo
@pytest.mark.skipif(find_gnugo() is None, reason="GNU Go is not installed")
def test_gnugo_referee_scores_the_games() -> None:
    from fuseki.arena.eval_settings import referee_argv

    settings = EvalSettings("random", "uniform", size=5, referee="gnugo --mode gtp", max_moves=40)
    assert referee_argv(settings)[-1] == "--chinese-rules"  # area scoring, as fuseki match does
    summary = evaluate(settings, 2)
    assert all(o.kind in ("score", "draw") and o.result[:2] in ("B+", "W+", "0") for o in summary.match.outcomes)


def test_terminate_wraps_agents_that_never_resign() -> None:
    plain = evaluate(EvalSettings("random", "random", size=7, seed=2), 2)
    wrapped = evaluate(EvalSettings("random", "random", size=7, seed=2, terminate=True), 2)
    assert all(o.kind == "score" for o in plain.match.outcomes)  # the book's bots never resign
    assert any(o.kind == "resign" for o in wrapped.match.outcomes)
    assert sum(o.moves for o in wrapped.match.outcomes) < sum(o.moves for o in plain.match.outcomes)


# ---- the dead-stone estimate of our count (spec T4) -----------------------------------------


def test_ownership_scorer_with_the_network(dead_stones_spy: Callable[..., list[object]]) -> None:
    state = GameState.from_ascii(
        """
        . X O X .
        X O O X .
        . . X . .
        . . . . .
        . . . . .
        """
    )
    # The real classifier: B5 and the White string are both in atari, so both dead;
    # the playouts see that Black, to move, captures first.
    from fuseki.go.coords import Point

    assert Point(0, 1) in OwnershipScorer(dead_stones="network").dead(state)
    assert Point(0, 1) not in OwnershipScorer(playouts=100).dead(state)
    calls = dead_stones_spy()
    result, note = OwnershipScorer(dead_stones="network").score(state)
    assert len(calls) == 1 and result == "B+17.5" and "dead stones: network (3 dead stones removed)" in note
    _, note = OwnershipScorer().score(state)
    assert len(calls) == 1 and "dead stones: playouts" in note


def test_eval_settings_dead_stone_choices() -> None:
    assert EvalSettings("random", "random").dead_stones == "playouts"  # as before
    with pytest.raises(ValueError, match="unknown dead-stone estimate"):
        EvalSettings("random", "random", dead_stones="magic")
    with pytest.raises(ValueError, match="'none' is not offered"):
        EvalSettings("random", "random", dead_stones="none")
    with pytest.raises(ValueError, match="network estimate only"):
        EvalSettings("random", "random", dead_stones_model="m.safetensors")


def test_games_scored_by_the_network_say_so(
    tmp_path: Path, dead_stones_spy: Callable[..., list[object]]
) -> None:
    calls = dead_stones_spy()
    settings = EvalSettings("random", "random", size=5, max_moves=10, dead_stones="network")
    summary = evaluate(settings, 2, sgf_dir=tmp_path)
    assert len(calls) == 2
    for o in summary.match.outcomes:
        assert o.dead_stones == "network" and o.result.startswith("B+")  # every White stone removed
        assert "dead stones: network" in load_sgf(tmp_path / f"game_{o.number:04d}.sgf").comment
    again = evaluate(settings, 2, sgf_dir=tmp_path)
    assert all(o.reused and o.dead_stones == "network" for o in again.match.outcomes)


def test_old_eval_json_without_the_setting_resumes(tmp_path: Path) -> None:
    import json

    settings = EvalSettings("random", "random", size=5, max_moves=6)
    evaluate(settings, 1, sgf_dir=tmp_path)
    data = json.loads((tmp_path / "eval.json").read_text())
    for key in ("dead_stones", "dead_stones_model"):
        del data["settings"][key]
    (tmp_path / "eval.json").write_text(json.dumps(data))
    assert evaluate(settings, 1, sgf_dir=tmp_path).match.outcomes[0].reused
    with pytest.raises(EvalSettingsMismatch, match="dead_stones"):
        evaluate(EvalSettings("random", "random", size=5, max_moves=6, dead_stones="network"), 1, sgf_dir=tmp_path)


def test_doctests_of_the_evaluation_modules() -> None:
    import doctest

    import fuseki.arena.evaluate
    import fuseki.arena.specs

    for module in (fuseki.arena.evaluate, fuseki.arena.specs):
        failures, tried = doctest.testmod(module)
        assert failures == 0 and tried > 0, module.__name__
