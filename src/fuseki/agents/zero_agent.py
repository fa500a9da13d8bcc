"""The Zero network, its file, and the agents that play with it: :class:`ZeroAgent` (any game), ``zero`` (Go).

A network file is one safetensors file: the ``state_dict`` tensors, and in
the header's ``__metadata__`` under ``"fuseki_zero"`` one JSON object with
everything needed to rebuild it (the game and its options, blocks, channels,
the value head's width) plus what the loop adds (generation, losses). Loading
never unpickles. The Go agent files of :mod:`fuseki.agents.agent_file` are
tied to Go encoders; a Zero network reads its game's own planes, so it has
this file of its own.

:class:`ZeroAgent` plays any game of the protocol; :func:`make_zero_agent` is
the registry's ``zero`` for Go's frontends (``--bot zero --model FILE``),
which show agents the rules engine's state, not the protocol's. The loop that
trains these networks is :mod:`fuseki.zero`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import struct
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load as load_tensors
from safetensors.torch import save

from fuseki.games import make_game
from fuseki.games.base import Game
from fuseki.nets.dual import ConvDualNet, MLPDualNet
from fuseki.nets.residual import dual_residual_network
from fuseki.search.evaluators import NetworkEvaluator
from fuseki.search.puct import PUCT, PUCTConfig
from fuseki.util.atomic import write_atomic
from fuseki.util.errors import FusekiError, InputError

__all__ = [
    "META_KEY",
    "NETWORK_KINDS",
    "GoZeroAgent",
    "ZeroAgent",
    "ZeroFileError",
    "build_zero_network",
    "load_zero_network",
    "make_zero_agent",
    "make_zero_game",
    "save_zero_network",
    "zero_network_from_bytes",
]

#: The metadata key of a Zero network file.
META_KEY = "fuseki_zero"
FORMAT = 1


class ZeroFileError(FusekiError, ValueError):
    """A Zero network file that is missing, broken or not one."""


#: The network designs a Zero run can train (``network`` in its settings and file): AlphaGo Zero's residual
#: tower, the book's ch. 14 demo net of plain convolutions, Klein's HexapawnZero MLP (:mod:`fuseki.nets.dual`).
NETWORK_KINDS = ("residual", "conv", "mlp")


def build_zero_network(game: Game, blocks: int, channels: int, value_hidden: int = 64, network: str = "residual") -> torch.nn.Module:
    """The two-headed network for ``game``'s planes and actions.

    ``network`` picks the design; ``blocks`` and ``channels`` are its depth
    and width in that design's terms: residual blocks × filters
    (``residual``), plain conv layers × filters (``conv``, the book's demo:
    4 × 64), dense layers × units (``mlp``, Klein's: 5 × 128, which ignores
    ``value_hidden``). The convolutional designs need square planes.
    """
    c, h, w = game.planes_shape
    if network == "mlp":
        return MLPDualNet(c * h * w, game.num_actions, layers=blocks, hidden=channels)
    if network not in NETWORK_KINDS:
        raise InputError(f"unknown Zero network {network!r}; choose {', '.join(NETWORK_KINDS)}")
    if h != w:
        raise InputError(f"the {network} network needs square planes; {game.name} has {h}x{w}")
    if network == "conv":
        return ConvDualNet(c, h, game.num_actions, layers=blocks, channels=channels, value_hidden=value_hidden)
    return dual_residual_network(
        in_planes=c, size=h, num_moves=game.num_actions, blocks=blocks, channels=channels, value_hidden=value_hidden
    )


def make_zero_game(name: str, options: Mapping[str, Any]) -> Game:
    """The game of a Zero run or file: ``make_game(name, **options)``, where Go's ``encoder`` is an encoder's name.

    Settings and files hold JSON, so a Go run that reads the planes of one of
    :mod:`fuseki.encoders` (the book's demo: ``zero``, 11 planes) names it;
    without one, Go's planes are AlphaGo Zero's 17 (8 positions of own and
    opposing stones, and the colour to move).
    """
    options = dict(options)
    encoder = options.get("encoder")
    if encoder is not None:
        if name != "go":
            raise InputError(f"an encoder is for Go's planes; {name} has its own")
        # Imported here: the encoders load the Go engine's Numba kernels, which the other games never need.
        from fuseki.encoders import get_encoder

        options["encoder"] = get_encoder(str(encoder), int(options.get("size", 9)))
    return make_game(name, **options)


def save_zero_network(
    path: str | os.PathLike[str],
    network: torch.nn.Module,
    *,
    game: str,
    game_options: Mapping[str, Any],
    blocks: int,
    channels: int,
    value_hidden: int,
    network_kind: str = "residual",
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write ``network`` and how to rebuild it to ``path``, atomically."""
    info = {
        "format": FORMAT,
        "game": game,
        "game_options": dict(game_options),
        "network": network_kind,
        "blocks": blocks,
        "channels": channels,
        "value_hidden": value_hidden,
        **(dict(extra) if extra else {}),
    }
    tensors = {k: v.detach().cpu().contiguous() for k, v in network.state_dict().items()}
    write_atomic(path, save(tensors, metadata={META_KEY: json.dumps(info, sort_keys=True)}))


def load_zero_network(path: str | os.PathLike[str]) -> tuple[torch.nn.Module, Game, dict[str, Any]]:
    """The network of a Zero file (eval mode, CPU), its game and the file's JSON."""
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            if META_KEY not in meta:
                raise ZeroFileError(f"{path} is not a Zero network file (no {META_KEY!r} metadata)")
            info = json.loads(meta[META_KEY])
            tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 (safe_open has no __iter__)
    except FileNotFoundError:
        raise ZeroFileError(f"no Zero network file at {path}") from None
    except ZeroFileError:
        raise
    except (OSError, ValueError, SafetensorError) as e:
        raise ZeroFileError(f"{path} is not a readable Zero network file ({e})") from None
    return _rebuild(str(path), info, tensors)


def zero_network_from_bytes(data: bytes, label: str = "network bytes") -> tuple[torch.nn.Module, Game, dict[str, Any]]:
    """:func:`load_zero_network` of a file's bytes: how self-play workers and Ray actors get the network.

    A Ray actor may run on another machine than the run folder, so workers
    are sent the file's bytes, not its path.
    """
    try:
        (length,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + length])
        info = json.loads(header["__metadata__"][META_KEY])
        tensors = load_tensors(data)
    except (struct.error, ValueError, KeyError, TypeError, SafetensorError) as e:
        raise ZeroFileError(f"{label} are not a Zero network file ({e})") from None
    return _rebuild(label, info, tensors)


def _rebuild(where: str, info: dict[str, Any], tensors: dict[str, torch.Tensor]) -> tuple[torch.nn.Module, Game, dict[str, Any]]:
    if info.get("format") != FORMAT:
        raise ZeroFileError(f"{where} has Zero file format {info.get('format')!r}; this fuseki reads {FORMAT}")
    game = make_zero_game(info["game"], info.get("game_options", {}))
    # Files written before the network's design was recorded hold the residual net.
    network = build_zero_network(game, info["blocks"], info["channels"], info["value_hidden"], info.get("network", "residual"))
    try:
        network.load_state_dict(tensors)
    except RuntimeError as e:
        raise ZeroFileError(f"{where}: the weights do not fit the network it names ({str(e).splitlines()[0]})") from None
    return network.eval(), game, info


class ZeroAgent:
    """Chooses moves by PUCT with a Zero network: the most visited move, no noise (play, gating, tests).

    ``temperature_moves`` > 0 draws this agent's first moves by visit counts
    (with the Gumbel root: by the improved policy) instead, seeded by
    ``seed``, for varied games; the protocol has no move number, so the count
    is of the agent's own moves since :meth:`new_game`. The tree is kept
    between moves (the search finds the new position among the old root's
    children and grandchildren). ``root="gumbel"`` searches with Gumbel
    AlphaZero's root, without its noise (the move is the best of sequential
    halving). Go (with its own planes) is searched by the Numba trees of
    :mod:`fuseki.search.go.zeropuct` unless ``engine="python"``; the two
    choose the same moves.

    ``seconds``: think for that long a move instead of a fixed number of
    simulations (a match at equal time against engines that count seconds,
    such as GNU Go or the MCTS engine). The search runs in rounds of
    ``TIME_ROUND`` simulations on the same tree until the time is up (the
    tree is kept between rounds, so the visits add up), at most
    ``max_simulations``. The Gumbel root plans its sequential halving over a
    budget known in advance, so it takes simulations only.
    """

    #: Simulations a round of a timed search (small beside a second's, large beside a network call's batch).
    TIME_ROUND = 64

    name = "zero"

    def __init__(
        self,
        game: Game,
        network: torch.nn.Module,
        *,
        simulations: int = 50,
        c_puct: float = 1.5,
        batch_size: int = 8,
        device: str | None = "cpu",
        temperature_moves: int = 0,
        seed: int | None = None,
        root: str = "puct",
        gumbel_m: int = 16,
        engine: str = "auto",
        seconds: float | None = None,
        max_simulations: int = 1_000_000,
    ) -> None:
        if engine not in ("auto", "python", "numba"):
            raise InputError(f"engine must be auto, python or numba, got {engine!r}")
        if seconds is not None:
            if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
                raise InputError(f"seconds must be a positive number, got {seconds!r}")
            if root == "gumbel":
                raise InputError("the Gumbel root plans over a budget of simulations: give simulations, not seconds")
        if max_simulations < 1:
            raise InputError(f"max_simulations must be at least 1, got {max_simulations}")
        self.seconds = seconds
        self.max_simulations = max_simulations
        self.game = game
        self.network = network
        self.evaluator = NetworkEvaluator(game, network, device=device)
        config = PUCTConfig(simulations=simulations, c_puct=c_puct, batch_size=batch_size, root=root, gumbel_m=gumbel_m)
        self.search: Any = None
        if engine != "python" and game.name.startswith("go"):
            # Imported here: the Numba Go search loads Go's kernels, which the other games never need.
            from fuseki.search.go.zeropuct import GoPUCT, supports

            if supports(game):
                self.search = GoPUCT.single(game, self.evaluator, config)  # type: ignore[arg-type]  # supports() checked it is a GoGame
        if self.search is None:
            if engine == "numba":
                raise InputError(f"the Numba search plays Go with its own planes, not {game.name}")
            self.search = PUCT(game, self.evaluator, config)
        self.temperature_moves = temperature_moves
        self.rng = np.random.default_rng(seed)
        self.moves_played = 0
        #: The search's result for the last move chosen (its root value, visits): what a caller that resigns reads.
        self.last_result: Any = None

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], **options: Any) -> ZeroAgent:
        network, game, _ = load_zero_network(path)
        return cls(game, network, **options)

    def new_game(self) -> None:
        """Forget the tree and the move count (between games)."""
        self.search.reset()
        self.moves_played = 0

    def select_move(self, state: Any) -> Any:
        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        result = self.search.search(state) if self.seconds is None else self._search_for(state, self.seconds)
        self.last_result = result
        move = result.move
        if self.moves_played < self.temperature_moves:
            pi = result.pi(1.0) if result.improved is None else result.improved
            move = self.game.index_to_move(state, int(self.rng.choice(len(pi), p=pi / pi.sum())))
        self.moves_played += 1
        return move

    def _search_for(self, state: Any, seconds: float) -> Any:
        """Rounds of simulations on one tree until ``seconds`` have passed: the last round's result, its counts
        (the root's visits, which the rounds share) covering them all."""
        started = time.perf_counter()
        deadline = started + seconds
        done = 0
        reused = 0
        while True:
            result = self.search.search(state, min(self.TIME_ROUND, self.max_simulations - done))
            if done == 0:
                reused = result.reused_visits  # from earlier moves; later rounds reuse the earlier rounds' visits
            done += result.iterations
            if result.move is None or done >= self.max_simulations or time.perf_counter() >= deadline:
                break
        return dataclasses.replace(result, iterations=done, seconds=time.perf_counter() - started, reused_visits=reused)


class GoZeroAgent:
    """A Zero network trained on Go, for the Go frontends: shown the rules engine's state, answers its ``Move``.

    ``resign_below``: resign when the search's root value (the mover's, in
    [−1, 1]) is under it, once a quarter of the board's points have been
    played. A Zero search scores a finished game by area with every stone
    alive, as it was trained; in a lost game every move loses by that count,
    and without resigning the agent plays on into its own eyes while the
    opponent passes (docs/zero.md). ``None`` never resigns: the rating and
    the matches of docs/zero.md play every game out.
    """

    name = "zero"

    def __init__(
        self, agent: ZeroAgent, board_size: int, options: dict[str, Any] | None = None, resign_below: float | None = None
    ) -> None:
        # Imported here: the Go adapter loads the rules engine's Numba kernels, which other games never need.
        from fuseki.games.go import GoGame, GoGameState

        self._wrap = GoGameState
        self._game = GoGame
        self.agent = agent
        #: The one board size the network plays (the frontends refuse others up front).
        self.board_size = board_size
        #: ZeroAgent's options, to build it again for another rule set.
        self._options = dict(options or {})
        self.resign_below = resign_below

    def select_move(self, state: Any) -> Any:
        if state.size != self.board_size:
            raise InputError(f"zero plays {self.board_size}x{self.board_size} only, not {state.size}x{state.size}")
        if state.rules != self.agent.game.initial_state().go.rules:
            # A frontend's game (a match's Chinese rules, a GTP komi) may differ from the rules the network
            # was trained under. The planes do not hold the rules, so the network plays any of them; the
            # search, which scores finished games and keeps the ko rule, must search under the game's own.
            game = self._game(size=state.size, rules=state.rules, history=self.agent.game.history,
                              encoder=self.agent.game.encoder)
            self.agent = ZeroAgent(game, self.agent.network, **self._options)
        move = self.agent.select_move(self._wrap(state))
        result = self.agent.last_result
        if (
            self.resign_below is not None
            and state.move_number >= state.size * state.size // 4
            and result is not None
            and float(result.value) < self.resign_below
        ):
            from fuseki.go.state import Move

            return Move.resign()
        return move


def make_zero_agent(
    model: str | None = None,
    simulations: int = 200,
    c_puct: float = 1.5,
    device: str = "cpu",
    seed: int | None = None,
    temperature_moves: int = 0,
    root: str = "puct",
    gumbel_m: int = 16,
    seconds: float | None = None,
    resign_below: float | None = None,
) -> GoZeroAgent:
    """The registry's ``zero``: the Go network of ``model`` (a Zero file of ``fuseki zero train go``) with PUCT
    (the Numba Go search; ``root="gumbel"``: Gumbel AlphaZero's root).

    ``temperature_moves``: the agent's first moves drawn by visit counts
    (seeded by ``seed``), so that games against a deterministic opponent
    differ (a rating's games, ``fuseki zero rate``); 0 plays the most visited
    move always. ``seconds``: think that long a move instead (``simulations``
    is then ignored; :class:`ZeroAgent`). ``resign_below``: resign under
    that root value (:class:`GoZeroAgent`; the 9×9 run's false-resignation
    table puts 5 % at −0.96); ``None`` never resigns.
    """
    if model is None:
        raise InputError("agent 'zero' needs a model: --model FILE (a gen-NNNN.safetensors of `fuseki zero train go`)")
    if not isinstance(simulations, int) or simulations < 1:
        raise InputError(f"simulations must be a whole number of at least 1, got {simulations!r}")
    if temperature_moves < 0:
        raise InputError(f"temperature_moves must be 0 or more, got {temperature_moves}")
    if resign_below is not None and not (isinstance(resign_below, (int, float)) and -1.0 <= resign_below <= 1.0):
        raise InputError(f"resign_below must be a value in [-1, 1], got {resign_below!r}")
    if root not in ("puct", "gumbel") or gumbel_m < 1:
        raise InputError(f"root must be puct or gumbel and gumbel_m at least 1, got {root!r} and {gumbel_m}")
    network, game, _ = load_zero_network(model)
    if not game.name.startswith("go"):
        raise InputError(f"{model} is a Zero network for {game.name}, not Go")
    options: dict[str, Any] = dict(simulations=simulations, c_puct=c_puct, device=device, seed=seed,
                                   temperature_moves=temperature_moves, root=root, gumbel_m=gumbel_m, seconds=seconds)
    return GoZeroAgent(ZeroAgent(game, network, **options), game.size, options, resign_below=resign_below)
