"""Reinforcement-learning actions of ``fuseki train``: ``pg``, ``q`` and ``ac`` (book ch. 10-12).

::

    fuseki train pg|q|ac EXPERIENCE... (--from FILE | --network N --encoder E --size S [--net-option K=V])
        --out FILE [--lr F] [--clipnorm F] [--batch-size B] [--epochs E] [--seed S]
        [--device auto|cpu|cuda|mps] [--json] [--quiet]
    fuseki train pg|q|ac --init --network N --encoder E --size S --out FILE    an untrained first agent
    fuseki train pg --toy [--toy-games N] [--toy-method book|gradient] [--lr F] [--seed S] [--plot PNG] [--json]

EXPERIENCE is an experience file or a ``fuseki selfplay`` folder (its
``experience.npz``). ``--from`` continues an agent file (a supervised policy
file works for ``pg``); otherwise a fresh network is built (``q`` needs
``--network q``, ``ac`` needs ``--network ac``). Unset optimiser flags take
the book's values for the learner (docs/rl.md). ``--toy`` runs the book's
"Add It Up" game instead (section 10.1). The three actions are
module-level objects with ``add_arguments(parser)`` and ``run(args)``, named
in ``fuseki.commands.train.ACTIONS``.
"""

from __future__ import annotations

import argparse
import sys
import types
from typing import Any

from fuseki.cli import UserError, int_at_least, positive_float
from fuseki.util.progress import print_json


def _nonnegative_float(text: str) -> float:
    from fuseki.commands.train import _nonnegative_float as parse

    return parse(text)


def _net_option(text: str) -> tuple[str, Any]:
    from fuseki.commands.train import _net_option as parse

    return parse(text)


def _common_arguments(parser: argparse.ArgumentParser, kind: str, book: Any) -> None:
    network = {"policy": "a policy network: fc, cnn, small, medium, large, residual", "q": "q", "ac": "ac"}[kind]
    parser.add_argument(
        "experience", nargs="*", metavar="EXPERIENCE", help="experience files (.npz) or `fuseki selfplay` folders"
    )
    parser.add_argument("--from", dest="start", metavar="FILE", default=None, help="the agent file to continue")
    parser.add_argument("--network", default=None, help=f"a fresh network: {network}")
    parser.add_argument("--encoder", default=None, help="a fresh network's encoder (oneplane, sevenplane, simple, ...)")
    parser.add_argument("--size", type=int_at_least(2), default=None, help="a fresh network's board size")
    parser.add_argument(
        "--net-option", dest="net_options", action="append", type=_net_option, default=[], metavar="K=V",
        help="a fresh network's option, e.g. board_hidden=64 or layers=[[32,3]] (repeatable)",
    )
    parser.add_argument("--out", default=None, metavar="FILE", help="the agent file to write (.safetensors)")
    parser.add_argument("--lr", type=positive_float, default=None, help=f"learning rate (default {book.lr:g}, the book's)")
    clip = "off" if book.clipnorm is None else f"{book.clipnorm:g}"
    parser.add_argument(
        "--clipnorm", type=_nonnegative_float, default=None, help=f"gradient norm limit, 0 for none (default {clip})"
    )
    parser.add_argument("--batch-size", type=int_at_least(1), default=None, help=f"default {book.batch_size}")
    parser.add_argument("--epochs", type=int_at_least(1), default=None, help=f"passes over the experience (default {book.epochs})")
    parser.add_argument("--seed", type=int, default=0, help="seed of fresh weights and of the data order (default 0)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"), help="default auto")
    parser.add_argument(
        "--init", action="store_true",
        help="only write the fresh network, untrained, to --out: a first agent for self-play (the book's init_ac_agent.py)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object (last line)")


def _config(args: argparse.Namespace) -> Any:
    from fuseki.train.policy_gradient import RLTrainConfig, experience_paths

    if args.init and args.experience:
        raise UserError("--init writes an untrained agent file; it takes no experience")
    if not args.experience and not args.init:
        raise UserError("give at least one experience file (or a `fuseki selfplay` folder), or --init")
    if not args.out:
        raise UserError("give --out FILE, the agent file to write")
    fresh = [flag for flag, value in (("--network", args.network), ("--encoder", args.encoder), ("--size", args.size))
             if value is not None]
    if args.start is not None and (fresh or args.net_options):
        raise UserError("--from continues an agent file; --network, --encoder, --size and --net-option make a fresh one")
    if args.start is None and len(fresh) < 3:
        missing = [f for f in ("--network", "--encoder", "--size") if f not in fresh]
        raise UserError(f"give --from FILE, or a fresh network with --network, --encoder and --size (missing {', '.join(missing)})")
    options: dict[str, Any] = {}
    for key, value in args.net_options:
        if key in options:
            raise UserError(f"--net-option {key} is given twice")
        options[key] = value
    return RLTrainConfig(
        experience=experience_paths(args.experience),
        init=args.init,
        out=args.out,
        start=args.start,
        network=args.network,
        encoder=args.encoder,
        size=args.size,
        net_options=options,
        lr=args.lr,
        clipnorm=args.clipnorm,
        batch_size=args.batch_size,
        epochs=args.epochs,
        seed=args.seed,
        device=args.device,
    )


def _progress(args: argparse.Namespace) -> Any:
    def show(event: dict[str, Any]) -> None:
        if args.quiet:
            return
        if event["event"] == "start":
            clip = event["clipnorm"] if event["clipnorm"] else "off"
            line = (
                f"training {'an' if event['kind'] == 'ac' else 'a'} {event['kind']} agent"
                f" on {event['positions']:,} decisions from {event['games']:,} games "
                f"on {event['device']}, starting from {event['start']} (lr {event['lr']:g}, batch {event['batch_size']}, "
                f"clipnorm {clip})"
            )
        else:
            parts = ", ".join(f"{k} {event[k]:.4f}" for k in ("loss", "policy_loss", "value_loss") if k in event)
            line = f"epoch {event['epoch']}/{event['epochs']}: {parts} ({event['seconds']:.1f} s)"
        print(line, file=sys.stderr, flush=True)

    return show


def _run_learner(args: argparse.Namespace, train: Any, kind: str) -> int:
    from fuseki.agents.agent_file import AgentFileError
    from fuseki.data.experience import ExperienceError

    config = _config(args)
    if config.init:
        from fuseki.train.policy_gradient import init_agent

        origin = init_agent(config, kind)
        if args.json:
            print_json({"out": config.out, "kind": kind, "start": origin, "trained": False}, sort_keys=True)
        else:
            print(f"{config.out}: an untrained {kind} agent ({origin})")
        return 0
    try:
        result = train(config, progress=_progress(args))
    except (ExperienceError, AgentFileError) as e:
        raise UserError(str(e)) from None
    if args.json:
        print_json(result.to_dict(), sort_keys=True)
    else:
        print(result.describe())
    return 0


# ---- pg (and the toy) ------------------------------------------------------------------


def _add_pg_arguments(parser: argparse.ArgumentParser) -> None:
    from fuseki.train.policy_gradient import PG_BOOK

    _common_arguments(parser, "policy", PG_BOOK)
    parser.add_argument("--toy", action="store_true", help="run the book's Add It Up game (section 10.1) instead")
    parser.add_argument("--toy-games", type=int_at_least(1), default=3000, help="--toy: games to play (default 3000)")
    parser.add_argument(
        "--toy-method", choices=("book", "gradient"), default="book",
        help="--toy: the book's counting update (listing 10.4) or the policy-gradient loss with SGD (default book)",
    )
    parser.add_argument("--plot", metavar="PNG", default=None, help="--toy: also draw the policy curves")


def _run_pg(args: argparse.Namespace) -> int:
    if args.toy:
        return _run_toy(args)
    if args.plot is not None:
        raise UserError("--plot is for --toy")
    from fuseki.train.policy_gradient import train_policy_gradient

    return _run_learner(args, train_policy_gradient, "policy")


def _run_toy(args: argparse.Namespace) -> int:
    from fuseki.train.add_it_up import train_add_it_up

    used = [f for f, v in (("EXPERIENCE", args.experience), ("--from", args.start), ("--network", args.network),
                           ("--init", args.init),
                           ("--out", args.out), ("--clipnorm", args.clipnorm), ("--batch-size", args.batch_size),
                           ("--epochs", args.epochs)) if v]
    if used:
        raise UserError(f"--toy plays Add It Up; it takes no {', '.join(used)}")
    result = train_add_it_up(args.toy_games, lr=args.lr, seed=args.seed, method=args.toy_method)
    curve = result.expected
    if args.plot:
        _plot(result, args.plot)
    if args.json:
        print_json(result.to_dict(every=max(1, args.toy_games // 20)), sort_keys=True)
        return 0
    step = max(1, args.toy_games // 10)
    print(f"Add It Up ({result.method} update, lr {result.lr:g}, seed {result.seed}): expected pick per turn")
    for g in list(range(0, args.toy_games + 1, step)) + ([args.toy_games] if args.toy_games % step else []):
        probs = " ".join(f"{p:.3f}" for p in result.policies[g])
        print(f"  after {g:6d} games: {curve[g]:.3f}   policy for 1..5: {probs}")
    if args.plot:
        print(f"curves: {args.plot}")
    return 0


def _plot(result: Any, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fuseki.util.atomic import write_atomic

    fig, ax = plt.subplots(figsize=(7, 4))
    for k in range(5):
        ax.plot(result.policies[:, k], label=f"pick {k + 1}")
    ax.set_xlabel("games")
    ax.set_ylabel("probability")
    ax.set_title(f"Add It Up: {result.method} update, lr {result.lr:g} (book fig. 10.2)")
    ax.legend()
    fig.tight_layout()
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=100))
    plt.close(fig)


# ---- q and ac ----------------------------------------------------------------------------


def _add_q_arguments(parser: argparse.ArgumentParser) -> None:
    from fuseki.train.q_learning import Q_BOOK

    _common_arguments(parser, "q", Q_BOOK)


def _run_q(args: argparse.Namespace) -> int:
    from fuseki.train.q_learning import train_q_learning

    return _run_learner(args, train_q_learning, "q")


def _add_ac_arguments(parser: argparse.ArgumentParser) -> None:
    from fuseki.train.actor_critic import AC_BOOK

    _common_arguments(parser, "ac", AC_BOOK)


def _run_ac(args: argparse.Namespace) -> int:
    from fuseki.train.actor_critic import train_actor_critic

    return _run_learner(args, train_actor_critic, "ac")


#: ``fuseki train pg``: policy gradient (ch. 10), or ``--toy`` for Add It Up.
pg = types.SimpleNamespace(add_arguments=_add_pg_arguments, run=_run_pg)
#: ``fuseki train q``: Q-learning (ch. 11).
q = types.SimpleNamespace(add_arguments=_add_q_arguments, run=_run_q)
#: ``fuseki train ac``: actor-critic (ch. 12).
ac = types.SimpleNamespace(add_arguments=_add_ac_arguments, run=_run_ac)
