"""``fuseki bench rules``: the command, its output, its errors, and the contenders' policy.

No timing assertions: the machines this runs on are shared and noisy.
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import math
import random
import subprocess
import sys

import pytest

from fuseki.bench import rules as R
from fuseki.commands import bench as bench_cmd
from fuseki.go import GameState
from fuseki.go import kernels as K

HAVE_OPENSPIEL = importlib.util.find_spec("pyspiel") is not None
HAVE_DLGO = importlib.util.find_spec("dlgo") is not None

REQUIRED_KEYS = {"size", "api_plies_per_s", "kernel_plies_per_s", "plies_per_game", "peers"}


def check_result(result: dict, size: int) -> None:
    assert REQUIRED_KEYS <= result.keys()
    assert result["size"] == size
    for key in ("api_plies_per_s", "kernel_plies_per_s", "plies_per_game", "api_superko_plies_per_s"):
        assert isinstance(result[key], float) and result[key] > 0, key
    assert 0 < result["plies_per_game"] <= 2 * size * size
    assert set(result["peers"]) == {"openspiel", "dlgo"}
    assert result["command"].startswith(f"fuseki bench rules --size {size} ")


# ---- the command ----------------------------------------------------------


def test_no_peers_json(run_json):
    result, out, err = run_json(["bench", "rules", "--size", "9", "--seconds", "0.2", "--no-peers", "--json"])
    check_result(result, 9)
    assert result["peers"] == {"openspiel": None, "dlgo": None}
    assert result["targets"] is None
    assert result["jit"] is None and result["breakdown"] is None
    assert "--no-peers" in result["command"]
    assert "fuseki API" in out and "fuseki kernel" in out  # the table comes first
    assert "Traceback" not in out + err


@pytest.mark.skipif(not (HAVE_OPENSPIEL or HAVE_DLGO), reason="no peer installed")
def test_with_peers_json(run_json):
    result, out, _ = run_json(["bench", "rules", "--size", "9", "--seconds", "0.2", "--peers", "openspiel,dlgo", "--json"])
    check_result(result, 9)
    for name, present in (("openspiel", HAVE_OPENSPIEL), ("dlgo", HAVE_DLGO)):
        if present:
            assert isinstance(result["peers"][name], float) and result["peers"][name] > 0
        else:
            assert result["peers"][name] is None
    if HAVE_OPENSPIEL:
        assert result["ratios"]["api_vs_openspiel"] > 0
        assert {"api_ge_openspiel", "kernel_ge_10x_openspiel"} <= set(result["targets"])
        assert "vs OpenSpiel" in out


def test_missing_peers_are_null_with_an_install_hint(run_json, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` raise ImportError
    monkeypatch.setitem(sys.modules, "dlgo", None)
    result, out, err = run_json(["bench", "rules", "--size", "5", "--seconds", "0.1", "--json"])
    assert result["peers"] == {"openspiel": None, "dlgo": None}
    assert "pip install open-spiel" in result["peer_notes"]["openspiel"]
    assert "pip install --no-deps dlgo" in result["peer_notes"]["dlgo"]
    assert "pip install open-spiel" in out and "Traceback" not in out + err


def test_peer_larger_board_than_supported_is_null(run_json):
    result, _, _ = run_json(["bench", "rules", "--size", "21", "--seconds", "0.05", "--json"])
    assert result["peers"] == {"openspiel": None, "dlgo": None}
    assert result["kernel_plies_per_s"] > 0


def test_out_file_has_command_and_date(run_cli, tmp_path):
    path = tmp_path / "sub" / "rules.json"
    rc, out, err = run_cli(["bench", "rules", "--size", "5", "--seconds", "0.1", "--no-peers", "--no-jit",
                            "--no-breakdown", "--out", str(path)])
    assert rc == 0, err
    saved = json.loads(path.read_text())
    assert saved["command"].startswith("fuseki bench rules --size 5 ")
    assert "--out" in saved["command"] and saved["date"]
    assert saved["machine"]["python"] and saved["settings"]["cap"] == 50
    assert f"saved {path}" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "rules", "--size", "1"],
        ["bench", "rules", "--size", "99"],
        ["bench", "nosuch"],
        ["bench", "rules", "--peers", "gnugo"],
        ["bench", "rules", "--seconds", "0"],
        ["bench", "rules", "--repeats", "0"],
    ],
)
def test_bad_flags_exit_2_with_one_line(argv, usage_error):
    usage_error(argv)


def test_console_entry_point_reports_a_bad_flag_in_one_line():
    # As the ``fuseki`` console script calls it (``python -m fuseki.cli`` would load the
    # CLI twice, as __main__ and as fuseki.cli, with two different UserError classes).
    code = "import sys; from fuseki.cli import main; sys.exit(main())"
    proc = subprocess.run([sys.executable, "-c", code, "bench", "rules", "--size", "99"],
                          check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == "fuseki bench: error: --size must be from 2 to 25, got 99"


def test_size_limits_match_the_rules_engine():
    from fuseki.go import coords

    assert (bench_cmd.MIN_SIZE, bench_cmd.MAX_SIZE) == (coords.MIN_SIZE, coords.MAX_SIZE)


def test_results_dir_is_in_the_checkout():
    path = bench_cmd.results_dir()
    assert path.parts[-2:] == ("benchmarks", "results")


def test_module_doctests():
    failures, _ = doctest.testmod(R)
    assert failures == 0


# ---- the policy: legal moves, games end within the cap --------------------


@pytest.mark.parametrize("size", [5, 9])
@pytest.mark.parametrize("rules", ["gnugo", "chinese"])
def test_api_policy_is_legal_and_capped(size, rules):
    game = R.api_game(size, rules, random.Random(3).random)
    cap = 2 * size * size
    for _ in range(5):
        plies, finished, final = game(math.inf)
        assert finished and 0 < plies <= cap
        assert final.is_over() or plies == cap
        moves = final.moves()
        assert len(moves) == plies
        s = GameState.new(size, rules)
        for m in moves:
            assert s.move_index(m) in set(s.legal_points().tolist())
            s = s.play(m)  # raises IllegalMoveError on an illegal move


def test_api_policy_includes_pass():
    # Pass is one of the choices from the first move on: over many first moves it shows up.
    rand = random.Random(5).random
    s = GameState.new(3, "gnugo")
    pts = s.legal_points()
    picks = {pts.item(int(rand() * len(pts))) for _ in range(500)}
    assert picks == set(pts.tolist()) and 9 in picks


@pytest.mark.parametrize("size", [5, 9])
def test_kernel_policy_is_legal_and_capped(size):
    K.seed_kernels(11)
    cap = 2 * size * size
    # One ply per call: every move the kernel picks must be legal under simple ko, no suicide.
    for _ in range(3):
        buf = K.new_board(size, 0)
        s = GameState.new(size, "gnugo")
        for _ply in range(cap):
            if buf[K.M_PASSES] >= 2:
                break
            assert K.playout(buf, K.POLICY_UNIFORM, 1) == 1
            move = int(buf[K.M_LAST])
            assert move in set(s.legal_points().tolist())
            s = s.play(move)
        assert s.is_over() or s.move_number == cap
    # Whole playouts, as the benchmark runs them.
    game = R.kernel_game(size)
    for _ in range(50):
        plies, finished, buf = game(math.inf)
        assert finished and 0 < plies <= cap
        assert buf[K.M_PASSES] >= 2 or plies == cap


@pytest.mark.skipif(not HAVE_OPENSPIEL, reason="open-spiel not installed")
@pytest.mark.parametrize("size", [5, 9])
def test_openspiel_policy_is_legal_and_capped(size):
    import pyspiel

    game = R.openspiel_game(size, random.Random(7).random)
    cap = 2 * size * size
    g = pyspiel.load_game("go", {"board_size": size, "komi": 7.5, "max_game_length": cap})
    for _ in range(5):
        plies, finished, final = game(math.inf)
        assert finished and 0 < plies <= cap and final.is_terminal()
        history = final.history()
        assert len(history) == plies
        s = g.new_initial_state()
        for a in history:
            assert a in s.legal_actions()
            s.apply_action(a)


@pytest.mark.skipif(not HAVE_DLGO, reason="dlgo not installed")
def test_dlgo_policy_is_legal_and_capped():
    size = 5
    game = R.dlgo_game(size, random.Random(9).random)
    cap = 2 * size * size
    for _ in range(3):
        plies, finished, final = game(math.inf)
        assert finished and 0 < plies <= cap
        assert final.is_over() or plies == cap
        count = 0
        s = final
        while s.previous_state is not None:
            move, prev = s.last_move, s.previous_state
            assert not move.is_resign
            assert move in prev.legal_moves()
            s = prev
            count += 1
        assert count == plies
    # A slow contender stops at the deadline, in mid-game.
    plies, finished, _ = game(0.0)
    assert plies == 1 and not finished


@pytest.mark.skipif(not HAVE_DLGO, reason="dlgo not installed")
def test_dlgo_legal_moves_end_with_pass_then_resign():
    from dlgo import goboard_fast

    moves = goboard_fast.GameState.new_game(5).legal_moves()
    assert moves[-1].is_resign and moves[-2].is_pass


# ---- the extras -----------------------------------------------------------


def test_breakdown_has_every_step():
    b = R.ply_breakdown(5, plies=300, passes=1, openspiel=HAVE_OPENSPIEL)
    for key in ("play", "legal_points", "is_over", "choice", "sum", "play.buffer_copy", "play.kernel_call",
                "play.kernel_call.of_which_fill_legal", "play.python"):
        assert math.isfinite(b["api"][key]), key
    assert b["api"]["play"] > 0 and b["api_superko"]["play"] > 0
    assert b["kernel"]["playout_call_fixed_cost"] >= 0
    if HAVE_OPENSPIEL:
        assert b["openspiel"]["apply_action"] > 0


def test_median_of_rounds_and_rotation():
    calls: list[str] = []

    def make(name):
        def game(deadline):
            calls.append(name)
            return 10, True, None

        return R.Contender(name, game, lambda: None)

    stints = R.measure([make("a"), make("b")], seconds=0.0, repeats=3)
    assert [len(v) for v in stints.values()] == [3, 3]
    assert calls == ["a", "b", "b", "a", "a", "b"]  # the order rotates each round
    assert all(s.plies == 10 and s.games == 1 for v in stints.values() for s in v)


@pytest.mark.slow
def test_jit_startup_cold_and_cached():
    jit = R.measure_jit()
    assert jit["cold_s"] > 0 and jit["cached_s"] > 0
    assert set(jit["cold"]) >= {"import_s", "first_play_s", "first_playout_s", "first_score_s", "total_s"}
