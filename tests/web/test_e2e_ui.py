"""The web page as a Go player meets it, in a real headless Chromium (issue 22).

Each test drives the page the way a player does (clicks, keys, reloads, a
second window, a phone-sized screen) and checks what is drawn against the
API: the scoring phase, the game list, the review address, quick key
presses, analysis with its heat map while stepping, the 390×844 layout, two
windows on one game, the defects listed in the issue, move numbers, the
clock and the stone sound.

``FUSEKI_SCREENSHOTS=1`` also saves the screenshots of docs/web/ (1280×900
and 390×844).
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

#: A 7x7 game, both walls alive, a dead White stone (B3) in Black's area and a dead Black one (F3) in
#: White's. Black is the human (who passed first); the last move is the bot's pass: one more pass counts.
WALLS = ["pass", "E7", "C7", "E6", "C6", "E5", "C5", "E4", "C4", "E3", "C3", "E2", "C2", "E1", "C1", "B3", "F3",
         "pass"]
#: A 40-move 9x9 game for stepping.
LONG_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]" + "".join(
    f";{'BW'[i % 2]}[{'abcdefghi'[(i * 4) % 9]}{'abcdefghi'[(i * 4) // 9 % 9]}]" for i in range(40)
) + ")"
COLUMNS = "ABCDEFGHJKLMNOPQRST"
DATA = Path(__file__).parent / "data"
SHORT_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]PB[alice]PW[bob];B[ee];W[gc];B[cg];W[gg];B[cc];W[ec])"


# ---- helpers ---------------------------------------------------------------------


def call(base: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


def wait(driver: Any, cond: Any, timeout: float = 30, what: str = "") -> Any:
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(cond, what)


def js_errors(driver: Any) -> list[str]:
    try:
        logs = driver.get_log("browser")
    except Exception:  # noqa: BLE001 - not every driver keeps logs
        return []
    return [e["message"] for e in logs if e.get("level") == "SEVERE" and "Failed to load resource" not in e["message"]]


def open_page(driver: Any, base: str, hash_: str = "") -> None:
    driver.get("about:blank")
    driver.get(f"{base}/{hash_}")
    wait(driver, lambda d: d.execute_script("return !!window.fuseki"), what="the page's script to start")


def play_state(driver: Any) -> dict[str, str]:
    return driver.execute_script(
        "const s = document.getElementById('play');"
        "return {moves: s.dataset.moves, busy: s.dataset.busy, status: s.dataset.status || '',"
        " game: s.dataset.game || '', revision: s.dataset.revision || '',"
        " message: document.getElementById('play-message').textContent};"
    )


def settled(driver: Any) -> dict[str, str] | bool:
    s = play_state(driver)
    return s if s["busy"] == "false" and s["status"] != "bot_thinking" and s["game"] else False


def click_point(driver: Any, vertex: str, board: str = "play-board") -> None:
    driver.find_element(By.CSS_SELECTOR, f'#{board} .pt[data-vertex="{vertex}"]').click()


def store_game(live_server: Any, moves: list[str], **settings: Any) -> str:
    body = {"size": 7, "komi": 7.5, "handicap": 0, "rules": "chinese", "human": "black", "bot": "random",
            "bot_options": {}, **settings}
    return live_server.app.state.store.create_game(body, moves)


def rect(driver: Any, css: str) -> dict[str, float]:
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height};",
        css,
    )


def open_form(driver: Any) -> None:
    if not driver.find_element(By.ID, "new-game-box").get_attribute("open"):
        driver.find_element(By.CSS_SELECTOR, "#new-game-box summary").click()


def set_value(driver: Any, element_id: str, value: str) -> None:
    el = driver.find_element(By.ID, element_id)
    el.clear()
    el.send_keys(value)


def new_game_in_page(driver: Any, **fields: str) -> dict[str, str]:
    open_form(driver)
    before = play_state(driver)["game"]
    for key, value in fields.items():
        el = driver.find_element(By.ID, f"opt-{key}")
        if el.tag_name == "select":
            driver.find_element(By.CSS_SELECTOR, f'#opt-{key} option[value="{value}"]').click()
        else:
            set_value(driver, f"opt-{key}", value)
    driver.find_element(By.ID, "btn-new").click()
    return wait(driver, lambda d: settled(d) if play_state(d)["game"] != before else False, what="a new game")


def phone(driver: Any, on: bool) -> None:
    if on:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
        )
    else:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# ---- 1. the scoring phase ------------------------------------------------------------


def test_scoring_phase_mark_a_group_dead_then_accept(live_server: Any, browser: Any, screenshot_dir: Path | None) -> None:
    d = browser
    gid = store_game(live_server, WALLS)
    open_page(d, live_server, f"#game={gid}")
    wait(d, lambda d: play_state(d)["game"] == gid and settled(d), what="the stored game")
    assert "The bot passed" in d.find_element(By.ID, "play-status").text
    d.find_element(By.ID, "btn-pass").click()
    wait(d, lambda d: play_state(d)["status"] == "scoring" and settled(d), what="the scoring phase")
    assert d.find_element(By.ID, "scoring").is_displayed()
    assert d.find_element(By.ID, "btn-pass").get_attribute("disabled")
    game = call(live_server, "GET", f"/api/games/{gid}")
    line = d.find_element(By.ID, "scoring-line").text
    assert "Black 21, White 28.5" in line and line.endswith("W+7.5"), line
    dead = {e.get_attribute("data-vertex") for e in d.find_elements(By.CSS_SELECTOR, "#play-board .dead")}
    assert dead == set(game["score"]["dead"]) == {"B3", "F3"}
    assert len(d.find_elements(By.CSS_SELECTOR, "#play-board .territory")) == 28
    assert len(d.find_elements(By.CSS_SELECTOR, "#play-board .dame")) == 7
    # A click on F3 brings the Black stone back to life: the count changes and says the border is open.
    rev = play_state(d)["revision"]
    click_point(d, "F3")
    wait(d, lambda d: play_state(d)["revision"] != rev and settled(d), what="the toggled count")
    line2 = d.find_element(By.ID, "scoring-line").text
    assert line2 != line and not line2.endswith("W+7.5"), line2
    assert {e.get_attribute("data-vertex") for e in d.find_elements(By.CSS_SELECTOR, "#play-board .dead")} == {"B3"}
    assert "The border is open" in d.find_element(By.ID, "scoring-note").text
    assert d.find_elements(By.CSS_SELECTOR, "#play-board .open")
    # And dead again; then accept.
    rev = play_state(d)["revision"]
    click_point(d, "F3")
    wait(d, lambda d: play_state(d)["revision"] != rev and settled(d), what="the count back")
    assert d.find_element(By.ID, "scoring-line").text == line
    if screenshot_dir is not None:
        d.save_screenshot(str(screenshot_dir / "scoring.png"))
    d.find_element(By.ID, "btn-accept").click()
    wait(d, lambda d: play_state(d)["status"] == "over", what="the accepted count")
    assert not d.find_element(By.ID, "scoring").is_displayed()
    assert "W+7.5" in d.find_element(By.ID, "play-score").text
    assert d.find_element(By.ID, "play-status").text == "Game over: White wins by 7.5."
    assert call(live_server, "GET", f"/api/games/{gid}")["result"] == "W+7.5"
    assert not js_errors(d)


def test_scoring_phase_resume_plays_on(live_server: Any, browser: Any) -> None:
    d = browser
    gid = store_game(live_server, WALLS)
    open_page(d, live_server, f"#game={gid}")
    wait(d, lambda d: play_state(d)["game"] == gid and settled(d))
    d.find_element(By.ID, "btn-pass").click()
    wait(d, lambda d: play_state(d)["status"] == "scoring" and settled(d))
    d.find_element(By.ID, "btn-resume").click()
    # The passes are taken back; the bot passed first, so it moves again, then it is the player's turn.
    wait(d, lambda d: play_state(d)["status"] == "your_turn" and settled(d), what="play resumed")
    assert not d.find_element(By.ID, "scoring").is_displayed()
    assert not d.find_elements(By.CSS_SELECTOR, "#play-board .dead")
    game = call(live_server, "GET", f"/api/games/{gid}")
    assert [m["vertex"] for m in game["moves"]][: len(WALLS) - 1] == WALLS[:-1] and not game["over"]


def test_an_early_pass_on_an_almost_empty_board_does_not_end_the_game(live_server: Any, browser: Any) -> None:
    d = browser
    open_page(d, live_server)
    new_game_in_page(d, size="9", bot="random", color="black")
    click_point(d, "E5")
    wait(d, lambda d: play_state(d)["moves"] == "2" and settled(d), what="the bot's reply")
    d.find_element(By.ID, "btn-pass").click()
    wait(d, lambda d: play_state(d)["moves"] == "4" and settled(d), what="the bot's answer to the pass")
    state = play_state(d)
    assert state["status"] == "your_turn", state  # the bot played on: no count, no W+7.5
    assert not d.find_element(By.ID, "play-score").is_displayed()
    assert "W+7.5" not in d.find_element(By.TAG_NAME, "body").text


def test_under_territory_rules_an_open_border_is_named(live_server: Any, browser: Any) -> None:
    d = browser
    # Walls as in WALLS, Japanese rules, and Black's wall broken at C5: C5 and D5 are a gap nobody closed.
    moves = ["pass", "E7", "C7", "E6", "C6", "E5", "pass", "E4", "C4", "E3", "C3", "E2", "C2", "E1", "C1", "pass"]
    gid = store_game(live_server, moves, rules="japanese", komi=6.5)
    open_page(d, live_server, f"#game={gid}")
    wait(d, lambda d: play_state(d)["game"] == gid and settled(d))
    d.find_element(By.ID, "btn-pass").click()
    wait(d, lambda d: play_state(d)["status"] == "scoring" and settled(d))
    note = d.find_element(By.ID, "scoring-note").text
    assert "The border is open at" in note and "territory" in note, note
    game = call(live_server, "GET", f"/api/games/{gid}")
    opened = {e.get_attribute("data-vertex") for e in d.find_elements(By.CSS_SELECTOR, "#play-board .open")}
    assert opened == set(game["score"]["open"]) and {"C5", "D5"} <= opened
    # Behind the gap, the territories still count.
    assert game["score"]["territory"]["black"] and game["score"]["territory"]["white"]


# ---- 2. the game list and the address -------------------------------------------------


def test_game_list_resume_review_reload_and_hashchange(live_server: Any, browser: Any) -> None:
    d = browser
    a = call(live_server, "POST", "/api/games", {"size": 9, "bot": "random"})
    a = call(live_server, "POST", f"/api/games/{a['id']}/moves", {"vertex": "E5"})
    b = call(live_server, "POST", "/api/games", {"size": 13, "bot": "uniform", "human": "white"})
    open_page(d, live_server, "#games")
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, f'#games-table tr[data-game="{a["id"]}"]'), what="the list")
    listed = call(live_server, "GET", "/api/games?limit=200")
    rows = d.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
    assert len(rows) == min(listed["total"], 25)
    row_b = d.find_element(By.CSS_SELECTOR, f'#games-table tr[data-game="{b["id"]}"]')
    assert row_b.find_element(By.CSS_SELECTOR, ".size").text == "13×13"
    assert row_b.find_element(By.CSS_SELECTOR, ".bot").text == "uniform"
    assert row_b.find_element(By.CSS_SELECTOR, ".moves").text == "1"
    assert row_b.find_element(By.CSS_SELECTOR, ".result").text == "in play"
    assert rows[0].get_attribute("data-game") == b["id"]  # the most recent first
    # Resume: the game in Play.
    d.find_element(By.CSS_SELECTOR, f'#games-table tr[data-game="{a["id"]}"] a.resume').click()
    wait(d, lambda d: play_state(d)["game"] == a["id"] and settled(d), what="the resumed game")
    assert d.find_element(By.ID, "play").is_displayed() and d.current_url.endswith(f"#game={a['id']}")
    assert play_state(d)["moves"] == "2"
    # Review: the game in Review, at its own address.
    d.find_element(By.ID, "tab-games").click()
    wait(d, lambda d: d.find_element(By.ID, "games").is_displayed())
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, f'#games-table tr[data-game="{a["id"]}"] a.review'))
    d.find_element(By.CSS_SELECTOR, f'#games-table tr[data-game="{a["id"]}"] a.review').click()
    rid = f"game-{a['id']}"
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-review") == rid, what="the review")
    assert d.current_url.endswith(f"#review={rid}")
    assert d.find_element(By.ID, "review").get_attribute("data-count") == "2"
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-n") == "2")
    # A reload keeps the review.
    d.refresh()
    wait(d, lambda d: d.execute_script("return !!window.fuseki"))
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-review") == rid, what="the review after reload")
    assert d.find_element(By.ID, "review").is_displayed()
    assert d.find_element(By.ID, "review-pos").text.startswith("Move 0 / 2")
    # An uploaded SGF has its address too.
    up = call(live_server, "POST", "/api/reviews", {"sgf": SHORT_SGF})
    d.execute_script("location.hash = arguments[0]", f"#review={up['id']}")
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-review") == up["id"], what="hashchange")
    # The page follows hashchange to a game, and to the list.
    d.execute_script("location.hash = arguments[0]", f"#game={b['id']}")
    wait(d, lambda d: play_state(d)["game"] == b["id"] and settled(d), what="hashchange to a game")
    assert d.find_element(By.ID, "play").is_displayed()
    d.back()
    wait(d, lambda d: d.find_element(By.ID, "review").is_displayed(), what="back to the review")
    assert not js_errors(d)


# ---- 3. reviewing: quick keys, analysis as you step, the graph ----------------------------


def load_sgf(driver: Any, sgf: str) -> str:
    driver.find_element(By.ID, "tab-review").click()
    wait(driver, lambda d: d.find_element(By.ID, "review").is_displayed())
    if not driver.find_element(By.ID, "load-box").get_attribute("open"):
        driver.find_element(By.CSS_SELECTOR, "#load-box summary").click()
    box = driver.find_element(By.ID, "sgf-text")
    box.clear()
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));", box, sgf)
    before = driver.find_element(By.ID, "review").get_attribute("data-review")
    driver.find_element(By.ID, "btn-load").click()
    wait(driver, lambda d: d.find_element(By.ID, "review").get_attribute("data-review") not in (None, "", before))
    return driver.find_element(By.ID, "review").get_attribute("data-review")


def n_of(driver: Any) -> int:
    return int(driver.find_element(By.ID, "review").get_attribute("data-n"))


def test_thirty_quick_key_presses_reach_move_30(live_server: Any, browser: Any) -> None:
    d = browser
    open_page(d, live_server)
    load_sgf(d, LONG_SGF)
    wait(d, lambda d: n_of(d) == 0)
    d.find_element(By.TAG_NAME, "body").send_keys(*([Keys.ARROW_RIGHT] * 30))
    wait(d, lambda d: n_of(d) == 30, what="move 30")
    assert d.find_element(By.ID, "review-pos").text.startswith("Move 30 / 40")
    d.find_element(By.TAG_NAME, "body").send_keys(*([Keys.ARROW_LEFT] * 7))
    wait(d, lambda d: n_of(d) == 23, what="move 23")
    for _ in range(5):
        d.find_element(By.ID, "nav-next").click()
    wait(d, lambda d: n_of(d) == 28, what="five clicks on >")
    assert not js_errors(d)


def test_stepping_shows_top_moves_and_ownership_and_cancels_old_analyses(
    live_server: Any, browser: Any, screenshot_dir: Path | None
) -> None:
    d = browser
    srv = live_server.app.state.server
    open_page(d, live_server)
    load_sgf(d, LONG_SGF)
    set_value(d, "analyze-seconds", "2")
    body = d.find_element(By.TAG_NAME, "body")
    body.send_keys(*([Keys.ARROW_RIGHT] * 6))
    wait(d, lambda d: n_of(d) == 6)
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-analyzed") == "6", timeout=60,
         what="the analysis of move 6")
    marks = d.find_elements(By.CSS_SELECTOR, "#review-board .analysis")
    heat = d.find_elements(By.CSS_SELECTOR, "#review-board .own")
    assert marks and heat, "top moves and the heat map are drawn"
    assert {e.get_attribute("class").split()[1] for e in heat} <= {"black", "white"}
    stones = {e.get_attribute("data-vertex"): e.get_attribute("class") for e in
              d.find_elements(By.CSS_SELECTOR, "#review-board .stone")}
    own = {e.get_attribute("data-vertex"): float(e.get_attribute("data-own")) for e in heat}
    # Most stones stand on a square of their own colour.
    agree = sum(1 for v, cls in stones.items() if v in own and (own[v] > 0) == ("black" in cls))
    assert agree >= len(stones) // 2
    # Step on while analyses run: each old one is cancelled, and the last position's analysis is shown.
    cancelled = srv.analyses.cancelled
    for _ in range(4):
        body.send_keys(Keys.ARROW_RIGHT)
        time.sleep(0.4)  # long enough for each analysis to start
    wait(d, lambda d: n_of(d) == 10)
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-analyzed") == "10", timeout=60)
    deadline = time.monotonic() + 10
    while srv.analyses.cancelled < cancelled + 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert srv.analyses.cancelled >= cancelled + 2
    assert not srv.analyses.jobs  # nothing queued up behind
    # Ownership can be hidden; analysis can be turned off.
    d.find_element(By.ID, "show-ownership").click()
    assert not d.find_elements(By.CSS_SELECTOR, "#review-board .own")
    d.find_element(By.ID, "show-ownership").click()
    assert d.find_elements(By.CSS_SELECTOR, "#review-board .own")
    # The graph marks the biggest drops, and a click on one jumps there.
    set_value(d, "graph-playouts", "100")
    d.find_element(By.ID, "btn-graph").click()
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#winrate-graph .winrate-line"), timeout=90, what="the graph")
    rid = d.find_element(By.ID, "review").get_attribute("data-review")
    marked = sorted(int(e.get_attribute("data-n")) for e in d.find_elements(By.CSS_SELECTOR, "#winrate-graph circle.mistake"))
    listed = [int(e.get_attribute("data-n")) for e in d.find_elements(By.CSS_SELECTOR, "#mistakes .mistake-link")]
    assert marked and sorted(listed) == marked
    assert "100 playouts a position" in d.find_element(By.ID, "graph-note").text
    d.find_element(By.CSS_SELECTOR, f'#mistakes .mistake-link[data-n="{listed[-1]}"]').click()
    wait(d, lambda d: n_of(d) == listed[-1], what="a click on a mistake")
    assert rid
    d.find_element(By.ID, "analyze-live").click()  # off: stops the running analysis
    assert not js_errors(d)
    if screenshot_dir is not None:  # a real game (GNU Go against fuseki's MCTS), at its biggest mistake
        d.find_element(By.ID, "analyze-live").click()
        load_sgf(d, (DATA / "gnugo_vs_fuseki_9x9.sgf").read_text())
        set_value(d, "graph-playouts", "300")
        d.find_element(By.ID, "btn-graph").click()
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#mistakes .mistake-link"), timeout=120)
        first = d.find_element(By.CSS_SELECTOR, "#mistakes .mistake-link").get_attribute("data-n")
        d.find_element(By.CSS_SELECTOR, "#mistakes .mistake-link").click()
        wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-analyzed") == first, timeout=60)
        d.execute_script("window.scrollTo(0, 0)")
        d.save_screenshot(str(screenshot_dir / "review.png"))


# ---- 4. the phone layout ----------------------------------------------------------------


def test_phone_layout_390x844(live_server: Any, browser: Any, screenshot_dir: Path | None) -> None:
    d = browser
    phone(d, True)
    try:
        open_page(d, live_server)
        assert d.execute_script("return [innerWidth, innerHeight]") == [390, 844]
        new_game_in_page(d, size="19", bot="random", color="black")
        click_point(d, "D4")
        wait(d, lambda d: play_state(d)["moves"] == "2" and settled(d))
        d.execute_script("window.scrollTo(0, 0)")
        width = d.execute_script("return innerWidth")
        height = d.execute_script("return innerHeight")
        # No sideways scrolling.
        assert d.execute_script("return document.documentElement.scrollWidth") <= width
        # The board fills the width.
        board = rect(d, "#play-board svg")
        assert board["left"] >= 0 and board["right"] <= width and board["width"] >= 0.97 * width, board
        # Pass, Undo, Resign and the status line are in view without scrolling.
        for css in ("#btn-pass", "#btn-undo", "#btn-resign", "#play-status"):
            r = rect(d, css)
            assert r["top"] >= 0 and r["bottom"] <= height and r["left"] >= 0 and r["right"] <= width, (css, r)
            if css.startswith("#btn"):  # a finger-sized target
                assert r["height"] >= 32 and r["width"] >= 60, (css, r)
        # 19x19 points: each click target is a whole cell, as wide as the grid allows.
        cell = rect(d, '#play-board .pt[data-vertex="K10"]')
        assert cell["width"] >= 18 and abs(cell["width"] - board["width"] * 40 / (2 * 46 + 18 * 40)) < 0.5, cell
        # "Tap twice to play": the first tap shows the stone, the second plays it.
        board_now = call(live_server, "GET", f"/api/games/{play_state(d)['game']}")["board"]
        target = next(v for v in ("Q16", "Q4", "D16", "K10") if board_now[19 - int(v[1:])][COLUMNS.index(v[0])] == ".")
        d.find_element(By.ID, "opt-confirm").click()
        d.execute_script("window.scrollTo(0, 0)")
        click_point(d, target)
        ghost = d.find_element(By.CSS_SELECTOR, "#play-board .ghost")
        assert "candidate" in ghost.get_attribute("class") and ghost.get_attribute("data-vertex") == target
        assert play_state(d)["moves"] == "2"
        click_point(d, target)
        wait(d, lambda d: play_state(d)["moves"] == "4" and settled(d), what="the confirmed move")
        d.find_element(By.ID, "opt-confirm").click()
        d.execute_script("window.scrollTo(0, 0)")
        if screenshot_dir is not None:
            d.save_screenshot(str(screenshot_dir / "play-phone.png"))
        # The other tabs do not scroll sideways either.
        for tab in ("games", "review"):
            d.find_element(By.ID, f"tab-{tab}").click()
            wait(d, lambda d, tab=tab: d.find_element(By.ID, tab).is_displayed())
            time.sleep(0.3)
            assert d.execute_script("return document.documentElement.scrollWidth") <= width, tab
        load_sgf(d, SHORT_SGF)
        d.execute_script("window.scrollTo(0, 0)")
        for css in ("#nav-prev", "#nav-next", "#review-pos"):
            r = rect(d, css)
            assert r["top"] >= 0 and r["bottom"] <= height and r["right"] <= width, (css, r)
        assert d.execute_script("return document.documentElement.scrollWidth") <= width
        if screenshot_dir is not None:
            d.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
            wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-analyzed") == "6", timeout=60)
            d.save_screenshot(str(screenshot_dir / "review-phone.png"))
    finally:
        phone(d, False)


# ---- two windows on one game ----------------------------------------------------------------


def test_two_windows_on_one_game_stay_in_step(live_server: Any, browser: Any) -> None:
    d = browser
    game = call(live_server, "POST", "/api/games", {"size": 9, "bot": "random", "bot_options": {"seed": 4}})
    gid = game["id"]
    open_page(d, live_server, f"#game={gid}")
    wait(d, lambda d: play_state(d)["game"] == gid and settled(d))
    first = d.current_window_handle
    d.switch_to.new_window("window")
    second = d.current_window_handle
    open_page(d, live_server, f"#game={gid}")
    wait(d, lambda d: play_state(d)["game"] == gid and settled(d))
    # Window B stops reading the game (as a stale window would), window A plays.
    d.execute_script("window.fuseki.play.syncing = true")
    d.switch_to.window(first)
    click_point(d, "E5")
    wait(d, lambda d: play_state(d)["moves"] == "2" and settled(d))
    in_a = call(live_server, "GET", f"/api/games/{gid}")
    # B clicks E5, empty on its screen: refused, and B shows the game as it stands at once.
    d.switch_to.window(second)
    assert not d.find_elements(By.CSS_SELECTOR, '#play-board .stone[data-vertex="E5"]')
    click_point(d, "E5")
    wait(d, lambda d: play_state(d)["moves"] == "2" and settled(d), what="B resynchronised")
    assert d.find_elements(By.CSS_SELECTOR, '#play-board .stone.black[data-vertex="E5"]')
    assert "another window" in play_state(d)["message"]
    # B goes stale again while A plays on; B's Undo takes back nothing it never showed.
    d.execute_script("window.fuseki.play.syncing = true")
    d.switch_to.window(first)
    free = next(v for v in ("C3", "G7", "C7", "G3", "E3") if in_a["board"][9 - int(v[1])]["ABCDEFGHJ".index(v[0])] == "."
                and v != in_a["moves"][1]["vertex"])
    click_point(d, free)
    wait(d, lambda d: play_state(d)["moves"] == "4" and settled(d))
    d.switch_to.window(second)
    d.find_element(By.ID, "btn-undo").click()
    wait(d, lambda d: play_state(d)["moves"] == "4" and settled(d), what="B's refused undo")
    assert len(call(live_server, "GET", f"/api/games/{gid}")["moves"]) == 4
    # Left alone, B follows A by itself.
    d.execute_script("window.fuseki.play.syncing = false")
    d.switch_to.window(first)
    d.find_element(By.ID, "btn-undo").click()
    wait(d, lambda d: play_state(d)["moves"] == "2" and settled(d))
    d.switch_to.window(second)
    wait(d, lambda d: play_state(d)["moves"] == "2", timeout=15, what="B following A's undo")
    d.close()
    d.switch_to.window(first)


# ---- 5. the defects ---------------------------------------------------------------------------


def test_defects_of_the_first_version(live_server: Any, browser: Any, tmp_path: Path) -> None:
    d = browser
    open_page(d, live_server)
    # No favicon: now an icon, linked and served.
    href = d.execute_script("return document.querySelector('link[rel=icon]').href")
    with urllib.request.urlopen(href, timeout=30) as resp:
        assert resp.status == 200 and b"<svg" in resp.read()
    # Komi follows the rules and the handicap until the player changes it.
    open_form(d)
    d.find_element(By.CSS_SELECTOR, '#opt-rules option[value="japanese"]').click()
    assert d.find_element(By.ID, "opt-komi").get_attribute("value") == "6.5"
    set_value(d, "opt-handicap", "3")
    d.find_element(By.ID, "opt-handicap").send_keys(Keys.TAB)
    assert d.find_element(By.ID, "opt-komi").get_attribute("value") == "0.5"
    set_value(d, "opt-handicap", "0")
    d.find_element(By.ID, "opt-handicap").send_keys(Keys.TAB)
    assert d.find_element(By.ID, "opt-komi").get_attribute("value") == "6.5"
    # A hidden invalid field does not stop a new game; a visible one says why.
    d.execute_script("document.getElementById('opt-seconds').value = 'abc'")
    state = new_game_in_page(d, bot="uniform", color="white")
    game = call(live_server, "GET", f"/api/games/{state['game']}")
    assert (game["komi"], game["rules"], game["bot"]) == (6.5, "japanese", "uniform")
    info = d.find_element(By.ID, "play-info").text
    assert "You: White vs uniform" in info and "komi 6.5" in info and "japanese rules" in info, info
    # Undo is off when the player has no move to take back (the bot's first move is not theirs).
    assert play_state(d)["moves"] == "1" and d.find_element(By.ID, "btn-undo").get_attribute("disabled")
    # After a reload the form shows this game's settings, not another bot.
    d.refresh()
    wait(d, lambda d: d.execute_script("return !!window.fuseki") and play_state(d)["game"] == state["game"] and settled(d))
    wait(d, lambda d: d.find_element(By.ID, "opt-bot").get_attribute("value") == "uniform")
    assert d.find_element(By.ID, "opt-color").get_attribute("value") == "white"
    assert d.find_element(By.ID, "opt-komi").get_attribute("value") == "6.5"
    open_form(d)
    set_value(d, "opt-size", "25")
    d.find_element(By.ID, "btn-new").click()
    assert d.find_element(By.ID, "play-message").text == "Not started: Size must be from 5 to 19, not 25."
    assert play_state(d)["game"] == state["game"]
    set_value(d, "opt-size", "9")
    # The illegal-move message says it once.
    bot_stone = game["moves"][0]["vertex"]
    click_point(d, bot_stone)
    wait(d, lambda d: play_state(d)["message"])
    assert play_state(d)["message"] == f"Illegal move {bot_stone}: occupied"
    # The last-move ring stays after a resignation.
    others = [v for v in ("C3", "G7", "C7", "G3") if v != bot_stone]
    click_point(d, others[0])
    wait(d, lambda d: play_state(d)["moves"] == "3" and settled(d))
    last = d.find_element(By.CSS_SELECTOR, "#play-board .last-move").get_attribute("data-vertex")
    d.find_element(By.ID, "btn-resign").click()
    d.switch_to.alert.accept()
    wait(d, lambda d: play_state(d)["status"] == "over")
    assert d.find_element(By.CSS_SELECTOR, "#play-board .last-move").get_attribute("data-vertex") == last
    # Review: a bad file, then pasted text: the text is used, the file input cleared, the old error gone.
    d.find_element(By.ID, "tab-review").click()
    wait(d, lambda d: d.find_element(By.ID, "review").is_displayed())
    if not d.find_element(By.ID, "load-box").get_attribute("open"):
        d.find_element(By.CSS_SELECTOR, "#load-box summary").click()
    bad = tmp_path / "broken.sgf"
    bad.write_text("this is not SGF")
    d.find_element(By.ID, "sgf-file").send_keys(str(bad))
    assert d.find_element(By.ID, "sgf-source").text == "Load will read the file broken.sgf."
    d.find_element(By.ID, "btn-load").click()
    wait(d, lambda d: d.find_element(By.ID, "review-message").text)
    assert d.find_element(By.ID, "review-message").text.startswith("Could not load the file broken.sgf:")
    d.find_element(By.ID, "sgf-text").send_keys("(;GM[1]SZ[9];B[ee])")
    assert d.find_element(By.ID, "sgf-file").get_attribute("value") == ""
    assert d.find_element(By.ID, "sgf-source").text == "Load will read the pasted SGF."
    d.find_element(By.ID, "btn-load").click()
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-count") == "1", what="the pasted game")
    assert d.find_element(By.ID, "review-message").text == ""
    assert d.find_element(By.ID, "sgf-source").text == "Loaded the pasted SGF."
    # "1 move", not "1 moves".
    assert "1 move" in d.find_element(By.ID, "review-info").text and "1 moves" not in d.find_element(By.ID, "review-info").text
    # Analyze with 0 s says so instead of using 1 s.
    d.find_element(By.ID, "analyze-live").click()  # off
    set_value(d, "analyze-seconds", "0")
    d.find_element(By.ID, "btn-analyze").click()
    assert d.find_element(By.ID, "review-message").text == "Seconds must be more than 0 and at most 10, not 0"
    d.find_element(By.ID, "analyze-live").click()  # on again
    set_value(d, "analyze-seconds", "1")
    # A capped graph says so: 21 positions at 5000 playouts each would pass the 100,000 a graph may spend.
    moves = "".join(f";{'BW'[i % 2]}[{'abcdefghi'[(i * 4) % 9]}{'abcdefghi'[(i * 4) // 9 % 9]}]" for i in range(20))
    up = call(live_server, "POST", "/api/reviews", {"sgf": f"(;GM[1]SZ[9]KM[7.5]{moves})"})
    d.execute_script("location.hash = arguments[0]", f"#review={up['id']}")
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-review") == up["id"])
    d.find_element(By.ID, "analyze-live").click()  # off, so that only the graph runs
    set_value(d, "graph-playouts", "5000")
    d.find_element(By.ID, "btn-graph").click()
    wait(d, lambda d: d.find_element(By.ID, "graph-note").is_displayed(), timeout=120, what="the capped graph")
    note = d.find_element(By.ID, "graph-note").text
    assert note.startswith(f"Capped: {100_000 // 21} playouts a position, not the 5000 asked for"), note
    d.find_element(By.ID, "analyze-live").click()  # back on for the next tests
    assert not js_errors(d)


# ---- 6. move numbers, the clock, the stone sound ----------------------------------------------


def test_move_numbers_clock_and_sound(live_server: Any, browser: Any, screenshot_dir: Path | None) -> None:
    d = browser
    open_page(d, live_server)
    d.execute_script("localStorage.clear()")
    open_page(d, live_server)
    open_form(d)
    d.find_element(By.ID, "opt-clock").click()
    set_value(d, "opt-main", "1")
    set_value(d, "opt-byoyomi", "10")
    set_value(d, "opt-periods", "2")
    state = new_game_in_page(d, size="9", bot="random", color="black")
    clock = d.find_element(By.ID, "play-clock")
    assert clock.is_displayed()
    black = d.find_element(By.ID, "clock-black")
    assert "running" in black.get_attribute("class") and black.text.startswith("Black ")
    first = black.text
    wait(d, lambda d: d.find_element(By.ID, "clock-black").text != first, timeout=5, what="the clock ticking")
    assert d.find_element(By.ID, "clock-white").text == "White 1:00 + 2×0:10"
    assert "clock 1:00 + 2×0:10" in d.find_element(By.ID, "play-info").text
    # Sound on: each stone placed clicks (counted: a headless browser has no speakers).
    d.find_element(By.ID, "opt-sound").click()
    played = d.execute_script("return window.fuseki.sound.played")
    click_point(d, "E5")
    wait(d, lambda d: play_state(d)["moves"] == "2" and settled(d))
    assert d.execute_script("return window.fuseki.sound.played") > played
    # Move numbers on the stones.
    d.find_element(By.ID, "opt-numbers").click()
    numbers = {e.get_attribute("data-vertex"): e.text for e in d.find_elements(By.CSS_SELECTOR, "#play-board .move-number")}
    game = call(live_server, "GET", f"/api/games/{state['game']}")
    expected = {m["vertex"]: str(i + 1) for i, m in enumerate(game["moves"]) if m["vertex"] != "pass"}
    assert numbers == expected and numbers["E5"] == "1"
    # White's clock was charged for the bot's move and Black's runs again.
    assert "running" in d.find_element(By.ID, "clock-black").get_attribute("class")
    if screenshot_dir is not None:
        d.save_screenshot(str(screenshot_dir / "play.png"))
    # Sound off: silent.
    d.find_element(By.ID, "opt-sound").click()
    played = d.execute_script("return window.fuseki.sound.played")
    free = next(v for v in ("C3", "G7", "C7", "G3") if v not in expected)
    click_point(d, free)
    wait(d, lambda d: play_state(d)["moves"] == "4" and settled(d))
    assert d.execute_script("return window.fuseki.sound.played") == played
    d.find_element(By.ID, "opt-numbers").click()
    assert not d.find_elements(By.CSS_SELECTOR, "#play-board .move-number")
    # The list at 1280x900, for the docs.
    if screenshot_dir is not None:
        d.find_element(By.ID, "tab-games").click()
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#games-table tbody tr"))
        d.save_screenshot(str(screenshot_dir / "games.png"))
    assert not js_errors(d)
