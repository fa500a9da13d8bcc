"""Experience buffers: the collector's rewards and advantages, .npz round trips, merging, bad files."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.data.experience import (
    ExperienceBuffer,
    ExperienceCollector,
    ExperienceError,
    combine_experience,
    load_experience,
    load_experiences,
)


def planes(value: int, c: int = 2, n: int = 5) -> np.ndarray:
    return np.full((c, n, n), value, dtype=np.uint8)


def collected(agent: str = "a") -> ExperienceCollector:
    c = ExperienceCollector("sevenplane", 5, agent=agent)
    c.begin_episode()
    c.record_decision(planes(1), 3, estimated_value=0.5)
    c.record_decision(planes(2), 25)
    c.complete_episode(reward=1)
    c.begin_episode()
    c.record_decision(planes(3), 7, estimated_value=-0.25)
    c.complete_episode(reward=-1)
    return c


def test_the_collector_rewards_every_decision_of_a_game_and_computes_advantages():
    buf = collected().to_buffer()
    assert len(buf) == 3 and buf.games == 2
    assert buf.states.dtype == np.uint8 and buf.states.shape == (3, 2, 5, 5)
    assert buf.actions.dtype == np.int64 and buf.actions.tolist() == [3, 25, 7]
    assert buf.rewards.dtype == np.float32 and buf.rewards.tolist() == [1, 1, -1]
    assert buf.advantages.tolist() == [0.5, 1.0, -0.75]
    assert buf.encoder == "sevenplane" and buf.board_size == 5 and buf.agent == "a"


def test_begin_episode_drops_an_unfinished_game():
    c = ExperienceCollector("oneplane", 5)
    c.begin_episode()
    c.record_decision(planes(1, 1), 0)
    assert c.pending == 1
    c.begin_episode()
    c.complete_episode(1)
    assert len(c.to_buffer()) == 0 and c.episodes == 1


def test_a_buffer_round_trips_through_a_file(tmp_path):
    buf = collected().to_buffer(note="hello")
    path = tmp_path / "exp.npz"
    buf.save(path)
    back = load_experience(path)
    for name in ("states", "actions", "rewards", "advantages"):
        a, b = getattr(buf, name), getattr(back, name)
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert (back.encoder, back.board_size, back.games, back.metadata["note"]) == ("sevenplane", 5, 2, "hello")
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically, nothing left over


def test_combine_merges_in_order_and_counts_games():
    a, b = collected("x").to_buffer(), collected("y").to_buffer()
    merged = combine_experience([a, b])
    assert len(merged) == 6 and merged.games == 4
    assert merged.actions.tolist() == [3, 25, 7, 3, 25, 7]
    assert merged.agent == "x; y"
    assert len(combine_experience([collected()])) == 3  # collectors are accepted too


def test_combine_refuses_buffers_that_do_not_agree():
    a = collected().to_buffer()
    other = ExperienceCollector("oneplane", 5)
    other.begin_episode()
    other.record_decision(planes(1, 1), 0)
    other.complete_episode(1)
    with pytest.raises(ExperienceError, match="does not match"):
        combine_experience([a, other.to_buffer()])
    with pytest.raises(ExperienceError, match="nothing to combine"):
        combine_experience([])


def test_load_experiences_merges_files_and_names_the_problem(tmp_path):
    collected().to_buffer().save(tmp_path / "a.npz")
    collected().to_buffer().save(tmp_path / "b.npz")
    assert len(load_experiences([tmp_path / "a.npz", tmp_path / "b.npz"])) == 6
    with pytest.raises(ExperienceError, match="no experience files"):
        load_experiences([])


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b"hello, not a zip", "not a readable experience file"),
    ],
)
def test_foreign_files_give_one_line_errors(tmp_path, content, message):
    path = tmp_path / "bad.npz"
    path.write_bytes(content)
    with pytest.raises(ExperienceError, match=message) as info:
        load_experience(path)
    assert "\n" not in str(info.value)


def test_a_truncated_file_is_refused(tmp_path):
    path = tmp_path / "exp.npz"
    collected().to_buffer().save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ExperienceError, match="exp.npz"):
        load_experience(path)


def test_an_npz_that_is_not_experience_is_refused(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, x=np.zeros(3))
    with pytest.raises(ExperienceError, match="not a fuseki experience file"):
        load_experience(path)
    with pytest.raises(ExperienceError, match="no such"):
        load_experience(tmp_path / "missing.npz")


def test_bad_arrays_are_refused():
    with pytest.raises(ExperienceError, match="uint8"):
        ExperienceBuffer(np.full((1, 1, 5, 5), 0.5), [0], [1.0], encoder="oneplane", board_size=5)
    with pytest.raises(ExperienceError, match="entries"):
        ExperienceBuffer(np.zeros((2, 1, 5, 5), np.uint8), [0], [1.0, 1.0], encoder="oneplane", board_size=5)
    with pytest.raises(ExperienceError, match="move indices"):
        ExperienceBuffer(np.zeros((1, 1, 5, 5), np.uint8), [26], [1.0], encoder="oneplane", board_size=5)


# ---- visit distributions (pi) ----------------------------------------------------------


def visits(point: int, n: int = 5, seed: int = 0) -> np.ndarray:
    """A visit distribution with most weight on ``point`` (pass last)."""
    rng = np.random.default_rng(seed)
    row = rng.random(n * n + 1).astype(np.float32)
    row[point] += 10
    return row / row.sum()


def with_pi(agent: str = "a") -> ExperienceCollector:
    c = ExperienceCollector("sevenplane", 5, agent=agent)
    c.begin_episode()
    c.record_decision(planes(1), 3, estimated_value=0.5, pi=visits(3))
    c.record_decision(planes(2), 25, pi=visits(25, seed=1))
    c.complete_episode(reward=1)
    return c


def test_pi_round_trips_and_old_files_have_none(tmp_path):
    buf = with_pi().to_buffer()
    assert buf.pi is not None and buf.pi.dtype == np.float32 and buf.pi.shape == (2, 26)
    buf.save(tmp_path / "pi.npz")
    back = load_experience(tmp_path / "pi.npz")
    assert back.pi is not None and back.pi.dtype == np.float32 and np.array_equal(back.pi, buf.pi)
    assert back.header()["version"] == 2
    with np.load(tmp_path / "pi.npz") as data:
        assert "pi" in data.files
    plain = collected().to_buffer()
    assert plain.pi is None and plain.header()["version"] == 1  # an older fuseki still reads it
    plain.save(tmp_path / "plain.npz")
    with np.load(tmp_path / "plain.npz") as data:
        assert "pi" not in data.files
    assert load_experience(tmp_path / "plain.npz").pi is None


def test_a_file_written_before_pi_existed_still_loads(tmp_path):
    """The layout of version 1, written by hand as the old writer did: four arrays and the JSON header."""
    import json

    meta = {"format": "fuseki-experience", "version": 1, "encoder": "oneplane", "board_size": 5,
            "positions": 1, "games": 1}
    np.savez_compressed(tmp_path / "old.npz", states=planes(1, 1)[None], actions=np.array([4]),
                        rewards=np.array([1.0], np.float32), advantages=np.array([0.5], np.float32),
                        metadata=np.array(json.dumps(meta)))
    old = load_experience(tmp_path / "old.npz")
    assert old.pi is None and len(old) == 1 and old.actions.tolist() == [4]


def test_version_and_pi_must_agree(tmp_path):
    import json

    buf = with_pi().to_buffer()
    arrays = {"states": buf.states, "actions": buf.actions, "rewards": buf.rewards, "advantages": buf.advantages}
    meta = {**buf.header(), "version": 1}
    np.savez_compressed(tmp_path / "a.npz", **arrays, pi=buf.pi, metadata=np.array(json.dumps(meta)))
    with pytest.raises(ExperienceError, match="version 1 file with a pi array"):
        load_experience(tmp_path / "a.npz")
    meta = {**buf.header(), "version": 2}
    np.savez_compressed(tmp_path / "b.npz", **arrays, metadata=np.array(json.dumps(meta)))
    with pytest.raises(ExperienceError, match="without its pi array"):
        load_experience(tmp_path / "b.npz")
    meta = {**buf.header(), "version": 3}
    np.savez_compressed(tmp_path / "c.npz", **arrays, pi=buf.pi, metadata=np.array(json.dumps(meta)))
    with pytest.raises(ExperienceError, match="newer fuseki"):
        load_experience(tmp_path / "c.npz")


def test_combine_keeps_pi_and_refuses_to_mix():
    a, b = with_pi("a").to_buffer(), with_pi("b").to_buffer()
    merged = combine_experience([a, b])
    assert merged.pi is not None and np.array_equal(merged.pi, np.concatenate([a.pi, b.pi]))
    assert len(merged) == 4
    empty = ExperienceCollector("sevenplane", 5).to_buffer()
    assert combine_experience([a, empty]).pi.shape == (2, 26)  # an empty buffer has nothing to miss
    with pytest.raises(ExperienceError, match="some buffers have visit distributions"):
        combine_experience([a, collected().to_buffer()])


def test_bad_pi_is_refused():
    c = ExperienceCollector("sevenplane", 5)
    with pytest.raises(ExperienceError, match="shape"):
        c.record_decision(planes(1), 3, pi=np.full(25, 1 / 25))  # no pass entry
    with pytest.raises(ExperienceError, match="sum to 1"):
        c.record_decision(planes(1), 3, pi=np.full(26, 0.5))
    with pytest.raises(ExperienceError, match="non-negative"):
        c.record_decision(planes(1), 3, pi=np.r_[-0.5, 1.5, np.zeros(24)])
    c.begin_episode()
    c.record_decision(planes(1), 3, pi=visits(3))
    c.record_decision(planes(2), 4)
    c.complete_episode(1)
    with pytest.raises(ExperienceError, match="1 of 2 decisions have a visit distribution"):
        c.to_buffer()
    with pytest.raises(ExperienceError, match=r"pi must have shape \[1, 26\]"):
        ExperienceBuffer(planes(1)[None], [3], [1.0], encoder="x", board_size=5, pi=np.zeros((2, 26)))
