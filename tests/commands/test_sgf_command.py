"""``fuseki sgf check``: per-file repairs and refusals, counts by kind, strict, JSON, archives."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from fuseki.cli import main

FOX = b"(;GM[1]FF[4]SZ[19]KM[650]HA[2]RU[Japanese]AP[GNU Go:3.8]AP[foxwq];AB[pd][dp];W[qp];B[oq];W[pq]"


def _games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "clean.sgf").write_bytes(b"(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[7];B[ee];W[cc])")
    (folder / "fox.sgf").write_bytes(FOX)
    (folder / "illegal.sgf").write_bytes(b"(;GM[1]SZ[9];B[ee];W[ee])")
    (folder / "empty.sgf").write_bytes(b"\x00" * 100)
    return folder


def test_check_reports_per_file_and_counts_by_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _games(tmp_path)
    assert main(["sgf", "check", str(folder)]) == 1  # some refused
    out = capsys.readouterr().out
    assert f"{folder / 'fox.sgf'}: repaired\n" in out
    assert "  komi_x100: KM[650] is komi times 100: read as 6.5\n" in out
    assert "  missing_close: the file ends before the game tree is closed (1 ')' missing): closed it\n" in out
    assert f"{folder / 'illegal.sgf'}: refused: move 2 (W E5) is illegal: occupied\n" in out
    assert f"{folder / 'empty.sgf'}: refused: not an SGF file: 100 bytes, all zero\n" in out
    assert "clean.sgf" not in out  # nothing to say
    assert "files     4 (lenient reading): 1 loaded as written, 1 loaded with repairs, 2 refused" in out
    assert "         1  setup_after_root" in out and "         1  illegal_move" in out


def test_check_json_summary_strict_and_archives(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _games(tmp_path)
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("clean.sgf", "fox.sgf"):
            zf.write(folder / name, f"inside/{name}")
    assert main(["sgf", "check", str(archive), "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (report["files"], report["loaded"], report["repaired"], report["refused"]) == (2, 1, 1, 0)
    assert report["by_kind"] == {"missing_close": 1, "duplicate_property": 1, "komi_x100": 1, "setup_after_root": 1}
    (fox,) = report["reports"]
    assert fox["game"] == f"{archive.resolve()}!inside/fox.sgf" and fox["moves"] == 3
    assert main(["sgf", "check", str(folder), "--strict", "--summary", "--json"]) == 1
    captured = capsys.readouterr()
    strict = json.loads(captured.out.strip().splitlines()[-1])
    assert (strict["loaded"], strict["repaired"], strict["refused"]) == (1, 0, 3)
    assert strict["refused_by_kind"] == {"duplicate_property": 1, "illegal_move": 1, "not_sgf": 1}  # the first repair
    assert {Path(r["game"]).name for r in strict["reports"]} == {"fox.sgf", "illegal.sgf", "empty.sgf"}
    assert "fox.sgf: refused: AP is given twice in the root node" in captured.err


def test_check_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sgf", "check", str(tmp_path / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "notes.txt").write_text("hello")
    assert main(["sgf", "check", str(tmp_path)]) == 2
    assert "no SGF games" in capsys.readouterr().err
    assert main(["sgf"]) == 2
