"""The book's chapter 14 demo (``zero_demo.py``, listing 14.14), with its settings, on our engine.

The book ends its AlphaGo Zero chapter with one cycle of the loop on 9×9:

- the network: the book's :class:`~fuseki.encoders.zero.ZeroEncoder` (11
  planes), 4 plain 3×3 convolutions of 64 filters, a policy head (1×1 conv
  to 2, dense to 82 moves) and a value head (1×1 conv to 1, dense 256, dense
  1, tanh): our ``conv`` network (:class:`fuseki.nets.dual.ConvDualNet`);
- self-play: 5 games, both sides one ``ZeroAgent`` with 10 rounds (simulations)
  a move and ``c`` = 2.0, each move the most visited (no Dirichlet noise and
  no temperature in its code), games played to the end (two passes);
- training: one call of ``train(exp, 0.01, 2048)``, Keras' plain SGD at
  learning rate 0.01 in batches of 2048 for one epoch; the targets are the
  normalised visit counts and the results (+1 / -1).

The book prints nothing but ``Starting the game!`` per game; its figures
are its settings, and the AlphaGo Zero figures the chapter quotes (1,600
rounds a move, about 5 million self-play games). :func:`run_demo` plays
that cycle in a run folder (:func:`fuseki.zero.loop.run_zero`, so it
resumes and a larger ``--generations`` goes on with the book's loop), and
measures what the book could not: the games (moves, result, how many were
distinct), the loss before and after the training step, and the time of
self-play done the book's way (one game at a time, one position per network
call, :func:`play_book_way`) beside ours (the 5 games' leaves in one call),
checking that both play the same games.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from fuseki.agents.zero_agent import load_zero_network
from fuseki.search.evaluators import NetworkEvaluator
from fuseki.util.atomic import write_json_atomic
from fuseki.util.progress import ProgressCallback
from fuseki.util.seeds import derive_seed
from fuseki.zero.learner import evaluate_loss
from fuseki.zero.loop import ZeroSettings, _run_folder, network_path, run_zero
from fuseki.zero.selfplay import capped_judge, play_games, samples_of

__all__ = ["BOOK", "book_settings", "play_book_way", "run_demo"]

#: The book's figures: the demo's settings and the AlphaGo Zero numbers the chapter gives beside them.
BOOK: dict[str, Any] = {
    "source": "Deep Learning and the Game of Go, ch. 14, listing 14.14 (code/zero_demo.py)",
    "board_size": 9,
    "encoder": "zero (11 planes)",
    "network": "4 conv layers 3x3 x 64, ReLU; policy conv 1x1 x 2 + dense 82; value conv 1x1 x 1 + dense 256 + dense 1 (tanh)",
    "games": 5,
    "rounds_per_move": 10,
    "c": 2.0,
    "learning_rate": 0.01,
    "batch_size": 2048,
    "epochs": 1,
    "dirichlet_noise": "none in the demo's code (section 14.4 explains AGZ's, concentration 0.03)",
    "agz_rounds_per_move": 1600,
    "agz_selfplay_games": "about 5 million",
    "reports": "nothing but 'Starting the game!' for each game",
}


def book_settings(seed: int = 0, *, noise: bool = False) -> ZeroSettings:
    """The demo's settings as a Zero run; ``noise`` adds AlphaGo Zero's root noise (ε 0.25, α 0.03, as section 14.4 says)."""
    return ZeroSettings(
        game="go",
        game_options={"size": 9, "encoder": "zero"},
        seed=seed,
        network="conv",
        blocks=4,
        channels=64,
        value_hidden=256,
        games=5,
        simulations=10,
        c_puct=2.0,
        leaves_per_game=1,  # the book's search visits one leaf at a time
        parallel=5,
        temperature_moves=0,  # the most visited move, always
        dirichlet_epsilon=0.25 if noise else 0.0,
        dirichlet_alpha=0.03 if noise else None,
        tree_reuse=False,  # the book builds a new tree for every move
        window=1,
        epochs=1,
        batch_size=2048,
        optimizer="sgd",
        lr=0.01,
        momentum=0.0,
        weight_decay=0.0,
        augment=False,
    )


def play_book_way(folder: Path, settings: ZeroSettings, generation: int = 1) -> dict[str, Any]:
    """Self-play ``generation``'s games again the book's way: one game at a time, one position per network call.

    Returns the time and counts, the games' lengths and winners, how many
    games differ, and whether the positions and visit counts are those the
    run recorded (they must be: the games do not depend on the batching).
    """
    network, game, _ = load_zero_network(network_path(folder, generation - 1))
    config = dataclasses.replace(settings.selfplay_config(), parallel=1, leaves_per_game=1)
    started = time.perf_counter()
    games, stats = play_games(
        game, NetworkEvaluator(game, network, device="cpu"), settings.games, config,
        seed=derive_seed(settings.seed, "selfplay", generation), judge=capped_judge(game),
    )  # fmt: skip
    seconds = time.perf_counter() - started
    planes, pi, z = samples_of(games)
    with np.load(folder / f"selfplay-{generation:04d}.npz") as data:
        same = bool(np.array_equal(planes, data["planes"]) and np.array_equal(pi, data["pi"]) and np.array_equal(z, data["z"]))
    return {
        "seconds": seconds,
        "moves": stats.moves,
        "network_calls": stats.network_calls,
        "evaluations": stats.evaluations,
        "same_games": same,
        "game_lengths": [len(g.moves) for g in games],
        "winners": ["black" if g.winner == 0 else "white" if g.winner == 1 else None for g in games],
        "distinct_games": len({tuple(str(m) for m in g.moves) for g in games}),
    }


def run_demo(
    out: str | Path,
    *,
    seed: int = 0,
    noise: bool = False,
    generations: int = 1,
    device: str = "cpu",
    progress: ProgressCallback | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Run (or resume) the demo in ``out``: the book's cycle ``generations`` times; the report (also ``out/demo.json``)."""
    folder = Path(out)
    settings = book_settings(seed, noise=noise)
    state = run_zero(folder, settings, generations, device=device, progress=progress)
    with np.load(folder / "selfplay-0001.npz") as data:
        planes, pi, z = data["planes"], data["pi"], data["z"]
    before = evaluate_loss(load_zero_network(network_path(folder, 0))[0], planes, pi, z)
    after = evaluate_loss(load_zero_network(network_path(folder, 1))[0], planes, pi, z)
    with _run_folder(folder).locked():
        book_way_path = folder / "book-way.json"
        if book_way_path.exists():
            book_way = json.loads(book_way_path.read_text(encoding="utf-8"))
        else:
            book_way = play_book_way(folder, settings, 1)
            write_json_atomic(book_way_path, book_way)
        report = _report(command, settings, state, book_way, before, after)
        write_json_atomic(folder / "demo.json", report)
    return report


def _report(
    command: str | None, settings: ZeroSettings, state: dict[str, Any], book_way: dict[str, Any], before: Any, after: Any
) -> dict[str, Any]:
    first = state["history"][0]
    sp, tr = first["selfplay"], first["train"]
    return {
        "format": "fuseki-zero-demo",
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "book": BOOK,
        "settings": dataclasses.asdict(settings),
        "ours": {
            "games": sp["games"],
            "moves": sp["moves"],
            "moves_per_game": sp["moves"] / max(1, sp["games"]),
            "wins_black_white": sp["wins"],
            "distinct_games": book_way["distinct_games"],
            "game_lengths": book_way["game_lengths"],
            "network_calls": sp["network_calls"],
            "evaluations": sp["evaluations"],
            "selfplay_seconds": sp["seconds"],
            "moves_per_second": sp["moves"] / sp["seconds"] if sp["seconds"] else None,
            "train_seconds": tr["seconds"],
            "gradient_steps": -(-tr["samples"] // settings.batch_size) if tr["samples"] else 0,
            "loss_before": before,
            "loss_after": after,
        },
        "book_way": {**book_way, "speedup": book_way["seconds"] / sp["seconds"] if sp["seconds"] else None},
        "generations": state["generation"],
    }
