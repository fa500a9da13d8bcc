"""The API behind the page's game list, analysis while reviewing, clocks and icon (issue 22)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fuseki.web.app import create_app
from fuseki.web.store import Store

SHORT_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gc];W[eg])"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "web.sqlite"


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, 1, executor="thread")) as c:
        yield c


def new_game(client: TestClient, **settings: object) -> dict:
    r = client.post("/api/games", json={"size": 9, "bot": "random", **settings})
    assert r.status_code == 201, r.text
    return r.json()


# ---- the game list ---------------------------------------------------------------


def test_the_list_shows_every_game_newest_first(client: TestClient) -> None:
    a = new_game(client, size=9)
    client.post(f"/api/games/{a['id']}/moves", json={"vertex": "E5"})
    b = new_game(client, size=13, bot="uniform", human="white", rules="japanese")
    client.post(f"/api/games/{b['id']}/resign")
    listed = client.get("/api/games").json()
    assert listed["total"] == 2 and [g["id"] for g in listed["games"]] == [b["id"], a["id"]]
    first, second = listed["games"]
    assert (first["size"], first["bot"], first["human"], first["rules"], first["komi"]) == (13, "uniform", "white", "japanese", 6.5)
    assert first["phase"] == "over" and first["result"] == "B+R" and first["moves"] == 1
    assert second["phase"] == "play" and second["result"] is None and second["moves"] == 2
    assert second["created"].endswith("Z") and second["created"] <= second["updated"]
    assert client.get("/api/games?limit=1&offset=1").json()["games"][0]["id"] == a["id"]
    assert client.get("/api/games?limit=0").status_code == 422


def test_rows_from_before_the_list_columns_are_filled_in(db: Path) -> None:
    store = Store(db)
    settings = {"size": 5, "komi": 7.5, "handicap": 0, "rules": "chinese", "human": "black", "bot": "random",
                "bot_options": {}}
    gid = store.create_game(settings, ["C3", "resign"])
    store._db.execute("UPDATE games SET phase = NULL, result = NULL, nmoves = NULL WHERE id = ?", (gid,))
    store.close()
    with TestClient(create_app(db, 1, executor="thread")) as c:
        row = c.get("/api/games").json()["games"][0]
    assert (row["phase"], row["result"], row["moves"]) == ("over", "B+R", 1)
    assert Store(db).get_game(gid).phase == "over"


def test_a_game_opens_in_review_by_its_id(client: TestClient) -> None:
    game = new_game(client)
    game = client.post(f"/api/games/{game['id']}/moves", json={"vertex": "E5"}).json()
    rid = f"game-{game['id']}"
    review = client.get(f"/api/reviews/{rid}").json()
    assert review["id"] == rid and review["moves"] == game["moves"] and review["white"] == "random"
    assert client.get(f"/api/reviews/{rid}/positions/2").json()["board"] == game["board"]
    # The review follows the game as it goes on.
    game = client.post(f"/api/games/{game['id']}/moves", json={"vertex": "C3" if game["board"][6][2] == "." else "G7"}).json()
    assert client.get(f"/api/reviews/{rid}").json()["count"] == 4
    assert client.get("/api/reviews/game-nope").status_code == 404


# ---- analysis ---------------------------------------------------------------------


def test_an_analysis_has_an_ownership_map(client: TestClient) -> None:
    rid = client.post("/api/reviews", json={"sgf": SHORT_SGF}).json()["id"]
    out = client.post("/api/analyze", json={"review": rid, "n": 4, "seconds": 0.3, "channel": "t1"}).json()
    own = out["ownership"]
    assert len(own) == 9 and all(len(row) == 9 for row in own)
    assert all(-1.0 <= x <= 1.0 for row in own for x in row)
    assert own[4][4] > 0.2 and own[6][4] < -0.2  # E5 is a Black stone, E3 a White one
    for bad in ("", "a b", "x" * 65, 7):
        assert client.post("/api/analyze", json={"review": rid, "n": 1, "channel": bad}).status_code == 422


def _in_thread(fn):  # type: ignore[no-untyped-def]
    box: dict = {}

    def run() -> None:
        t0 = time.perf_counter()
        box["response"] = fn()
        box["seconds"] = time.perf_counter() - t0
        box["done"] = time.perf_counter()

    t = threading.Thread(target=run)
    t.start()
    return t, box


def test_a_new_request_on_a_channel_cancels_the_one_before(client: TestClient) -> None:
    rid = client.post("/api/reviews", json={"sgf": SHORT_SGF}).json()["id"]
    srv = client.app.state.server  # type: ignore[attr-defined]
    t, box = _in_thread(lambda: client.post("/api/analyze", json={"review": rid, "n": 1, "seconds": 8, "channel": "p"}))
    deadline = time.monotonic() + 20
    while "p" not in srv.analyses.jobs and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    second = client.post("/api/analyze", json={"review": rid, "n": 2, "seconds": 0.3, "channel": "p"})
    t.join(30)
    assert second.status_code == 200 and second.json()["to_move"] == "black"
    first = box["response"]
    assert first.status_code == 409 and "cancelled" in first.json()["detail"]
    assert box["seconds"] < 8  # stopped long before its 8 seconds
    assert srv.analyses.cancelled >= 1
    # DELETE stops one too.
    t, box = _in_thread(lambda: client.post("/api/analyze", json={"review": rid, "n": 1, "seconds": 8, "channel": "q"}))
    while "q" not in srv.analyses.jobs and time.monotonic() < deadline + 20:
        time.sleep(0.02)
    assert client.delete("/api/analyze/q").json() == {"cancelled": True}
    t.join(30)
    assert box["response"].status_code == 409
    assert client.delete("/api/analyze/q").json() == {"cancelled": False}


def test_an_analysis_never_holds_up_a_bot_move(client: TestClient) -> None:
    rid = client.post("/api/reviews", json={"sgf": SHORT_SGF}).json()["id"]
    gid = new_game(client)["id"]
    runs = [_in_thread(lambda c=c: client.post("/api/analyze", json={"review": rid, "n": 1, "seconds": 6, "channel": c}))
            for c in ("x1", "x2")]
    srv = client.app.state.server  # type: ignore[attr-defined]
    deadline = time.monotonic() + 20
    while len(srv.analyses.jobs) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    r = client.post(f"/api/games/{gid}/moves", json={"vertex": "E5"})
    replied = time.perf_counter()
    assert r.status_code == 200 and len(r.json()["moves"]) == 2
    for t, box in runs:
        t.join(60)
        assert box["response"].status_code == 200
        assert box["done"] > replied  # the bot's reply came while both analyses were still running


# ---- clocks -------------------------------------------------------------------------


def test_a_clock_runs_out_and_the_game_is_lost_on_time(client: TestClient) -> None:
    game = new_game(client, clock={"main": 1.0})
    assert game["clock"]["running"] == "black" and 0 < game["clock"]["black"]["main"] <= 1.0
    assert game["clock"]["white"]["main"] == 1.0
    time.sleep(1.3)
    over = client.get(f"/api/games/{game['id']}").json()
    assert over["over"] and over["result"] == "W+T" and over["clock"]["flagged"] == "black"
    r = client.post(f"/api/games/{game['id']}/moves", json={"vertex": "E5"})
    assert r.status_code == 409
    assert client.get("/api/games").json()["games"][0]["result"] == "W+T"


def test_moves_charge_the_clock_and_byoyomi_keeps_a_period(client: TestClient) -> None:
    game = new_game(client, clock={"main": 0, "byoyomi": 5, "periods": 2})
    assert game["clock"]["black"] == {"main": 0.0, "periods": 2, "period_left": pytest.approx(5, abs=0.5)}
    game = client.post(f"/api/games/{game['id']}/moves", json={"vertex": "E5"}).json()
    assert game["clock"]["running"] == "black" and game["clock"]["black"]["periods"] == 2
    assert game["clock"]["white"]["periods"] == 2 and not game["over"]
    for body in ({"main": -1}, {"main": 10, "byoyomi": 5}, {"main": 0}, {"mian": 5}, "10 minutes"):
        r = client.post("/api/games", json={"clock": body})
        assert r.status_code == 422 and "clock" in r.json()["detail"], (body, r.text)


# ---- the page's files -----------------------------------------------------------------


def test_the_page_has_an_icon(client: TestClient) -> None:
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml") and b"<svg" in r.content
    assert b'rel="icon"' in client.get("/").content


@pytest.mark.parametrize("name", ["clock", "games", "analysis", "models", "store"])
def test_doctests(name: str) -> None:
    import doctest
    import importlib

    failures, _ = doctest.testmod(importlib.import_module(f"fuseki.web.{name}"))
    assert failures == 0
