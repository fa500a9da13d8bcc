"""Our GTP engine under a controller we did not write: Sabaki's ``@sabaki/gtp``.

``drive_game.js`` spawns ``python -m fuseki gtp`` through the library's
``Controller`` (the one the Sabaki board uses), plays a short game and sends a
few edge cases. ``scripts/setup.sh --test`` installs the npm package here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
VERTEX = re.compile(r"^(pass|resign|[A-HJ-Z](?:[1-9]|1[0-9]|2[0-5]))$", re.IGNORECASE)


def _need(condition: bool, why: str) -> None:
    if not condition:
        if os.environ.get("CI"):
            pytest.fail(f"{why} (CI installs it with scripts/setup.sh --test)")
        pytest.skip(why)


@pytest.mark.parametrize("size", [9, 13])
def test_sabaki_controller_plays_a_game(size: int) -> None:
    node = shutil.which("node")
    _need(node is not None, "node is not installed")
    _need((HERE / "node_modules" / "@sabaki" / "gtp").is_dir(), "@sabaki/gtp is not installed (npm ci in tests/sabaki)")
    proc = subprocess.run(
        [node, str(HERE / "drive_game.js"), sys.executable, str(size), "30"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=HERE,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    log = json.loads(proc.stdout.strip().splitlines()[-1])["log"]
    replies = {entry["command"]: entry for entry in log}
    assert replies["name"]["content"] == "fuseki"
    assert replies["protocol_version"]["content"] == "2"
    genmoves = [e for e in log if e["command"].startswith("genmove")]
    assert len(genmoves) >= 2
    for entry in genmoves:
        assert not entry["error"] and VERTEX.match(entry["content"]), entry
    # A bad vertex is an error reply, and the engine goes on answering.
    assert replies["play B Z99"]["error"]
    assert not replies["final_score"]["error"]
    assert re.fullmatch(r"[BW]\+\d+(\.5)?|0", replies["final_score"]["content"])
    board = replies["showboard"]["content"]
    placed = sum(1 for e in genmoves if e["content"].lower() != "pass")
    stones = board.count("X") + board.count("O") - 2  # the legend names X and O once each
    assert 0 < stones <= placed


@pytest.mark.parametrize("command", ["lz-analyze W 10", "analyze W 10"])
def test_sabaki_controller_reads_analysis(command: str) -> None:
    """Sabaki's controller streams the analysis lines, and the next command stops it and is answered."""
    from analysis_formats import parse_lz, parse_sabaki

    node = shutil.which("node")
    _need(node is not None, "node is not installed")
    _need((HERE / "node_modules" / "@sabaki" / "gtp").is_dir(), "@sabaki/gtp is not installed (npm ci in tests/sabaki)")
    proc = subprocess.run(
        [node, str(HERE / "drive_analysis.js"), sys.executable, command, "4"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=HERE,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    lines = result["lines"]
    assert len(lines) >= 4, result
    assert lines[3]["at"] - lines[0]["at"] >= 150  # streamed at the 10 cs interval, not at once
    parse = parse_lz if command.startswith("lz") else parse_sabaki
    for entry in lines:
        moves = parse(entry["line"])
        assert all(m["move"].upper() != "E5" for m in moves)
    assert not result["response"]["error"]
    assert result["after"] == {"id": None, "content": "fuseki", "error": False}
