"""Add It Up (book section 10.1): the learner finds "always pick 5", reproducibly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fuseki.cli import main
from fuseki.train.add_it_up import simulate_game, train_add_it_up


def test_the_book_update_learns_to_pick_5():
    result = train_add_it_up(2500, seed=0)
    curve = result.expected
    assert curve[0] == pytest.approx(3.0)
    assert curve[500] > curve[0] and curve[1500] > curve[500] and curve[-1] > 4.8
    assert result.policies[-1][0] < 0.01 and np.argmax(result.policies[-1]) == 4  # 1 dropped, 5 chosen
    assert np.allclose(result.policies.sum(axis=1), 1.0)


def test_a_seed_fixes_the_result():
    a, b = train_add_it_up(300, seed=4), train_add_it_up(300, seed=4)
    assert np.array_equal(a.policies, b.policies)
    assert not np.array_equal(a.policies, train_add_it_up(300, seed=5).policies)


def test_the_policy_gradient_loss_learns_it_too():
    result = train_add_it_up(400, seed=0, method="gradient")
    assert result.expected[-1] > result.expected[0] + 0.8
    assert result.policies[-1][4] > result.policies[-1][0]


def test_the_game_gives_the_higher_total_the_win():
    rng = np.random.default_rng(0)
    win, lose, first = simulate_game(np.full(5, 0.2), rng)
    assert win.sum() == lose.sum() == 100
    assert (win * np.arange(1, 6)).sum() >= (lose * np.arange(1, 6)).sum()


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="method"):
        train_add_it_up(10, method="magic")
    with pytest.raises(ValueError, match="games"):
        train_add_it_up(0)
    with pytest.raises(ValueError, match="learning rate"):
        train_add_it_up(10, lr=-1)


def test_the_command_runs_the_toy(tmp_path, capsys):
    plot = tmp_path / "toy.png"
    assert main(["train", "pg", "--toy", "--toy-games", "200", "--json", "--plot", str(plot)]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["games"] == 200 and summary["method"] == "book" and summary["lr"] == 1e-4
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert main(["train", "pg", "--toy", "--toy-games", "50"]) == 0
    assert "expected pick per turn" in capsys.readouterr().out
    assert main(["train", "pg", "--toy", "some.npz"]) == 2
    assert "takes no EXPERIENCE" in capsys.readouterr().err
