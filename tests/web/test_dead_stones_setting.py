"""The web game's ``dead_stones`` setting: chosen per game, stored, used by the final count (spec T4)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fuseki.go.state import GameState
from fuseki.web import games
from fuseki.web.app import create_app
from fuseki.web.store import Store

#: B5 (Black) and the White string C5 B4 C4 are both in atari. The network's
#: static rule calls both dead; the playouts see that Black, to move, captures first.
MUTUAL_ATARI = """
. X O X .
X O O X .
. . X . .
. . . . .
. . . . .
"""


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "web.sqlite"


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, 1, executor="thread")) as c:
        yield c


@pytest.fixture
def spy(dead_stones_spy: Callable[..., list[object]]) -> list[object]:
    """The classifier replaced by a spy that calls every Black stone dead; its call log."""
    return dead_stones_spy(1)


def one_stone_game(client: TestClient, **settings: object) -> dict:
    """A 5x5 game where the bot (Black) played C3 and both sides passed, stored as it would be; its count accepted.

    Reading it opens the scoring phase with the game's estimate (the count of
    two passes stored without one is made on the first read).
    """
    body = {"size": 5, "komi": 7.5, "handicap": 0, "rules": "chinese", "human": "white", "bot": "random",
            "bot_options": {}, **settings}
    store = client.app.state.store  # type: ignore[attr-defined]
    gid = store.create_game(body, ["C3", "pass", "pass"])
    game = client.get(f"/api/games/{gid}").json()
    assert game["status"] == "scoring" and not game["over"] and game["result"] is None, game
    assert game["score"]["estimate"] == game["score"]["dead"]
    game = client.post(f"/api/games/{gid}/accept").json()
    assert game["over"] and game["status"] == "over" and game["score"]["accepted"]
    return game


def test_final_score_follows_the_estimate() -> None:
    state = GameState.from_ascii(MUTUAL_ATARI)
    by_playouts = games.final_score(state)
    by_network = games.final_score(state, "network")
    assert by_playouts["dead_stones"] == "playouts" and by_network["dead_stones"] == "network"
    assert "B5" not in by_playouts["dead"] and "B4" in by_playouts["dead"]
    assert {"B5", "C5", "B4", "C4"} == set(by_network["dead"])


def test_a_network_game_is_counted_by_the_network(client: TestClient, spy: list[object]) -> None:
    game = one_stone_game(client, dead_stones="network")
    stone = game["moves"][0]["vertex"]
    assert game["dead_stones"] == "network"
    assert len(spy) == 1 and spy[0] is not None  # the shipped classifier, passed on
    # The spy called Black's only stone dead: the board is empty and White wins by komi.
    assert game["score"]["dead"] == [stone] and game["score"]["dead_stones"] == "network"
    assert game["result"] == "W+7.5"
    # The same game with the default estimate never asks the network; the stone lives.
    plain = one_stone_game(client)
    assert len(spy) == 1
    assert plain["dead_stones"] == "playouts" and plain["score"]["dead_stones"] == "playouts"
    assert plain["score"]["dead"] == [] and plain["result"] == "B+17.5"


def test_the_setting_survives_a_restart(db: Path) -> None:
    with TestClient(create_app(db, 1, executor="thread")) as first:
        r = first.post("/api/games", json={"size": 9, "dead_stones": "network"})
        gid = r.json()["id"]
        assert r.json()["dead_stones"] == "network"
    with TestClient(create_app(db, 1, executor="thread")) as second:
        assert second.get(f"/api/games/{gid}").json()["dead_stones"] == "network"


def test_old_games_without_the_setting_load_as_playouts(db: Path) -> None:
    store = Store(db)
    old = {"size": 5, "komi": 7.5, "handicap": 0, "rules": "chinese", "human": "black", "bot": "random",
           "bot_options": {}}
    gid = store.create_game(old, ["pass", "pass"])
    # A score cached before the setting existed: no "dead_stones" key.
    store.save_game(gid, ["pass", "pass"], {"black": 0.0, "white": 7.5, "result": "W+7.5", "scoring": "area",
                                            "dead": [], "territory": {"black": [], "white": []}})
    store.close()
    with TestClient(create_app(db, 1, executor="thread")) as c:
        game = c.get(f"/api/games/{gid}").json()
    assert game["dead_stones"] == "playouts" and game["score"]["dead_stones"] == "playouts"
    assert game["result"] == "W+7.5"


def test_bad_values_are_refused_and_choices_listed(client: TestClient) -> None:
    for value in ("magic", "", None, ["network"], 2):
        r = client.post("/api/games", json={"size": 9, "dead_stones": value})
        assert r.status_code == 422, (value, r.text)
        assert "dead_stones" in r.json()["detail"] and "playouts, network" in r.json()["detail"]
    assert client.get("/api/bots").json()["dead_stones"] == ["playouts", "network"]
