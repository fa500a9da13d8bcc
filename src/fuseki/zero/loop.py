"""The Zero loop: generations of self-play, a replay window, training and (optionally) gating, in a run folder.

Generation ``g`` (1, 2, ...):

1. **self-play**: ``games`` games by the *best* network so far
   (:func:`fuseki.zero.selfplay.play_games`, batched), saved as
   ``selfplay-g.npz`` (planes, pi, z and the games' counts);
2. **training**: the latest network (generation ``g − 1``'s, the random
   network ``gen-0000`` at first) trained ``epochs`` passes over the replay
   window, the samples of the last ``window`` generations, saved as
   ``gen-g.safetensors`` (:mod:`fuseki.agents.zero_agent`'s file); the
   optimiser goes on from the state generation ``g − 1``'s training left
   (``learner-(g−1).safetensors``) and leaves its own (``learner-g``);
3. **gating** (AlphaGo Zero, ``gating=True``): the new network plays
   ``gate_games`` games against the best, colours alternating, and becomes
   the best at a score of at least ``gate_threshold`` (55 %; a draw counts
   half), ``gate-g.json``. Without gating (AlphaZero) the newest network is
   always the best.

``state.json`` says which generation is finished and which network is the
best, with every generation's counts and losses. Every file is written
atomically and a step whose file exists is not redone, so ``kill -9`` loses
at most the step in progress, and running the command again goes on from
there. Each step's random choices derive from the run's seed and the
generation, so an interrupted and resumed run ends where an uninterrupted one
does. ``zero.json`` holds the settings: another run with other settings on
the folder is refused (:class:`fuseki.util.runs.RunMismatch`, naming each
difference), as is a second run while the first is still going
(:class:`fuseki.util.runs.RunFolderBusy`). The exceptions are the
settings of training that :data:`AMENDABLE` names (the window, the samples
drawn from it, the learning-rate schedule): a resumed run may change them for
the generations still to come, and ``zero.json`` records each change with the
generation it starts at (:func:`amend_settings`, :func:`settings_at`).
``--generations`` is not a
setting: a finished run can be extended. Nor is ``--hours``, the other limit:
a run stops before a generation once its recorded self-play, training and
gating time (:func:`recorded_hours`) reaches it, which is how a run of "at
least 12 hours of machine time" is given in one command that can be resumed.
``losses.png`` (and with gating ``elo.png``, the Bradley–Terry Elo of each
candidate from the gate games) are redrawn after every generation.

Self-play and training run where the :mod:`fuseki.zero.workers` runner puts
them (this process, ``workers`` local processes, or Ray actors); the games
and networks are the same wherever, so neither is a setting.
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fuseki.arena.loop import play_game
from fuseki.games.base import Game
from fuseki.nets.batcher import resolve_precision
from fuseki.util.atomic import write_atomic, write_json_atomic
from fuseki.util.errors import InputError
from fuseki.util.progress import Progress, ProgressCallback
from fuseki.util.runs import RunFolder, RunMismatch, field_defaults, settings_diffs
from fuseki.util.seeds import derive_seed
from fuseki.util.device import select_device
from fuseki.agents.zero_agent import NETWORK_KINDS, ZeroAgent, build_zero_network, load_zero_network, make_zero_game, save_zero_network
from fuseki.zero.learner import LearnerConfig
from fuseki.zero.plots import plot_elo, plot_losses
from fuseki.zero.selfplay import SelfPlayConfig, calibrate_resign, samples_of
from fuseki.zero.workers import Runner, make_runner

__all__ = [
    "ELO_PNG",
    "LOSSES_PNG",
    "SETTINGS_FILE",
    "STATE_FILE",
    "ZeroSettings",
    "learner_path",
    "load_state",
    "network_path",
    "recorded_hours",
    "resign_threshold_for",
    "run_zero",
]

SETTINGS_FILE = "zero.json"
STATE_FILE = "state.json"
#: Redrawn after every generation: the loss curves, and with gating the candidates' Elo from the gate games.
LOSSES_PNG = "losses.png"
ELO_PNG = "elo.png"


@dataclasses.dataclass(frozen=True)
class ZeroSettings:
    """Everything that shapes a Zero run (the folder's ``zero.json``)."""

    game: str = "tictactoe"
    game_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    seed: int = 0
    # network: ``network`` is the design (NETWORK_KINDS), blocks x channels its depth and width in its terms
    network: str = "residual"
    blocks: int = 2
    channels: int = 32
    value_hidden: int = 64
    # self-play
    games: int = 100
    simulations: int = 50
    c_puct: float = 1.5
    leaves_per_game: int = 8
    parallel: int = 64
    temperature_moves: int = 30
    dirichlet_epsilon: float = 0.25
    dirichlet_alpha: float | None = None
    resign_threshold: float | None = None
    no_resign_share: float = 0.1
    #: Recalibrate the threshold before each generation so that the no-resign games of the last ``window``
    #: generations would have resigned falsely at most this often (AlphaGo Zero: 0.05); ``resign_threshold`` is
    #: then the first generation's. ``None``: the threshold stays ``resign_threshold``.
    resign_target: float | None = None
    max_moves: int | None = None
    #: Keep the searched subtree of the move played as the next search's start (False: a fresh tree each move).
    tree_reuse: bool = True
    root: str = "puct"
    gumbel_m: int = 16
    # training
    window: int = 4
    #: Train each generation on a uniform draw of this many of the window's samples (AlphaGo Zero sampled its
    #: mini-batches from a window of 500,000 games), so a large window costs no more time a generation;
    #: ``None``: on all of them. With ``window``, a setting a resumed run may change (:func:`amend_settings`).
    train_samples: int | None = None
    epochs: int = 4
    batch_size: int = 64
    optimizer: str = "sgd"
    lr: float = 0.02
    #: AlphaGo Zero's annealing: ``((G, LR), ...)``, the learning rate from generation G's training on (the
    #: starts increasing); before the first start, ``lr``. A resumed run may add a drop for generations it has
    #: not trained (:func:`amend_settings`): a run's curve may level off before anyone knows where to drop it.
    lr_schedule: tuple[tuple[int, float], ...] = ()
    momentum: float = 0.9
    weight_decay: float = 1e-4
    augment: bool = True
    # gating
    gating: bool = False
    gate_games: int = 20
    gate_threshold: float = 0.55
    gate_simulations: int | None = None
    #: Start from this network file instead of a random one (a supervised warm start, e.g. chess's); its game
    #: and size must be these settings'.
    init: str | None = None

    def __post_init__(self) -> None:
        for name in ("blocks", "window", "games", "gate_games"):
            if getattr(self, name) < (0 if name == "blocks" else 1):
                raise ValueError(f"{name} must be at least {0 if name == 'blocks' else 1}, got {getattr(self, name)}")
        if not 0.0 < self.gate_threshold <= 1.0:
            raise ValueError(f"gate_threshold must be in (0, 1], got {self.gate_threshold}")
        if self.network not in NETWORK_KINDS:
            raise ValueError(f"network must be one of {', '.join(NETWORK_KINDS)}, got {self.network!r}")
        if self.network != "residual" and self.blocks < 1:
            raise ValueError(f"the {self.network} network needs at least one layer (blocks), got {self.blocks}")
        if self.resign_target is not None:
            if self.resign_threshold is None:
                raise ValueError("resign_target (--resign-target) needs resign_threshold (--resign), the first generation's threshold")
            if not 0.0 <= self.resign_target < 1.0:
                raise ValueError(f"resign_target must be in [0, 1), got {self.resign_target}")
            if self.no_resign_share <= 0.0:
                raise ValueError("resign_target (--resign-target) needs no-resign games to measure (--no-resign-share above 0)")
        if self.train_samples is not None and self.train_samples < 2:
            raise ValueError(f"train_samples must be at least 2, got {self.train_samples}")
        starts = [g for g, _ in self.lr_schedule]
        if any(g < 1 for g in starts) or starts != sorted(set(starts)):
            raise ValueError(f"lr_schedule's generations must be increasing and at least 1, got {starts}")
        if any(not (math.isfinite(lr) and lr > 0) for _, lr in self.lr_schedule):
            raise ValueError(f"lr_schedule's rates must be positive, got {[lr for _, lr in self.lr_schedule]}")
        self.selfplay_config()  # their own checks
        self.learner_config("cpu")

    def lr_at(self, generation: int) -> float:
        """The learning rate of generation ``generation``'s training (``lr_schedule``, else ``lr``)."""
        rate = self.lr
        for start, lr in self.lr_schedule:
            if generation >= start:
                rate = lr
        return rate

    def selfplay_config(self, resign_threshold: float | None = None) -> SelfPlayConfig:
        """Self-play's settings; ``resign_threshold`` replaces the run's (a recalibrated one)."""
        return SelfPlayConfig(
            simulations=self.simulations,
            c_puct=self.c_puct,
            leaves_per_game=self.leaves_per_game,
            dirichlet_epsilon=self.dirichlet_epsilon,
            dirichlet_alpha=self.dirichlet_alpha,
            temperature_moves=self.temperature_moves,
            resign_threshold=self.resign_threshold if resign_threshold is None else resign_threshold,
            no_resign_share=self.no_resign_share,
            max_moves=self.max_moves,
            parallel=self.parallel,
            reuse=self.tree_reuse,
            root=self.root,
            gumbel_m=self.gumbel_m,
        )

    def learner_config(self, device: str, generation: int = 1) -> LearnerConfig:
        """Generation ``generation``'s training settings (its learning rate from :meth:`lr_at`)."""
        return LearnerConfig(
            epochs=self.epochs,
            batch_size=self.batch_size,
            optimizer=self.optimizer,
            lr=self.lr_at(generation),
            momentum=self.momentum,
            weight_decay=self.weight_decay,
            augment=self.augment,
            device=device,
        )


def network_path(folder: str | Path, generation: int) -> Path:
    """The network file of ``generation`` (0: the random start) in a run folder."""
    return Path(folder) / f"gen-{generation:04d}.safetensors"


def _selfplay_path(folder: Path, generation: int) -> Path:
    return folder / f"selfplay-{generation:04d}.npz"


def learner_path(folder: str | Path, generation: int) -> Path:
    """The optimiser state the training of ``generation`` left (momentum, Adam's moments), which the next one goes on from."""
    return Path(folder) / f"learner-{generation:04d}.safetensors"


def _gate_path(folder: Path, generation: int) -> Path:
    return folder / f"gate-{generation:04d}.json"


def _run_folder(out: Path) -> RunFolder:
    return RunFolder(out, SETTINGS_FILE, "a Zero run with other settings", "a Zero settings file", "use another --out or the same settings")


def load_state(folder: str | Path) -> dict[str, Any]:
    """The loop state of a run folder: ``generation`` finished, ``best`` network, ``history``."""
    path = Path(folder) / STATE_FILE
    if not path.exists():
        return {"generation": 0, "best": 0, "history": []}
    state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return state


def run_zero(
    out: str | Path,
    settings: ZeroSettings,
    generations: int,
    *,
    device: str = "cpu",
    threads: int | None = 1,
    progress: ProgressCallback | None = None,
    workers: int = 1,
    ray: str | None = None,
    precision: str = "fp32",
    hours: float | None = None,
) -> dict[str, Any]:
    """Run (or go on with) the loop in ``out`` until ``generations`` generations are finished; the final state.

    ``hours``: stop earlier, before a generation, once :func:`recorded_hours`
    of the state reaches it. The measure is the time the steps recorded, not
    the wall clock since the command started, so that a run stopped and
    resumed many times (sessions, a wiped machine restored from a snapshot)
    still stops where one never stopped would.

    ``threads``: torch's CPU threads (``None``: torch's choice). One is the
    default because the networks of small games are tiny: on a shared
    2-core machine a 2×32 network trained ten times slower on two threads
    than on one (measured), the threads waiting on each other.

    ``workers``: self-play processes (each with one torch thread and its
    slice of the generation's games); ``ray``: run them, and the learner, as
    actors of a Ray cluster (:class:`fuseki.zero.workers.RayRunner`). Neither
    changes the games or the networks, so neither is a setting of the run.

    ``precision``: the self-play network's forward pass, ``"fp32"``,
    ``"bf16"`` or ``"auto"`` (bf16 where the hardware computes it, else fp32;
    :mod:`fuseki.nets.batcher`; training stays float32). Like the device it
    is not a setting of the run: a run may change it when resumed (a run
    restored on a machine without bfloat16 hardware should), and each
    generation's self-play stats record the one it used. On a Ray cluster
    ``"auto"`` is resolved by each actor on its own machine.
    """
    if generations < 0:
        raise ValueError(f"generations must be >= 0, got {generations}")
    if hours is not None and not hours > 0:
        raise ValueError(f"hours must be > 0, got {hours}")
    if threads is not None:
        torch.set_num_threads(threads)
    folder = Path(out)
    run = _run_folder(folder)
    mine = json.loads(json.dumps(dataclasses.asdict(settings)))
    with run.locked():
        theirs = run.saved_settings()
        if theirs is not None:
            defaults = json.loads(json.dumps(field_defaults(ZeroSettings)))
            finished = load_state(folder)["generation"]
            amended = amend_settings(run, theirs, mine, defaults, finished)
            if amended is None:
                run.check(theirs, mine, defaults=defaults)
            else:
                changes = ", ".join(f"{k} {c['was']} -> {c['now']}" for k, c in amended[-1]["changes"].items())
                _say(progress, finished + 1, generations, f"amended from here on: {changes}", step="amend")
        else:
            run.write({"settings": mine})
        game = make_zero_game(settings.game, settings.game_options)
        amendments = (run.read() or {}).get("amendments", [])
        if not network_path(folder, 0).exists():
            if settings.init is not None:
                _save(folder, 0, _initial_network(settings), settings, {"init": settings.init})
            else:
                torch.manual_seed(derive_seed(settings.seed, "init"))
                network = build_zero_network(game, settings.blocks, settings.channels, settings.value_hidden, settings.network)
                _save(folder, 0, network, settings, {})
        state = load_state(folder)
        if state["generation"] >= generations or _out_of_time(state, hours):
            return state
        if ray is None:
            precision = resolve_precision(precision, select_device(device))
        runner = make_runner(workers, ray, device=device, threads=threads or 1, precision=precision)
        try:
            for g in range(state["generation"] + 1, generations + 1):
                if _out_of_time(state, hours):
                    break
                state = _generation(folder, game, settings_at(settings, amendments, g), g, generations, state, device, progress, runner)
                write_json_atomic(folder / STATE_FILE, state)
                plot_losses(state, folder / LOSSES_PNG, title=f"fuseki zero: {game.name} training loss")
                if settings.gating:
                    plot_elo(state, folder / ELO_PNG, title=f"fuseki zero: {game.name}, Elo of each candidate")
        finally:
            runner.close()
        return state


#: The settings a resumed run may change (:func:`amend_settings`): they shape only the training of the
#: generations still to come, so the generations already made stay what they were.
AMENDABLE = ("window", "train_samples", "lr_schedule")


def amend_settings(
    run: RunFolder, theirs: dict[str, Any], mine: dict[str, Any], defaults: dict[str, Any], finished: int
) -> list[dict[str, Any]] | None:
    """Record a change of :data:`AMENDABLE` settings from generation ``finished + 1`` on; the run's amendments.

    AlphaGo Zero fixed its schedule in advance; a run on a small machine
    learns where its curve levels off, and that its replay window is too
    small, only by running. So a resumed run may change its window, its
    samples a generation and its learning-rate schedule, and nothing else.
    The settings file then holds the new settings and, in ``amendments``,
    each change with the first generation it applies to and the value it
    replaced, so that every generation's settings (:func:`settings_at`) are
    known and a rerun from zero can follow the same path. An ``lr_schedule``
    must also leave the rate of every generation already trained as it was,
    since the schedule names generations itself.

    ``None`` when the settings differ in anything not amendable (for the
    usual mismatch error) or not at all; :class:`RunMismatch` for a schedule
    that rewrites the past.
    """
    if settings_diffs(
        {k: v for k, v in theirs.items() if k not in AMENDABLE}, {k: v for k, v in mine.items() if k not in AMENDABLE}, defaults=defaults
    ):
        return None
    changes = {
        key: {"was": theirs.get(key, defaults.get(key)), "now": mine[key]}
        for key in AMENDABLE
        if theirs.get(key, defaults.get(key)) != mine[key]
    }
    if not changes:
        return None
    if "lr_schedule" in changes:
        old = ZeroSettings(**_settings_args({**defaults, **theirs}))
        new = ZeroSettings(**_settings_args(mine))
        rewritten = [g for g in range(1, finished + 1) if old.lr_at(g) != new.lr_at(g)]
        if rewritten:
            g = rewritten[0]
            raise RunMismatch(
                f"{run.path} has trained generation {g} at learning rate {old.lr_at(g)}; "
                f"an lr_schedule may change only generations after {finished}, the last one trained"
            )
    data = run.read() or {}
    amendments = [*data.get("amendments", []), {"from_generation": finished + 1, "changes": changes}]
    run.write({**data, "settings": mine, "amendments": amendments})
    return amendments


def settings_at(settings: ZeroSettings, amendments: Sequence[dict[str, Any]], generation: int) -> ZeroSettings:
    """The settings generation ``generation`` was (or will be) made with: the amendments from later ones undone."""
    values: dict[str, Any] = {}
    for amendment in reversed(amendments):
        if generation < int(amendment["from_generation"]):
            values.update({key: change["was"] for key, change in amendment["changes"].items()})
    if not values:
        return settings
    return dataclasses.replace(settings, **_settings_args(values))


def _settings_args(saved: dict[str, Any]) -> dict[str, Any]:
    """JSON settings as :class:`ZeroSettings` arguments (the schedule's pairs back to tuples)."""
    args = dict(saved)
    if args.get("lr_schedule") is not None:
        args["lr_schedule"] = tuple((int(g), float(lr)) for g, lr in args["lr_schedule"])
    return args


def recorded_hours(state: dict[str, Any]) -> float:
    """The run's machine time so far: the seconds its self-play, training and gating steps recorded, in hours.

    A step done by an older version of the loop may lack a time (gating kept
    none before ``hours`` existed); it counts as zero, so the figure is a
    lower bound and ``hours`` never stops a run early.
    """
    seconds = 0.0
    for entry in state["history"]:
        for step in (entry.get("selfplay"), entry.get("train"), entry.get("gate")):
            if step:
                seconds += float(step.get("seconds", 0.0))
    return seconds / 3600.0


def _out_of_time(state: dict[str, Any], hours: float | None) -> bool:
    return hours is not None and recorded_hours(state) >= hours


def _initial_network(settings: ZeroSettings) -> torch.nn.Module:
    """The ``init`` network, checked to be one these settings could have made (game, options, size)."""
    assert settings.init is not None
    network, _, info = load_zero_network(settings.init)
    mine = {
        "game": settings.game,
        "game_options": settings.game_options,
        "network": settings.network,
        "blocks": settings.blocks,
        "channels": settings.channels,
        "value_hidden": settings.value_hidden,
    }
    theirs = {**info, "network": info.get("network", "residual")}  # files from before the design was recorded
    diffs = [f"{k}: {theirs.get(k)!r} there, {v!r} here" for k, v in mine.items() if theirs.get(k) != v]
    if diffs:
        raise InputError(
            f"{settings.init} does not fit this run ({'; '.join(diffs)}); give the same game and --blocks, --channels, --value-hidden"
        )
    return network


def _save(folder: Path, g: int, network: torch.nn.Module, settings: ZeroSettings, extra: dict[str, Any]) -> None:
    save_zero_network(
        network_path(folder, g),
        network,
        game=settings.game,
        game_options=settings.game_options,
        blocks=settings.blocks,
        channels=settings.channels,
        value_hidden=settings.value_hidden,
        network_kind=settings.network,
        extra={"generation": g, **extra},
    )


def _say(progress: ProgressCallback | None, g: int, total: int, message: str, **extra: Any) -> None:
    if progress is not None:
        progress(Progress(g, total, "generation", f"generation {g}: {message}", {"generation": g, **extra}))


def _generation(
    folder: Path,
    game: Game,
    settings: ZeroSettings,
    g: int,
    total: int,
    state: dict[str, Any],
    device: str,
    progress: ProgressCallback | None,
    runner: Runner,
) -> dict[str, Any]:
    best = int(state["best"])
    # 1. self-play by the best network
    sp_path = _selfplay_path(folder, g)
    if sp_path.exists():
        with np.load(sp_path) as data:
            stats = json.loads(str(data["stats"]))
    else:
        threshold = resign_threshold_for(settings, state["history"], g)
        games, sp_stats = runner.selfplay(
            network_path(folder, best).read_bytes(),
            settings.games,
            settings.selfplay_config(threshold),
            derive_seed(settings.seed, "selfplay", g),
        )
        planes, pi, z = samples_of(games)
        stats = {
            **sp_stats.to_dict(),
            "samples": len(z),
            "network": best,
            "resign_threshold": threshold,
            "precision": runner.precision,
        }
        buffer = io.BytesIO()
        np.savez_compressed(buffer, planes=planes, pi=pi, z=z, stats=np.array(json.dumps(stats)))
        write_atomic(sp_path, buffer.getvalue())
    _say(
        progress,
        g,
        total,
        f"self-play {stats['games']} games, {stats['samples']} positions, {stats['seconds']:.1f} s "
        f"(wins {stats['wins'][0]}-{stats['wins'][1]}, draws {stats['draws']})"
        + (f", resigning below {stats['resign_threshold']:.2f}" if stats.get("resign_threshold") is not None else ""),
        step="selfplay",
        **{k: stats[k] for k in ("games", "samples", "seconds")},
    )
    # 2. training on the window, from the latest network
    net_path = network_path(folder, g)
    if net_path.exists():
        _, _, info = load_zero_network(net_path)
        losses = info["train"]
    else:
        started = time.perf_counter()
        first = max(1, g - settings.window + 1)
        planes, pi, z = window_samples(folder, range(first, g + 1), settings.train_samples, derive_seed(settings.seed, "draw", g))
        # The optimiser goes on from the state the previous generation's training left (momentum, Adam's moments).
        # A run made before that state was kept has none to go on from: its next training starts a fresh one, and
        # says so in its losses ("optimizer_from": null).
        previous = learner_path(folder, g - 1)
        kept = previous.read_bytes() if g > 1 and previous.exists() else None
        result = runner.train(
            network_path(folder, g - 1).read_bytes(),
            kept,
            planes,
            pi,
            z,
            settings.learner_config(device, g),
            derive_seed(settings.seed, "train", g),
        )
        history = result.history
        losses = {**history[-1], "first_epoch_loss": history[0]["loss"] if history else None, "window": [first, g]}
        losses["optimizer_from"] = g - 1 if kept is not None else None
        losses["lr"] = settings.lr_at(g)
        losses["seconds"] = time.perf_counter() - started
        # The optimiser state first: a network file means its generation's training is done, state and all.
        write_atomic(learner_path(folder, g), result.optimizer)
        network = build_zero_network(game, settings.blocks, settings.channels, settings.value_hidden, settings.network)
        network.load_state_dict(result.tensors)
        _save(folder, g, network, settings, {"train": losses})
    _say(
        progress,
        g,
        total,
        f"trained on {losses.get('samples', 0)} samples: loss {losses.get('loss', float('nan')):.3f} "
        f"(value {losses.get('value_loss', float('nan')):.3f}, policy {losses.get('policy_loss', float('nan')):.3f})",
        step="train",
        loss=losses.get("loss"),
    )
    # 3. gating, or always the latest
    gate: dict[str, Any] | None = None
    if settings.gating:
        gate_path = _gate_path(folder, g)
        if gate_path.exists():
            gate = json.loads(gate_path.read_text(encoding="utf-8"))
        else:
            gate = _gate(folder, game, settings, g, best, device)
            write_json_atomic(gate_path, gate)
        assert gate is not None
        new_best = g if gate["promoted"] else best
        _say(
            progress,
            g,
            total,
            f"gate vs generation {best}: score {gate['score']:.2f} ({'promoted' if gate['promoted'] else 'kept ' + str(best)})",
            step="gate",
            score=gate["score"],
        )
    else:
        new_best = g
    entry = {"generation": g, "selfplay": stats, "train": losses, "gate": gate, "best": new_best}
    return {"generation": g, "best": new_best, "history": [*state["history"], entry]}


def window_sizes(folder: Path, generations: range) -> list[int]:
    """How many samples each of ``generations``' self-play files holds (only their outcomes are read)."""
    sizes = []
    for k in generations:
        with np.load(_selfplay_path(folder, k)) as data:
            sizes.append(len(data["z"]))
    return sizes


def window_samples(folder: Path, generations: range, draw: int | None, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The samples of ``generations``' self-play; with ``draw``, a uniform seeded draw of that many, in file order.

    A file's arrays are read one at a time and only the drawn rows kept, so a
    window of many generations never sits in memory whole.
    """
    paths = [_selfplay_path(folder, k) for k in generations]
    keep: list[np.ndarray | None] = [None] * len(paths)
    if draw is not None:
        sizes = window_sizes(folder, generations)
        total = sum(sizes)
        if draw < total:
            chosen = np.sort(np.random.default_rng(seed).choice(total, size=draw, replace=False))
            bounds = np.cumsum([0, *sizes])
            keep = [chosen[(chosen >= lo) & (chosen < hi)] - lo for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    parts = []
    for path, rows in zip(paths, keep, strict=True):
        with np.load(path) as data:
            arrays = (data["planes"], data["pi"], data["z"])
        parts.append(arrays if rows is None else tuple(a[rows] for a in arrays))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore[return-value]


def resign_threshold_for(settings: ZeroSettings, history: Sequence[dict[str, Any]], g: int) -> float | None:
    """The resignation threshold of generation ``g``'s self-play.

    Fixed unless ``resign_target`` is set; then :func:`calibrate_resign` on
    the no-resign games of the ``window`` generations before ``g`` (the
    samples training still sees come from about as far back), or the first
    threshold while none of them kept records. It depends only on the
    state, so a resumed run chooses the same.
    """
    if settings.resign_target is None:
        return settings.resign_threshold
    records = [
        record
        for entry in history
        if g - settings.window <= int(entry["generation"]) < g
        for _, record in entry["selfplay"].get("resign_records", [])
    ]
    if not records:
        return settings.resign_threshold
    return calibrate_resign(records, settings.resign_target)


def _gate(folder: Path, game: Game, settings: ZeroSettings, g: int, best: int, device: str) -> dict[str, Any]:
    """The candidate of generation ``g`` against the best: its score (a draw counts half) and whether it is promoted."""
    started = time.perf_counter()
    candidate, _, _ = load_zero_network(network_path(folder, g))
    champion, _, _ = load_zero_network(network_path(folder, best))
    simulations = settings.gate_simulations or settings.simulations
    wins = draws = losses = 0
    for i in range(settings.gate_games):
        side = i % 2  # the candidate's colour
        agents = {
            who: ZeroAgent(
                game,
                net,
                simulations=simulations,
                c_puct=settings.c_puct,
                batch_size=settings.leaves_per_game,
                device=device,
                temperature_moves=1,  # the first move of each side drawn by visits: varied games
                seed=derive_seed(settings.seed, "gate", g, i, who),
                root=settings.root,
                gumbel_m=settings.gumbel_m,
            )
            for who, net in ((side, candidate), (1 - side, champion))
        }
        outcome = play_game(game, [agents[0], agents[1]])
        if outcome.winner is None:
            draws += 1
        elif outcome.winner == side:
            wins += 1
        else:
            losses += 1
    score = (wins + 0.5 * draws) / settings.gate_games
    return {
        "candidate": g,
        "best": best,
        "games": settings.gate_games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": score,
        "promoted": score >= settings.gate_threshold,
        "seconds": time.perf_counter() - started,
    }
