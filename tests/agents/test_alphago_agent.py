"""The shipped 9x9 AlphaGo model: `--bot alphago` plays it without --model; a missing part is a clear error."""

from __future__ import annotations

import pytest

from fuseki.agents import make_agent
from fuseki.go import GameState
from fuseki.util.errors import InputError


def test_the_shipped_model_plays_a_legal_move():
    bot = make_agent("alphago", playouts=40, seed=1, device="cpu")
    s = GameState.new(9, komi=7.5).play(40)
    move = bot.select_move(s)
    assert s.is_legal(move) and bot.last_info.simulations == 40
    assert bot.board_size == 9


def test_a_part_the_model_lacks_is_named():
    with pytest.raises(InputError, match="no rl policy file"):
        make_agent("alphago", priors="rl", device="cpu")
    with pytest.raises(InputError, match="no AlphaGo model folder"):
        make_agent("alphago", model="no-such-model", device="cpu")
