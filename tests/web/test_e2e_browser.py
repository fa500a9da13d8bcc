"""End-to-end tests of the web page in a real headless Chromium (Selenium).

They play a whole 9x9 game against the random bot by clicking the board, check
the final score, download the SGF and load it back in Review, step through it
with the arrow keys, and ask for an analysis and a win-rate graph. Skipped with
the reason when Chromium, chromedriver or selenium is missing.

The issue-22 features (scoring phase, game list, analysis while reviewing,
the phone layout, two windows) are tested in test_e2e_ui.py.
"""

from __future__ import annotations

import json
import random
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

# The `live_server` and `browser` fixtures (conftest.py) skip these tests, with
# the reason, when the server cannot be imported or chromium / chromedriver is
# missing.

#: An 11-move 9x9 game with a comment, for the review tests.
SGF = (
    "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]PB[alice]PW[bob]C[A short game]"
    ";B[ee];W[gc];B[cg];W[gg];B[cc];W[ec]C[White approaches];B[dc];W[eb];B[gf];W[hf];B[fg])"
)
MOVES_PLAYED_BY_SGF = 11


# ---- helpers ---------------------------------------------------------------------


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def get_bytes(url: str) -> tuple[bytes, dict[str, str]]:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return resp.read(), dict(resp.headers)


def wait(driver: Any, cond: Any, timeout: float = 20, what: str = "") -> Any:
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(cond, what)


def js_errors(driver: Any) -> list[str]:
    try:
        logs = driver.get_log("browser")
    except Exception:  # noqa: BLE001 - not every driver keeps logs
        return []
    # Refused requests (409, 422) are part of the tests; script errors are not.
    return [
        e["message"]
        for e in logs
        if e.get("level") == "SEVERE" and "Failed to load resource" not in e["message"]
    ]


def open_page(driver: Any, base: str, tab: str = "play") -> None:
    driver.get(base + "/")
    wait(driver, lambda d: d.execute_script("return !!window.fuseki"), what="the page's script to start")
    if tab != "play":
        driver.find_element(By.ID, f"tab-{tab}").click()
        wait(driver, lambda d: d.find_element(By.ID, tab).is_displayed())


def neighbours(r: int, c: int, n: int) -> list[tuple[int, int]]:
    return [(rr, cc) for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= rr < n and 0 <= cc < n]


def vertex(r: int, c: int, n: int) -> str:
    return "ABCDEFGHJKLMNOPQRST"[c] + str(n - r)


def candidates(board: list[str], me: str) -> list[str]:
    """Empty points that are not one of my own one-point eyes."""
    n = len(board)
    out = []
    for r in range(n):
        for c in range(n):
            if board[r][c] != ".":
                continue
            if all(board[rr][cc] == me for rr, cc in neighbours(r, c, n)):
                continue
            out.append(vertex(r, c, n))
    return out


def section_state(driver: Any) -> dict[str, str]:
    return driver.execute_script(
        "const s = document.getElementById('play');"
        "return {moves: s.dataset.moves, busy: s.dataset.busy, status: s.dataset.status || '',"
        " game: s.dataset.game || '', message: document.getElementById('play-message').textContent};"
    )


def click_and_wait(driver: Any, selector: str, before: dict[str, str]) -> dict[str, str]:
    """Click, then wait until the game changed or the server refused the move."""
    driver.find_element(By.CSS_SELECTOR, selector).click()

    def settled(d: Any) -> dict[str, str] | bool:
        s = section_state(d)
        if s["busy"] == "true":
            return False
        if s["status"] == "bot_thinking":
            return False
        if s["moves"] != before["moves"] or s["status"] == "over" or s["message"]:
            return s
        return False

    return wait(driver, settled, what=f"the answer to a click on {selector}")


# ---- board.js on its own -------------------------------------------------------------


def test_board_js_coordinates_and_drawing(live_server: str, browser: Any) -> None:
    open_page(browser, live_server)
    result = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        import('/static/board.js').then((B) => {
          const out = {};
          out.letters19 = B.columnLetters(19);
          out.letters9 = B.columnLetters(9);
          out.a1 = B.fromVertex('A1', 9);
          out.j9 = B.fromVertex('J9', 9);
          out.t19 = B.fromVertex('t19', 19);
          out.pass = B.fromVertex('pass', 9);
          out.roundTrip = true;
          for (let n = 5; n <= 19; n++) {
            for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
              const v = B.toVertex(c, r, n);
              const back = B.fromVertex(v, n);
              if (back[0] !== c || back[1] !== r) out.roundTrip = false;
            }
          }
          out.stars = {};
          for (let n = 5; n <= 19; n++) out.stars[n] = B.starPoints(n).length;
          out.errors = [];
          for (const [f, args] of [['fromVertex', ['I5', 9]], ['fromVertex', ['K1', 9]], ['fromVertex', ['A10', 9]],
                                   ['checkSize', [4]], ['checkSize', [20]], ['toVertex', [9, 0, 9]]]) {
            try { B[f](...args); out.errors.push('no error'); } catch (e) { out.errors.push(e.name); }
          }
          // Draw a 19x19 position into a scratch element.
          const box = document.createElement('div');
          document.body.appendChild(box);
          const board = new B.Board(box);
          const rows = Array.from({length: 19}, () => '.'.repeat(19));
          rows[15] = '...X...............';   // D4 is black
          rows[3] = '...............O...';    // Q16 is white
          board.render({board: rows, last_move: 'Q16', dead: ['D4'], territory: {black: ['A1'], white: ['T19']}});
          board.showAnalysis([{vertex: 'Q4', visits: 120, winrate: 0.61}, {vertex: 'pass', visits: 3, winrate: 0.5},
                              {vertex: 'C3', visits: 40, winrate: 0.4}]);
          const q = (s) => box.querySelectorAll(s);
          out.svg = {
            points: q('.pt').length, stars: q('.star').length,
            black: [...q('.stone.black')].map((e) => e.dataset.vertex),
            white: [...q('.stone.white')].map((e) => e.dataset.vertex),
            last: [...q('.last-move')].map((e) => e.dataset.vertex + ' ' + e.getAttribute('class')),
            dead: [...q('.dead')].map((e) => e.dataset.vertex),
            territory: [...q('.territory')].map((e) => e.getAttribute('class') + ' ' + e.dataset.vertex),
            analysis: [...q('.analysis')].map((e) => [e.dataset.vertex, e.querySelector('.wr').textContent,
                                                       e.querySelector('.visits').textContent].join(' ')),
            cols: [...q('.coord.col')].map((e) => e.textContent).filter((_, i) => i % 2 === 0).join(''),
            rows: [...q('.coord.row')].map((e) => e.textContent).filter((_, i) => i % 2 === 0).join(','),
          };
          box.remove();
          done(out);
        }).catch((e) => done({failed: String(e)}));
        """
    )
    assert "failed" not in result, result
    assert result["letters19"] == "ABCDEFGHJKLMNOPQRST"
    assert result["letters9"] == "ABCDEFGHJ"
    assert result["a1"] == [0, 8] and result["j9"] == [8, 0] and result["t19"] == [18, 0]
    assert result["pass"] is None
    assert result["roundTrip"] is True
    assert result["stars"] == {
        "5": 1, "6": 0, "7": 4, "8": 4, "9": 5, "10": 4, "11": 5, "12": 4,
        "13": 5, "14": 4, "15": 9, "16": 4, "17": 9, "18": 4, "19": 9,
    }
    assert result["errors"] == ["RangeError"] * 6
    svg = result["svg"]
    assert svg["points"] == 361 and svg["stars"] == 9
    assert svg["black"] == ["D4"] and svg["white"] == ["Q16"]
    assert svg["last"] == ["Q16 last-move on-white"]
    assert svg["dead"] == ["D4"]
    assert svg["territory"] == ["territory black A1", "territory white T19"]
    assert svg["analysis"] == ["Q4 61% 120", "C3 40% 40"]  # the pass is not drawn
    assert svg["cols"] == "ABCDEFGHJKLMNOPQRST"
    assert svg["rows"] == ",".join(str(n) for n in range(19, 0, -1))


# ---- play --------------------------------------------------------------------------


def _play_random_game(d: Any, live_server: str, seed: int) -> tuple[str, bool]:
    """Start a 9×9 game against ``random`` on the page and click it to its end; return (game id, illegal checked)."""
    open_page(d, live_server)
    size = d.find_element(By.ID, "opt-size")
    size.clear()
    size.send_keys("9")
    d.find_element(By.CSS_SELECTOR, "#opt-bot option[value=random]").click()
    d.find_element(By.CSS_SELECTOR, "#opt-color option[value=black]").click()
    d.find_element(By.CSS_SELECTOR, "#opt-dead-stones option[value=network]").click()
    if not d.find_element(By.ID, "new-game-box").get_attribute("open"):
        d.find_element(By.CSS_SELECTOR, "#new-game-box summary").click()
    d.find_element(By.ID, "btn-new").click()
    wait(d, lambda d: section_state(d)["status"] == "your_turn", what="a new game")
    state = section_state(d)
    gid = state["game"]
    assert gid and state["moves"] == "0"
    assert get_json(f"{live_server}/api/games/{gid}")["dead_stones"] == "network"  # the form's choice
    assert len(d.find_elements(By.CSS_SELECTOR, "#play-board .pt")) == 81
    assert "Your turn" in d.find_element(By.ID, "play-status").text

    rng = random.Random(seed)
    refused: set[str] = set()
    illegal_checked = False
    clicks = 0
    for _ in range(200):  # a cap on the number of clicks
        game = get_json(f"{live_server}/api/games/{gid}")
        if game["over"]:
            break
        if game["status"] == "scoring":  # two passes: accept the proposed count
            wait(d, lambda d: d.find_element(By.ID, "scoring").is_displayed(), what="the scoring phase")
            d.find_element(By.ID, "btn-accept").click()
            wait(d, lambda d: section_state(d)["status"] == "over", what="the accepted count")
            continue
        assert game["status"] == "your_turn", game["status"]
        me = "X" if game["human"] == "black" else "O"
        if not illegal_checked and game["last_move"] not in (None, "pass"):
            # A click on an occupied point: the server's reason shows in the message line.
            before = section_state(d)
            state = click_and_wait(d, f'#play-board .pt[data-vertex="{game["last_move"]}"]', before)
            assert state["moves"] == before["moves"]
            assert state["message"].startswith(f"Illegal move {game['last_move']}:"), state["message"]
            assert len(state["message"]) > len(f"Illegal move {game['last_move']}: ")
            illegal_checked = True
            continue
        options = [v for v in candidates(game["board"], me) if v not in refused]
        # Play the first 30 moves at random points, then pass and let the bot finish.
        before = section_state(d)
        if options and clicks < 30:
            v = rng.choice(options)
            state = click_and_wait(d, f'#play-board .pt[data-vertex="{v}"]', before)
            if state["moves"] == before["moves"] and state["status"] != "over":
                refused.add(v)  # suicide or ko: refused with a reason
                assert state["message"]
                continue
            refused.clear()
            clicks += 1
        else:
            click_and_wait(d, "#btn-pass", before)
    else:
        pytest.fail("the game did not end within the click cap")

    wait(d, lambda d: section_state(d)["status"] == "over", what="the end of the game")
    return gid, illegal_checked


def test_play_a_whole_game_then_review_it(live_server: str, browser: Any, tmp_path: Path) -> None:
    d = browser
    # The random bot is wrapped in the resign-when-hopeless rule, so a game can end by resignation,
    # which has no count to check. Play again (new seed) until one ends by passes; rarely more than one.
    for attempt in range(4):
        gid, illegal_checked = _play_random_game(d, live_server, 8 + attempt)
        if not get_json(f"{live_server}/api/games/{gid}")["result"].endswith("+R"):
            break
    else:
        pytest.fail("four games in a row ended by resignation")
    assert illegal_checked
    game = get_json(f"{live_server}/api/games/{gid}")
    assert game["over"] and game["result"]
    score = d.find_element(By.ID, "play-score")
    assert score.is_displayed()
    text = score.text
    assert "Black" in text and "White" in text and game["result"] in text, text
    assert game["score"] is not None  # ended by passes: counted
    assert f"Black {game['score']['black']:g}," in text and f"White {game['score']['white']:g} " in text
    assert game["score"]["dead_stones"] == "network" and "dead stones by: network" in text, text
    assert "Game over" in d.find_element(By.ID, "play-status").text
    assert not d.find_element(By.ID, "scoring").is_displayed()
    dead = {e.get_attribute("data-vertex") for e in d.find_elements(By.CSS_SELECTOR, "#play-board .dead")}
    assert dead == set(game["score"]["dead"])
    territory = d.find_elements(By.CSS_SELECTOR, "#play-board .territory")
    assert len(territory) == len(game["score"]["territory"]["black"]) + len(game["score"]["territory"]["white"])
    assert d.find_element(By.ID, "btn-pass").get_attribute("disabled")

    # Download the SGF through the page's link.
    link = d.find_element(By.ID, "play-sgf")
    assert link.is_displayed() and link.text == "Download SGF"
    href = link.get_attribute("href")
    assert href == f"{live_server}/api/games/{gid}/sgf"
    assert link.get_attribute("download")
    sgf, headers = get_bytes(href)
    assert "attachment" in headers.get("content-disposition", "").lower()
    assert sgf.lstrip().startswith(b"(;") and b"SZ[9]" in sgf
    path = tmp_path / "game.sgf"
    path.write_bytes(sgf)

    # ... and load it back in Review through the file input.
    d.find_element(By.ID, "tab-review").click()
    d.find_element(By.ID, "sgf-file").send_keys(str(path))
    d.find_element(By.ID, "btn-load").click()
    count = len(game["moves"])
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-count") == str(count), what="the review")
    wait(d, lambda d: d.find_element(By.ID, "review-pos").text.startswith(f"Move 0 / {count}"))
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait(d, lambda d: d.find_element(By.ID, "review").get_attribute("data-n") == str(count), what="End")
    # The last position of the review is the final position of the game.
    stones = {
        e.get_attribute("data-vertex") for e in d.find_elements(By.CSS_SELECTOR, "#review-board .stone")
    }
    expected = {vertex(r, c, 9) for r, row in enumerate(game["board"]) for c, ch in enumerate(row) if ch != "."}
    assert stones == expected
    assert not js_errors(d)


# ---- review ------------------------------------------------------------------------


def test_review_pasted_sgf_keys_analysis_and_graph(live_server: str, browser: Any) -> None:
    d = browser
    open_page(d, live_server, "review")
    d.find_element(By.ID, "btn-load").click()  # nothing chosen: a message, no request
    assert "SGF" in d.find_element(By.ID, "review-message").text

    # Malformed SGF: the server's 422 reason shows.
    d.execute_script("document.getElementById('sgf-text').value = arguments[0];", "(;GM[1]SZ[9];B[ee] %% ;W[cc])")
    d.find_element(By.ID, "btn-load").click()
    wait(d, lambda d: "malformed SGF file" in d.find_element(By.ID, "review-message").text)

    # A server's file loads, and the page lists what the reader repaired.
    fox = "(;GM[1]SZ[9]KM[650]HA[2];AB[gc][cg];W[ee];B[dd]"
    d.execute_script("document.getElementById('sgf-text').value = arguments[0];", fox)
    d.find_element(By.ID, "btn-load").click()
    wait(d, lambda d: d.find_element(By.ID, "review-repairs").is_displayed())
    repairs = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#review-repairs li")]
    assert any("KM[650] is komi times 100: read as 6.5" in r for r in repairs), repairs
    assert "komi 6.5" in d.find_element(By.ID, "review-info").text

    d.execute_script("document.getElementById('sgf-text').value = arguments[0];", SGF)
    d.find_element(By.ID, "btn-load").click()
    n_of = lambda d: int(d.find_element(By.ID, "review").get_attribute("data-n"))  # noqa: E731
    # The first review of a server process may load heavy modules: on a loaded machine it took over 20 s.
    wait(
        d,
        lambda d: d.find_element(By.ID, "review").get_attribute("data-count") == str(MOVES_PLAYED_BY_SGF),
        timeout=60,
        what="the SGF's review",
    )
    assert d.find_element(By.ID, "review-message").text == ""
    assert not d.find_element(By.ID, "review-repairs").is_displayed()  # nothing repaired in this one
    info = d.find_element(By.ID, "review-info").text
    assert "9×9" in info and "alice" in info and "bob" in info
    assert d.find_element(By.ID, "review-comment").text == "A short game"
    assert len(d.find_elements(By.CSS_SELECTOR, "#review-board .pt")) == 81

    body = d.find_element(By.TAG_NAME, "body")
    for expected in (1, 2, 3):
        body.send_keys(Keys.ARROW_RIGHT)
        wait(d, lambda d, expected=expected: n_of(d) == expected, what=f"Right to move {expected}")
    assert {e.get_attribute("data-vertex") for e in d.find_elements(By.CSS_SELECTOR, "#review-board .stone")} == {
        "E5", "G7", "C3"
    }
    assert d.find_element(By.CSS_SELECTOR, "#review-board .last-move").get_attribute("data-vertex") == "C3"
    body.send_keys(Keys.ARROW_LEFT)
    wait(d, lambda d: n_of(d) == 2, what="Left")
    body.send_keys(Keys.END)
    wait(d, lambda d: n_of(d) == MOVES_PLAYED_BY_SGF, what="End")
    assert d.find_element(By.ID, "nav-next").get_attribute("disabled")
    body.send_keys(Keys.HOME)
    wait(d, lambda d: n_of(d) == 0, what="Home")
    assert not d.find_elements(By.CSS_SELECTOR, "#review-board .stone")
    d.find_element(By.ID, "nav-last").click()
    wait(d, lambda d: n_of(d) == MOVES_PLAYED_BY_SGF, what=">|")
    d.find_element(By.ID, "nav-prev").click()
    wait(d, lambda d: n_of(d) == MOVES_PLAYED_BY_SGF - 1, what="<")
    d.find_element(By.ID, "nav-first").click()
    wait(d, lambda d: n_of(d) == 0, what="|<")
    for _ in range(6):
        d.find_element(By.ID, "nav-next").click()
    wait(d, lambda d: n_of(d) == 6, what=">")
    assert d.find_element(By.ID, "review-comment").text == "White approaches"
    assert "Move 6 / 11" in d.find_element(By.ID, "review-pos").text

    # Analyze the shown position: top moves drawn on the board.
    seconds = d.find_element(By.ID, "analyze-seconds")
    seconds.clear()
    seconds.send_keys("0.5")
    d.find_element(By.ID, "btn-analyze").click()
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-board .analysis"), timeout=30, what="analysis")
    marks = d.find_elements(By.CSS_SELECTOR, "#review-board .analysis")
    assert d.find_elements(By.CSS_SELECTOR, "#review-board .analysis.best")
    empty = set(candidates(get_json_board(live_server, d, 6), "?"))
    for m in marks:
        assert m.get_attribute("data-vertex") in empty
        assert int(m.get_attribute("data-visits")) > 0
    text = d.find_element(By.ID, "analysis").text
    assert text.startswith("Black to play: win rate") and "playouts" in text, text

    # The win-rate graph; a click on it jumps to that move.
    playouts = d.find_element(By.ID, "graph-playouts")
    playouts.clear()
    playouts.send_keys("50")
    d.find_element(By.ID, "btn-graph").click()
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#winrate-graph svg .winrate-line"), timeout=40, what="graph")
    dots = d.find_elements(By.CSS_SELECTOR, "#winrate-graph .winrate-dot")
    assert 1 < len(dots) <= MOVES_PLAYED_BY_SGF + 1
    path = d.find_element(By.CSS_SELECTOR, "#winrate-graph .winrate-line").get_attribute("d")
    assert path.startswith("M")
    # A click where the dot is, as a user's: a move judged a mistake has its red marker drawn over its dot
    # (the marker takes the click, and the graph maps any click to the move under it), so no element click.
    from selenium.webdriver.common.action_chains import ActionChains

    last_dot = [e for e in dots if e.get_attribute("data-n") == str(MOVES_PLAYED_BY_SGF)]
    if last_dot:
        ActionChains(d).move_to_element(last_dot[0]).click().perform()
        wait(d, lambda d: n_of(d) == MOVES_PLAYED_BY_SGF, what="a click on the graph")
    first_dot = [e for e in dots if e.get_attribute("data-n") == "0"][0]
    ActionChains(d).move_to_element(first_dot).click().perform()
    wait(d, lambda d: n_of(d) == 0, what="a click on the graph's start")
    assert not js_errors(d)


def get_json_board(base: str, driver: Any, n: int) -> list[str]:
    rid = driver.find_element(By.ID, "review").get_attribute("data-review")
    return get_json(f"{base}/api/reviews/{rid}/positions/{n}")["board"]


def test_page_serves_its_files(live_server: str) -> None:
    page, headers = get_bytes(live_server + "/")
    assert b'<script type="module" src="/static/app.js">' in page
    for name in ("app.js", "board.js", "review.js", "games.js", "sound.js", "api.js", "style.css"):
        body, _ = get_bytes(f"{live_server}/static/{name}")
        assert len(body) > 500, name


def test_play_as_white_undo_and_resign(live_server: str, browser: Any) -> None:
    d = browser
    open_page(d, live_server)
    if not d.find_element(By.ID, "new-game-box").get_attribute("open"):
        d.find_element(By.CSS_SELECTOR, "#new-game-box summary").click()
    size = d.find_element(By.ID, "opt-size")
    size.clear()
    size.send_keys("7")
    d.find_element(By.CSS_SELECTOR, "#opt-color option[value=white]").click()
    d.find_element(By.CSS_SELECTOR, "#opt-bot option[value=mcts]").click()
    assert d.find_element(By.ID, "opt-seconds").is_displayed()
    assert not d.find_element(By.ID, "opt-model").is_displayed()
    d.find_element(By.CSS_SELECTOR, "#opt-bot option[value=random]").click()
    assert not d.find_element(By.ID, "opt-seconds").is_displayed()
    d.find_element(By.ID, "btn-new").click()
    # The bot plays Black and moves first.
    wait(d, lambda d: section_state(d)["status"] == "your_turn" and section_state(d)["moves"] == "1", what="Black's move")
    assert len(d.find_elements(By.CSS_SELECTOR, "#play-board .pt")) == 49
    assert len(d.find_elements(By.CSS_SELECTOR, "#play-board .stone.black")) == 1
    assert "Your turn (White)" in d.find_element(By.ID, "play-status").text
    game = get_json(f"{live_server}/api/games/{section_state(d)['game']}")
    v = candidates(game["board"], "O")[0]
    state = click_and_wait(d, f'#play-board .pt[data-vertex="{v}"]', section_state(d))
    assert state["moves"] == "3" and not state["message"]
    assert d.find_elements(By.CSS_SELECTOR, f'#play-board .stone.white[data-vertex="{v}"]')
    click_and_wait(d, "#btn-undo", state)
    wait(d, lambda d: section_state(d)["moves"] == "1", what="undo")
    assert not d.find_elements(By.CSS_SELECTOR, "#play-board .stone.white")
    # The address names the game: a reload picks it up again.
    gid = section_state(d)["game"]
    assert d.current_url.endswith(f"#game={gid}")
    d.refresh()
    wait(d, lambda d: section_state(d)["game"] == gid and section_state(d)["status"] == "your_turn", what="reload")
    assert section_state(d)["moves"] == "1"
    assert len(d.find_elements(By.CSS_SELECTOR, "#play-board .stone.black")) == 1
    d.find_element(By.ID, "btn-hint").click()
    wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#play-board .analysis"), timeout=30, what="a hint")
    wait(d, lambda d: section_state(d)["busy"] == "false")
    assert "Win rate for White" in d.find_element(By.ID, "play-status").text
    d.find_element(By.ID, "btn-resign").click()
    d.switch_to.alert.accept()
    wait(d, lambda d: section_state(d)["status"] == "over", what="resignation")
    score = d.find_element(By.ID, "play-score").text
    assert "B+R" in score and "Black wins by resignation" in score, score
    assert "Game over" in d.find_element(By.ID, "play-status").text
    assert not d.find_elements(By.CSS_SELECTOR, "#play-board .dead")
    assert not js_errors(d)
