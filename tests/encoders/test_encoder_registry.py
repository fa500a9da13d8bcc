"""The encoder registry, shapes, dtypes and the point/move codes of every encoder."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.encoders import Encoder, available_encoders, get_encoder
from fuseki.go import GameState, Move, Point

BOOK_ENCODERS = {"oneplane": 1, "sevenplane": 7, "simple": 11, "alphago": 48, "alphago49": 49, "zero": 11}


def test_importing_the_package_registers_the_book_encoders() -> None:
    assert set(BOOK_ENCODERS) <= set(available_encoders())
    assert all(available_encoders()[name] for name in BOOK_ENCODERS)


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown encoder 'nope'.*oneplane"):
        get_encoder("nope", 9)


@pytest.mark.parametrize("size", [1, 26, "9"])
def test_bad_sizes_are_refused(size: object) -> None:
    with pytest.raises(ValueError):
        get_encoder("simple", size)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(BOOK_ENCODERS))
@pytest.mark.parametrize("size", [2, 3, 5, 9, 13, 19, 25])
def test_shape_and_dtype_at_any_size(name: str, size: int) -> None:
    enc = get_encoder(name, size)
    assert isinstance(enc, Encoder)
    assert enc.name == name  # the name rebuilds the same encoder
    assert enc.size == size
    assert enc.num_planes == BOOK_ENCODERS[name]
    assert enc.shape == (BOOK_ENCODERS[name], size, size)
    assert enc.num_points == size * size
    assert enc.num_moves == size * size + (1 if name == "zero" else 0)
    assert len(enc.plane_names) == enc.num_planes
    state = GameState.new(size)
    for _ in range(min(6, size * size - 1)):
        state = state.play(int(state.legal_points()[0]))
    planes = enc.encode(state)
    assert planes.dtype == np.uint8
    assert planes.shape == enc.shape
    assert planes.flags.c_contiguous


@pytest.mark.parametrize("name", sorted(BOOK_ENCODERS))
@pytest.mark.parametrize("size", [5, 9, 19])
def test_every_point_round_trips(name: str, size: int) -> None:
    enc = get_encoder(name, size)
    seen = set()
    for r in range(size):
        for c in range(size):
            i = enc.encode_point(Point(r, c))
            assert i == r * size + c
            assert enc.decode_point_index(i) == Point(r, c)
            assert enc.decode_move_index(enc.encode_move(Move.play(Point(r, c)))) == Move.play(Point(r, c))
            seen.add(i)
    assert seen == set(range(size * size))


@pytest.mark.parametrize("name", sorted(BOOK_ENCODERS))
def test_off_board_points_and_pass_are_not_points(name: str) -> None:
    enc = get_encoder(name, 5)
    for bad in (Point(-1, 0), Point(0, 5), Point(5, 5)):
        with pytest.raises(ValueError):
            enc.encode_point(bad)
    for bad_index in (-1, 25, 26):
        with pytest.raises(ValueError):
            enc.decode_point_index(bad_index)
    with pytest.raises(ValueError):
        enc.encode_move(Move.resign())


def test_pass_is_a_move_class_only_for_zero() -> None:
    zero = get_encoder("zero", 5)
    assert zero.encode_move(Move.pass_turn()) == 25
    assert zero.decode_move_index(25) == Move.pass_turn()
    with pytest.raises(ValueError):
        get_encoder("simple", 5).encode_move(Move.pass_turn())
    with pytest.raises(ValueError):
        get_encoder("simple", 5).decode_move_index(25)


@pytest.mark.parametrize("name", sorted(BOOK_ENCODERS))
def test_a_position_of_another_size_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="9x9"):
        get_encoder(name, 9).encode(GameState.new(7))


@pytest.mark.parametrize("name", sorted(BOOK_ENCODERS))
def test_random_games_encode_with_one_hot_groups(name: str) -> None:
    """Random play at two sizes: the stone planes partition the stones, encoding is deterministic."""
    rng = np.random.default_rng(7)
    for size in (7, 19):
        enc = get_encoder(name, size)
        state = GameState.new(size)
        for _ in range(size * size):
            if state.is_over():
                break
            legal = state.legal_points()
            state = state.play(int(legal[rng.integers(len(legal))]))
            planes = enc.encode(state)
            stones = state.stones()
            occupied = (stones != 0).astype(np.uint8)
            if name == "oneplane":
                assert ((planes[0] != 0) == (stones != 0)).all()
            elif name == "sevenplane":
                assert (planes[:6].sum(axis=0) == occupied).all()
            elif name in ("simple", "zero"):
                assert (planes[:8].sum(axis=0) == occupied).all()
            else:
                assert (planes[0:3].sum(axis=0) == 1).all()
                assert (planes[6:14].sum(axis=0) == occupied).all()
                assert (planes[14:22].sum(axis=0) == occupied).all()
                legal_mask = np.zeros(size * size, dtype=np.uint8)
                legal_mask[state.legal_points()[:-1]] = 1
                assert (planes[30:38].sum(axis=0).ravel() == legal_mask).all()
            assert (enc.encode(state) == planes).all()
