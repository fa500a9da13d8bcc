"""AlphaGo's fast rollout policy: symmetric patterns, the fused scores, finished rollouts, files."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.go import GameState
from fuseki.go.kernels import UNPAD
from fuseki.search.go.rollout_policy import RolloutPolicy, n_weights, pattern_tables, rollout_move
from fuseki.util.errors import InputError


@pytest.fixture(scope="module")
def random_policy() -> RolloutPolicy:
    rng = np.random.default_rng(7)
    return RolloutPolicy(rng.normal(size=n_weights()).astype(np.float32))


def _random_position(size: int, moves: int, seed: int) -> GameState:
    rng = np.random.default_rng(seed)
    s = GameState.new(size, komi=0.5)
    for _ in range(moves):
        pts = [p for p in s.legal_points() if p < size * size]
        s = s.play(int(rng.choice(pts)))
    return s


def test_pattern_tables_fold_the_eight_symmetries():
    pat, resp, n_pat, n_resp = pattern_tables()
    assert pat.shape == (6**8,) and resp.shape == (12 * 4**8,)
    # Far fewer classes than codes: every class holds up to eight images of one pattern.
    assert 6**8 / 8 <= n_pat < 6**8 / 7
    assert n_resp < 12 * 4**8 / 7
    # An empty neighbourhood and an all-border one (impossible, but a code) are classes of their own.
    assert pat[0] != pat[6**8 - 1]


def test_probabilities_turn_with_the_board(random_policy):
    """The same position transposed gets the transposed probabilities (no history, so no response features)."""
    rows = [". X . O .", "X X O . .", ". O . O .", ". . X . .", "O . . . X"]
    s = GameState.from_ascii("\n".join(rows))
    cols = [" ".join(r.split()[c] for r in rows) for c in range(5)]
    t = GameState.from_ascii("\n".join(cols))
    p = random_policy.probabilities(s).reshape(5, 5)
    q = random_policy.probabilities(t).reshape(5, 5)
    assert p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(p, q.T, rtol=1e-5, atol=1e-7)


def test_fused_scores_pick_the_most_probable_move(random_policy):
    """The rollout kernel's fused tables give the same scores as the feature indices (greedy = argmax)."""
    for seed in range(4):
        s = _random_position(9, 30, seed)
        probs = random_policy.probabilities(s)
        points = np.empty(82, dtype=np.int64)
        scores = np.empty(82, dtype=np.float64)
        q = rollout_move(s.buffer.copy(), random_policy._last2(s), *random_policy.fused(), points, scores, True)
        assert int(UNPAD[9, q]) == int(np.argmax(probs))


def test_candidates_skip_true_eyes_and_rollouts_finish(random_policy):
    """A board of Black's single-point eyes has no candidate; the rollouts pass at once and count it exactly."""
    rows = [". X . X .", "X X X X X", ". X . X .", "X X X X X", ". X . X ."]
    s = GameState.from_ascii("\n".join(rows))  # Black to move; White has no stone
    cand, _ = random_policy.features(s)
    assert len(cand) == 0
    assert random_policy.rollout_value(s, rollouts=3) == 1.0  # 25 points for Black against komi 0


def test_rollouts_from_the_empty_board_are_scored_games(random_policy):
    v = RolloutPolicy.zeros().rollout_value(GameState.new(7, komi=0.5), rollouts=20)
    assert 0.0 <= v <= 1.0 and v not in (0.0, 1.0)  # random play: both colours win some


def test_save_and_load(tmp_path, random_policy):
    path = tmp_path / "rollout.safetensors"
    random_policy.metadata["note"] = "test"
    random_policy.save(path)
    back = RolloutPolicy.load(path)
    np.testing.assert_array_equal(back.weights, random_policy.weights)
    assert back.metadata["note"] == "test"
    (tmp_path / "junk.safetensors").write_bytes(b"not a file")
    with pytest.raises(InputError, match="cannot read rollout policy"):
        RolloutPolicy.load(tmp_path / "junk.safetensors")
    with pytest.raises(InputError, match="no rollout policy file"):
        RolloutPolicy.load(tmp_path / "missing.safetensors")
