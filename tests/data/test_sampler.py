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


def test_portable_names_make_the_sample_independent_of_where_the_sources_lie():
    names_here = {f"/home/a/kgs/KGS-2019.tar.bz2!2019/g-{i:04d}.sgf": f"KGS-2019.tar.bz2!2019/g-{i:04d}.sgf" for i in range(500)}
    names_there = {f"/mnt/data/KGS-2019.tar.bz2!2019/g-{i:04d}.sgf": f"KGS-2019.tar.bz2!2019/g-{i:04d}.sgf" for i in range(500)}
    here = sample_games(names_here, 100, test_fraction=0.2, seed=3, names=names_here)
    there = sample_games(names_there, 100, test_fraction=0.2, seed=3, names=names_there)
    assert [names_here[g] for g in here.train] == [names_there[g] for g in there.train]
    assert [names_here[g] for g in here.test] == [names_there[g] for g in there.test]
    # Without the names the two locations draw different games: the fix is not vacuous.
    bare_here = sample_games(names_here, 100, test_fraction=0.2, seed=3)
    bare_there = sample_games(names_there, 100, test_fraction=0.2, seed=3)
    assert [names_here[g] for g in bare_here.test] != [names_there[g] for g in bare_there.test]


def test_test_games_are_found_by_portable_name_and_an_ambiguous_name_is_refused():
    names = {f"/x/{i}.sgf": f"{i}.sgf" for i in range(50)}
    split = sample_games(names, 20, seed=1, test_games=["3.sgf", "/x/4.sgf"], names=names)
    assert split.test == ("/x/3.sgf", "/x/4.sgf")
    twins = {"/a/g.sgf": "g.sgf", "/b/g.sgf": "g.sgf", "/a/h.sgf": "h.sgf"}
    with pytest.raises(ValueError, match="names 2 games"):
        sample_games(twins, test_games=["g.sgf"], names=twins)
    assert sample_games(twins, test_games=["/b/g.sgf"], names=twins).test == ("/b/g.sgf",)


def test_a_split_file_gives_its_portable_test_names_and_a_broken_one_is_an_error(tmp_path):
    path = tmp_path / "split.json"
    path.write_text('{"train": [], "test": ["/x/1.sgf"], "test_names": ["1.sgf"]}')
    assert read_test_list(path) == ["1.sgf"]
    path.write_text('{"train": []}')
    with pytest.raises(ValueError, match="not a split file"):
        read_test_list(path)
