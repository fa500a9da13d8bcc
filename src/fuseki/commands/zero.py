"""AlphaGo Zero / AlphaZero self-play learning for any game: ``fuseki zero ACTION``.

::

    fuseki zero train GAME --out DIR [--generations G] [--hours H] [--games N] [--simulations S]
        [--blocks B] [--channels C] [--seed S] [--window W] [--epochs E] [--gating]
        [--workers N] [--ray auto|local|ADDRESS]
        [--device auto|cpu|cuda|mps] [--threads T] [--json] [--progress MODE] ...
    fuseki zero klein --out DIR      Klein's Hexapawn experiment (commands/zero_klein.py)
    fuseki zero demo --out DIR       the book's chapter 14 demo (commands/zero_demo.py)
    fuseki zero rate RUN_DIR         Elo of every generation against fixed anchors (commands/zero_rate.py)

``train`` runs the loop of :mod:`fuseki.zero.loop` in DIR: each generation
plays N self-play games with the best network (all games batched into one
network call per round), trains the latest network on the last W
generations' positions, and (``--gating``) promotes it at a 55 % score
against the best. Rerunning the command resumes a killed run; a larger
``--generations`` (or ``--hours``) extends a finished one. See docs/zero.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from typing import Any

from fuseki.cli import UserError, add_progress_argument, float_type, int_at_least, positive_float, probability, progress_mode

_value = float_type(lambda v: math.isfinite(v) and -1 <= v <= 1, "must be from -1 to 1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    train = sub.add_parser(
        "train",
        help="self-play, train, gate: generations in a resumable folder",
        description="AlphaZero self-play learning for GAME in a resumable run folder",
    )
    _add_train_arguments(train)
    from fuseki.commands import zero_demo, zero_klein, zero_rate

    for name, module in (("klein", zero_klein), ("demo", zero_demo), ("rate", zero_rate)):
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.DESCRIPTION))


def _add_train_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", metavar="GAME", help="tictactoe, hexapawn, go or chess")
    p.add_argument("--size", type=int_at_least(2), default=None, help="Go's board size (Go only; default 9)")
    p.add_argument(
        "--encoder",
        default=None,
        help="Go only: read the planes of this encoder (e.g. zero, the book's 11 planes) instead of AlphaGo Zero's 17",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="the run folder (zero.json, state.json, gen-NNNN files)")
    p.add_argument(
        "--generations",
        type=int_at_least(1),
        default=10,
        help="generations in all, counting finished ones; raise it to continue (default 10)",
    )
    p.add_argument(
        "--hours",
        type=positive_float,
        default=None,
        help="also stop, before a generation, once the run's recorded self-play, training and gating time reaches H hours "
        "(summed over every session that ran it; not a setting: raise it to continue)",
    )
    p.add_argument("--seed", type=int, default=0, help="every game, network and batch order derives from it (default 0)")
    p.add_argument("--json", action="store_true", help="print the final state as one line of JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    add_progress_argument(p)
    d = ZeroDefaults
    net = p.add_argument_group("the network")
    net.add_argument(
        "--network",
        choices=("residual", "conv", "mlp"),
        default=d.network,
        help="residual: AlphaGo Zero's tower (blocks x filters); conv: the book's ch. 14 demo net, plain convs (layers x filters); "
        f"mlp: Klein's HexapawnZero net (dense layers x units) (default {d.network})",
    )
    net.add_argument("--blocks", type=int_at_least(0), default=d.blocks, help=f"residual blocks, or layers (default {d.blocks})")
    net.add_argument("--channels", type=int_at_least(1), default=d.channels, help=f"filters, or units (default {d.channels})")
    net.add_argument(
        "--value-hidden", type=int_at_least(1), default=d.value_hidden, help=f"the value head's hidden units (default {d.value_hidden})"
    )
    net.add_argument(
        "--init",
        default=None,
        metavar="FILE",
        help="start from this network instead of a random one (e.g. chess's supervised warm start, "
        "`fuseki chess-warmstart train`); its game, blocks, channels and value head must be this run's",
    )
    sp = p.add_argument_group("self-play")
    sp.add_argument("--games", type=int_at_least(1), default=d.games, help=f"games per generation (default {d.games})")
    sp.add_argument("--simulations", type=int_at_least(1), default=d.simulations, help=f"PUCT simulations a move (default {d.simulations})")
    sp.add_argument("--c-puct", type=positive_float, default=d.c_puct, help=f"exploration weight (default {d.c_puct})")
    sp.add_argument(
        "--parallel",
        type=int_at_least(1),
        default=d.parallel,
        help=f"games played at once, their leaves in one network call (default {d.parallel})",
    )
    sp.add_argument(
        "--leaves",
        type=int_at_least(1),
        default=d.leaves_per_game,
        help=f"leaves a game collects per round, under virtual loss (default {d.leaves_per_game})",
    )
    sp.add_argument(
        "--temperature-moves",
        type=int_at_least(0),
        default=d.temperature_moves,
        help=f"moves drawn by visit counts (tau 1) before the most visited is played (default {d.temperature_moves})",
    )
    sp.add_argument(
        "--dirichlet-epsilon",
        type=probability,
        default=d.dirichlet_epsilon,
        help=f"weight of the root noise (default {d.dirichlet_epsilon})",
    )
    sp.add_argument(
        "--dirichlet-alpha",
        type=positive_float,
        default=None,
        help="root noise alpha (default 10 / the legal moves at the start: 0.03 for 19x19 Go)",
    )
    sp.add_argument("--resign", type=_value, default=None, metavar="V", help="resign below this root value, e.g. -0.9 (default: never)")
    sp.add_argument(
        "--resign-target",
        type=probability,
        default=None,
        metavar="P",
        help="recalibrate the threshold before every generation so that the no-resign games would have resigned "
        "falsely at most this often, e.g. 0.05 as AlphaGo Zero (--resign is then the first generation's; default: fixed)",
    )
    sp.add_argument(
        "--no-resign-share",
        type=probability,
        default=d.no_resign_share,
        help=f"share of games played out to measure false resignations (default {d.no_resign_share})",
    )
    sp.add_argument(
        "--max-moves",
        type=int_at_least(1),
        default=None,
        help="stop a game as a draw after this many moves (chess: 512 plies unless given, AlphaZero's cap; other games: none)",
    )
    sp.add_argument("--no-tree-reuse", action="store_true", help="a fresh search tree every move (default: keep the subtree played)")
    sp.add_argument(
        "--root",
        choices=("puct", "gumbel"),
        default=d.root,
        help="the root's search: AlphaZero's PUCT with Dirichlet noise, or Gumbel AlphaZero's sequential halving "
        "with the improved policy as target, which learns with few simulations (default puct)",
    )
    sp.add_argument(
        "--gumbel-m",
        type=int_at_least(1),
        default=d.gumbel_m,
        help=f"actions the Gumbel root considers (default {d.gumbel_m})",
    )
    tr = p.add_argument_group("training")
    tr.add_argument(
        "--window", type=int_at_least(1), default=d.window, help=f"train on the positions of the last W generations (default {d.window})"
    )
    tr.add_argument(
        "--train-samples",
        type=int_at_least(2),
        default=d.train_samples,
        metavar="N",
        help="train each generation on a uniform draw of N of the window's samples (default all); "
        "with --window and --lr-schedule, a resumed run may change it for the generations to come",
    )
    tr.add_argument("--epochs", type=int_at_least(1), default=d.epochs, help=f"passes over the window (default {d.epochs})")
    tr.add_argument("--batch-size", type=int_at_least(2), default=d.batch_size, help=f"default {d.batch_size}")
    tr.add_argument("--optimizer", choices=("sgd", "adam"), default=d.optimizer, help=f"default {d.optimizer}")
    tr.add_argument(
        "--momentum",
        type=float_type(lambda v: math.isfinite(v) and 0 <= v < 1, "must be from 0 to below 1"),
        default=d.momentum,
        help=f"SGD's momentum (default {d.momentum})",
    )
    tr.add_argument("--lr", type=positive_float, default=d.lr, help=f"learning rate (default {d.lr})")
    tr.add_argument(
        "--lr-schedule",
        type=lr_schedule,
        default=d.lr_schedule,
        metavar="G:LR[,G:LR...]",
        help="drop the learning rate: LR from generation G's training on (AlphaGo Zero's annealing); "
        "a resumed run may change it for generations it has not trained yet",
    )
    tr.add_argument(
        "--weight-decay",
        type=float_type(lambda v: math.isfinite(v) and v >= 0, "must be 0 or more"),
        default=d.weight_decay,
        help=f"L2 weight (default {d.weight_decay})",
    )
    tr.add_argument("--no-augment", action="store_true", help="do not train on the game's symmetric images")
    gate = p.add_argument_group("gating (AlphaGo Zero; without it the latest network always plays: AlphaZero)")
    gate.add_argument("--gating", action="store_true", help="promote a new network only at a 55 %% score against the best")
    gate.add_argument("--gate-games", type=int_at_least(1), default=d.gate_games, help=f"default {d.gate_games}")
    hw = p.add_argument_group("hardware")
    hw.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda", "mps"),
        default="cpu",
        help="where the network runs (default cpu; auto: the GPU when there is one)",
    )
    hw.add_argument("--threads", type=int_at_least(1), default=1, help="torch CPU threads (default 1; each worker's)")
    hw.add_argument(
        "--workers",
        type=int_at_least(1),
        default=1,
        help="self-play processes, each with its slice of a generation's games; the games do not depend on it (default 1)",
    )
    hw.add_argument(
        "--ray",
        default=None,
        metavar="auto|local|ADDRESS",
        help="run the self-play workers and the learner as Ray actors: auto joins the running cluster, local starts one here, "
        "or a cluster's address (needs pip install -e '.[ray]')",
    )

    hw.add_argument(
        "--precision",
        choices=("fp32", "bf16", "auto"),  # fuseki.nets.batcher.PRECISION_CHOICES, without importing torch for --help
        default="fp32",
        help="the self-play network's number format: bf16 evaluates 2-3x faster on a CPU with AVX-512 BF16 or AMX and on "
        "GPUs, but about 2x slower on a CPU without them (emulated); auto takes bf16 where the hardware has it "
        "(training stays fp32; default fp32, the same numbers on every machine)",
    )


#: AlphaZero's cap on a chess self-play game (plies), from its published pseudocode; a capped game is a draw.
CHESS_MAX_MOVES = 512


class ZeroDefaults:
    """The defaults shown in ``--help`` (those of :class:`fuseki.zero.loop.ZeroSettings`, kept here so
    ``fuseki --help`` does not import torch)."""

    network = "residual"
    blocks = 2
    channels = 32
    value_hidden = 64
    games = 100
    simulations = 50
    c_puct = 1.5
    parallel = 64
    leaves_per_game = 8
    temperature_moves = 30
    dirichlet_epsilon = 0.25
    no_resign_share = 0.1
    root = "puct"
    gumbel_m = 16
    window = 4
    epochs = 4
    batch_size = 64
    optimizer = "sgd"
    lr = 0.02
    lr_schedule: tuple[tuple[int, float], ...] = ()
    train_samples: int | None = None
    momentum = 0.9
    weight_decay = 1e-4
    gate_games = 20


def lr_schedule(text: str) -> tuple[tuple[int, float], ...]:
    """``--lr-schedule``: ``100:0.002,150:0.0002`` as ``((100, 0.002), (150, 0.0002))``; an argparse type."""
    pairs = []
    for part in text.split(","):
        generation, sep, rate = part.strip().partition(":")
        try:
            if not sep:
                raise ValueError
            g, lr = int(generation), float(rate)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected G:LR pairs such as 100:0.002,150:0.0002, got {text!r}") from None
        if g < 1 or not (math.isfinite(lr) and lr > 0):
            raise argparse.ArgumentTypeError(f"each G must be at least 1 and each LR positive, got {part.strip()!r}")
        pairs.append((g, lr))
    if [g for g, _ in pairs] != sorted({g for g, _ in pairs}):
        raise argparse.ArgumentTypeError(f"the generations must increase, got {text!r}")
    return tuple(pairs)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if action is None:
        raise UserError("give an action: train, klein, demo or rate")
    if action == "train":
        return _train(args)
    from fuseki.commands import zero_demo, zero_klein, zero_rate

    return {"klein": zero_klein, "demo": zero_demo, "rate": zero_rate}[action].run(args)


def _say_precision(precision: str, device: str, ray: str | None) -> None:
    """One line on stderr when the self-play precision is not plainly fp32: what ``auto`` chose, or that bf16 is emulated.

    bf16 on a CPU without bfloat16 hardware runs, correctly but at about half
    fp32's speed: worth a word, not a refusal (the numbers are right). On a
    Ray cluster each actor decides on its own machine, so nothing is said.
    """
    if precision == "fp32" or ray is not None:
        return
    from fuseki.nets.batcher import native_bf16, resolve_precision
    from fuseki.util.device import select_device

    where = select_device(device)
    if precision == "auto":
        chosen = resolve_precision(precision, where)
        why = "has" if chosen == "bf16" else "has no"
        print(f"self-play precision: {chosen} (auto: {where.type} {why} bfloat16 hardware)", file=sys.stderr)
    elif not native_bf16(where):
        print(
            f"note: {where.type} has no bfloat16 hardware (AVX-512 BF16 or AMX); bf16 is emulated there and slower than "
            "fp32 (--precision auto chooses for the machine)",
            file=sys.stderr,
        )


def _train(args: argparse.Namespace) -> int:
    # Imported here: torch and the games load only when a run starts, not for --help or a bad flag.
    from fuseki.games import available_games
    from fuseki.util.progress import open_renderer, print_json
    from fuseki.zero.loop import ZeroSettings, run_zero

    game = args.game.lower()
    if game not in available_games():
        raise UserError(f"unknown game {args.game!r}; choose {', '.join(available_games())}")
    options: dict[str, Any] = {}
    if args.size is not None:
        if game != "go":
            raise UserError(f"--size is for Go; {game} has one board")
        options["size"] = args.size
    elif game == "go":
        options["size"] = 9
    if args.encoder is not None:
        if game != "go":
            raise UserError(f"--encoder is for Go; {game} has its own planes")
        from fuseki.encoders import available_encoders

        if args.encoder not in available_encoders():
            raise UserError(f"unknown encoder {args.encoder!r}; choose {', '.join(available_encoders())}")
        options["encoder"] = args.encoder
    max_moves = args.max_moves
    if game == "chess":
        # Threefold repetition and the 50-move rule end self-play games as the rules allow (docs/chess-zero.md).
        options["claim_draws"] = True
        if max_moves is None:
            max_moves = CHESS_MAX_MOVES
    try:
        settings = ZeroSettings(
            game=game,
            game_options=options,
            seed=args.seed,
            network=args.network,
            blocks=args.blocks,
            channels=args.channels,
            value_hidden=args.value_hidden,
            games=args.games,
            simulations=args.simulations,
            c_puct=args.c_puct,
            leaves_per_game=args.leaves,
            parallel=args.parallel,
            temperature_moves=args.temperature_moves,
            dirichlet_epsilon=args.dirichlet_epsilon,
            dirichlet_alpha=args.dirichlet_alpha,
            resign_threshold=args.resign,
            resign_target=args.resign_target,
            no_resign_share=args.no_resign_share,
            max_moves=max_moves,
            tree_reuse=not args.no_tree_reuse,
            root=args.root,
            gumbel_m=args.gumbel_m,
            window=args.window,
            train_samples=args.train_samples,
            epochs=args.epochs,
            batch_size=args.batch_size,
            optimizer=args.optimizer,
            lr=args.lr,
            lr_schedule=args.lr_schedule,
            momentum=args.momentum,
            weight_decay=args.weight_decay,
            augment=not args.no_augment,
            gating=args.gating,
            gate_games=args.gate_games,
            init=args.init,
        )
    except ValueError as e:
        raise UserError(str(e)) from None
    _say_precision(args.precision, args.device, args.ray)
    with open_renderer(progress_mode(args)) as progress:
        state = run_zero(
            args.out,
            settings,
            args.generations,
            device=args.device,
            threads=args.threads,
            progress=progress,
            workers=args.workers,
            ray=args.ray,
            precision=args.precision,
            hours=args.hours,
        )
    if args.json:
        print_json({"game": game, "out": str(args.out), "settings": dataclasses.asdict(settings), **state})
    else:
        print(f"{state['generation']} generations in {args.out}; best network: generation {state['best']}", file=sys.stdout)
        for entry in state["history"]:
            sp, tr = entry["selfplay"], entry["train"]
            print(
                f"  gen {entry['generation']:>3}: {sp['games']} games (wins {sp['wins'][0]}-{sp['wins'][1]}, draws {sp['draws']}), "
                f"loss {tr['loss']:.3f} (value {tr['value_loss']:.3f}, policy {tr['policy_loss']:.3f})"
                + (f", gate {entry['gate']['score']:.2f}" if entry["gate"] else "")
            )
    return 0
