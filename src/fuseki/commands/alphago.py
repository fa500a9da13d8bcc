"""AlphaGo (book ch. 13): ``fuseki alphago train``, the whole training pipeline in one resumable folder,
and ``fuseki alphago model``, a model folder of networks trained elsewhere.

::

    fuseki alphago train --out DIR --corpus SGF_DIR [--corpus SGF_DIR ...] [--size 9] [--stop-after STAGE]
        [--workers W] [--device auto|cpu|cuda|mps] [--seed S] [stage settings ...] [--json] [--quiet]
    fuseki alphago model --policy FILE --out DIR [--value FILE] [--rollout FILE] [--komi K] [--rules R] [--json]

Stages: data (48-plane shards), rollout (the fast rollout policy), sl (the SL
policy network), rl (policy gradient by self-play, from the SL policy),
value_data (one position per self-play game) and value (the value network).
DIR/alphago.json holds the settings and every finished stage's metrics,
DIR/metrics.md the table beside the paper's, and DIR/model.json makes DIR a
model for ``--bot alphago --model DIR``. Rerunning the command resumes a
killed run at the stage it reached. ``model`` copies a 48-plane AlphaGo
policy agent file (and a value network and rollout policy when given) into
DIR and writes its model.json (:mod:`fuseki.agents.alphago_folder`); a
policy-only model plays with ``lam=0, rollout=heavy``. See docs/alphago.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from fuseki.cli import UserError, int_at_least, komi, positive_float


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    p = sub.add_parser(
        "train",
        help="run (or resume) the training pipeline in a folder",
        description="AlphaGo's training pipeline in a resumable run folder",
    )
    from fuseki.train.alphago.pipeline import STAGES, AlphaGoSettings

    d = AlphaGoSettings.__dataclass_fields__
    p.add_argument("--out", required=True, metavar="DIR", help="the run folder (alphago.json, metrics.md, model.json)")
    p.add_argument(
        "--corpus", action="append", required=True, metavar="SGF_DIR", help="SGF folders or archives to learn from (repeat for several)"
    )
    p.add_argument("--size", type=int_at_least(2), default=9, help="board size (default 9)")
    p.add_argument("--komi", type=komi, default=7.5, help="komi of the self-play games (default 7.5)")
    p.add_argument("--rules", default="chinese", type=str.lower, help="rule set (default chinese)")
    p.add_argument(
        "--players", default=None, metavar="REGEX", help="learn only the moves of players whose names match (e.g. 'level (8|9|10)$|mcts')"
    )
    p.add_argument("--seed", type=int, default=0, help="every split, game and batch order derives from it (default 0)")
    p.add_argument("--stop-after", choices=STAGES, default=None, help="stop after this stage (default: run them all)")
    p.add_argument("--workers", type=int_at_least(1), default=1, help="processes for encoding and self-play (default 1)")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"), help="for training (default auto)")
    p.add_argument("--json", action="store_true", help="end with the run's state as one line of JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")

    def default(name: str) -> object:
        return d[name].default

    g = p.add_argument_group("rollout policy")
    g.add_argument("--rollout-epochs", type=int_at_least(1), default=default("rollout_epochs"))
    g.add_argument("--rollout-lr", type=positive_float, default=default("rollout_lr"))
    g = p.add_argument_group("SL policy (the paper: 13 layers, 192 filters)")
    g.add_argument("--sl-layers", type=int_at_least(2), default=default("sl_layers"))
    g.add_argument("--sl-filters", type=int_at_least(1), default=default("sl_filters"))
    g.add_argument("--sl-epochs", type=int_at_least(1), default=default("sl_epochs"))
    g.add_argument("--sl-batch-size", type=int_at_least(1), default=default("sl_batch_size"))
    g.add_argument("--sl-lr", type=positive_float, default=default("sl_lr"))
    g.add_argument("--sl-max-batches", type=int_at_least(1), default=None, help="cut every epoch to this many batches")
    g = p.add_argument_group("RL policy")
    g.add_argument("--rl-rounds", type=int_at_least(1), default=default("rl_rounds"))
    g.add_argument("--rl-games", type=int_at_least(1), default=default("rl_games"), help="self-play games a round")
    g.add_argument("--rl-eval-games", type=int_at_least(1), default=default("rl_eval_games"))
    g.add_argument("--rl-lr", type=positive_float, default=default("rl_lr"))
    g = p.add_argument_group("value network")
    g.add_argument("--value-games", type=int_at_least(1), default=default("value_games"), help="self-play games, one position each")
    g.add_argument("--value-chunk-games", type=int_at_least(1), default=default("value_chunk_games"))
    g.add_argument("--value-layers", type=int_at_least(2), default=None, help="default: --sl-layers")
    g.add_argument("--value-filters", type=int_at_least(1), default=None, help="default: --sl-filters")
    g.add_argument("--value-hidden", type=int_at_least(1), default=default("value_hidden"))
    g.add_argument("--value-epochs", type=int_at_least(1), default=default("value_epochs"))
    g.add_argument("--value-batch-size", type=int_at_least(1), default=default("value_batch_size"))
    g.add_argument("--value-lr", type=positive_float, default=default("value_lr"))

    m = sub.add_parser(
        "model",
        help="make a model folder from a policy agent file (value network and rollout policy optional)",
        description="make an AlphaGo model folder (model.json and copies of the files) from networks trained elsewhere",
    )
    m.add_argument("--policy", required=True, metavar="FILE", help="the SL policy: an agent file on the alphago encoder (48 planes)")
    m.add_argument("--out", required=True, metavar="DIR", help="the model folder to make (must not hold a model yet)")
    m.add_argument("--value", default=None, metavar="FILE", help="a value network agent file (49 planes); without it: lam=0 only")
    m.add_argument("--rollout", default=None, metavar="FILE", help="a rollout policy file; without it: rollout=heavy or light")
    m.add_argument("--komi", type=komi, default=7.5, help="komi recorded in model.json (default 7.5)")
    m.add_argument("--rules", default="chinese", type=str.lower, help="rule set recorded in model.json (default chinese)")
    m.add_argument("--note", default=None, help="a line for model.json's note")
    m.add_argument("--json", action="store_true", help="print model.json as one line of JSON")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) is None:
        raise UserError("give an action: train or model")
    from fuseki.go.rules import PRESETS

    if args.rules not in PRESETS:
        raise UserError(f"--rules: unknown rule set {args.rules!r}; known: {', '.join(sorted(PRESETS))}")
    if args.action == "model":
        return _run_model(args)
    from fuseki.train.alphago.pipeline import AlphaGoSettings, metrics_table, run_pipeline
    from fuseki.util.progress import print_json
    from fuseki.util.runs import RunFolderBusy, RunMismatch

    settings = AlphaGoSettings(
        corpora=tuple(args.corpus),
        size=args.size,
        komi=args.komi,
        rules=args.rules,
        players=args.players,
        seed=args.seed,
        rollout_epochs=args.rollout_epochs,
        rollout_lr=args.rollout_lr,
        sl_layers=args.sl_layers,
        sl_filters=args.sl_filters,
        sl_epochs=args.sl_epochs,
        sl_batch_size=args.sl_batch_size,
        sl_lr=args.sl_lr,
        sl_max_batches=args.sl_max_batches,
        rl_rounds=args.rl_rounds,
        rl_games=args.rl_games,
        rl_eval_games=args.rl_eval_games,
        rl_lr=args.rl_lr,
        value_games=args.value_games,
        value_chunk_games=args.value_chunk_games,
        value_layers=args.value_layers,
        value_filters=args.value_filters,
        value_hidden=args.value_hidden,
        value_epochs=args.value_epochs,
        value_batch_size=args.value_batch_size,
        value_lr=args.value_lr,
    )
    command = shlex.join(["fuseki", *sys.argv[1:]]) if sys.argv[1:2] == ["alphago"] else None

    def say(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    try:
        state = run_pipeline(
            settings, args.out, stop_after=args.stop_after, workers=args.workers, device=args.device, progress=say, command=command
        )
    except (RunMismatch, RunFolderBusy) as e:
        raise UserError(str(e)) from None
    print(metrics_table(state), end="")
    if args.json:
        print_json(state, sort_keys=True)
    return 0


def _run_model(args: argparse.Namespace) -> int:
    from fuseki.agents.alphago_folder import make_model_folder
    from fuseki.util.progress import print_json

    manifest = make_model_folder(
        args.out, args.policy, value=args.value, rollout=args.rollout, komi=args.komi, rules=args.rules, note=args.note
    )
    n = manifest["board_size"]
    files = manifest["files"]
    plays = f"lam={0.5 if 'value' in files else 0:g}, rollout={'policy' if 'rollout' in files else 'heavy'}"
    boards = "every board size" if manifest.get("any_size") else f"{n}x{n}"
    print(f"{args.out}: an AlphaGo model for {boards} of {', '.join(files)}; it plays {plays} by default")
    print(f"play it: fuseki play --size {n} --bot alphago --model {shlex.quote(str(args.out))}")
    if args.json:
        print_json(manifest, sort_keys=True)
    return 0
