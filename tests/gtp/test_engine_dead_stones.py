"""The GTP engine's dead-stone estimate: ``--dead-stones playouts|network`` (spec T4)."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import fuseki.deadstones.scorer as scorer
from fuseki.agents import make_agent
from fuseki.gtp.engine import GtpEngine

#: A 5x5 position (rows top first) where the estimates disagree: the black
#: stone on B5 and the white string C5 B4 C4 are both in atari. The network's
#: static rule calls every block in atari dead; the playouts see that Black,
#: to move, captures first, so B5 lives.
MUTUAL_ATARI = [
    "b B5", "b A4", "b D5", "b D4", "b C3",
    "w C5", "w B4", "w C4",
]

#: A dead black corner inside White's wall (the conformance test's position).
CORNER = "b B5, b A4, b B4, w C5, w C4, w A3, w B3, w C3".split(", ")


#: White's wall on C with a gap at C4, Black's wall on B (7x7): White's 28 points behind the gap touch
#: Black through it (tests/search/test_heavy_final_status.py). The last move is White's: Black to move.
GAP = [f"b B{r}" for r in range(1, 8)] + [f"w C{r}" for r in (1, 2, 3, 5, 6, 7)]


def new_engine(**kwargs: object) -> GtpEngine:
    return GtpEngine(make_agent("random", seed=1), stdout=io.StringIO(), log=io.StringIO(), **kwargs)  # type: ignore[arg-type]


def setup_5x5(engine: GtpEngine, moves: list[str]) -> None:
    assert engine.handle("boardsize 5") == "= "
    assert engine.handle("komi 0") == "= "
    for move in moves:
        assert engine.handle(f"play {move}") == "= ", move


def test_both_estimates_find_the_dead_corner() -> None:
    """The corner of the conformance test: both estimates call it dead and count W+25."""
    for method in ("playouts", "network"):
        e = new_engine(dead_stones=method)
        assert e.dead_stones == method
        setup_5x5(e, CORNER)
        assert set(e.handle("final_status_list dead")[2:].split()) == {"A4", "B4", "B5"}, method
        assert e.handle("final_score") == "= W+25", method


def test_network_and_playouts_disagree_on_a_mutual_atari() -> None:
    playouts, network = new_engine(), new_engine(dead_stones="network")
    for e in (playouts, network):
        setup_5x5(e, MUTUAL_ATARI)
    assert set(playouts.handle("final_status_list dead")[2:].split()) == {"C5", "B4", "C4"}
    assert set(network.handle("final_status_list dead")[2:].split()) == {"B5", "C5", "B4", "C4"}
    assert "B5" in playouts.handle("final_status_list alive")
    assert "B5" not in network.handle("final_status_list alive")
    # The network knows nothing of seki: its seki list is always empty.
    assert network.handle("final_status_list seki") == "= "


def test_final_score_asks_the_network(dead_stones_spy: Callable[..., list[object]]) -> None:
    """A spy in place of the classifier: its verdict is what final_score counts."""
    calls = dead_stones_spy()
    e = new_engine(dead_stones="network")
    setup_5x5(e, CORNER)
    assert e.handle("final_score") == "= B+25"  # White's wall removed: the whole board is Black's
    assert e.handle("final_status_list dead") == "= C5 C4 A3 B3 C3"
    assert len(calls) == 2 and calls[0] is not None  # the shipped model was loaded and passed on
    playouts = new_engine()
    setup_5x5(playouts, CORNER)
    assert playouts.handle("final_score") == "= W+25"
    assert len(calls) == 2  # the playout estimate never asks the network


def test_bad_choices_fail_at_construction(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown dead-stone estimate 'magic'"):
        new_engine(dead_stones="magic")
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a dead-stone model"):
        new_engine(dead_stones="network", dead_stones_model=str(bad))
    with pytest.raises(ValueError, match="network estimate only"):
        new_engine(dead_stones="playouts", dead_stones_model=str(bad))


def test_network_with_an_explicit_model_file() -> None:
    model = Path(scorer.__file__).parent.parent / "models" / "deadstones" / f"{scorer.DEFAULT_MODEL}.safetensors"
    e = new_engine(dead_stones="network", dead_stones_model=str(model))
    setup_5x5(e, MUTUAL_ATARI)
    assert "B5" in e.handle("final_status_list dead")


def _gtp(*flags: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fuseki", "gtp", "--bot", "random", *flags],  # any size; no network to load
        input=stdin, capture_output=True, text=True, timeout=120,
    )


def test_cli_flag_reaches_the_engine_and_bad_models_are_one_line_errors(tmp_path: Path) -> None:
    script = "boardsize 5\nkomi 0\n" + "".join(f"play {m}\n" for m in MUTUAL_ATARI) + "final_status_list dead\nquit\n"
    for flags, dead in ((("--dead-stones", "network"), {"B5", "C5", "B4", "C4"}), ((), {"C5", "B4", "C4"})):
        out = _gtp(*flags, stdin=script)
        assert out.returncode == 0, out.stderr
        replies = [r for r in out.stdout.split("\n\n") if r]
        assert set(replies[-2][2:].split()) == dead, (flags, replies[-2])

    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"garbage")
    for flags, message in (
        (("--dead-stones", "network", "--dead-stones-model", str(bad)), "not a dead-stone model file"),
        (("--dead-stones", "network", "--dead-stones-model", str(tmp_path / "missing")), "no dead-stone model"),
        (("--dead-stones-model", str(bad)), "applies to --dead-stones network only"),
        (("--dead-stones", "magic"), "invalid choice: 'magic'"),
    ):
        out = _gtp(*flags)
        assert out.returncode == 2, flags
        assert out.stdout == ""
        assert message in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_final_score_gives_open_points_to_their_owner() -> None:
    """The playout estimate counts White's open area behind the gap; the network's count by regions does not."""
    playouts, network = new_engine(), new_engine(dead_stones="network")
    for e in (playouts, network):
        assert e.handle("boardsize 7") == "= "
        assert e.handle("komi 0.5") == "= "
        for move in GAP:
            assert e.handle(f"play {move}") == "= ", move
        assert e.handle("final_status_list dead") == "= "
    assert playouts.handle("final_score") in ("= W+19.5", "= W+20.5", "= W+21.5")
    assert network.handle("final_score") == "= B+7.5"  # Black 14, White's 6 stones, the rest dame
