"""Klein's Hexapawn experiment (*Neural Networks for Chess*, ch. 5): a net taught from solved play against one from zero.

Klein trains one network two ways and sends both against a player of random
moves. His code (``sup_network.py``, ``rnf_train.py``, ``rnf_mcts.py``,
``sup_eval.py``, ``rnf_eval.py``) fixes every setting, and this module uses
his:

- **the network**: the planes flattened into 5 dense ReLU layers of 128, a
  softmax policy head and a tanh value head (:class:`fuseki.nets.dual.MLPDualNet`),
  trained by plain SGD (Keras' default: learning rate 0.01, no momentum, no
  L2) on the sum of the policy's cross-entropy and the value's squared error;
- **supervised**: every non-terminal position met in a walk of the whole game
  tree from the start (each path walked, so a position reached by two paths
  counts twice), labelled with the first move of best minimax value (one-hot)
  and the solved result; 512 epochs in batches of 16;
- **Zero**: the same network from random weights; 11 iterations of 10
  self-play games, each move searched by PUCT with 100 simulations and
  ``c_puct`` 1 (no Dirichlet noise, a fresh tree every move), every move
  drawn in proportion to the visit counts, and the network trained 256
  epochs in batches of 16 on that iteration's positions only (targets: the
  visit distributions and the games' results) -- our loop
  (:func:`fuseki.zero.loop.run_zero`) with those settings;
- **the evaluation**: the network alone (the legal move of highest policy
  output, no search) against uniformly random moves. Klein plays 100 games
  with the network as Black, the side that wins with perfect play; we play
  ``games`` as Black and as White for each net, and for two baselines (the
  untrained network, and the random player itself), each with its 95 %
  Wilson interval.

What differs from his code, and why, is in docs/zero.md. The run folder
(``klein.json``; ``supervised-data.npz``; ``supervised.safetensors``; the
Zero run in ``zero/``; ``eval-NET-COLOUR.json`` per net and colour;
``result.json``) resumes after ``kill -9`` at the step it was in, and a
larger ``games`` plays only the games not yet played.
"""

from __future__ import annotations

import dataclasses
import datetime
import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fuseki.agents.zero_agent import build_zero_network, load_zero_network, save_zero_network
from fuseki.arena.loop import play_game
from fuseki.games.base import Game
from fuseki.games.hexapawn import Hexapawn
from fuseki.search.minimax import TranspositionTable, alphabeta
from fuseki.util.atomic import write_atomic, write_json_atomic
from fuseki.util.progress import Progress, ProgressCallback
from fuseki.util.runs import RunFolder, field_defaults
from fuseki.util.seeds import derive_seed
from fuseki.util.stats import wilson_interval
from fuseki.zero.learner import LearnerConfig, evaluate_loss, train_network
from fuseki.zero.loop import ZeroSettings, network_path, run_zero

__all__ = [
    "KLEIN_REPORTED",
    "NETS",
    "KleinSettings",
    "PolicyPlayer",
    "RandomPlayer",
    "won_positions_kept",
    "run_klein",
    "solved_positions",
]

SETTINGS_FILE = "klein.json"
RESULT_FILE = "result.json"
COLOURS = ("black", "white")
#: The players sent against random moves: Klein's two nets, the untrained net and the random player (his baselines).
NETS = ("supervised", "zero", "untrained", "random")

#: What Klein's code records (the comments of ``sup_eval.py``; 100 games, the net as Black, White random from move 1).
#: His scripts print the share of White wins, draws, Black wins. The Zero net's figure (``rnf_eval.py``) is not in
#: his repository's code, and the chapter's text is not in our sources; it is left out rather than guessed.
KLEIN_REPORTED: dict[str, Any] = {
    "source": "Klein, Neural Networks for Chess, ch. 5; github.com/asdfjkl/neural_network_chess chapter_05/sup_eval.py",
    "games": 100,
    "supervised_as_black": {"wins": 100, "games": 100, "printed": "Rand vs Supervised Network: 0.0/0.0/1.0"},
    "random_as_black": {"wins": 41, "games": 100, "printed": "Rand vs Rand Network: 0.59/0.0/0.41"},
    "zero_as_black": None,
}


@dataclasses.dataclass(frozen=True)
class KleinSettings:
    """Klein's settings (the defaults) and the run's seed: everything that decides the nets (``klein.json``)."""

    seed: int = 0
    layers: int = 5
    hidden: int = 128
    lr: float = 0.01
    batch_size: int = 16
    supervised_epochs: int = 512
    iterations: int = 11
    games: int = 10
    simulations: int = 100
    c_puct: float = 1.0
    zero_epochs: int = 256

    def __post_init__(self) -> None:
        for name in ("layers", "hidden", "batch_size", "supervised_epochs", "iterations", "games", "simulations", "zero_epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.lr > 0 or not self.c_puct > 0:
            raise ValueError("lr and c_puct must be positive")

    def learner_config(self, epochs: int, device: str) -> LearnerConfig:
        return LearnerConfig(
            epochs=epochs,
            batch_size=self.batch_size,
            optimizer="sgd",
            lr=self.lr,
            momentum=0.0,
            weight_decay=0.0,
            augment=False,
            device=device,
        )

    def zero_settings(self) -> ZeroSettings:
        """The Zero loop with Klein's ``rnf_train.py`` settings."""
        return ZeroSettings(
            game="hexapawn",
            seed=derive_seed(self.seed, "zero"),
            network="mlp",
            blocks=self.layers,
            channels=self.hidden,
            games=self.games,
            simulations=self.simulations,
            c_puct=self.c_puct,
            leaves_per_game=1,  # one leaf at a time, as his search; the games' leaves still share a network call
            parallel=self.games,
            temperature_moves=1000,  # every move drawn by the visit counts
            dirichlet_epsilon=0.0,
            tree_reuse=False,
            window=1,  # each iteration trains on its own games only
            epochs=self.zero_epochs,
            batch_size=self.batch_size,
            optimizer="sgd",
            lr=self.lr,
            momentum=0.0,
            weight_decay=0.0,
            augment=False,
        )


# ---- the solved positions ---------------------------------------------------------------


def solved_positions(game: Hexapawn | None = None) -> tuple[list[Any], list[int], list[float]]:
    """Klein's supervised data: every non-terminal position of a walk of the whole tree, its best action and value.

    The walk visits each path, so a position reached by several paths appears
    once per path (as in Klein's ``visitNodes``). The best action is the
    first legal move (in the game's move order) of best exact minimax value;
    the value is the result with perfect play for the player to move (+1 a
    win, -1 a loss: Hexapawn has no draws).
    """
    game = game or Hexapawn()
    tt = TranspositionTable()
    states: list[Any] = []
    actions: list[int] = []
    values: list[float] = []

    def value(state: Any) -> float:
        if state.is_over():
            w = state.winner()
            return 0.0 if w is None else (1.0 if w == state.current_player else -1.0)
        return float(alphabeta(state, tt=tt).value)

    def visit(state: Any) -> None:
        if state.is_over():
            return
        moves = state.legal_moves()
        scores = [-value(state.play(m)) for m in moves]
        best = int(np.argmax(scores))  # the first of the best
        states.append(state)
        actions.append(game.action_index(state, moves[best]))
        values.append(scores[best])
        for m in moves:
            visit(state.play(m))

    visit(game.initial_state())
    return states, actions, values


def won_positions_kept(game: Game, choose: Callable[[Any], Any]) -> tuple[int, int]:
    """(won positions where ``choose``'s move keeps the win, won positions): how often a net plays a winning move.

    Over the distinct non-terminal positions reachable from the start in
    which the player to move wins with perfect play; in a lost position every
    move loses, so those say nothing about a net.
    """
    tt = TranspositionTable()
    seen: dict[Any, None] = {}

    def walk(state: Any) -> None:
        if state.is_over() or state in seen:
            return
        seen[state] = None
        for m in state.legal_moves():
            walk(state.play(m))

    walk(game.initial_state())

    def value(state: Any) -> float:
        if state.is_over():
            w = state.winner()
            return 0.0 if w is None else (1.0 if w == state.current_player else -1.0)
        return float(alphabeta(state, tt=tt).value)

    won = [s for s in seen if value(s) > 0]
    kept = sum(1 for s in won if -value(s.play(choose(s))) > 0)
    return kept, len(won)


# ---- players ----------------------------------------------------------------------------------


class PolicyPlayer:
    """Klein's evaluation player: the legal move of highest policy output, no search."""

    def __init__(self, game: Game, network: torch.nn.Module) -> None:
        self.game = game
        self.network = network.eval()

    def select_move(self, state: Any) -> Any:
        with torch.no_grad():
            logits, _ = self.network(torch.from_numpy(self.game.planes(state))[None])
        scores = logits[0].numpy()
        legal = self.game.legal_actions(state)
        return self.game.index_to_move(state, int(legal[int(np.argmax(scores[legal]))]))


class RandomPlayer:
    """Uniformly random legal moves, from its own seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def select_move(self, state: Any) -> Any:
        moves = state.legal_moves()
        return moves[int(self.rng.integers(len(moves)))]


# ---- the run ------------------------------------------------------------------------------------


def _folder(out: Path) -> RunFolder:
    return RunFolder(out, SETTINGS_FILE, "a Klein experiment with other settings", "a Klein settings file", "use another --out")


def _say(progress: ProgressCallback | None, step: int, message: str, **extra: Any) -> None:
    if progress is not None:
        progress(Progress(step, 4, "step", message, {"step": step, **extra}))


def _supervised(folder: Path, settings: KleinSettings, device: str, progress: ProgressCallback | None) -> dict[str, Any]:
    game = Hexapawn()
    data_path = folder / "supervised-data.npz"
    if not data_path.exists():
        states, actions, values = solved_positions(game)
        planes = np.stack([game.planes(s) for s in states]).astype(np.float32)
        pi = np.zeros((len(states), game.num_actions), dtype=np.float32)
        pi[np.arange(len(states)), actions] = 1.0
        buffer = io.BytesIO()
        np.savez_compressed(buffer, planes=planes, pi=pi, z=np.array(values, dtype=np.float32), distinct=len(set(states)))
        write_atomic(data_path, buffer.getvalue())
    with np.load(data_path) as data:
        planes, pi, z, distinct = data["planes"], data["pi"], data["z"], int(data["distinct"])
    path = folder / "supervised.safetensors"
    if path.exists():
        _, _, info = load_zero_network(path)
        report: dict[str, Any] = info["train"]
    else:
        _say(progress, 1, f"supervised: {len(z)} positions ({distinct} distinct), {settings.supervised_epochs} epochs")
        started = time.perf_counter()
        torch.manual_seed(derive_seed(settings.seed, "supervised", "init"))
        network = build_zero_network(game, settings.layers, settings.hidden, network="mlp")
        before = evaluate_loss(network, planes, pi, z)
        history = train_network(
            network,
            game,
            planes,
            pi,
            z,
            settings.learner_config(settings.supervised_epochs, device),
            seed=derive_seed(settings.seed, "supervised"),
        )
        report = {
            "positions": len(z),
            "distinct_positions": distinct,
            "epochs": settings.supervised_epochs,
            "loss_before": before,
            "loss": {k: history[-1][k] for k in ("loss", "value_loss", "policy_loss")},
            "seconds": time.perf_counter() - started,
        }
        save_zero_network(
            path,
            network,
            game="hexapawn",
            game_options={},
            blocks=settings.layers,
            channels=settings.hidden,
            value_hidden=64,
            network_kind="mlp",
            extra={"train": report, "klein": "supervised"},
        )
    _say(progress, 1, f"supervised: loss {report['loss']['loss']:.3f} after {report['epochs']} epochs", loss=report["loss"]["loss"])
    return report


def _networks(folder: Path, settings: KleinSettings) -> dict[str, torch.nn.Module]:
    """The three nets: Klein's two and the untrained start of the Zero run."""
    return {
        "supervised": load_zero_network(folder / "supervised.safetensors")[0],
        "zero": load_zero_network(network_path(folder / "zero", settings.iterations))[0],
        "untrained": load_zero_network(network_path(folder / "zero", 0))[0],
    }


def _players(folder: Path, settings: KleinSettings, game: Game) -> dict[str, Callable[[int], Any]]:
    """Each player, built fresh per game from its seed (the nets themselves have no randomness)."""
    networks = _networks(folder, settings)
    players: dict[str, Callable[[int], Any]] = {name: (lambda seed, net=net: PolicyPlayer(game, net)) for name, net in networks.items()}
    players["random"] = RandomPlayer
    return players


def _evaluate(folder: Path, settings: KleinSettings, games: int, progress: ProgressCallback | None) -> dict[str, Any]:
    """Every net against random moves as Black and as White: ``games`` each, resumable per (net, colour)."""
    game = Hexapawn()
    players = _players(folder, settings, game)
    out: dict[str, Any] = {}
    for name in NETS:
        out[name] = {}
        for colour in COLOURS:
            side = COLOURS.index(colour) ^ 1  # Black is player 1
            path = folder / f"eval-{name}-{colour}.json"
            record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"winners": [], "moves": []}
            winners: list[int] = record["winners"]
            moves: list[str] = record["moves"]
            for i in range(len(winners), games):
                agents = {
                    side: players[name](derive_seed(settings.seed, "eval", name, colour, i, "net")),
                    1 - side: RandomPlayer(derive_seed(settings.seed, "eval", name, colour, i, "random")),
                }
                outcome = play_game(game, [agents[0], agents[1]])
                assert outcome.winner is not None  # Hexapawn has no draws
                winners.append(int(outcome.winner))
                moves.append(" ".join(str(m) for m in outcome.moves))
            if len(winners) > games:
                winners, moves = winners[:games], moves[:games]  # a smaller --games reads the first games
            else:
                write_json_atomic(path, {"net": name, "colour": colour, "winners": winners, "moves": moves})
            wins = sum(1 for w in winners if w == side)
            low, high = wilson_interval(wins, games)
            out[name][colour] = {
                "games": games,
                "wins": wins,
                "win_rate": wins / games if games else None,
                "ci95": [low, high],
                "distinct_games": len(set(moves)),
            }
            _say(progress, 4, f"{name} as {colour} against random: {wins}/{games} ({100 * wins / max(games, 1):.1f} %)", net=name)
    return out


def run_klein(
    out: str | Path,
    settings: KleinSettings | None = None,
    *,
    games: int = 1000,
    device: str = "cpu",
    progress: ProgressCallback | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Run (or go on with) Klein's experiment in ``out``; the result (also written to ``result.json``).

    ``games``: evaluation games per net and colour (not a setting: raising
    it plays only the new games).
    """
    settings = settings or KleinSettings()
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    folder = Path(out)
    run = _folder(folder)
    mine = json.loads(json.dumps(dataclasses.asdict(settings)))
    started = time.perf_counter()
    with run.locked():
        theirs = run.saved_settings()
        if theirs is not None:
            run.check(theirs, mine, defaults=json.loads(json.dumps(field_defaults(KleinSettings))))
        else:
            run.write({"settings": mine})
        supervised = _supervised(folder, settings, device, progress)
    # The Zero run is a run folder of its own (it takes its own lock).
    _say(
        progress,
        2,
        f"zero: {settings.iterations} iterations of {settings.games} self-play games, {settings.simulations} simulations a move",
    )
    zero_state = run_zero(folder / "zero", settings.zero_settings(), settings.iterations, device=device, progress=progress)
    with run.locked():
        game = Hexapawn()
        shares = {}
        for name, network in _networks(folder, settings).items():
            kept, won = won_positions_kept(game, PolicyPlayer(game, network).select_move)
            shares[name] = {"kept": kept, "won_positions": won}
        _say(progress, 3, "won positions kept: " + ", ".join(f"{k} {v['kept']}/{v['won_positions']}" for k, v in shares.items()))
        evaluation = _evaluate(folder, settings, games, progress)
        result = {
            "format": "fuseki-zero-klein",
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": command,
            "settings": mine,
            "games_per_colour": games,
            "klein": KLEIN_REPORTED,
            "ours": evaluation,
            "won_positions_kept": shares,
            "training": {
                "supervised": supervised,
                "zero": [
                    {
                        "iteration": h["generation"],
                        "selfplay_wins": h["selfplay"]["wins"],
                        "samples": h["selfplay"]["samples"],
                        "loss": h["train"]["loss"],
                        "value_loss": h["train"]["value_loss"],
                        "policy_loss": h["train"]["policy_loss"],
                        "selfplay_seconds": h["selfplay"]["seconds"],
                        "train_seconds": h["train"]["seconds"],
                    }
                    for h in zero_state["history"]
                ],
            },
            "seconds_this_run": time.perf_counter() - started,
        }
        write_json_atomic(folder / RESULT_FILE, result)
    return result
