"""benchmarks/michi.py: michi-c's build (a copy, never in place), its error without a source, one real game."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "michi.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("michi_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_missing_source_exits_2_with_one_line(bench: ModuleType, tmp_path: Path, capsys) -> None:
    assert bench.main(["--michi-src", str(tmp_path / "nowhere"), "--games", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "michi-c source not found" in err and "not part of a clone of fuseki" in err
    assert "--michi-src" in err and "github.com" in err


def test_configure_sets_size_and_simulations(bench: ModuleType) -> None:
    header = "#define N         13\n#define W         (N+2)\n#define N_SIMS     1400\n#define RAVE_EQUIV 3500\n"
    out = bench.configure(header, 9, 2000)
    assert "#define N 9\n" in out and "#define N_SIMS 2000\n" in out
    assert "#define W         (N+2)" in out and "#define RAVE_EQUIV 3500" in out
    with pytest.raises(bench.MichiError, match="N_SIMS"):
        bench.configure("#define N 13\n", 9, 2000)


def test_build_copies_and_never_writes_the_source(bench: ModuleType, michi_src: Path, tmp_path: Path) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in michi_src.iterdir()}
    wrapper = bench.build(michi_src, 5, 60, cache=tmp_path / "cache")
    assert wrapper.parent.parent == tmp_path / "cache" and wrapper.parent.name.endswith("-n5-s60")
    assert "#define N 5" in (wrapper.parent / "michi.h").read_text()
    assert {p.name: p.stat().st_mtime_ns for p in michi_src.iterdir()} == before
    assert "michi" in bench.check_gtp(wrapper, 5).lower()
    assert (wrapper.parent / "michi.log").exists()  # the wrapper starts michi-c in its build folder
    assert bench.build(michi_src, 5, 60, cache=tmp_path / "cache") == wrapper  # reused, not rebuilt


def test_previous_result_gives_a_p_value(bench: ModuleType, tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"wins": 2, "games": 20, "commit": "abc"}))
    cmp = bench.compare({"wins": 14, "games": 20}, old)
    assert cmp["wins"] == 2 and cmp["commit"] == "abc"
    assert 0 < cmp["p_value"] < 0.001


def test_two_real_games_against_michi(bench: ModuleType, michi_src: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out, games = tmp_path / "result.json", tmp_path / "games"
    argv = ["--michi-src", str(michi_src), "--playouts", "50", "--games", "2", "--size", "5"]
    assert bench.main([*argv, "--sgf-dir", str(games), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["games"] == 2 and result["wins"] + result["losses"] + result["draws"] == 2
    assert result["distinct_games"] == 2  # each game seeded on its own
    assert result["forfeits"] == {"fuseki": 0, "michi": 0}, result["forfeit_reasons"]
    assert result["michi_sims"] == 50 and "{seed}" in result["fuseki"] and "-z{seed}" in result["michi"]
    assert len(list(games.glob("game_*.sgf"))) == 2
