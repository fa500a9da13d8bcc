"""The web API (docs/web.md): a whole game, the 4xx errors, restarts, reviews and analysis."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from fuseki.go.coords import GTP_COLUMNS
from fuseki.go.sgf import read_sgf
from fuseki.web.app import MAX_UPLOAD, create_app

SHORT_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]C[start];B[ee];W[cc]C[a comment];B[gc];W[eg])"


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


def healthy(client: TestClient) -> bool:
    r = client.get("/api/health")
    return r.status_code == 200 and r.json() == {"ok": True}


def empty_vertex(game: dict) -> str:
    """The first empty point of a game's board, as a GTP vertex."""
    size = len(game["board"])
    return next(vertex(r, c, size) for r, row in enumerate(game["board"]) for c, ch in enumerate(row) if ch == ".")


def vertex(row: int, col: int, size: int) -> str:
    return f"{GTP_COLUMNS[col]}{size - row}"


def play_out(client: TestClient, game: dict, rng: random.Random, pass_after: int = 60) -> dict:
    """Play random empty points (retrying refused ones) until ``pass_after`` moves, then pass."""
    gid, size = game["id"], game["size"]
    for _ in range(400):
        if game["over"]:
            return game
        if game["status"] == "scoring":  # two passes: accept the proposed count
            r = client.post(f"/api/games/{gid}/accept")
            assert r.status_code == 200, r.text
            game = r.json()
            continue
        assert game["status"] == "your_turn"
        if len(game["moves"]) >= pass_after:
            r = client.post(f"/api/games/{gid}/pass")
            assert r.status_code == 200, r.text
            game = r.json()
            continue
        empties = [(r, c) for r, row in enumerate(game["board"]) for c, ch in enumerate(row) if ch == "."]
        rng.shuffle(empties)
        for r_, c_ in empties[:8]:
            r = client.post(f"/api/games/{gid}/moves", json={"vertex": vertex(r_, c_, size)})
            if r.status_code == 200:
                game = r.json()
                break
            assert r.status_code == 409 and r.json()["detail"].startswith("illegal move"), r.text
        else:
            game = client.post(f"/api/games/{gid}/moves", json={"vertex": "pass"}).json()
    raise AssertionError("the game did not end")


# ---- playing --------------------------------------------------------------------


def test_whole_game_against_random_in_worker_processes(db: Path) -> None:
    with TestClient(create_app(db, 1, executor="process")) as client:
        game = new_game(client, bot_options={"seed": 3})
        assert game["status"] == "your_turn" and game["moves"] == [] and game["to_move"] == "black"
        game = play_out(client, game, random.Random(5))
        assert game["over"] and game["status"] == "over"
        assert game == client.get(f"/api/games/{game['id']}").json()
        result = game["result"]
        if result.endswith("+R"):  # the bot may resign a lost game
            assert game["score"] is None
        else:
            score = game["score"]
            assert set(score) == {"black", "white", "result", "dead", "territory", "dead_stones", "estimate",
                                  "uncertain", "dame", "open", "note", "accepted"}
            assert score["accepted"] and score["result"] == result
            margin = score["black"] - score["white"]
            assert result == ("B" if margin > 0 else "W") + f"+{abs(margin):g}"
            assert all(re.fullmatch(r"[A-HJ][1-9]", v) for v in score["dead"] + score["territory"]["black"])
            assert [m["vertex"] for m in game["moves"][-2:]] == ["pass", "pass"]
        colors = [m["color"] for m in game["moves"]]
        assert colors[::2] == ["black"] * len(colors[::2]) and colors[1::2] == ["white"] * len(colors[1::2])
        assert healthy(client)


def test_an_early_pass_does_not_end_the_game(client: TestClient) -> None:
    game = new_game(client, size=9, komi=7.5)
    game = client.post(f"/api/games/{game['id']}/moves", json={"vertex": "E5"}).json()
    game = client.post(f"/api/games/{game['id']}/pass").json()
    # White would win by komi if it passed back, but the board is not settled: the bot plays on.
    assert game["status"] == "your_turn" and not game["over"] and game["result"] is None
    assert [m["vertex"] for m in game["moves"]][2] == "pass" and game["moves"][3]["vertex"] != "pass"
    empty = client.post(f"/api/games/{new_game(client, size=5)['id']}/pass").json()
    assert empty["status"] == "your_turn" and len(empty["moves"]) == 2 and empty["moves"][1]["vertex"] != "pass"


#: A 7x7 game where both walls are alive, with a dead White stone (B3) in Black's area and a dead
#: Black stone (F3) in White's. Black is the human (who passed first); the last move is the bot's pass.
WALLS = ["pass", "E7", "C7", "E6", "C6", "E5", "C5", "E4", "C4", "E3", "C3", "E2", "C2", "E1", "C1", "B3", "F3",
         "pass"]


def walls_game(client: TestClient) -> dict:
    store = client.app.state.store  # type: ignore[attr-defined]
    settings = {"size": 7, "komi": 7.5, "handicap": 0, "rules": "chinese", "human": "black", "bot": "random",
                "bot_options": {}}
    gid = store.create_game(settings, WALLS)
    game = client.get(f"/api/games/{gid}").json()
    assert game["status"] == "your_turn" and game["last_move"] == "pass"
    return game


def test_two_passes_open_the_scoring_phase_and_a_click_changes_the_count(client: TestClient) -> None:
    game = walls_game(client)
    gid = game["id"]
    game = client.post(f"/api/games/{gid}/pass", json={"revision": game["revision"]}).json()
    assert game["status"] == "scoring" and not game["over"] and game["result"] is None
    score = game["score"]
    assert sorted(score["estimate"]) == sorted(score["dead"]) == ["B3", "F3"]
    assert score["dame"] == [f"D{r}" for r in range(7, 0, -1)] and score["open"] == [] and score["note"] == ""
    # Black: 7 stones and 14 points (B3's among them); White the same and komi 7.5.
    assert (score["black"], score["white"], score["result"]) == (21.0, 28.5, "W+7.5")
    assert "B3" in score["territory"]["black"] and "F3" in score["territory"]["white"]
    # Black's F3 marked alive: it stands in White's area, which is open around it now.
    alive = client.post(f"/api/games/{gid}/dead", json={"vertex": "F3", "revision": game["revision"]}).json()
    assert alive["status"] == "scoring" and alive["score"]["dead"] == ["B3"]
    assert alive["score"]["black"] > score["black"] and alive["score"]["white"] < score["white"]
    assert alive["score"]["open"] and "The border is open" in alive["score"]["note"]
    # Marked dead again: the first count comes back.
    again = client.post(f"/api/games/{gid}/dead", json={"vertex": "f3"}).json()
    assert again["score"]["result"] == "W+7.5" and sorted(again["score"]["dead"]) == ["B3", "F3"]
    for vertex, status in (("D4", 409), ("Z9", 422), ("pass", 422)):
        r = client.post(f"/api/games/{gid}/dead", json={"vertex": vertex})
        assert r.status_code == status, (vertex, r.text)
    r = client.post(f"/api/games/{gid}/dead", json={"vertex": "D4"})
    assert "no stone at D4" in r.json()["detail"] and r.json()["game"]["status"] == "scoring"
    # Nothing else may happen while the game is counted.
    for path, body in (("moves", {"vertex": "D4"}), ("resign", None)):
        assert client.post(f"/api/games/{gid}/{path}", json=body).status_code == 409
    # Accept: the game is over with that count; the SGF says so.
    over = client.post(f"/api/games/{gid}/accept").json()
    assert over["over"] and over["status"] == "over" and over["result"] == "W+7.5" and over["score"]["accepted"]
    assert read_sgf(client.get(f"/api/games/{gid}/sgf").content).result == "W+7.5"
    assert client.post(f"/api/games/{gid}/dead", json={"vertex": "F3"}).status_code == 409
    assert client.post(f"/api/games/{gid}/resume").status_code == 409


def test_resume_takes_the_passes_back(client: TestClient) -> None:
    game = walls_game(client)
    gid = game["id"]
    game = client.post(f"/api/games/{gid}/pass").json()
    assert game["status"] == "scoring"
    back = client.post(f"/api/games/{gid}/resume").json()
    assert back["status"] == "your_turn" and back["score"] is None and back["result"] is None
    # The passes are taken back; the bot passed first, so it is to move again, and it has moved.
    assert [m["vertex"] for m in back["moves"]][:-1] == WALLS[:-1] and back["moves"][-1]["color"] == "white"
    assert client.post(f"/api/games/{gid}/accept").status_code == 409


def test_game_json_shape_and_human_white(client: TestClient) -> None:
    game = new_game(client, size=13, komi=6.5, human="white", rules="japanese")
    assert len(game["moves"]) == 1 and game["moves"][0]["color"] == "black"
    assert game["last_move"] == game["moves"][0]["vertex"] and game["to_move"] == "white"
    assert len(game["board"]) == 13 and all(len(row) == 13 for row in game["board"])
    assert sum(row.count("X") for row in game["board"]) == 1
    expected = {"id", "size", "komi", "rules", "handicap", "human", "bot", "bot_options", "dead_stones", "to_move",
                "board", "moves", "last_move", "captures", "over", "result", "score", "status", "clock",
                "can_undo", "revision"}
    assert set(game) == expected
    assert (game["rules"], game["komi"], game["human"], game["captures"]) == ("japanese", 6.5, "white", {"black": 0, "white": 0})
    assert game["clock"] is None and game["can_undo"] is False  # the bot's first move is not the human's to undo


def test_komi_follows_the_rules_and_the_handicap_unless_given(client: TestClient) -> None:
    assert new_game(client, rules="japanese")["komi"] == 6.5
    assert new_game(client, rules="chinese")["komi"] == 7.5
    assert new_game(client, handicap=3)["komi"] == 0.5
    assert new_game(client, rules="japanese", komi=5.5)["komi"] == 5.5
    assert new_game(client, handicap=3, komi=7.5)["komi"] == 7.5
    bots = client.get("/api/bots").json()
    assert bots["komi"]["japanese"] == 6.5 and bots["handicap_komi"] == 0.5


def test_handicap_game_starts_with_the_bot(client: TestClient) -> None:
    game = new_game(client, handicap=4, komi=0.5)
    assert sum(row.count("X") for row in game["board"]) == 4
    assert [m["color"] for m in game["moves"]] == ["white"] and game["status"] == "your_turn"


def _bot_replies(client: TestClient, seed: int, turns: int = 6) -> list[str]:
    """The bot's replies in a new seeded game where the human plays the first free point of a fixed list."""
    game = new_game(client, bot_options={"seed": seed})
    wanted = ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "C5", "G5"]
    for _ in range(turns):
        taken = {m["vertex"] for m in game["moves"]}
        human = next(v for v in wanted if v not in taken)
        game = client.post(f"/api/games/{game['id']}/moves", json={"vertex": human}).json()
    return [m["vertex"] for m in game["moves"][1::2]]


def test_a_seeded_bot_is_repeatable_whatever_ran_before(client: TestClient) -> None:
    first = _bot_replies(client, 11)
    _bot_replies(client, 12)  # another game in the same worker in between
    assert _bot_replies(client, 11) == first
    assert len(first) == 6


def test_illegal_move_is_refused_with_the_reason(client: TestClient) -> None:
    game = new_game(client)
    gid = game["id"]
    game = client.post(f"/api/games/{gid}/moves", json={"vertex": "D4"}).json()
    r = client.post(f"/api/games/{gid}/moves", json={"vertex": "d4"})
    assert r.status_code == 409 and r.json() == {"detail": "illegal move D4: occupied", "game": game}
    for bad in ("Z99", "I5", "", 42):
        r = client.post(f"/api/games/{gid}/moves", json={"vertex": bad})
        assert r.status_code == 422, (bad, r.text)
    assert client.post(f"/api/games/{gid}/moves", json={}).status_code == 422
    assert client.post(f"/api/games/{gid}/moves", content=b"{not json").status_code == 422
    assert client.get(f"/api/games/{gid}").json() == game
    assert healthy(client)


def test_game_over_and_resign(client: TestClient) -> None:
    gid = new_game(client)["id"]
    game = client.post(f"/api/games/{gid}/resign").json()
    assert game["over"] and game["result"] == "W+R" and game["score"] is None and game["moves"] == []
    for path, body in (("moves", {"vertex": "E5"}), ("pass", None), ("resign", None)):
        r = client.post(f"/api/games/{gid}/{path}", json=body)
        assert r.status_code == 409 and r.json()["detail"] == "the game is over"
    assert client.post("/api/analyze", json={"game": gid}).status_code == 409
    # Undo takes the resignation back.
    game = client.post(f"/api/games/{gid}/undo").json()
    assert not game["over"] and game["status"] == "your_turn"


def test_the_last_move_stays_marked_after_a_resignation(client: TestClient) -> None:
    gid = new_game(client)["id"]
    game = client.post(f"/api/games/{gid}/moves", json={"vertex": "E5"}).json()
    bot = game["last_move"]
    over = client.post(f"/api/games/{gid}/resign").json()
    assert over["result"] == "W+R" and over["last_move"] == bot


def test_a_stale_window_is_refused_and_shown_the_game(client: TestClient) -> None:
    first = new_game(client)
    gid = first["id"]
    # "Window A" plays; "window B" still shows the first state of the game.
    played = client.post(f"/api/games/{gid}/moves", json={"vertex": "E5", "revision": first["revision"]}).json()
    assert played["revision"] > first["revision"]
    for path, body in (("moves", {"vertex": "C3"}), ("undo", {}), ("pass", {}), ("resign", {})):
        r = client.post(f"/api/games/{gid}/{path}", json={**body, "revision": first["revision"]})
        assert r.status_code == 409 and "changed in another window" in r.json()["detail"], (path, r.text)
        assert r.json()["game"] == played
    # Undo from the stale window took nothing back.
    assert client.get(f"/api/games/{gid}").json() == played
    r = client.post(f"/api/games/{gid}/moves", json={"vertex": "E5", "revision": True})
    assert r.status_code == 422


def test_undo_takes_back_the_human_move_and_the_reply(client: TestClient) -> None:
    gid = new_game(client)["id"]
    r = client.post(f"/api/games/{gid}/undo")
    assert r.status_code == 409 and "nothing to undo" in r.json()["detail"]
    one = client.post(f"/api/games/{gid}/moves", json={"vertex": "E5"}).json()
    taken = {m["vertex"] for m in one["moves"]}
    second = next(v for v in ("C3", "G7", "C7", "G3") if v not in taken)  # the random bot may have taken C3
    two = client.post(f"/api/games/{gid}/moves", json={"vertex": second}).json()
    assert len(two["moves"]) == 4
    back = client.post(f"/api/games/{gid}/undo").json()
    assert [m["vertex"] for m in back["moves"]] == [m["vertex"] for m in two["moves"][:2]]
    row, col = 9 - int(second[1:]), GTP_COLUMNS.index(second[0])
    assert back["status"] == "your_turn" and back["board"][row][col] == "."
    assert two["board"][row][col] != "."


def test_bad_settings_get_clear_422(client: TestClient) -> None:
    cases = {
        "board size must be from 5 to 19, got 25": {"size": 25},
        "board size must be from 5 to 19, got 4": {"size": 4},
        "size must be a number": {"size": "nine"},
        "komi must be a multiple of 0.5": {"komi": 7.3},
        "unknown bot 'gnugo'": {"bot": "gnugo"},
        "unknown rules 'klingon'": {"rules": "klingon"},
        "human must be 'black' or 'white'": {"human": "red"},
        "bot_options.seconds must be more than 0 and at most 10": {"bot": "mcts", "bot_options": {"seconds": 60}},
        "bot 'random' takes no option 'seconds'": {"bot": "random", "bot_options": {"seconds": 1}},
        "bot 'policy' needs bot_options.model on 13x13 (no shipped policy for that size)": {"size": 13, "bot": "policy"},
        "model 'policy-9x9' plays 9x9 only, not 19x19": {"size": 19, "bot": "policy", "bot_options": {"model": "policy-9x9"}},
        "unknown model": {"bot": "policy", "bot_options": {"model": "../../etc/passwd"}},
        "bot_options.mode must be one of sample, argmax, got 'greedy'": {"bot": "policy", "bot_options": {"mode": "greedy"}},
        "bot 'mcts' takes no option 'mode'": {"bot": "mcts", "bot_options": {"mode": "argmax"}},
        "handicap": {"handicap": 10},
        "unknown dead_stones 'magic'; choose one of: playouts, network": {"dead_stones": "magic"},
        "unknown dead_stones 1": {"dead_stones": 1},
    }
    for needle, body in cases.items():
        r = client.post("/api/games", json=body)
        assert r.status_code == 422 and needle in r.json()["detail"], (body, r.text)
    assert client.post("/api/games", content=b"[1, 2]").status_code == 422
    assert healthy(client)


def test_policy_without_a_model_plays_the_shipped_one(client: TestClient) -> None:
    r = client.post("/api/games", json={"size": 9, "bot": "policy", "human": "white"})
    assert r.status_code in (200, 201), r.text
    game = r.json()
    assert game["bot"] == "policy" and game["bot_options"]["model"] == "policy-9x9"
    for _ in range(200):  # the bot plays Black's first move in the background
        game = client.get(f"/api/games/{game['id']}").json()
        if game["status"] == "your_turn":
            break
        time.sleep(0.1)
    assert game["status"] == "your_turn" and len(game["moves"]) == 1


def test_the_default_bot_is_the_sizes_strongest_and_the_game_records_which(client: TestClient) -> None:
    # No bot named: the table's (fuseki.agents.by_size): mcts at 5 s on 9x9, the 19x19 network on 19x19.
    game = client.post("/api/games", json={"size": 9}).json()
    assert (game["bot"], game["bot_options"]) == ("mcts", {"seconds": 5.0})
    game = client.post("/api/games", json={"size": 19, "bot": "default"}).json()
    assert (game["bot"], game["bot_options"]) == ("policy", {"model": "policy-19x19", "mode": "argmax"})
    game = client.post("/api/games", json={"size": 13, "bot": "default"}).json()
    assert (game["bot"], game["bot_options"]) == ("policy", {"model": "policy-any", "mode": "argmax"})
    game = client.post("/api/games", json={"size": 7, "bot": "default"}).json()
    assert (game["bot"], game["bot_options"]) == ("mcts", {})
    r = client.post("/api/games", json={"size": 9, "bot": "default", "bot_options": {"seconds": 1}})
    assert r.status_code == 422 and "bot 'default' takes no options" in r.json()["detail"]
    bots = client.get("/api/bots").json()["bots"]
    assert bots[0]["name"] == "default" and "9x9: mcts (seconds=5.0)" in bots[0]["help"]
    assert "19x19: policy (model=policy-19x19, mode=argmax)" in bots[0]["help"]
    assert "13x13: policy (model=policy-any, mode=argmax)" in bots[0]["help"]


def test_the_default_bot_without_its_network_is_mcts(client: TestClient, no_shipped_models) -> None:
    game = client.post("/api/games", json={"size": 19}).json()
    assert (game["bot"], game["bot_options"]) == ("mcts", {})


def test_policy_without_a_model_is_refused_when_none_ships(client: TestClient, no_shipped_models) -> None:
    r = client.post("/api/games", json={"bot": "policy"})
    assert r.status_code == 422 and "bot 'policy' needs bot_options.model" in r.json()["detail"]


def test_unknown_ids_are_404(client: TestClient) -> None:
    for method, path, body in (
        ("get", "/api/games/nope", None),
        ("post", "/api/games/nope/moves", {"vertex": "D4"}),
        ("post", "/api/games/nope/pass", None),
        ("post", "/api/games/nope/undo", None),
        ("post", "/api/games/nope/resign", None),
        ("get", "/api/games/nope/sgf", None),
        ("get", "/api/reviews/nope/positions/0", None),
        ("post", "/api/reviews/nope/winrates", {}),
        ("post", "/api/analyze", {"game": "nope"}),
        ("post", "/api/analyze", {"review": "nope", "n": 0}),
    ):
        r = client.request(method.upper(), path, json=body)
        assert r.status_code == 404 and "nope" in r.json()["detail"], (path, r.text)
    assert client.get("/api/no-such-route").status_code == 404
    assert healthy(client)


def test_a_game_survives_a_restart(db: Path) -> None:
    with TestClient(create_app(db, 1, executor="thread")) as first:
        game = new_game(first, human="white")
        # The random bot moves first and may take any point: play on points it left empty.
        before = first.post(f"/api/games/{game['id']}/moves", json={"vertex": empty_vertex(game)}).json()
        gid = game["id"]
    with TestClient(create_app(db, 1, executor="thread")) as second:
        after = second.get(f"/api/games/{gid}").json()
        assert after == before
        r = second.post(f"/api/games/{gid}/moves", json={"vertex": empty_vertex(before)})
        assert r.status_code == 200 and len(r.json()["moves"]) == len(before["moves"]) + 2


# ---- SGF and reviews --------------------------------------------------------------


def test_sgf_download_loads_back_as_a_review(client: TestClient) -> None:
    gid = new_game(client)["id"]
    game = client.post(f"/api/games/{gid}/moves", json={"vertex": "E5"}).json()
    r = client.get(f"/api/games/{gid}/sgf")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-go-sgf")
    assert f'filename="fuseki-{gid}.sgf"' in r.headers["content-disposition"]
    record = read_sgf(r.content)
    assert [m.move.gtp(9) for m in record.moves] == [m["vertex"] for m in game["moves"]]
    review = client.post("/api/reviews", files={"file": ("game.sgf", r.content, "application/x-go-sgf")})
    assert review.status_code == 201 and review.json()["moves"] == game["moves"]


def test_review_positions(client: TestClient) -> None:
    r = client.post("/api/reviews", json={"sgf": SHORT_SGF})
    assert r.status_code == 201
    review = r.json()
    assert (review["size"], review["komi"], review["count"]) == (9, 7.5, 4)
    assert review["moves"][0] == {"color": "black", "vertex": "E5"}
    rid = review["id"]
    start = client.get(f"/api/reviews/{rid}/positions/0").json()
    assert start == {"n": 0, "board": ["." * 9] * 9, "to_move": "black", "last_move": None,
                     "captures": {"black": 0, "white": 0}, "comment": "start"}
    two = client.get(f"/api/reviews/{rid}/positions/2").json()
    assert two["last_move"] == "C7" and two["comment"] == "a comment" and two["board"][2][2] == "O"
    assert client.get(f"/api/reviews/{rid}/positions/5").status_code == 404
    assert client.get(f"/api/reviews/{rid}/positions/-1").status_code == 404
    assert client.get(f"/api/reviews/{rid}/positions/x").status_code == 422


def test_malformed_sgf_gets_422(client: TestClient) -> None:
    cases = [
        ("hello", "not an SGF file"),
        ("(;GM[1]SZ[9];B[ee] %% ;W[cc])", "malformed SGF file: cannot read"),
        ("(;GM[3]SZ[9])", "not a Go game"),
        ("(;GM[1]SZ[9];B[ee];W[ee])", "move 2 (W E5) is illegal: occupied"),
        ("(;GM[1]SZ[25];B[aa])", "board size 25 is not supported here"),
    ]
    for text, needle in cases:
        for r in (
            client.post("/api/reviews", json={"sgf": text}),
            client.post("/api/reviews", files={"file": ("x.sgf", text.encode(), "application/octet-stream")}),
        ):
            assert r.status_code == 422 and needle in r.json()["detail"], (text, r.text)
    assert client.post("/api/reviews", json={"nothing": 1}).status_code == 422
    assert client.post("/api/reviews", files={"other": ("x.sgf", b"(;)", "text/plain")}).status_code == 422
    assert healthy(client)


def test_a_review_of_a_server_file_says_what_was_repaired(client: TestClient) -> None:
    # Fox's form: AP twice, komi x100, the handicap stones in the second node, no closing ')'.
    fox = "(;GM[1]FF[4]SZ[9]KM[650]HA[2]AP[GNU Go:3.8]AP[foxwq];AB[gc][cg];W[ee];B[dd];W[ff];W[fd]"
    r = client.post("/api/reviews", json={"sgf": fox})
    assert r.status_code == 201, r.text
    review = r.json()
    assert review["komi"] == 6.5 and review["handicap"] == 2 and review["count"] == 4
    assert [w.split(":")[0] for w in review["warnings"]] == [
        "AP is given twice in the root node (AP[GNU Go",
        "the file ends before the game tree is closed (1 ')' missing)",
        "KM[650] is komi times 100",
        "setup (AB) in a node before the first move",
        "move 4 (W F6) follows a white move",
    ]
    start = client.get(f"/api/reviews/{review['id']}/positions/0").json()
    assert start["board"][2][6] == "X" and start["board"][6][2] == "X" and start["to_move"] == "white"
    last = client.get(f"/api/reviews/{review['id']}/positions/4").json()
    assert last["board"][3][5] == "O" and last["to_move"] == "black"
    assert client.get(f"/api/reviews/{review['id']}").json()["warnings"] == review["warnings"]
    assert healthy(client)


def test_oversized_upload_gets_413(client: TestClient) -> None:
    big = "(;GM[1]SZ[9]C[" + "x" * MAX_UPLOAD + "])"
    r = client.post("/api/reviews", files={"file": ("big.sgf", big.encode(), "application/x-go-sgf")})
    assert r.status_code == 413 and "too large" in r.json()["detail"]
    r = client.post("/api/reviews", json={"sgf": big})
    assert r.status_code == 413
    # Just under the limit is accepted.
    ok = "(;GM[1]SZ[9]C[" + "x" * (MAX_UPLOAD - 100) + "])"
    assert client.post("/api/reviews", files={"file": ("ok.sgf", ok.encode(), "text/plain")}).status_code == 201
    assert healthy(client)


# ---- analysis ------------------------------------------------------------------------


def test_analyze_returns_top_moves(client: TestClient) -> None:
    rid = client.post("/api/reviews", json={"sgf": SHORT_SGF}).json()["id"]
    r = client.post("/api/analyze", json={"review": rid, "n": 2, "seconds": 0.3})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["to_move"] == "black"
    assert 1 <= len(out["top"]) <= 10
    visits = [m["visits"] for m in out["top"]]
    assert out["winrate"] == out["top"][0]["winrate"]  # the win rate of the move it would play, the most visited
    assert sum(visits) <= out["playouts"]  # every playout passes one root child; the top ones are a part
    assert visits == sorted(visits, reverse=True) and visits[0] > 0
    assert all(re.fullmatch(r"[A-HJ][1-9]|pass", m["vertex"]) for m in out["top"])
    assert out["top"][0]["vertex"] not in ("E5", "C7")  # occupied points are never suggested

    gid = new_game(client)["id"]
    r = client.post("/api/analyze", json={"game": gid, "seconds": 0.2})
    assert r.status_code == 200 and r.json()["to_move"] == "black"
    for body, status in (
        ({"game": gid, "seconds": 60}, 422),
        ({"game": gid, "seconds": 0}, 422),
        ({"review": rid, "n": 9}, 404),
        ({}, 422),
    ):
        assert client.post("/api/analyze", json=body).status_code == status, body


def test_winrate_graph(client: TestClient) -> None:
    rid = client.post("/api/reviews", json={"sgf": SHORT_SGF}).json()["id"]
    r = client.post(f"/api/reviews/{rid}/winrates", json={"playouts": 100})
    assert r.status_code == 200, r.text
    out = r.json()
    rates = out["winrates"]
    assert len(rates) == 5 and all(0.0 <= w <= 1.0 for w in rates)
    assert out["playouts"] == out["requested_playouts"] == 100 and out["capped"] is False
    for m in out["mistakes"]:
        before, after = rates[m["n"] - 1], rates[m["n"]]
        assert m["drop"] == pytest.approx(before - after if m["color"] == "black" else after - before, abs=1e-3)
    # A long game's graph is capped: the reply says so.
    moves = "".join(f";{'BW'[i % 2]}[{'abcdefghi'[i % 9]}{'abcdefghi'[i // 9]}]" for i in range(30))
    long = client.post("/api/reviews", json={"sgf": f"(;GM[1]SZ[19]KM[7.5]{moves})"}).json()["id"]
    capped = client.post(f"/api/reviews/{long}/winrates", json={"playouts": 5000}).json()
    assert capped["capped"] is True and capped["playouts"] == 100_000 // 31 < 5000
    assert client.post(f"/api/reviews/{rid}/winrates", json={"playouts": 10**9}).status_code == 422


# ---- pages ------------------------------------------------------------------------------


def test_index_page_and_bots(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    bots = client.get("/api/bots").json()
    assert {b["name"] for b in bots["bots"]} >= {"random", "mcts"}
    assert bots["limits"]["max_size"] == 19


def test_static_files_are_served_at_the_root_and_under_static(tmp_path: Path) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>board</title>")
    (static / "app.js").write_text("console.log(1);")
    with TestClient(create_app(tmp_path / "db.sqlite", 1, executor="thread", static_dir=static)) as c:
        assert "board" in c.get("/").text
        assert c.get("/app.js").text == c.get("/static/app.js").text == "console.log(1);"
        assert c.get("/missing.js").status_code == 404


def test_a_restarted_game_with_the_bot_to_move_gets_its_move(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    settings = {"size": 9, "komi": 7.5, "handicap": 0, "rules": "chinese", "human": "white", "bot": "random",
                "bot_options": {}}
    gid = store.create_game(settings, [])  # as if the server stopped while the bot was thinking
    assert client.get(f"/api/games/{gid}").json()["status"] in ("bot_thinking", "your_turn")
    for _ in range(100):
        game = client.get(f"/api/games/{gid}").json()
        if game["status"] == "your_turn":
            break
        time.sleep(0.05)
    assert game["status"] == "your_turn" and len(game["moves"]) == 1


def test_placeholder_page_without_static_files(tmp_path: Path) -> None:
    empty = tmp_path / "static"
    empty.mkdir()
    with TestClient(create_app(tmp_path / "db.sqlite", 1, executor="thread", static_dir=empty)) as c:
        r = c.get("/")
        assert r.status_code == 200 and "/api/" in r.text


def test_mcts_bot_replies_within_its_budget(client: TestClient) -> None:
    game = new_game(client, bot="mcts", bot_options={"playouts": 300}, human="white")
    assert len(game["moves"]) == 1 and game["status"] == "your_turn"
    # The bot's first move may be any point (C3 is a common one), so reply on a point still empty.
    game = client.post(f"/api/games/{game['id']}/moves", json={"vertex": empty_vertex(game)}).json()
    assert len(game["moves"]) == 3 and game["moves"][2]["color"] == "black"
