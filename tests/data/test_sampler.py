"""The sampler: reproducible by seed, split by game, train and test never mix."""

from __future__ import annotations

import pytest

from fuseki.data.sampler import Split, is_test_game, read_test_list, sample_games, split_value

IDS = [f"/kgs/KGS-2019.tar.bz2!2019/game-{i:05d}.sgf" for i in range(2000)]


def test_reproducible_and_seed_dependent():
    a = sample_games(IDS, 300, test_fraction=0.1, seed=7)
    assert a == sample_games(list(reversed(IDS)), 300, test_fraction=0.1, seed=7)  # input order does not matter
    assert (len(a.train), len(a.test)) == (270, 30)
    b = sample_games(IDS, 300, test_fraction=0.1, seed=8)
    assert set(a.train) != set(b.train)


def test_train_and_test_never_share_a_game_across_runs():
    fraction = 0.2
    seen_train, seen_test = set(), set()
    for seed in range(4):
        for games in (10, 100, 700):
            split = sample_games(IDS, games, test_fraction=fraction, seed=seed)
            assert not set(split.train) & set(split.test)
            seen_train |= set(split.train)
            seen_test |= set(split.test)
    assert not seen_train & seen_test  # a test game is never trained on, whatever the seed or size
    assert all(is_test_game(g, fraction) for g in seen_test)


def test_larger_sample_contains_smaller():
    small = sample_games(IDS, 50, test_fraction=0.1, seed=1)
    large = sample_games(IDS, 500, test_fraction=0.1, seed=1)
    assert set(small.train) <= set(large.train) and set(small.test) <= set(large.test)
    assert large.train[: len(small.train)] == small.train


def test_all_games_and_test_share_close_to_fraction():
    split = sample_games(IDS, None, test_fraction=0.25, seed=0)
    assert split.games == len(IDS)
    assert 0.2 < len(split.test) / len(IDS) < 0.3
    assert 0.0 <= min(map(split_value, IDS)) and max(map(split_value, IDS)) < 1.0


def test_fixed_test_set_is_reused(tmp_path):
    first = sample_games(IDS, 200, test_fraction=0.1, seed=1)
    path = tmp_path / "split.json"
    first.save(path)
    assert Split.load(path) == first
    test = read_test_list(path)
    again = sample_games(IDS, 400, seed=99, test_games=test)
    assert again.test == first.test and again.fixed_test
    assert len(again.train) == 400 - len(test) and not set(again.train) & set(test)
    lines = tmp_path / "test.txt"
    lines.write_text("# my test games\n" + "\n".join(test) + "\n")
    assert read_test_list(lines) == test


def test_errors():
    with pytest.raises(ValueError, match="both"):
        Split(("a", "b"), ("b",))
    with pytest.raises(ValueError, match="test fraction"):
        sample_games(IDS, 10, test_fraction=1.0)
    with pytest.raises(ValueError, match="not among"):
        sample_games(IDS, 10, test_games=["nope"])
    with pytest.raises(ValueError, match="fixed test set alone"):
        sample_games(IDS, 1, test_games=IDS[:2])


def test_short_pool_gives_smaller_sample():
    split = sample_games(IDS[:5], 100, test_fraction=0.0)
    assert (len(split.train), len(split.test)) == (5, 0)
