"""Shared fixtures for the browser tests: a live server and a headless Chromium.

``live_server`` runs ``fuseki.web.app.create_app`` under uvicorn in a
background thread on 127.0.0.1 (a free port, a temporary SQLite file) and
yields its base URL (a ``str`` whose ``app`` attribute is the app, so that a
test can store a prepared game or read the server's counters). ``browser`` is one headless Debian Chromium driven by
Selenium (``chromium`` and ``chromium-driver``); tests that use it are
skipped with the reason when either is missing.
"""

from __future__ import annotations

import inspect
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("FUSEKI_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("FUSEKI_CHROMEDRIVER", "/usr/bin/chromedriver")


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)) and shutil.which(path) is None:
            return f"{path} not found (apt-get install {package})"
    return None


def server_missing() -> str | None:
    try:
        import uvicorn  # noqa: F401

        from fuseki.web.app import create_app  # noqa: F401
    except ImportError as e:
        return f"the web server cannot be imported: {e}"
    return None


class LiveURL(str):
    """The live server's base URL; ``.app`` is its FastAPI app."""

    app: object = None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT``) of a fuseki web server running in a thread."""
    why = server_missing()
    if why:
        pytest.skip(why)
    import uvicorn

    from fuseki.web.app import create_app

    db = tmp_path_factory.mktemp("web") / "games.sqlite3"
    kwargs: dict[str, object] = {"db_path": db, "workers": 2}
    # Threads start at once; worker processes would each warm up the kernels
    # first. The page and the API are the same either way.
    if "executor" in inspect.signature(create_app).parameters:
        kwargs["executor"] = "thread"
    app = create_app(**kwargs)  # type: ignore[arg-type]
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="fuseki-live-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the web server did not start")
        time.sleep(0.05)
    url = LiveURL(f"http://127.0.0.1:{port}")
    url.app = app
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A headless Chromium (Selenium WebDriver), shared by the session's tests."""
    why = browser_missing()
    if why:
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path | None:
    """docs/web when FUSEKI_SCREENSHOTS=1 (the tests then save their screenshots there), else None."""
    if os.environ.get("FUSEKI_SCREENSHOTS") != "1":
        return None
    out = Path(__file__).resolve().parents[2] / "docs" / "web"
    out.mkdir(parents=True, exist_ok=True)
    return out
