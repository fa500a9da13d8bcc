"""``fuseki bench mcts``: the command, its JSON, its errors, and how dlgo's MCTSAgent is loaded.

No timing assertions: the machines this runs on are shared and noisy.
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import sys

import pytest

from fuseki.bench import mcts as M

HAVE_DLGO = importlib.util.find_spec("dlgo") is not None

FAST = ["--seconds", "0.05", "--rounds", "3"]


def check_result(result: dict, size: int) -> None:
    # The shape: {"size": 9, "playouts_per_s": ..., "peers": {"dlgo": ...}} first.
    assert list(result)[:3] == ["size", "playouts_per_s", "peers"]
    assert result["size"] == size
    assert set(result["peers"]) == {"dlgo"}
    assert isinstance(result["playouts_per_s"], float) and result["playouts_per_s"] > 0
    assert set(result["configs"]) == {"default", "light", "book"}
    for name, c in result["configs"].items():
        assert c["playouts_per_s"] > 0 and c["cpu_playouts_per_s"] > 0, name
        assert all(p > 0 for p in c["playouts"]) and len(c["runs_playouts_per_s"]) == result["settings"]["repeats"]
    assert result["playouts_per_s"] == result["configs"]["default"]["playouts_per_s"]
    assert result["command"].startswith(f"fuseki bench mcts --size {size} ")
    assert result["machine"]["python"] and result["date"]


def test_no_peers_json(run_json):
    result, out, err = run_json(["bench", "mcts", "--size", "9", *FAST, "--no-peers", "--json"])
    check_result(result, 9)
    assert result["peers"] == {"dlgo": None} and result["ratio_vs_dlgo"] is None
    assert result["peer_notes"]["dlgo"]
    assert result["target"]["playouts_per_s"] == 20_000 and isinstance(result["target"]["met"], bool)
    assert result["jit"] is None
    assert "--no-peers" in result["command"] and "--no-jit" in result["command"]
    assert "fuseki MCTS" in out and "dlgo: null" in out  # the table comes first
    assert "Traceback" not in out + err


def test_dlgo_is_measured_or_explained(run_json):
    result, _, _ = run_json(["bench", "mcts", "--size", "5", *FAST, "--repeats", "2", "--json"])
    check_result(result, 5)
    assert result["target"] is None  # the target is for 9x9
    dl = result["peers"]["dlgo"]
    if dl is None:
        assert result["peer_notes"]["dlgo"]  # a one-line reason
    else:
        assert dl > 0 and result["ratio_vs_dlgo"] > 0
        assert result["peer_detail"]["dlgo"]["rounds"] == 3
        assert len(result["peer_detail"]["dlgo"]["runs_playouts_per_s"]) == 2
        assert all(c["vs_dlgo"] > 0 for c in result["configs"].values())
    if HAVE_DLGO:
        assert dl is not None, result["peer_notes"]
    assert "--peers dlgo" in result["command"] and "--rounds 3" in result["command"]


def test_missing_dlgo_is_null_with_an_install_hint(run_json, monkeypatch):
    monkeypatch.setitem(sys.modules, "dlgo", None)  # makes `import dlgo` raise ImportError
    result, out, err = run_json(["bench", "mcts", "--size", "5", *FAST, "--json"])
    assert result["peers"] == {"dlgo": None}
    assert "pip install --no-deps dlgo" in result["peer_notes"]["dlgo"]
    assert "pip install --no-deps dlgo" in out and "Traceback" not in out + err


def test_dlgo_too_large_board_is_null(run_json):
    result, _, _ = run_json(["bench", "mcts", "--size", "21", "--seconds", "0.02", "--json"])
    assert result["peers"] == {"dlgo": None} and "19x19" in result["peer_notes"]["dlgo"]
    assert result["playouts_per_s"] > 0


@pytest.mark.skipif(not HAVE_DLGO, reason="dlgo not installed")
def test_dlgo_mcts_agent_is_the_real_one_and_leaves_no_partial_package():
    mcts, goboard_fast, note = M.load_dlgo_mcts()
    assert mcts.__name__ == "dlgo.mcts.mcts" and hasattr(mcts, "MCTSAgent")
    assert mcts.agent.FastRandomBot.__module__ == "dlgo.agent.naive_fast"
    if note is not None:  # loaded without dlgo/agent/__init__.py (no Keras here)
        assert "dlgo.agent.naive_fast" in note
        assert "dlgo.agent" not in sys.modules
    contender, _ = M.dlgo_contender(5, 1, 4)
    stint = contender.run()
    assert stint.playouts == 4 and stint.seconds > 0


def test_fresh_engine_per_search(monkeypatch):
    """Each round searches with a new engine: the second search's tree is the first's, not first + second.

    The contender searches for a time; here each search is held to 300 playouts
    so that the counts are exact. A reused tree would grow to about twice the nodes.
    """
    state = M.GameState.new(5, komi=M.KOMI)
    expected = M.GoMCTS(M.engine_config("book", 1)).search(state, playouts=300).tree_nodes

    class FixedBudget(M.GoMCTS):
        def search(self, state, seconds=None, **kwargs):  # the contender's time budget becomes 300 playouts
            return super().search(state, playouts=300)

    monkeypatch.setattr(M, "GoMCTS", FixedBudget)
    c = M.fuseki_contender("book", 5, 1, 0.02)
    a, b = c.run(), c.run()
    assert (a.playouts, b.playouts) == (300, 300)
    assert a.tree_nodes == b.tree_nodes == expected
    reused = FixedBudget(M.engine_config("book", 1))
    reused.search(state, seconds=0.02)
    assert reused.search(state, seconds=0.02).tree_nodes > expected  # what the test would see with one engine


def test_median_of_rounds_and_rotation():
    calls: list[str] = []

    def make(name: str, rate: list[float]) -> M.Contender:
        def run() -> M.Stint:
            calls.append(name)
            return M.Stint(int(rate.pop(0)), 1.0, 1.0)

        return M.Contender(name, run, lambda: None)

    stints = M.measure([make("a", [1, 2, 3]), make("b", [4, 5, 6])], repeats=3)
    assert calls == ["a", "b", "b", "a", "a", "b"]
    assert [s.rate for s in stints["a"]] == [1, 2, 3]


def test_out_file_has_command_and_date(run_cli, tmp_path):
    path = tmp_path / "sub" / "mcts.json"
    rc, out, err = run_cli(["bench", "mcts", "--size", "5", *FAST, "--no-peers", "--no-jit", "--out", str(path)])
    assert rc == 0, err
    saved = json.loads(path.read_text())
    assert saved["command"].startswith("fuseki bench mcts --size 5 ") and "--out" in saved["command"]
    assert saved["date"] and saved["jit"] is None
    assert f"saved {path}" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "mcts", "--size", "1"],
        ["bench", "mcts", "--rounds", "0"],
        ["bench", "mcts", "--seconds", "0"],
        ["bench", "mcts", "--peers", "openspiel"],
        ["bench", "mcts", "--breakdown"],
        ["bench", "rules", "--rounds", "5"],
        ["bench", "rules", "--jit-cold"],
    ],
)
def test_bad_flags_exit_2_with_one_line(argv, usage_error):
    usage_error(argv)


def test_module_doctests():
    failures, _ = doctest.testmod(M)
    assert failures == 0


@pytest.mark.slow
def test_jit_startup_cached():
    jit = M.measure_jit(9)
    assert jit["cached_s"] > 0 and jit["cold_s"] is None
    assert set(jit["cached"]) >= {"import_s", "first_search_s", "total_s", "total_cpu_s"}
